extension SettingDescriptor {
  /// Describes a setting declared with its own backend, for a model whose settings are known
  /// only at run time (plug-ins, flags a server defines): a type conforming to
  /// ``SettingsContainer`` lists such descriptors as its ``SettingsContainer/allSettings``, and
  /// gets export, import and registration like any model.
  ///
  /// ```swift
  /// struct PluginSettings: SettingsContainer {
  ///   let allSettings: [SettingDescriptor]
  ///   init(names: [String], backend: any SettingsBackend) {
  ///     allSettings = names.map { SettingDescriptor(Setting("plugin.\($0)", default: false, backend: backend)) }
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - setting: A setting attached to a backend (declared with `backend:`, or already bound
  ///     by a model).
  ///   - propertyName: The name to show for it; `nil` (the default) uses its key.
  ///   - declaringTypeName: The name of the type it belongs to, for messages; empty by default.
  /// - Precondition: The setting is attached to a backend.
  public init<Value: SettingValue>(
    _ setting: Setting<Value>,
    propertyName: String? = nil,
    declaringTypeName: String = ""
  ) {
    _ = setting.backend  // stops with a clear message if the setting is not attached
    self.init(
      propertyName: propertyName ?? setting.key, declaringTypeName: declaringTypeName,
      setting: setting)
  }
}
