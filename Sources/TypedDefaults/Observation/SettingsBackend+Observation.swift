extension SettingsBackend {
  // MARK: - Callbacks

  /// Calls `handler` after each change of one key's effective value.
  ///
  /// ```swift
  /// let token = backend.observe(key: "volume") { change in
  ///   print("volume is now", change.newValue ?? "unset")
  /// }
  /// ```
  ///
  /// Every backend supports this, the ones you write included: writes made through the library
  /// (a ``Setting``, a model's `resetAll()`, and any call on the library's own backends) are
  /// observed in-process with nothing to implement; a backend that learns of changes some other
  /// way tells its observers with ``reportChanges(forKeys:)``. See <doc:ObservingChanges> for
  /// every rule; in short:
  ///
  /// - One change, one call: each write that changes the key's effective value calls `handler`
  ///   once, with the value that write left, even when writers race; writing the value the key
  ///   already holds calls nothing.
  /// - Calls for one observation never overlap and follow the order the writes took effect, so a
  ///   value is never older than one already delivered.
  /// - `handler` runs on the thread that made the change (usually within the write call, before
  ///   it returns), outside every lock of the backend: it may read and write the backend. It is
  ///   `@Sendable` and may run on any thread; hop to the main actor yourself if you need it.
  ///
  /// The counterpart of key-value observing a `UserDefaults` key, or of
  /// `NotificationCenter.addObserver(forName:object:queue:using:)` with a `nil` queue, for one
  /// key. Thread-safe: register and cancel from any thread.
  ///
  /// - Parameters:
  ///   - key: The key to observe, spelled as it is written (dots, spaces, a leading `@` and
  ///     non-ASCII characters are fine).
  ///   - initial: Whether to call `handler` at once with the key's current value (`nil` if it
  ///     has none) before any change; `false` by default, so registering delivers nothing.
  ///   - handler: Called with each change.
  /// - Returns: A token that keeps the observation alive; cancel or release it to stop.
  public func observe(
    key: String,
    initial: Bool = false,
    _ handler: @escaping @Sendable (SettingsChange) -> Void
  ) -> ObservationToken {
    observe(registering: [observationKey(key)], initial: initial, handler)
  }

  /// Calls `handler` after each change of any of several keys' effective values.
  ///
  /// The rules of ``observe(key:initial:_:)`` apply per key; changes of different keys arrive
  /// in the order they were published.
  ///
  /// - Parameters:
  ///   - keys: The keys to observe.
  ///   - initial: Whether to call `handler` at once with each key's current value, in key order,
  ///     before any change; `false` by default.
  ///   - handler: Called with each change.
  /// - Returns: A token that keeps the observation alive; cancel or release it to stop.
  public func observe(
    keys: some Sequence<String>,
    initial: Bool = false,
    _ handler: @escaping @Sendable (SettingsChange) -> Void
  ) -> ObservationToken {
    observe(registering: Set(keys.map(observationKey)), initial: initial, handler)
  }

  /// Calls `handler` after each change of any key's effective value.
  ///
  /// The rules of ``observe(key:initial:_:)`` apply per key. Registering reads a snapshot of the
  /// backend (``dictionaryRepresentation()``), the values changes are compared with.
  ///
  /// - Parameter handler: Called with each change.
  /// - Returns: A token that keeps the observation alive; cancel or release it to stop.
  public func observeAllKeys(
    _ handler: @escaping @Sendable (SettingsChange) -> Void
  ) -> ObservationToken {
    observe(registering: nil, initial: false, handler)
  }

  // MARK: - Asynchronous sequences

  /// The changes of one key's effective value, as an asynchronous sequence.
  ///
  /// ```swift
  /// for await change in backend.changes(forKey: "volume", initial: true) {
  ///   print("volume:", change.newValue ?? "unset")
  /// }
  /// ```
  ///
  /// Observation starts when iteration does. The buffer holds at most the newest change per key
  /// (see ``SettingsChanges``); cancelling the consuming task ends the loop. The counterpart of
  /// `NotificationCenter.notifications(named:)` for one key. Thread-safe: the sequence is
  /// `Sendable`, and each iterator is its own observation.
  ///
  /// - Parameters:
  ///   - key: The key to observe.
  ///   - initial: Whether the first element is the key's value when iteration starts; `false`
  ///     by default.
  /// - Returns: The sequence of changes.
  public func changes(forKey key: String, initial: Bool = false) -> SettingsChanges {
    SettingsChanges(backend: self, keys: [observationKey(key)], initial: initial)
  }

  /// The changes of several keys' effective values, as an asynchronous sequence.
  ///
  /// - Parameters:
  ///   - keys: The keys to observe.
  ///   - initial: Whether the first elements are the keys' values when iteration starts, one per
  ///     key in key order; `false` by default.
  /// - Returns: The sequence of changes.
  public func changes(
    forKeys keys: some Sequence<String>, initial: Bool = false
  )
    -> SettingsChanges
  {
    SettingsChanges(backend: self, keys: Set(keys.map(observationKey)), initial: initial)
  }

  /// The changes of every key's effective value, as an asynchronous sequence.
  ///
  /// - Returns: The sequence of changes.
  public func changes() -> SettingsChanges {
    SettingsChanges(backend: self, keys: nil, initial: false)
  }

  // MARK: - Reporting

  /// Tells this backend's observers that some keys may have changed by a way the library doesn't
  /// see: the one entry point for changes from outside (another process, a file watch, a sync
  /// service, a backend's own reload).
  ///
  /// Reads each key's current value with ``value(forKey:)`` and delivers it to the key's
  /// observers whose last value differs, so reporting a key that didn't change delivers nothing
  /// and reporting too many keys is safe. The read is ordered with the library's own writes of
  /// the backend, so an observer still never gets a value older than one it has; but several
  /// outside changes made before one report arrive as one event, with the value read. Call it
  /// after the new values are readable and with no lock of the backend held: observers run on the
  /// calling thread before this returns. Keys no one observes cost a dictionary lookup each.
  ///
  /// `LayeredPlistStore.reload()` and the library's writes call it for you. Writes through a
  /// ``Setting`` (or a ``ScopedBackend`` view, an import, a migration) report themselves on every
  /// backend, each with the value it left: on a backend you write, the library holds a lock of
  /// the backend's observers around such a write and the read of its value, so racing writes each
  /// deliver their own event.
  ///
  /// Thread-safe. ``value(forKey:)`` must not itself call this method.
  ///
  /// - Parameter keys: The keys whose value may have changed, as the backend stores them.
  public func reportChanges(forKeys keys: some Sequence<String>) {
    if let view = self as? any BackendView {
      return view.base.reportChanges(forKeys: keys.map(view.baseKey(forKey:)))
    }
    ObservationCenter.report(keys, of: self)
  }

  // MARK: - Internals

  /// The key observers of `key` are registered under: normalized on a store that normalizes
  /// (``NormalizesKeys``).
  func observationKey(_ key: String) -> String {
    (self as? any NormalizesKeys)?.normalizedKey(key) ?? key
  }

  /// Registers an observer of `keys` (`nil`: all keys).
  ///
  /// - Parameters:
  ///   - keys: The keys to observe; `nil` for every key.
  ///   - initial: Deliver each observed key's current value first.
  ///   - retaining: Whether the token keeps the backend alive (it does, but for Swift
  ///     Observation's tracking of a setting read through a test's backend).
  ///   - handler: Called with each change.
  /// - Returns: The token that keeps the observation alive; cancelling or releasing it stops
  ///   the deliveries.
  func observe(
    registering keys: Set<String>?,
    initial: Bool,
    retaining: Bool = true,
    _ handler: @escaping @Sendable (SettingsChange) -> Void
  ) -> ObservationToken {
    if let view = self as? any BackendView {
      return view.observeThroughBase(
        registering: keys, initial: initial, retaining: retaining, handler)
    }
    let registry = ObservationCenter.registry(for: self)
    let observer = Observer(keys: keys, deliver: handler)
    let token =
      retaining
      ? ObservationToken(observer: observer, registry: registry, backend: self)
      : ObservationToken(observer: observer, registry: registry, unretained: self)
    registry.register(observer, on: self, initial: initial)
    return token
  }
}
