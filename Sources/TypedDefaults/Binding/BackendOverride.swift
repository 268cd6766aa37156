/// The backend every setting reads and writes in the current task, in place of its own: the
/// mechanism behind the test isolation of the `TypedDefaultsTesting` product
/// (`SettingsTesting.withBackend(_:operation:)`).
///
/// The override is a task-local value, so it holds for the task that installed it and every
/// child task and `Task {}` it starts (they inherit task-local values), and for no other task:
/// tests running in parallel each see their own. `Task.detached`, a Dispatch queue or a thread
/// started inside the scope do not inherit it and use the settings' own backends.
///
/// Reading a task-local value costs about 30 ns, as much as a whole setting read, so a setting
/// first checks a process-wide flag, set the first time any override is installed and never
/// cleared (a task started in a scope may outlive it and must still see the override). A
/// process that never installs one, every app, pays one relaxed atomic load per read (a plain load
/// on systems without `Atomic`).
@usableFromInline
package enum BackendOverride {
  /// The backend that replaces every setting's own in this task, if any.
  @usableFromInline @TaskLocal package static var current: (any SettingsBackend)?

  /// Whether an override may be installed in some task: `false` until the first override.
  ///
  /// - Parameter flag: The process's ``InstalledFlag`` (`installedFlag`), which each setting
  ///   keeps a reference to: loading it from a field costs less than a global's lazy-init check.
  /// - Returns: `false` until the first override is installed in the process; `true` from then
  ///   on (the flag is never cleared).
  @inlinable
  package static func mayBeActive(_ flag: (any AnyObject & Sendable)?) -> Bool {
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
      return unsafeDowncast(flag.unsafelyUnwrapped, to: InstalledFlag.self).isSet
    }
    return legacyInstalledFlag
  }

  /// Runs `operation` with `backend` replacing every setting's backend in this task and the
  /// tasks it starts.
  package static func withBackend<Result>(
    _ backend: any SettingsBackend,
    operation: () throws -> Result
  ) rethrows -> Result {
    markInstalled()
    return try $current.withValue(backend, operation: operation)
  }

  /// Runs `operation` with `backend` replacing every setting's backend in this task and the
  /// tasks it starts.
  package static func withBackend<Result>(
    _ backend: any SettingsBackend,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> Result
  ) async rethrows -> Result {
    markInstalled()
    return try await $current.withValue(backend, operation: operation, isolation: isolation)
  }

  /// The override as a setting or model bound to `own` sees it: scoped to the same prefix when
  /// `own` is a ``ScopedBackend``, so that keys mean the same in the test's backend.
  ///
  /// - Parameters:
  ///   - own: The setting's or model's own backend, if it has one.
  ///   - override: The test's backend.
  /// - Returns: `override` scoped to `own`'s prefix when `own` is a view; otherwise `override`.
  @usableFromInline
  static func seen(
    through own: (any SettingsBackend)?, _ override: any SettingsBackend
  ) -> any SettingsBackend {
    guard let view = own as? any BackendView else { return override }
    return override.scoped(to: view.prefix)
  }

  /// The backend a model's own operations (``SettingsModel``'s `migrate()`) use: the test's
  /// backend, seen through `own`, inside a scope; `own` outside.
  static func backend(for own: any SettingsBackend) -> any SettingsBackend {
    guard mayBeActive(installedFlag), let override = current else { return own }
    return seen(through: own, override)
  }

  static func markInstalled() {
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
      unsafeDowncast(installedFlag.unsafelyUnwrapped, to: InstalledFlag.self).set()
    } else {
      legacyInstalledFlag = true
    }
  }
}
