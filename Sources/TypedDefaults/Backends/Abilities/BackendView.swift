/// A view of another backend, whose keys carry a prefix there (``ScopedBackend``): what the
/// library looks for where it needs the backend that really holds the values, and the view's
/// keys as that backend spells them (binding a model, registering defaults, a test's override,
/// observation, a migration's report).
///
/// Internal: the only views are the library's; ``ScopedBackend`` documents its base and prefix
/// publicly.
package protocol BackendView: SettingsBackend {
  /// The backend the view reads and writes: never itself a view.
  var base: any SettingsBackend { get }
  /// The prefix every key of the view carries in ``base``.
  var prefix: String { get }
  /// The key in ``base`` for a key of the view.
  func baseKey(forKey key: String) -> String
  /// Registers an observer of keys of the view (`nil`: all of them) with the base, translating
  /// keys both ways.
  func observeThroughBase(
    registering keys: Set<String>?,
    initial: Bool,
    retaining: Bool,
    _ handler: @escaping @Sendable (SettingsChange) -> Void
  ) -> ObservationToken
}

extension SettingsBackend {
  /// The backend that holds this backend's values, and the prefix its keys carry there: a
  /// view's base and prefix, or this backend and no prefix.
  var baseAndPrefix: (base: any SettingsBackend, prefix: String) {
    if let view = self as? any BackendView { return (view.base, view.prefix) }
    return (self, "")
  }
}
