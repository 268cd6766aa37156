// Optional, Array, Dictionary and RawRepresentable: conversions built from their parts'.

// MARK: - Optional

extension Optional: SettingValue where Wrapped: SettingValue {
  /// The wrapped type's shape (nothing is stored for `nil`), for schemas.
  public static var storedShape: SettingSchema.Shape? { Wrapped.storedShape }

  /// Reads the stored value as `Wrapped`; `nil` (a failed read) if it can't be.
  ///
  /// A missing key never reaches this initializer: the setting shows its default, which for
  /// `@Setting("k") var k: Int?` is `nil`.
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable
  public init?(propertyListValue: PropertyListValue) {
    guard let wrapped = Wrapped(propertyListValue: propertyListValue) else { return nil }
    self = .some(wrapped)
  }

  /// Stores the wrapped value; `nil` removes the key, on every backend (property lists have no
  /// null, and storing a placeholder would read back as a wrong-typed value).
  ///
  /// - Returns: The wrapped value's property-list value, or `nil` to remove the key.
  /// - Throws: What `Wrapped.propertyListValue()` throws.
  @inlinable
  public func propertyListValue() throws -> PropertyListValue? {
    switch self {
    case .none: nil
    case .some(let wrapped): try wrapped.propertyListValue()
    }
  }

  /// Why the value can't be read as `Wrapped`.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: `Wrapped`'s reason.
  public static func readFailureReason(for value: PropertyListValue) -> String? {
    Wrapped.readFailureReason(for: value)
  }
}

// MARK: - Array

extension Array: SettingValue where Element: SettingValue {
  /// An array of the elements' shape, for schemas.
  public static var storedShape: SettingSchema.Shape? { Element.storedShape.map { .array(of: $0) } }

  /// Reads an array whose every element reads as `Element`; one element that doesn't makes the
  /// whole read fail (the setting then shows its default).
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable
  public init?(propertyListValue: PropertyListValue) {
    guard case .array(let elements) = propertyListValue else { return nil }
    var result: [Element] = []
    result.reserveCapacity(elements.count)
    for element in elements {
      guard let converted = Element(propertyListValue: element) else { return nil }
      result.append(converted)
    }
    self = result
  }

  /// Stores the elements as a property-list array, in order.
  ///
  /// - Returns: ``PropertyListValue/array(_:)``.
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` if an element is `nil` (property
  ///   lists have no null) or can't be stored.
  @inlinable
  public func propertyListValue() throws -> PropertyListValue? {
    // The usual default: no element to convert, and no generic iteration to set up.
    if isEmpty { return .array([]) }
    var result: [PropertyListValue] = []
    result.reserveCapacity(count)
    for (index, element) in enumerated() {
      guard let converted = try element.propertyListValue() else {
        throw SettingsError(
          .valueNotRepresentable,
          reason: "Element \(index) is nil, and property lists cannot store nil"
        )
      }
      result.append(converted)
    }
    return .array(result)
  }

  /// Names the first element that can't be read as `Element`, and why.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: A one-line reason, or `nil` if the value isn't an array.
  public static func readFailureReason(for value: PropertyListValue) -> String? {
    guard case .array(let elements) = value else { return nil }
    for (index, element) in elements.enumerated() where Element(propertyListValue: element) == nil {
      return ElementFailure.describe(element, at: "element \(index)", as: Element.self)
    }
    return nil
  }
}

// MARK: - Dictionary

extension Dictionary: SettingValue where Key == String, Value: SettingValue {
  /// A dictionary of the values' shape, for schemas.
  public static var storedShape: SettingSchema.Shape? {
    Value.storedShape.map { .dictionary(of: $0) }
  }

  /// Reads a dictionary whose every value reads as `Value`; one value that doesn't makes the
  /// whole read fail (the setting then shows its default).
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable
  public init?(propertyListValue: PropertyListValue) {
    guard case .dictionary(let entries) = propertyListValue else { return nil }
    var result: [String: Value] = [:]
    result.reserveCapacity(entries.count)
    for (key, value) in entries {
      guard let converted = Value(propertyListValue: value) else { return nil }
      result[key] = converted
    }
    self = result
  }

  /// Stores the entries as a property-list dictionary.
  ///
  /// - Returns: ``PropertyListValue/dictionary(_:)``.
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` if a value is `nil` (property lists
  ///   have no null; dropping the key would change the dictionary) or can't be stored.
  @inlinable
  public func propertyListValue() throws -> PropertyListValue? {
    var result: [String: PropertyListValue] = [:]
    result.reserveCapacity(count)
    for (key, value) in self {
      guard let converted = try value.propertyListValue() else {
        throw SettingsError(
          .valueNotRepresentable,
          reason: "The value for '\(key)' is nil, and property lists cannot store nil"
        )
      }
      result[key] = converted
    }
    return .dictionary(result)
  }

  /// Names the first entry whose value can't be read as `Value`, and why.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: A one-line reason, or `nil` if the value isn't a dictionary.
  public static func readFailureReason(for value: PropertyListValue) -> String? {
    guard case .dictionary(let entries) = value else { return nil }
    for (key, entry) in entries.sortedByKey()
    where Value(propertyListValue: entry) == nil {
      return ElementFailure.describe(entry, at: "the value for '\(key)'", as: Value.self)
    }
    return nil
  }
}

// MARK: - RawRepresentable

extension SettingValue where Self: RawRepresentable, RawValue: SettingValue {
  /// The raw value's shape, for schemas.
  public static var storedShape: SettingSchema.Shape? { RawValue.storedShape }

