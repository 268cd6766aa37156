// How the library's own backends take part in observation. The in-memory and layered stores
// record each observed change, with the value it leaves, under their own lock (see
// ``ObserverRegistry``), and deliver it once the lock is released; they keep their registry in a
// stored property and know, under their lock, whether a key is observed (`ValueCell.observed`,
// `observesAllKeys`), so that a write nobody observes costs nothing more.

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

extension LayeredPlistStore: RecordsOwnChanges {
  func setObserved(_ observed: Bool, forKey key: String) {
    state.withLock { $0.cell(forKey: key).observed = observed }
  }

  func setObservesAllKeys(_ observed: Bool) {
    state.withLock { $0.observesAllKeys = observed }
  }

  func observationBaseline(
    of keys: Set<String>?, _ whileLocked: () -> Void
  ) -> [String: PropertyListValue?] {
    state.withLock { state in
      whileLocked()
      guard let keys else { return state.effective.mapValues { .some($0.value) } }
      return Dictionary(uniqueKeysWithValues: keys.map { ($0, state.effective[$0]?.value) })
    }
  }

  func recordCurrentValues(of keys: [String]) {
    let normalized = keys.map(normalizedKey)
    state.withLock { state in
      observers.record(
        zip(keys, normalized).map { SettingsChange(key: $0, newValue: state.effective[$1]?.value) })
    }
  }

  /// Changes the state under its lock, then delivers the changes of the observed keys whose
  /// effective value changed (recorded under the lock, see ``changingStateUnpublished(_:)``), once
  /// the lock is released.
  func changingState<Result, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let (result, changed) = try changingStateUnpublished(body)
    publish(changed)
    return result
  }

  /// Changes the state under its lock and returns, with the result, the observed keys whose
  /// effective value changed, for the caller to ``publish(_:)`` once it holds no lock at all
  /// (`saveLock` included: an observer may save). Each such key's change is recorded before the
  /// lock is released, with the effective value the body left, so that changes reach observers
  /// in the order they took effect and each with its own value.
  func changingStateUnpublished<Result, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> (Result, [String]) {
    try state.withLock { state throws(Failure) -> (Result, [String]) in
      defer { state.observedChanges.removeAll() }
      let result = try body(&state)
      let changed = state.observedChanges
      if !changed.isEmpty {
        // A key resolved twice in one body changed once, to its last value, as others see it.
        var seen = Set<String>()
        observers.record(
          changed.filter { seen.insert($0).inserted }.map {
            SettingsChange(key: $0, newValue: state.effective[$0]?.value)
          })
      }
      return (result, changed)
    }
  }

  /// Delivers the changes recorded for `changed` (and any recorded before them); call it holding
  /// no lock of the store.
  func publish(_ changed: [String]) {
    if !changed.isEmpty { observers.deliverRecorded() }
  }
}

// UserDefaultsBackend reports its writes itself (see its mutation sites), to the registry every
// backend on its domain in the process shares, which orders them (`recordingWrite`).
extension UserDefaultsBackend: OwnsObserverRegistry {
  var observers: ObserverRegistry { shared.observers }
}
