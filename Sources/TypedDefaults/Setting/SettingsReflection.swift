/// A setting's state at one instant, for descriptors.
struct SettingState {
  /// What the backend holds, unconverted.
  var stored: PropertyListValue?
  /// What the setting reads, as a property list.
  var value: PropertyListValue?
  /// What the setting reads, as Swift prints it.
  var description: String
  /// Whether the setting reads its default.
  var readsDefault: Bool
}

/// The internal face of a ``Setting`` that reflection and descriptors work with, whatever its
/// value type.
protocol SettingProperty: Sendable {
  /// Attaches the setting to a backend, naming it after its property.
  func bind(propertyName: String, backend: any SettingsBackend)
  /// The setting's key (valid once bound).
  var key: String { get }
  var valueType: any SettingValue.Type { get }
  var defaultPropertyListValue: PropertyListValue? { get }
  /// Whether the value is secret (`Setting+Secret.swift`).
  var isSecret: Bool { get }
  /// The backend the setting reads and writes (valid once bound).
  var backend: any SettingsBackend { get }
  var storedPropertyListValue: PropertyListValue? { get }
  /// Reads the backend once and describes what the setting shows.
  var currentState: SettingState { get }
  /// Removes the stored value.
  func reset()
}

extension Setting: SettingProperty {
  func bind(propertyName: String, backend: any SettingsBackend) {
    storage.bind(propertyName: propertyName, backend: backend)
  }

  var valueType: any SettingValue.Type { Value.self }

  var defaultPropertyListValue: PropertyListValue? { storage.defaultPropertyListValue }

  var storedPropertyListValue: PropertyListValue? { storage.storedValue }

  var currentState: SettingState {
    let stored = storage.storedValue
    let current = storage.read()
    return SettingState(
      stored: stored,
      value: try? current.propertyListValue(),
      description: isSecret ? SecretRedaction.placeholder : ValueDescription.of(current),
      readsDefault: stored.map { Value(propertyListValue: $0) == nil } ?? true
    )
  }
}

/// Finds a model's settings with `Mirror`: the Swift counterpart of UDUserDefaultsModel's
/// `class_copyPropertyList` scan.
enum SettingsReflection {
  /// Lists the settings stored in `model`, superclass settings first, each class's in
  /// declaration order.
  static func discover(in model: Any) -> [SettingDescriptor] {
    var chain: [Mirror] = []
    var next: Mirror? = Mirror(reflecting: model)
    while let mirror = next {
      chain.append(mirror)
      next = mirror.superclassMirror
    }
    var found: [SettingDescriptor] = []
    for mirror in chain.reversed() {
      let typeName = String(describing: mirror.subjectType)
      for child in mirror.children {
        guard let setting = child.value as? any SettingProperty, let label = child.label else {
          continue
        }
        // A property wrapper's storage is reflected as `_name`.
        let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
        found.append(
          SettingDescriptor(propertyName: name, declaringTypeName: typeName, setting: setting))
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
  static func bind(_ model: Any, to backend: any SettingsBackend) -> [SettingDescriptor] {
    let settings = discover(in: model)
    for descriptor in settings {
      descriptor.setting.bind(propertyName: descriptor.propertyName, backend: backend)
    }
    #if DEBUG
      var owners: [String: String] = [:]
      for descriptor in settings {
        let owner = "\(descriptor.declaringTypeName).\(descriptor.propertyName)"
        if let first = owners.updateValue(owner, forKey: descriptor.key) {
          preconditionFailure(
            "\(first) and \(owner) are both stored under the key '\(descriptor.key)'; "
              + "give one of them a different key"
          )
        }
      }
    #endif
    return settings
  }

  /// The current value of every setting that has one, by key.
  static func snapshot(of settings: [SettingDescriptor]) -> [String: PropertyListValue] {
    var result: [String: PropertyListValue] = [:]
    for descriptor in settings where !descriptor.isSecret {
      if let value = descriptor.value { result[descriptor.key] = value }
    }
    return result
  }
}
