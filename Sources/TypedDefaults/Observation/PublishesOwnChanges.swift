/// A library backend that publishes every change it makes, so that a ``Setting`` writing to it
/// publishes nothing more.
protocol PublishesOwnChanges: SettingsBackend {}

/// A library backend that keeps its ``ObserverRegistry`` in a stored property, so finding it costs
/// no side-table lookup.
protocol OwnsObserverRegistry: PublishesOwnChanges {
  /// The backend's observers.
  var observers: ObserverRegistry { get }
}

/// A library backend that records its own observed changes under its own lock (see
/// ``ObserverRegistry``), and can tell under that lock, at no cost, whether a change must be
/// recorded: it keeps flags the registry sets.
protocol RecordsOwnChanges: OwnsObserverRegistry, AnyObject {
  /// Marks a key observed by at least one observer, or by none.
  func setObserved(_ observed: Bool, forKey key: String)
  /// Marks the backend observed by at least one observer of every key, or by none.
  func setObservesAllKeys(_ observed: Bool)
  /// Under the lock changes are recorded under: calls `whileLocked`, then returns the value of
  /// each of `keys` (of every key holding one, when `nil`).
  func observationBaseline(
    of keys: Set<String>?, _ whileLocked: () -> Void
  ) -> [String: PropertyListValue?]
  /// Under the lock changes are recorded under: records the value each key has now
  /// (``ObserverRegistry/record(_:)``).
  func recordCurrentValues(of keys: [String])
}
