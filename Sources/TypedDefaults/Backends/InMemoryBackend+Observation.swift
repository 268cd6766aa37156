// How the in-memory backend takes part in observation. Like the layered store, it records each
// observed change, with the value it leaves, under its own lock (see ``ObserverRegistry``), and
// delivers it once the lock is released; it keeps its registry in a stored property and knows,
// under its lock, whether a key is observed (`ValueCell.observed`, `observesAllKeys`), so that a
// write nobody observes costs nothing more.

extension InMemoryBackend: RecordsOwnChanges {
  func setObserved(_ observed: Bool, forKey key: String) {
    let cell = cell(forKey: key)
    storage.withLock { _ in cell.observed = observed }
  }

  func setObservesAllKeys(_ observed: Bool) {
    storage.withLock { $0.observesAllKeys = observed }
  }

  func observationBaseline(
    of keys: Set<String>?, _ whileLocked: () -> Void
  ) -> [String: PropertyListValue?] {
    storage.withLock { storage in
      whileLocked()
      guard let keys else { return storage.cells.compactMapValues(\.value).mapValues { .some($0) } }
      return Dictionary(uniqueKeysWithValues: keys.map { ($0, storage.cells[$0]?.value) })
    }
  }

  func recordCurrentValues(of keys: [String]) {
    storage.withLock { storage in
      observers.record(keys.map { SettingsChange(key: $0, newValue: storage.cells[$0]?.value) })
    }
  }
}
