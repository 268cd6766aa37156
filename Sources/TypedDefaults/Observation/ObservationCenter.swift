/// Finds any backend's observer registry: the library's own backends keep it in a property; any
/// other backend gets one from a side table keyed by `ObjectIdentifier`, whose entries hold the
/// backend weakly and go when it does.
enum ObservationCenter {
  // @unchecked Sendable: `backend` is a weak reference set once, in `init`; the registry is
  // Sendable.
  private final class Entry: @unchecked Sendable {
    weak var backend: (any SettingsBackend)?
    let registry: ObserverRegistry
    init(_ backend: any SettingsBackend) {
      self.backend = backend
      // A backend without its own `updateValues` is updated by a read, a transform and a write
      // (`SettingsBackends`): every write the library makes to it takes the ordering lock, so
      // that none comes between.
      registry = ObserverRegistry(serializesWrites: !(backend is any MultiKeyUpdatingBackend))
    }
  }

  private struct Table {
    var entries: [ObjectIdentifier: Entry] = [:]
    var sweepThreshold = 16
  }

  private static let table = Locked(Table())

  /// The registry of `backend`, created on first use.
  static func registry(for backend: any SettingsBackend) -> ObserverRegistry {
    if let backend = backend as? any OwnsObserverRegistry { return backend.observers }
    return table.withLock { table in
      let id = ObjectIdentifier(backend)
      if let entry = table.entries[id], entry.backend === backend { return entry.registry }
      // A dead backend's identifier can be reused by a new object: replace its entry.
      if table.entries.count >= table.sweepThreshold {
        table.entries = table.entries.filter { $0.value.backend != nil }
        table.sweepThreshold = max(16, table.entries.count * 2)
      }
      let entry = Entry(backend)
      table.entries[id] = entry
      return entry.registry
    }
  }

  /// The registry of `backend` if it has one already (publishing to a backend nobody observes
  /// creates nothing).
  static func existingRegistry(for backend: any SettingsBackend) -> ObserverRegistry? {
    if let backend = backend as? any OwnsObserverRegistry { return backend.observers }
    return table.withLock { table in
      guard let entry = table.entries[ObjectIdentifier(backend)], entry.backend === backend else {
        return nil
      }
      return entry.registry
    }
  }

  /// Reports changes of `keys` of `backend` (``ObserverRegistry/report(_:of:)``).
  static func report<Keys: Sequence<String>>(_ keys: Keys, of backend: any SettingsBackend) {
    existingRegistry(for: backend)?.report(keys, of: backend)
  }

  /// Runs `write`, a change of `keys` made through the library, and tells `backend`'s observers
  /// of it: itself, for a backend that publishes its own changes; through
  /// ``ObserverRegistry/recordingWrite(_:of:_:)`` for any other, so that racing writes each
  /// deliver the value they left, in the order they took effect.
  ///
  /// On a backend outside the library that doesn't adopt ``MultiKeyUpdatingBackend``, `write`
  /// always runs holding the registry's ordering lock (created on the first write), observed or
  /// not: the library's updates of such a backend (``SettingsBackends``) read, transform and
  /// write under that lock, and no write made through the library comes between. The lock is
  /// reentrant per thread; `write` must not wait for another thread that writes the backend.
  ///
  /// - Parameters:
  ///   - keys: The keys `write` changes, as `backend` stores them.
  ///   - backend: The backend written. A ``ScopedBackend`` view reports its writes to its base
  ///     itself, so `write` just runs.
  ///   - write: The write.
  /// - Throws: What `write` throws; nothing is reported then.
  static func writing<Failure: Error>(
    _ keys: some Collection<String>, to backend: any SettingsBackend,
    _ write: () throws(Failure) -> Void
  ) throws(Failure) {
    if backend is any PublishesOwnChanges { return try write() }
    if let registry = existingRegistry(for: backend) {
      return try registry.recordingWrite(keys, of: backend, write)
    }
    if !(backend is any MultiKeyUpdatingBackend) {
      return try registry(for: backend).recordingWrite(keys, of: backend, write)
    }
    try write()
    // Observed meanwhile: the new observer's baseline may predate the write.
    existingRegistry(for: backend)?.report(keys, of: backend)
  }
}
