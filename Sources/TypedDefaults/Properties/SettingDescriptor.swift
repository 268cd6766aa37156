/// One setting of a model, as discovered by reflection: its name, key, type and default, and a
/// live view of what the backend holds for it.
///
/// Get them from ``SettingsModel/allSettings`` or ``SettingsContainer/allSettings``:
///
/// ```swift
/// for setting in settings.allSettings {
///   print(setting)  // volume: Double = 0.5
/// }
/// ```
///
/// The name, key, type and default are fixed. ``storedValue``, ``value``, ``valueDescription``
/// and ``readsDefaultValue`` read the setting's current state each time they are used, so a
/// model can hand out its list of descriptors once and it stays right.
public struct SettingDescriptor: Sendable, CustomStringConvertible {
  /// The property's name, without the property wrapper's leading underscore: `volume`.
  public let propertyName: String
  /// The property's path from the model, through its nested groups: `playback.volume` for the
  /// `volume` setting of a group stored in the model's `playback` property; `volume` for a setting
  /// of the model itself.
  public let propertyPath: String
  /// The name of the type that declares the property (a superclass, for an inherited setting).
  public let declaringTypeName: String
  package let setting: any SettingProperty

  init(
    propertyName: String, propertyPath: String? = nil, declaringTypeName: String,
    setting: any SettingProperty
  ) {
    self.propertyName = propertyName
    self.propertyPath = propertyPath ?? propertyName
    self.declaringTypeName = declaringTypeName
    self.setting = setting
  }

  /// The key the setting is stored under, in full: the model's key prefix and its nested groups'
  /// prefixes, then the setting's own key (`com.example.sdk.playback.volume`).
  public var key: String { setting.key }

  /// The setting's Swift type.
  public var valueType: any SettingValue.Type { setting.valueType }

  /// The setting's Swift type's name, as it is spelled in code: `Double`, `Date?`, `[String]`.
  public var typeName: String { TypeNames.sugared(valueType) }

  /// The default value as a property list; `nil` for an optional setting whose default is `nil`.
  public var defaultValue: PropertyListValue? { setting.defaultPropertyListValue }

  /// What the backend stores for the key now, unconverted; `nil` if nothing is stored
  /// (``SettingsBackend/storedValue(forKey:)``).
  public var storedValue: PropertyListValue? { setting.storedPropertyListValue }

  /// Whether the backend holds a value for the key now.
  public var hasStoredValue: Bool { storedValue != nil }

  /// What the setting reads now: the stored value converted to ``valueType`` (or the default), as
  /// a property list; `nil` for an optional setting that reads `nil`.
  public var value: PropertyListValue? { setting.currentState.value }

  /// What the setting reads now, as Swift prints a value of its type: `true`, `0.5`,
  /// `["jazz"]`, or `nil` for an optional setting that reads `nil`.
  public var valueDescription: String { setting.currentState.description }

  /// Whether the setting reads its default now: nothing is stored, or what is stored can't be
  /// read as ``valueType`` (see ``storedValue``).
  public var readsDefaultValue: Bool { setting.currentState.readsDefault }

  /// The setting's help text, as declared (``Setting/help``); `nil` if none.
  public var help: String? { setting.untypedStorage.annotations?.help }

  /// The only values the setting accepts, as stored: its declaration's `allowedValues:`, or the
  /// cases of a `CaseIterable` enum (their raw values); `nil` if it accepts any value of its type.
  public var allowedValues: [PropertyListValue]? {
    if let declared = setting.untypedStorage.annotations?.allowedValues { return declared }
    return Self.cases(of: valueType)
  }

  /// The smallest value the setting accepts, as stored (`in: 0...1` gives `0.0`); `nil` if none.
  public var minimum: PropertyListValue? { setting.untypedStorage.annotations?.minimum }

  /// The largest value the setting accepts, as stored (`in: 0...1` gives `1.0`); `nil` if none.
  public var maximum: PropertyListValue? { setting.untypedStorage.annotations?.maximum }

