/// A backend some of whose values are enforced, as an administrator's managed settings are: a
/// forced key can't be written, and a UI should show its control disabled.
///
/// The counterpart of `UserDefaults.objectIsForced(forKey:)`. `LayeredPlistStore` adopts it (a
/// key a layer whose source `LayerSource.isForced` holds is forced), and so does every
/// ``ScopedBackend`` view, which asks its base. A setting tells it as `$setting.isForced`.
///
/// ## Contract
///
/// - A write of a forced key (``SettingsBackend/setValue(_:forKey:)`` and every other way to
///   write) throws ``SettingsError/Code/forcedValue`` and changes nothing; a removal, which
///   can't throw, does nothing and reports a diagnostic.
/// - ``isForced(forKey:)`` is thread-safe and cheap enough to call while drawing a UI.
public protocol ForcingBackend: SettingsBackend {
  /// Whether the key's value is enforced, so that writes of it are refused.
  ///
  /// - Parameter key: The key.
  /// - Returns: Whether the key is forced.
  func isForced(forKey key: String) -> Bool
}
