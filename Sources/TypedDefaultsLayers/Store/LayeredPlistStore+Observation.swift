// How the layered store takes part in observation: it offers each observed change, with the
// value it leaves, to the key's observers under its own lock (see ``ObserverRegistry`` and
// ``LayeredPlistStore/changingState(_:)``), and keeps each key's observers in the key's cell
// (`ValueCell.observers`, and `allKeysObservers` for those of every key), so that a write nobody
// observes costs nothing more and an observed one finds its observers with no lookup.

import TypedDefaults

extension LayeredPlistStore: RecordsOwnChanges {
  package func attach(_ observer: Observer, _ whileLocked: ([String: PropertyListValue?]) -> Void) {
    state.withLock { state in
      guard let keys = observer.keys else {
        whileLocked(state.effective.mapValues { .some($0.value) })
        state.allKeysObservers.append(observer)
        return
      }
      whileLocked(Dictionary(uniqueKeysWithValues: keys.map { ($0, state.effective[$0]?.value) }))
      for key in keys { state.cell(forKey: key).observers.append(observer) }
    }
  }

  package func detach(_ observer: Observer) {
    state.withLock { state in
      guard let keys = observer.keys else {
        state.allKeysObservers.removeAll { $0 === observer }
        return
      }
      for key in keys { state.cells[key]?.observers.removeAll { $0 === observer } }
    }
  }

  package func offerCurrentValues(of keys: [String]) -> ObserverClaims {
    let normalized = keys.map(normalizedKey)
    return state.withLock { state in
      var claims = ObserverClaims()
      for (key, normalized) in zip(keys, normalized) {
        let change = change(ofKey: normalized, in: state)
        // The key as reported: its observers registered it normalized, so that a key reported
        // otherwise reaches only the observers of every key.
        claims.offer(
          SettingsChange(key: key, newValue: change.newValue, valueIsSecret: change.valueIsSecret),
          to: state.cells[key]?.observers ?? [], state.allKeysObservers)
      }
      return claims
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
