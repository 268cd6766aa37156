extension SettingsContainer {
  /// Puts the model's defaults into its backend's registration domain, where the backend has
  /// one (``RegistrationDomainBackend``), so that code reading the store directly sees them:
  /// on ``UserDefaultsBackend``, `UserDefaults.register(defaults:)`, as an app's launch code
  /// does, so `UserDefaults.standard.bool(forKey: "showHints")` gives the declared default.
  ///
  /// The model itself never needs this: a setting reads its declared default whenever nothing
  /// is stored, with or without registration, before or after it. Registered defaults are
  /// never saved and never count as stored values (``Setting/hasStoredValue``, snapshots and
  /// exports ignore them); another process and the next launch see them only if they register
  /// too. Optional settings whose default is `nil` register nothing.
  ///
  /// ``InMemoryBackend`` and `LayeredPlistStore` have no registration domain, and this does
  /// nothing for them: there is no other reader to serve, and a setting's default already
  /// applies. (A store's bundled `Info.plist` is its lowest layer, the closest thing it has.)
  ///
  /// - Returns: Whether any of the model's backends has a registration domain, so the call did
  ///   something.
  ///
  /// Thread-safe.
  @discardableResult
  public func registerDefaults() -> Bool {
    var registered = false
    for group in settingsByBackend {
      // A view registers in its base's domain, under the base's keys.
      let view = group.backend as? any BackendView
      guard let backend = (view?.base ?? group.backend) as? any RegistrationDomainBackend else {
        continue
      }
      var defaults: [String: PropertyListValue] = [:]
      for descriptor in group.settings {
        if let value = descriptor.defaultValue {
          defaults[view?.baseKey(forKey: descriptor.key) ?? descriptor.key] = value
        }
      }
      backend.register(defaults: defaults)
      registered = true
    }
    return registered
  }
}
