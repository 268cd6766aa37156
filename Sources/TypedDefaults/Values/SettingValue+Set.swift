// Set: stored as a property-list array, in a canonical order.

extension Set: SettingValue where Element: SettingValue {
  /// An array of the elements' shape, for schemas.
  public static var storedShape: SettingSchema.Shape? { Element.storedShape.map { .array(of: $0) } }

  /// Reads an array whose every element reads as `Element`, in any order; an element stored twice
  /// counts once.
  ///
  /// One element that doesn't read makes the whole read fail (the setting then shows its default).
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable
  public init?(propertyListValue: PropertyListValue) {
    guard let elements = [Element](propertyListValue: propertyListValue) else { return nil }
    self.init(elements)
  }

  /// Stores the elements as a property-list array sorted by their stored values (numbers
  /// numerically, strings as Swift compares them, an enum by its raw value; see
  /// <doc:ValueTypesAndConversions>), so the same set is always stored the same way: equal sets
  /// make equal files, and a diff of a settings file shows only real changes.
  ///
  /// - Returns: ``PropertyListValue/array(_:)``.
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` if an element is `nil` (property
  ///   lists have no null) or can't be stored.
  public func propertyListValue() throws -> PropertyListValue? {
    guard case .array(let elements)? = try Array(self).propertyListValue() else { return nil }
    return .array(elements.sorted(by: PropertyListValue.canonicallyPrecedes))
  }

  /// Names the first element that can't be read as `Element`, and why.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: A one-line reason, or `nil` if the value isn't an array.
  public static func readFailureReason(for value: PropertyListValue) -> String? {
    [Element].readFailureReason(for: value)
  }
}
