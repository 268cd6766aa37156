/// The internal face of a ``Setting`` that reflection and descriptors work with, whatever its
/// value type.
package protocol SettingProperty: Sendable {
  /// The setting's storage, as binding sees it: its key and backend, whatever its value type.
  var untypedStorage: UntypedSettingStorage { get }
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

extension SettingProperty {
  /// Reads a setting of this type stored `offset` bytes into an instance.
  static func loader(offset: Int) -> @Sendable (UnsafeRawPointer) -> any SettingProperty {
    { $0.load(fromByteOffset: offset, as: Self.self) }
  }
}

extension Setting: SettingProperty {
  package var untypedStorage: UntypedSettingStorage { storage }

  package var valueType: any SettingValue.Type { Value.self }

  package var defaultPropertyListValue: PropertyListValue? { storage.defaultPropertyListValue }

  package var storedPropertyListValue: PropertyListValue? { storage.storedValue }

  package var currentState: SettingState {
    let stored = storage.storedValue
    let current = storage.read()
    return SettingState(
      stored: stored,
      value: try? current.propertyListValue(),
      description: storage.hidesValue
        ? SecretRedaction.placeholder : ValueDescription.of(current),
      readsDefault: stored.map { Value(propertyListValue: $0) == nil } ?? true
    )
  }
}
