/// A backend that changes one key's value from its current one as one step no other writer can
/// come between: a counter, a list appended to.
///
/// A plain read followed by a write can lose another writer's change made in between (another
/// thread, or another process saving the same file); ``update(forKey:_:)`` can't. The
/// counterpart of a compare-and-swap loop on one key, or of swift-sharing's
/// `Shared.withLock(_:)`.
///
/// ```swift
/// try backend.update(forKey: "launchCount") { .integer(.init(($0?.intValue ?? 0) + 1)) }
/// ```
///
/// ``InMemoryBackend``, `LayeredPlistStore` and ``UserDefaultsBackend`` adopt it; so does every
/// ``ScopedBackend`` view, whatever its base (see ``ScopedBackend/update(forKey:_:)``): its
/// update is its base's where the base adopts this protocol. Over a base that doesn't, it is a
/// read, `transform` and a write run as one write through the library, which no other write
/// made through the library comes between; a write made to the base directly (not through the
/// library) can come between and is then lost: it can't be held off without the base's help.
/// So `backend is any UpdatingBackend` promises one step against the library's writers, and
/// against every writer only where the backend isn't a view over a base lacking it. A
/// ``MultiKeyUpdatingBackend`` gets it for free.
///
/// ## Contract
///
/// - **One step.** `transform` is called once, with the key's current value (`nil` if none), and
///   its result is stored before any other write of the key (from this process, and for a
///   backend whose storage other processes write, from them too) takes effect. Eight tasks
///   each adding one to a counter a hundred times leave it 800 higher.
/// - **All or nothing.** When `transform` throws, or its result can't be stored, nothing changes
///   and the error is rethrown.
/// - **Returns** the value stored (as the backend stores it; `nil` if the key was removed),
///   which is what ``SettingsBackend/value(forKey:)`` returns until the next write.
/// - **Thread safety.** Callable from any thread at the same time as every other requirement.
///   `transform` may run holding the backend's locks: it must be short and must not use the
///   backend.
/// - **Observation.** As for ``SettingsBackend/setValue(_:forKey:)``: when the library calls
///   `update` (through a ``ScopedBackend`` view), it reports the change to the key's observers
///   itself, once; a backend that publishes its own changes doesn't get a second report.
///
/// A backend that can't make it one step against every writer says so in its documentation
/// (``UserDefaultsBackend`` on Apple platforms, where the system owns the file, reads and
/// writes with no lock between processes).
///
/// ## Writing your own
///
/// Hold the lock your ``SettingsBackend/setValue(_:forKey:)`` takes around reading the value,
/// calling `transform` and storing its result, and check the result as `setValue` does. A
/// backend whose storage other processes write takes its cross-process lock (a file lock, a
/// database transaction) too. Adopting ``MultiKeyUpdatingBackend`` instead gives a default
/// `update` built on ``MultiKeyUpdatingBackend/updateValues(_:)``. The `TypedDefaultsTesting`
/// conformance suite checks the contract when the backend under test adopts this protocol.
public protocol UpdatingBackend: SettingsBackend {
  /// Changes a key's value from its current one as one step no other write can come between.
  ///
  /// - Parameters:
  ///   - key: The key to change.
  ///   - transform: Given the key's current value (`nil` if none), returns the new value, or
  ///     `nil` to remove the key. Called once, maybe holding the backend's locks: keep it short,
  ///     and don't use the backend inside it.
  /// - Returns: The value stored, or `nil` if the key was removed.
  /// - Throws: What `transform` throws; what ``SettingsBackend/setValue(_:forKey:)`` throws for
  ///   its result; a backend that saves as it updates, what its save throws. Nothing changes
  ///   when this throws.
  @discardableResult
  func update(
    forKey key: String,
    _ transform: (PropertyListValue?) throws(SettingsError) -> PropertyListValue?
  ) throws(SettingsError) -> PropertyListValue?
}
