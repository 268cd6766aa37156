// The abilities the store offers (Backends/Abilities/), by the methods it has: the atomic
// updates, save and reload of `data.plist`, and the watch of its files.

extension LayeredPlistStore: MultiKeyUpdatingBackend, SavingBackend, ReloadingBackend,
  WatchingBackend
{}

extension ReloadingBackend where Self: LayeredPlistStore {
  /// Reloads `data.plist` as ``LayeredPlistStore/reload()`` does, without its result: the
  /// ``ReloadingBackend`` requirement, which returns nothing.
  ///
  /// A call on a store picks `reload()`, which returns whether any value changed.
  ///
  /// - Throws: What ``LayeredPlistStore/reload()`` throws.
  public func reload() throws(SettingsError) {
    let _: Bool = try (self as LayeredPlistStore).reload()
  }
}

// Observers are registered under the keys as the store normalizes them.
extension LayeredPlistStore: NormalizesKeys {}

extension LayeredPlistStore: RestrictsKeys {
  /// An XML `data.plist` can't hold every character in a key.
  func checkStorable(key: String) throws(SettingsError) {
    guard persistentFormat == .xml else { return }
    _ = try XMLPropertyListRules.normalized(true, key: key)
  }
}

extension LayeredPlistStore: HasReadOnlyLayers {
  func readOnlyLayers(
    holding key: String, without replacement: String
  ) -> [(layer: String, path: String)] {
    var found: [(layer: String, path: String)] = []
    for (layer, file) in [(Layer.delivered, deliveredFile), (.bundled, bundledFile)] {
      guard let file, value(forKey: key, in: layer) != nil,
        value(forKey: replacement, in: layer) == nil
      else { continue }
      found.append(("\(layer)", file.url.path))
    }
    return found
  }
}
