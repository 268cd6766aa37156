/// The internal face of a ``Setting`` that reflection works with, whatever its value type.
protocol SettingProperty {
  /// Attaches the setting to a backend, naming it after its property.
  func bind(propertyName: String, backend: any SettingsBackend)
  /// The setting's key (valid once bound).
  var key: String { get }
  /// Describes the setting and its current state.
  func descriptor(propertyName: String, declaringTypeName: String) -> SettingDescriptor
  /// Removes the stored value.
  func reset()
}

extension Setting: SettingProperty {
  func bind(propertyName: String, backend: any SettingsBackend) {
    storage.bind(propertyName: propertyName, backend: backend)
  }

  func descriptor(propertyName: String, declaringTypeName: String) -> SettingDescriptor {
    let backend = storage.boundBackend
    let stored = backend.value(forKey: storage.key)
    let current = storage.read()
    return SettingDescriptor(
      propertyName: propertyName,
      key: storage.key,
      valueType: Value.self,
      declaringTypeName: declaringTypeName,
      defaultValue: try? storage.defaultValue.propertyListValue(),
      storedValue: stored,
      value: try? current.propertyListValue(),
      valueDescription: ValueDescription.of(current),
      readsDefaultValue: stored.map { Value(propertyListValue: $0) == nil } ?? true
    )
  }
}

/// One `@Setting` found on a model by reflection.
struct DiscoveredSetting {
  let propertyName: String
  let declaringTypeName: String
  let property: any SettingProperty

  func descriptor() -> SettingDescriptor {
    property.descriptor(propertyName: propertyName, declaringTypeName: declaringTypeName)
  }
}

/// Finds a model's settings with `Mirror`: the Swift counterpart of UDUserDefaultsModel's
/// `class_copyPropertyList` scan.
enum SettingsReflection {
  /// Lists the settings stored in `model`, superclass settings first, each class's in
  /// declaration order.
  static func discover(in model: Any) -> [DiscoveredSetting] {
    var chain: [Mirror] = []
    var next: Mirror? = Mirror(reflecting: model)
    while let mirror = next {
      chain.append(mirror)
      next = mirror.superclassMirror
    }
    var found: [DiscoveredSetting] = []
    for mirror in chain.reversed() {
      let typeName = String(describing: mirror.subjectType)
      for child in mirror.children {
        guard let property = child.value as? any SettingProperty, let label = child.label else {
          continue
        }
        // A property wrapper's storage is reflected as `_name`.
        let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
        found.append(
          DiscoveredSetting(propertyName: name, declaringTypeName: typeName, property: property)
        )
      }
    }
    return found
  }

  /// Discovers `model`'s settings and attaches each to `backend` (a setting declared with its own
  /// backend keeps it).
  ///
  /// In debug builds, two settings of one model with the same key stop the program: it is a
  /// mistake in the model's declaration, found on its first use.
  @discardableResult
  static func bind(_ model: Any, to backend: any SettingsBackend) -> [DiscoveredSetting] {
    let settings = discover(in: model)
    for setting in settings {
      setting.property.bind(propertyName: setting.propertyName, backend: backend)
    }
    #if DEBUG
      var owners: [String: String] = [:]
      for setting in settings {
        let owner = "\(setting.declaringTypeName).\(setting.propertyName)"
        if let first = owners.updateValue(owner, forKey: setting.property.key) {
          preconditionFailure(
            "\(first) and \(owner) are both stored under the key '\(setting.property.key)'; "
              + "give one of them a different key"
          )
        }
      }
    #endif
    return settings
  }

  /// The current value of every setting that has one, by key.
  static func snapshot(of settings: [DiscoveredSetting]) -> [String: PropertyListValue] {
    var result: [String: PropertyListValue] = [:]
    for setting in settings {
      if let value = setting.descriptor().value { result[setting.property.key] = value }
    }
    return result
  }
}
