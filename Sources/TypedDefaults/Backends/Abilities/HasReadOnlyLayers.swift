/// A backend that also reads values from files it never writes (`LayeredPlistStore`'s
/// delivered and bundled layers): a migration step that renames a key can't rename it there, and
/// says so (`SettingsMigrations`).
///
/// Internal: layers are the layered store's.
package protocol HasReadOnlyLayers: SettingsBackend {
  /// The read-only layers that hold a value for `key` and none for `replacement`, each with its
  /// name (`delivered`) and its file's path, in order from the highest layer.
  func readOnlyLayers(
    holding key: String, without replacement: String
  ) -> [(layer: String, path: String)]
}
