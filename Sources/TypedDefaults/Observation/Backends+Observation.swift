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
    let (result, changed) = try changingStateUnpublished(body)
    publish(changed)
    return result
  }

  /// Changes the state under its lock and returns, with the result, the observed keys whose
  /// effective value changed, for the caller to ``publish(_:)`` once it holds no lock at all
  /// (`saveLock` included: an observer may save).
  func changingStateUnpublished<Result, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> (Result, [String]) {
    try state.withLock { state throws(Failure) -> (Result, [String]) in
      defer { state.observedChanges.removeAll() }
      let result = try body(&state)
      return (result, state.observedChanges)
    }
  }

  /// Tells observers of `changed`; call it holding no lock of the store.
  func publish(_ changed: [String]) {
    if !changed.isEmpty { observers.publish(changed, of: self) }
  }
}

// UserDefaultsBackend reports its writes itself (see its mutation sites), to the registry every
// backend on its domain in the process shares.
extension UserDefaultsBackend: OwnsObserverRegistry {
  var observers: ObserverRegistry { shared.observers }
}
