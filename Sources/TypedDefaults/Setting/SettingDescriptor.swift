/// A description of one setting of a model, as discovered by reflection: its name, key, type,
/// default, and what the backend holds.
///
/// Get them from ``SettingsModel/allSettings`` or ``SettingsGroup/allSettings``:
///
/// ```swift
/// for setting in settings.allSettings {
///   print(setting.key, setting.typeName, setting.value ?? "nil")
/// }
/// ```
///
/// A descriptor is a snapshot taken when it was created; it does not change when the setting does.
public struct SettingDescriptor: Sendable, Equatable, CustomStringConvertible {
  /// The property's name, without the property wrapper's leading underscore: `volume`.
  public let propertyName: String
  /// The key the setting is stored under.
  public let key: String
  /// The setting's Swift type.
  public let valueType: any SettingValue.Type
  /// The name of the type that declares the property (a superclass, for an inherited setting).
  public let declaringTypeName: String
  /// The default value as a property list; `nil` for an optional setting whose default is `nil`.
  public let defaultValue: PropertyListValue?
  /// What the backend holds for the key, unconverted; `nil` if nothing is stored.
  public let storedValue: PropertyListValue?
  /// What the setting reads: the stored value converted to ``valueType`` (or the default), as a
  /// property list; `nil` for an optional setting that reads `nil`.
  public let value: PropertyListValue?
  /// What the setting reads, as Swift prints a value of its type: `true`, `0.5`, `["jazz"]`, or
  /// `nil` for an optional setting that reads `nil`.
  public let valueDescription: String

  /// Whether the setting reads its default: nothing is stored, or what is stored can't be read as
  /// ``valueType`` (see ``storedValue``).
  public let readsDefaultValue: Bool

  /// The setting's Swift type's name, as it is spelled in code: `Double`, `Date?`, `[String]`.
  public var typeName: String { TypeNames.sugared(valueType) }

  /// Whether the backend holds a value for the key.
  public var hasStoredValue: Bool { storedValue != nil }

  /// `key: Type = value`, followed by `(default)` when nothing is stored, or
  /// `(default; the stored … can't be read)` when what is stored can't be read as the type.
  public var description: String {
    let marker: String
    if let storedValue, readsDefaultValue {
      marker = " (default; the stored \(storedValue.kind) \(storedValue) can't be read)"
    } else {
      marker = readsDefaultValue ? " (default)" : ""
    }
    return "\(key): \(typeName) = \(valueDescription)\(marker)"
  }

  /// Compares every field; types compare by identity.
  ///
  /// - Parameters:
  ///   - lhs: A descriptor.
  ///   - rhs: Another descriptor.
  /// - Returns: Whether the two describe the same setting in the same state.
  public static func == (lhs: SettingDescriptor, rhs: SettingDescriptor) -> Bool {
    lhs.propertyName == rhs.propertyName && lhs.key == rhs.key
      && ObjectIdentifier(lhs.valueType) == ObjectIdentifier(rhs.valueType)
      && lhs.declaringTypeName == rhs.declaringTypeName && lhs.defaultValue == rhs.defaultValue
      && lhs.storedValue == rhs.storedValue && lhs.value == rhs.value
      && lhs.valueDescription == rhs.valueDescription
      && lhs.readsDefaultValue == rhs.readsDefaultValue
  }
}
