import Foundation

/// A backend that keeps its values in one property-list file of its own, next to which a model's
/// schema is written (`SettingsContainer.writeSchema()`), where the `settings` tool finds it.
package protocol KeepsStoreFile: SettingsBackend {
  /// The file the backend keeps its values in; `nil` where it has none it can name (a
  /// `UserDefaultsBackend` on Apple platforms, where the system keeps the preferences).
  var storeFile: URL? { get }
}
