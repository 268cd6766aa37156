// How the layered store takes part in observation: it records each observed change, with the
// value it leaves, under its own lock (see ``ObserverRegistry`` and
// ``LayeredPlistStore/changingState(_:)``), and knows under that lock whether a key is observed
// (`ValueCell.observed`, `observesAllKeys`), so that a write nobody observes costs nothing more.

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
}
