/// A backend that stores some keys under another spelling (`LayeredPlistStore` with
/// `LayeredPlistStore.Options.keyNormalization`): observers are registered under the spelling
/// the backend reports changes in, and a view strips its prefix as the backend spells it.
///
/// Internal: only the layered store normalizes; a backend written outside the library reports
/// keys as they are written.
package protocol NormalizesKeys: SettingsBackend {
  /// The key as the backend stores it.
  func normalizedKey(_ key: String) -> String
}
