/// A backend some of whose layers hold secrets (`LayeredPlistStore` with a source whose
/// `LayerSource.holdsSecrets`, such as a Kubernetes Secret mount): a setting reporting a value
/// it can't read leaves the value out when it comes from such a layer, as it does for a setting
/// declared `secret: true`.
///
/// Internal: layers are the layered store's.
package protocol HasSecretLayers: SettingsBackend {
  /// Whether the value a read of `key` returns comes from a layer that holds secrets.
  func holdsSecretValue(forKey key: String) -> Bool
}
