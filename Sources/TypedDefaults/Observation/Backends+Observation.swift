// How the library's own backends take part in observation. Each publishes its changes itself,
// after releasing its lock; the in-memory and layered stores keep their registry in a stored
// property and know, under their own lock, whether a key is observed (`ValueCell.observed`,
// `observesAllKeys`), so that a write nobody observes costs nothing more.

extension InMemoryBackend: OwnsObserverRegistry, ObservationFlagging {
  func setObserved(_ observed: Bool, forKey key: String) {
    let cell = cell(forKey: key)
    storage.withLock { _ in cell.observed = observed }
  }

  func setObservesAllKeys(_ observed: Bool) {
    storage.withLock { $0.observesAllKeys = observed }
  }
}

extension LayeredPlistStore: OwnsObserverRegistry, ObservationFlagging {
  func setObserved(_ observed: Bool, forKey key: String) {
    state.withLock { $0.cell(forKey: key).observed = observed }
  }

  func setObservesAllKeys(_ observed: Bool) {
    state.withLock { $0.observesAllKeys = observed }
  }

  /// Changes the state under its lock, then publishes the keys whose effective value changed
  /// (``State/resolve(_:)`` collects the observed ones), once the lock is released.
  func changingState<Result, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let (result, changed) = try state.withLock {
      state throws(Failure) -> (Result, [String]) in
      defer { state.observedChanges.removeAll() }
      let result = try body(&state)
      return (result, state.observedChanges)
    }
    if !changed.isEmpty { observers.publish(changed, of: self) }
    return result
  }
}

// UserDefaultsBackend reports its writes itself (see its mutation sites), through the side table.
extension UserDefaultsBackend: PublishesOwnChanges {}
