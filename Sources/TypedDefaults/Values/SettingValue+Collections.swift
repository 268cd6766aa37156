// Optional, Array, Dictionary and RawRepresentable: conversions built from their parts'.

// MARK: - Optional

extension Optional: SettingValue where Wrapped: SettingValue {
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
}

// MARK: - Array

extension Array: SettingValue where Element: SettingValue {
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
}

// MARK: - Dictionary

extension Dictionary: SettingValue where Key == String, Value: SettingValue {
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
}

// MARK: - RawRepresentable

extension SettingValue where Self: RawRepresentable, RawValue: SettingValue {
  /// Reads the stored value as `RawValue`, then as this type with `init(rawValue:)`; an unknown
  /// raw value (a case removed in a newer version of the app, say) fails the read.
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable
  public init?(propertyListValue: PropertyListValue) {
    guard let rawValue = RawValue(propertyListValue: propertyListValue) else { return nil }
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
