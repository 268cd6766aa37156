// How the in-memory backend takes part in observation. Like the layered store, it offers each
// observed change, with the value it leaves, to the key's observers under its own lock (see
// ``ObserverRegistry``), and delivers it once the lock is released; it keeps its registry in a
// stored property and each key's observers in the key's cell (`ValueCell.observers`, and
// `allKeysObservers` for those of every key), so that a write nobody observes costs nothing more
// and an observed one finds its observers with no lookup.

extension InMemoryBackend: RecordsOwnChanges {
  package func attach(_ observer: Observer, _ whileLocked: ([String: PropertyListValue?]) -> Void) {
    storage.withLock { storage in
      guard let keys = observer.keys else {
        whileLocked(storage.cells.compactMapValues(\.value).mapValues { .some($0) })
        storage.allKeysObservers.append(observer)
        return
      }
      whileLocked(Dictionary(uniqueKeysWithValues: keys.map { ($0, storage.cells[$0]?.value) }))
      for key in keys { storage.cell(forKey: key).observers.append(observer) }
    }
  }

  package func detach(_ observer: Observer) {
    storage.withLock { storage in
      guard let keys = observer.keys else {
        storage.allKeysObservers.removeAll { $0 === observer }
        return
      }
      for key in keys { storage.cells[key]?.observers.removeAll { $0 === observer } }
    }
  }

  package func offerCurrentValues(of keys: [String]) -> ObserverClaims {
    storage.withLock { storage in
      var claims = ObserverClaims()
      for key in keys {
        let cell = storage.cells[key]
        claims.offer(
          SettingsChange(key: key, newValue: cell?.value), to: cell?.observers ?? [],
          storage.allKeysObservers)
      }
      return claims
    }
  }
}
