/// A library backend that publishes every change it makes, so that a ``Setting`` writing to it
/// publishes nothing more.
package protocol PublishesOwnChanges: SettingsBackend {}

/// A library backend that keeps its ``ObserverRegistry`` in a stored property, so finding it costs
/// no side-table lookup.
package protocol OwnsObserverRegistry: PublishesOwnChanges {
  /// The backend's observers.
  var observers: ObserverRegistry { get }
}

/// A library backend that records its own observed changes under its own lock (see
/// ``ObserverRegistry``): it keeps each key's observers in the key's cell (``ValueCell/observers``)
/// and the observers of every key beside its cells, so that a write finds them at no cost, and
/// offers each observed change to them in the critical section of the change
/// (``ObserverClaims/offer(_:to:_:)``), delivering once its lock is released.
package protocol RecordsOwnChanges: OwnsObserverRegistry, AnyObject {
  /// Under the lock changes take effect under: reads the value of each of the observer's keys (of
  /// every key holding one, for an observer of every key), calls `whileLocked` with them, then
  /// adds the observer to its keys' cells (to the observers of every key), so that every change
  /// taking effect afterwards is offered to it.
  func attach(_ observer: Observer, _ whileLocked: ([String: PropertyListValue?]) -> Void)
  /// Under the same lock: removes the observer from its keys' cells (from the observers of every
  /// key).
  func detach(_ observer: Observer)
  /// Under the same lock: offers the value each key has now to the key's observers and to those
  /// of every key; returns what the caller must deliver (``ObserverClaims/deliver()``) once it
  /// holds no lock.
  func offerCurrentValues(of keys: [String]) -> ObserverClaims
}
