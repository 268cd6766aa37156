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
        zip(keys, normalized).map { key, normalized in
          let change = change(ofKey: normalized, in: state)
          return SettingsChange(
            key: key, newValue: change.newValue, valueIsSecret: change.valueIsSecret)
        })
    }
  }

  /// The change a key's effective value in `state` makes.
  ///
  /// Marked secret when a layer holding secrets gives it. Called under the state lock.
  func change(ofKey key: String, in state: State) -> SettingsChange {
    let effective = state.effective[key]
    let isSecret =
      !secretLayers.isEmpty && effective.map { secretLayers.contains($0.layer) } == true
    return SettingsChange(key: key, newValue: effective?.value, valueIsSecret: isSecret)
  }
}
