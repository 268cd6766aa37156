#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Work to run when the process exits normally: by returning from `main` or calling `exit()`.
///
/// Not run when the process is killed by a signal or crashes. Used to flush `UserDefaults` and
/// save layered stores that still have unsaved changes.
package enum ExitHandlers {
  private static let handlers = Locked<[ObjectIdentifier: @Sendable () -> Void]>([:])
  private static let installed: Bool = {
    atexit { ExitHandlers.runAll() }
    return true
  }()

  /// Registers `action` to run at exit on behalf of `owner`, replacing any earlier one.
  ///
  /// The action should capture its owner weakly, so registering doesn't keep it alive.
  package static func register(_ owner: AnyObject, _ action: @escaping @Sendable () -> Void) {
    _ = installed
    handlers.withLock { $0[ObjectIdentifier(owner)] = action }
  }

  /// Removes `owner`'s action; call it from the owner's `deinit`.
  package static func unregister(_ owner: AnyObject) {
    _ = handlers.withLock { $0.removeValue(forKey: ObjectIdentifier(owner)) }
  }

  private static func runAll() {
    let actions = handlers.withLock { Array($0.values) }
    for action in actions { action() }
  }
}