  /// Says which raw value was found, or why it isn't a `RawValue`.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: A one-line reason.
  public static func readFailureReason(for value: PropertyListValue) -> String? {
    rawReadFailureReason(for: value)
  }

  /// The stored value as a `RawValue`, or `nil`: a stored bool is never the raw value of a type
  /// whose raw values are not `Bool` (see ``init(propertyListValue:)``).
  ///
  /// Both initializers below, the RawRepresentable one and the RawRepresentable-and-Codable one,
  /// read through it.
  @inlinable @inline(__always)
  static func storedRawValue(_ propertyListValue: PropertyListValue) -> RawValue? {
    if case .bool = propertyListValue, RawValue.self != Bool.self { return nil }
    return RawValue(propertyListValue: propertyListValue)
  }

  static func rawReadFailureReason(for value: PropertyListValue) -> String? {
    if case .bool = value, RawValue.self != Bool.self {
      return
        "a bool is never a raw value of \(Self.self), whose raw values are \(RawValue.typeName); "
        + "a setting that was a Bool needs a migration step (SettingsMigration.convertValue)"
    }
    if let rawValue = RawValue(propertyListValue: value) {
      // A `CaseIterable` enum's cases are listed, as a `Bool`'s accepted words are.
      let cases = (Self.self as? any CaseIterable.Type).map { rawValues(of: $0) } ?? ""
      return "\(rawValue) is not a raw value of \(Self.self)\(cases)"
    }
    return RawValue.readFailureReason(for: value)
  }

  /// ` (one of a, b, c)`: the raw values of a `CaseIterable` type's cases, the first 20.
  private static func rawValues<Cases: CaseIterable>(of type: Cases.Type) -> String {
    let all = type.allCases.compactMap { ($0 as? Self)?.rawValue }
    guard !all.isEmpty else { return "" }
    let more = all.count > 20 ? ", …" : ""
    return " (one of \(all.prefix(20).map { "\($0)" }.joined(separator: ", "))\(more))"
  }

  /// Reads the stored value as `RawValue`, then as this type with `init(rawValue:)`; an unknown
  /// raw value (a case removed in a newer version of the app, say) fails the read.
  ///
  /// A stored bool is never read as a raw value of another type, although `Int` reads `true` as
  /// 1: a Bool setting that became an enum on the same key (`false` meaning "off" in v1, `0`
  /// meaning `.auto` in v2) must fail loudly, with the default and a diagnostic, until a
  /// migration converts it.
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable @inline(__always)
  public init?(propertyListValue: PropertyListValue) {
    guard let rawValue = Self.storedRawValue(propertyListValue) else { return nil }
    self.init(rawValue: rawValue)
  }

  /// Stores the raw value.
  ///
  /// - Returns: The raw value's property-list value.
  /// - Throws: What `RawValue.propertyListValue()` throws.
  @inlinable
  public func propertyListValue() throws -> PropertyListValue? {
    try rawValue.propertyListValue()
  }
}

extension SettingValue where Self: RawRepresentable & Codable, RawValue: SettingValue {
  // A type that is both RawRepresentable and Codable (an enum with a String raw value that is also
  // Codable, say) is stored as its raw value: the same form it would have without Codable, and
  // the one UserDefaults users expect. This extension, more specific than both, settles the
  // choice, so declaring such a type a SettingValue is never ambiguous.

  /// Reads the stored value as `RawValue`, then as this type with `init(rawValue:)`.
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable @inline(__always)
  public init?(propertyListValue: PropertyListValue) {
    guard let rawValue = Self.storedRawValue(propertyListValue) else { return nil }
    self.init(rawValue: rawValue)
  }

  /// Stores the raw value (not the `Codable` form).
  ///
  /// - Returns: The raw value's property-list value.
  /// - Throws: What `RawValue.propertyListValue()` throws.
  @inlinable
  public func propertyListValue() throws -> PropertyListValue? {
    try rawValue.propertyListValue()
  }

  /// Says which raw value was found, or why it isn't a `RawValue`.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: A one-line reason.
  public static func readFailureReason(for value: PropertyListValue) -> String? {
    rawReadFailureReason(for: value)
  }
}

/// Describes one element of a collection that can't be read.
enum ElementFailure {
  static func describe<T: SettingValue>(
    _ element: PropertyListValue,
    at place: String,
    as type: T.Type
  ) -> String {
    let why = T.readFailureReason(for: element).map { ": \($0)" } ?? ""
    return "\(place), \(PropertyListFile.article(element.kind)) (\(element)), can't be read as "
      + "\(T.typeName)\(why)"
  }
}