  /// What the model declares about the setting, for exports and the `settings` tool: key, stored
  /// shape, default (left out for a secret), help text, accepted values, and whether the backend
  /// enforces it now (``Setting/isForced``).
  public var schema: SettingSchema {
    let optional = valueType is any OptionalProtocol.Type
    let declared = valueType.storedShape
    let width = Self.integerBounds(of: valueType)
    return SettingSchema(
      key: key, propertyPath: propertyPath, typeName: typeName,
      shape: declared ?? defaultValue.map(SettingSchema.Shape.init(kindOf:)) ?? .any,
      isOptional: optional, defaultValue: isSecret ? nil : defaultValue, help: help,
      allowedValues: allowedValues,
      minimum: Self.tighter(minimum, width.minimum, keepsLarger: true),
      maximum: Self.tighter(maximum, width.maximum, keepsLarger: false),
      isSecret: isSecret, isManaged: setting.untypedStorage.isForced)
  }

  /// The bounds an integer type itself puts on what it reads, where they are narrower than what a
  /// property list holds: `Int8`'s -128 and 127, `UInt`'s 0 (an `Int` or `Int64` has none below,
  /// and no upper bound is given for 64-bit types, whose schemas would all carry it).
  private static func integerBounds(
    of type: any SettingValue.Type
  ) -> (minimum: PropertyListValue?, maximum: PropertyListValue?) {
    let unwrapped: Any.Type = (type as? any OptionalProtocol.Type)?.wrappedType ?? type
    guard let integer = unwrapped as? any FixedWidthInteger.Type else { return (nil, nil) }
    func bounds<T: FixedWidthInteger>(_: T.Type) -> (PropertyListValue?, PropertyListValue?) {
      let lower: PropertyListValue? =
        T.isSigned
        ? (T.bitWidth < 64 ? .integer(.init(Int64(T.min))) : nil) : .integer(.init(Int64(0)))
      let upper: PropertyListValue? = T.bitWidth < 64 ? .integer(.init(UInt64(T.max))) : nil
      return (lower, upper)
    }
    return bounds(integer)
  }

  /// Of a declared bound and a type's own, the one that bounds more tightly.
  private static func tighter(
    _ declared: PropertyListValue?, _ own: PropertyListValue?, keepsLarger: Bool
  ) -> PropertyListValue? {
    guard let declared, let own else { return declared ?? own }
    guard let order = SettingSchema.order(declared, own) else { return declared }
    return (order >= 0) == keepsLarger ? declared : own
  }

  /// The cases of a `CaseIterable` type (an optional's wrapped type's), as stored.
  private static func cases(of type: any SettingValue.Type) -> [PropertyListValue]? {
    let unwrapped: Any.Type = (type as? any OptionalProtocol.Type)?.wrappedType ?? type
    guard let iterable = unwrapped as? any CaseIterable.Type else { return nil }
    func values<T: CaseIterable>(_: T.Type) -> [PropertyListValue] {
      T.allCases.compactMap { try? ($0 as? any SettingValue)?.propertyListValue() }
    }
    return values(iterable)
  }

  /// `key: Type = value`, followed by `(default)` when nothing is stored, or
  /// `(default; the stored … can't be read)` when what is stored can't be read as the type; then
  /// what the setting accepts, if its declaration says (`in 0.0...1.0`), and its help text after
  /// `//`.
  public var description: String {
    let state = setting.currentState
    let marker: String
    if let stored = state.stored, state.readsDefault {
      let shown = setting.untypedStorage.hidesValue ? "" : " \(stored)"
      marker = " (default; the stored \(stored.kind)\(shown) can't be read)"
    } else {
      marker = state.readsDefault ? " (default)" : ""
    }
    var line = "\(key): \(typeName) = \(state.description)\(marker)"
    if let annotations = setting.untypedStorage.annotations {
      if annotations.accepts != nil {
        line += " (\(annotations.constraintDescription(isSecret: isSecret)))"
      }
      if let help = annotations.help { line += " // \(help)" }
    }
    return line
  }
}
