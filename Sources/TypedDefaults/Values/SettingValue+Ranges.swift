// Range and ClosedRange: stored as the two-element array [lowerBound, upperBound].
//
// The same shape Swift's own `Codable` conformance of both types produces, so a range stored by a
// setting and a range inside a `Codable` struct look alike in the file, and JSON or plist data
// written by other Swift code reads. A stored range whose lower bound is above its upper bound
// (which no Swift range can be: creating it would stop the program) fails the read, so the setting
// shows its default and reports why.

extension Range: SettingValue where Bound: SettingValue {
  /// An array of the bounds' shape (`[lowerBound, upperBound]`), for schemas.
  public static var storedShape: SettingSchema.Shape? { Bound.storedShape.map { .array(of: $0) } }

  /// Reads a two-element array `[lowerBound, upperBound]` whose elements read as `Bound`, with
  /// `lowerBound <= upperBound` (equal bounds are the empty range).
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable
  public init?(propertyListValue: PropertyListValue) {
    guard let (lower, upper) = StoredBounds<Bound>.read(propertyListValue) else { return nil }
    self.init(uncheckedBounds: (lower, upper))
  }

  /// Stores the range as the array `[lowerBound, upperBound]`.
  ///
  /// - Returns: ``PropertyListValue/array(_:)``.
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` if a bound can't be stored.
  @inlinable
  public func propertyListValue() throws -> PropertyListValue? {
    try StoredBounds.store(lowerBound, upperBound)
  }

  /// Says why the stored value is not a range of `Bound`: not a pair, a bound that doesn't read,
  /// or a lower bound above the upper one.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: A one-line reason, or `nil` if the value isn't an array.
  public static func readFailureReason(for value: PropertyListValue) -> String? {
    StoredBounds<Bound>.failureReason(value)
  }
}

extension ClosedRange: SettingValue where Bound: SettingValue {
  /// An array of the bounds' shape (`[lowerBound, upperBound]`), for schemas.
  public static var storedShape: SettingSchema.Shape? { Bound.storedShape.map { .array(of: $0) } }

  /// Reads a two-element array `[lowerBound, upperBound]` whose elements read as `Bound`, with
  /// `lowerBound <= upperBound` (equal bounds are the one-element range).
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable
  public init?(propertyListValue: PropertyListValue) {
    guard let (lower, upper) = StoredBounds<Bound>.read(propertyListValue) else { return nil }
    self.init(uncheckedBounds: (lower, upper))
  }

  /// Stores the range as the array `[lowerBound, upperBound]`.
  ///
  /// - Returns: ``PropertyListValue/array(_:)``.
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` if a bound can't be stored.
  @inlinable
  public func propertyListValue() throws -> PropertyListValue? {
    try StoredBounds.store(lowerBound, upperBound)
  }

  /// Says why the stored value is not a range of `Bound`: not a pair, a bound that doesn't read,
  /// or a lower bound above the upper one.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: A one-line reason, or `nil` if the value isn't an array.
  public static func readFailureReason(for value: PropertyListValue) -> String? {
    StoredBounds<Bound>.failureReason(value)
  }
}

/// Reading and writing the `[lowerBound, upperBound]` pair both range types are stored as.
@usableFromInline
enum StoredBounds<Bound: SettingValue & Comparable> {
  /// The two bounds, if the value is a pair of `Bound`s in order.
  @inlinable
  static func read(_ value: PropertyListValue) -> (Bound, Bound)? {
    guard case .array(let elements) = value, elements.count == 2,
      let lower = Bound(propertyListValue: elements[0]),
      let upper = Bound(propertyListValue: elements[1]),
      lower <= upper
    else { return nil }
    return (lower, upper)
  }

  @inlinable
  static func store(_ lower: Bound, _ upper: Bound) throws -> PropertyListValue {
    guard let lowerValue = try lower.propertyListValue(),
      let upperValue = try upper.propertyListValue()
    else {
      throw SettingsError(
        .valueNotRepresentable, reason: "A range bound is nil, and property lists cannot store nil")
    }
    return .array([lowerValue, upperValue])
  }

  static func failureReason(_ value: PropertyListValue) -> String? {
    guard case .array(let elements) = value else { return nil }
    guard elements.count == 2 else {
      return "a range is stored as [lowerBound, upperBound], and this array has "
        + "\(elements.count) element\(elements.count == 1 ? "" : "s")"
    }
    for (index, name) in [(0, "the lower bound"), (1, "the upper bound")]
    where Bound(propertyListValue: elements[index]) == nil {
      return ElementFailure.describe(elements[index], at: name, as: Bound.self)
    }
    return "the lower bound is greater than the upper bound"
  }
}
