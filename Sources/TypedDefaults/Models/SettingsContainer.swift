/// A type that holds settings: a ``SettingsModel`` subclass or a ``SettingsGroup`` struct.
///
/// The operations on a whole model are written once, here, for both styles: exporting and
/// importing its values (``exportedValues(options:)``, ``importValues(_:options:)``), putting its
/// defaults in a backend's registration domain (``registerDefaults()``), and, for a model that
/// declares migrations, ``MigratableSettings``. You don't conform to it yourself: subclassing
/// `SettingsModel` or conforming to `SettingsGroup` does.
public protocol SettingsContainer {
  /// Describes every setting of the model, each with a live view of its stored state.
  var allSettings: [SettingDescriptor] { get }
}

extension SettingsModel: SettingsContainer {}

extension SettingsContainer {
  /// The model's settings grouped by the backend each reads and writes (normally one: the
  /// model's), in the order their first setting appears.
  var settingsByBackend: [(backend: any SettingsBackend, settings: [SettingDescriptor])] {
    var groups: [(backend: any SettingsBackend, settings: [SettingDescriptor])] = []
    var indexes: [ObjectIdentifier: Int] = [:]
    for descriptor in allSettings {
      let backend = descriptor.setting.backend
      let id = ObjectIdentifier(backend)
      if let index = indexes[id] {
        groups[index].settings.append(descriptor)
      } else {
        indexes[id] = groups.count
        groups.append((backend, [descriptor]))
      }
    }
    return groups
  }
}
