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

  /// Whether the process is ending: the handlers are running at exit or on a termination
  /// signal, so a failed save's changes are lost rather than kept for a later save.
  private static let ending = Locked(false)

  /// Whether the handlers are running because the process is ending (see ``runNow()``).
  package static var isEnding: Bool { ending.withLock { $0 } }

  /// Runs every handler now, the process ending: on a termination signal, before it is raised
  /// again (`LayeredPlistStore.saveOnTermination`).
  package static func runNow() {
    ending.withLock { $0 = true }
    let actions = handlers.withLock { Array($0.values) }
    for action in actions { action() }
  }

  private static func runAll() { runNow() }
}
