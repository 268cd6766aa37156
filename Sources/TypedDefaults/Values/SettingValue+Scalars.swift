import Foundation

// The conversions of the table in SettingValue's documentation, one type at a time.
//
// Several scalars below restate `readFailureReason(for:) { nil }`, the default `SettingValue`
// already gives every type (`SettingValue.swift`): they are also `Codable`, and without the
// restatement the more specific `where Self: Codable` default (`SettingValue+Codable.swift`,
// which explains a failed decode) would be chosen for them.

// MARK: - Bool

extension Bool: SettingValue {
  /// A bool, for schemas.
  public static var storedShape: SettingSchema.Shape? { .bool }

  /// Reads a bool; the integers 1 and 0 and the reals 1.0 and 0.0; and the strings `YES`, `true`,
  /// `1`, `NO`, `false`, `0` in any case, as `UserDefaults.bool(forKey:)` reads them.
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable @inline(__always)
  public init?(propertyListValue: PropertyListValue) {
    switch propertyListValue {
    case .bool(let value):
      self = value
    case .integer(let value):
      switch value.int64Value {
      case 1: self = true
      case 0: self = false
      default: return nil
      }
    case .real(let value):
      switch value {
      case 1: self = true
      case 0: self = false
      default: return nil
      }
    case .string(let value):
      switch value.lowercased() {
      case "yes", "true", "1": self = true
      case "no", "false", "0": self = false
      default: return nil
      }
    default:
      return nil
    }
  }

  /// Stores the Boolean as `<true/>` or `<false/>`.
  ///
  /// - Returns: ``PropertyListValue/bool(_:)``.
  @inlinable
  public func propertyListValue() -> PropertyListValue? {
    .bool(self)
  }

  /// Returns `nil`: the diagnostic's description of the stored value says enough.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: `nil`.
  public static func readFailureReason(for value: PropertyListValue) -> String? { nil }
}

// MARK: - Integers

// Constrained to Codable as well, so that it is more specific than the Codable default (every
// standard integer type is both).
extension SettingValue where Self: FixedWidthInteger & Codable {
  /// An integer, for schemas.
  public static var storedShape: SettingSchema.Shape? { .integer }

  /// Reads an integer that fits this type; a real with no fractional part that fits; a bool as 1
  /// or 0; or a string holding only a decimal integer that fits.
  ///
  /// Never wraps or truncates.
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable @inline(__always)
  public init?(propertyListValue: PropertyListValue) {
    switch propertyListValue {
    case .integer(let value):
      guard let converted = Self(exactly: value) else { return nil }
      self = converted
    case .real(let value):
      guard let converted = Self(exactly: value) else { return nil }
      self = converted
    case .bool(let value):
      self = value ? 1 : 0
    case .string(let value):
      guard let integer = PropertyListValue.Integer(decimal: value),
        let converted = Self(exactly: integer)
      else { return nil }
      self = converted
    default:
      return nil
    }
  }

  /// Stores the value as a property-list integer.
  ///
  /// Every value of every fixed-width integer type up to 64 bits is representable.
  ///
  /// - Returns: ``PropertyListValue/integer(_:)-swift.enum.case``.
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` for a value outside
  ///   `Int64.min ... UInt64.max` (possible only for wider types).
  @inlinable
  public func propertyListValue() throws -> PropertyListValue? {
    guard let integer = PropertyListValue.Integer(exactly: self) else {
      throw SettingsError(
        .valueNotRepresentable,
        reason: "\(self) is outside the range a property list can store (Int64.min...UInt64.max)"
      )
    }
    return .integer(integer)
  }

  /// Says when a number is out of this type's range or has a fractional part.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: A one-line reason, or `nil`.
  public static func readFailureReason(for value: PropertyListValue) -> String? {
    switch value {
    case .integer: "out of the range of \(Self.self), \(Self.min)...\(Self.max)"
    case .real(let real) where !real.isFinite: "not a finite number"
    case .real(let real) where real.rounded(.towardZero) != real: "it has a fractional part"
    case .real: "out of the range of \(Self.self), \(Self.min)...\(Self.max)"
    default: nil
    }
  }
}

extension Int: SettingValue {}
extension Int8: SettingValue {}
extension Int16: SettingValue {}
extension Int32: SettingValue {}
extension Int64: SettingValue {}
extension UInt: SettingValue {}
extension UInt8: SettingValue {}
extension UInt16: SettingValue {}
extension UInt32: SettingValue {}
extension UInt64: SettingValue {}

// MARK: - Floating point

extension Double: SettingValue {
  /// A real, for schemas.
  public static var storedShape: SettingSchema.Shape? { .real }

  /// Reads a real; an integer that a `Double` represents exactly (42 reads as 42.0, 2⁵³ + 1 does
  /// not read); a bool as 1.0 or 0.0; or a string holding only a number.
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable @inline(__always)
  public init?(propertyListValue: PropertyListValue) {
    switch propertyListValue {
    case .real(let value):
      self = value
    case .integer(let value):
      guard let converted = value.exactDoubleValue else { return nil }
      self = converted
    case .bool(let value):
      self = value ? 1 : 0
    case .string(let value):
      guard let converted = Self.parsed(value) else { return nil }
      self = converted
    default:
      return nil
    }
  }

  /// The number a string holds, or `nil`: out of line, so that what a read inlines is only the
  /// cases of the stored kinds. (Inlined whole, the parse kept the optimizer from resolving the
  /// conversion of a `Double` setting at all: every read called it through the witness table,
  /// 13 ns where a `Bool` read takes 9.)
  @usableFromInline
  static func parsed(_ text: String) -> Double? {
    // A string that overflows ("1e400") would read as infinity: information lost, so refused.
    guard let converted = Double(text), converted.isFinite || !looksFinite(text) else {
      return nil
    }
    return converted
  }

  /// Stores the number as a property-list real.
  ///
  /// - Returns: ``PropertyListValue/real(_:)``.
  @inlinable
  public func propertyListValue() -> PropertyListValue? {
    .real(self)
  }

  /// Whether a numeric string names a finite number rather than `inf` or `nan`.
  @usableFromInline
  static func looksFinite(_ text: String) -> Bool {
    let lowered = text.lowercased()
    return !(lowered.contains("inf") || lowered.contains("nan"))
  }

  /// Returns `nil`: the diagnostic's description of the stored value says enough.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: `nil`.
  public static func readFailureReason(for value: PropertyListValue) -> String? { nil }
}

extension Float: SettingValue {
  /// A real, for schemas.
  public static var storedShape: SettingSchema.Shape? { .real }

  /// Reads a real, rounded to the nearest `Float` (a `Float` setting's own writes read back
  /// bit-for-bit; a finite real beyond `Float`'s range does not read); an integer a `Float`
  /// represents exactly; a bool as 1.0 or 0.0; or a string holding only a number.
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable
  public init?(propertyListValue: PropertyListValue) {
    switch propertyListValue {
    case .real(let value):
      let rounded = Float(value)
      // Refuse what Float can't hold at all: overflow to infinity, underflow to zero.
      guard rounded.isFinite || !value.isFinite, rounded != 0 || value == 0 else { return nil }
      self = rounded
    case .integer(let value):
      guard let exact = value.exactDoubleValue, let converted = Float(exactly: exact) else {
        return nil
      }
      self = converted
    case .bool(let value):
      self = value ? 1 : 0
    case .string(let value):
      guard let converted = Self.parsed(value) else { return nil }
      self = converted
    default:
      return nil
    }
  }

  /// The number a string holds, or `nil`: out of line, as `Double.parsed(_:)` is, so that a
  /// read inlines only the cases of the stored kinds.
  @usableFromInline
  static func parsed(_ text: String) -> Float? {
    guard let converted = Float(text), converted.isFinite || !Double.looksFinite(text) else {
      return nil
    }
    return converted
  }

  /// Stores the number as a property-list real holding exactly the same value.
  ///
  /// - Returns: ``PropertyListValue/real(_:)``.
  @inlinable
  public func propertyListValue() -> PropertyListValue? {
    .real(Double(self))
  }

  /// Says when a real is beyond `Float`'s range or an integer has no exact `Float`.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: A one-line reason, or `nil`.
  public static func readFailureReason(for value: PropertyListValue) -> String? {
    switch value {
    case .real: "beyond the range of Float (too large, or too small to be told from zero)"
    case .integer: "no Float is exactly equal to it"
    default: nil
    }
  }
}

// MARK: - String

extension String: SettingValue {
  /// A string, for schemas.
  public static var storedShape: SettingSchema.Shape? { .string(format: nil) }

  /// Reads a string, or an integer as its decimal digits (a real, a bool or a date does not read:
  /// their text forms are ambiguous).
  ///
  /// The same on every platform, unlike `UserDefaults.string(forKey:)`.
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable
  public init?(propertyListValue: PropertyListValue) {
    switch propertyListValue {
    case .string(let value): self = value
    case .integer(let value): self = value.description
    default: return nil
    }
  }

  /// Stores the string as a property-list string.
  ///
  /// - Returns: ``PropertyListValue/string(_:)``.
  @inlinable
  public func propertyListValue() -> PropertyListValue? {
    .string(self)
  }

  /// Returns `nil`: the diagnostic's description of the stored value says enough.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: `nil`.
  public static func readFailureReason(for value: PropertyListValue) -> String? { nil }
}

// MARK: - Date and Data

extension Date: SettingValue {
  /// A date, for schemas.
  public static var storedShape: SettingSchema.Shape? { .date }

  /// Reads a date, and nothing else.
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable
  public init?(propertyListValue: PropertyListValue) {
    guard case .date(let value) = propertyListValue else { return nil }
    self = value
  }

  /// Stores the date as a property-list date, which `UserDefaults.object(forKey:)` returns as a
  /// `Date`.
  ///
  /// XML property lists keep whole seconds; binary ones keep full precision.
  ///
  /// - Returns: ``PropertyListValue/date(_:)``.
  @inlinable
  public func propertyListValue() -> PropertyListValue? {
    .date(self)
  }

  /// Returns `nil`: the diagnostic's description of the stored value says enough.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: `nil`.
  public static func readFailureReason(for value: PropertyListValue) -> String? { nil }
}

extension Data: SettingValue {
  /// Data, for schemas.
  public static var storedShape: SettingSchema.Shape? { .data }

  /// Reads data, and nothing else.
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable
  public init?(propertyListValue: PropertyListValue) {
    guard case .data(let value) = propertyListValue else { return nil }
    self = value
  }

  /// Stores the bytes as property-list data.
  ///
  /// - Returns: ``PropertyListValue/data(_:)``.
  @inlinable
  public func propertyListValue() -> PropertyListValue? {
    .data(self)
  }

  /// Returns `nil`: the diagnostic's description of the stored value says enough.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: `nil`.
  public static func readFailureReason(for value: PropertyListValue) -> String? { nil }
}

// MARK: - URL

extension URL: SettingValue {
  /// A string holding an absolute URL, for schemas.
  public static var storedShape: SettingSchema.Shape? { .string(format: .url) }

  /// Reads a string holding a URL (`https://…`, `file:///…`, or one without a scheme, such as
  /// `www.example.com`, read back as `URL(string:)` gives it, so what was written reads back
  /// equal), or an absolute file path (`/…`, or `~/…` relative to the home directory), as
  /// `UserDefaults.url(forKey:)` reads a path.
  ///
  /// Text holding a character a URL can't hold (a space, a quote, `<`, a character that isn't
  /// ASCII) is not a URL, and is refused rather than percent-encoded: `not a url` is not read as
  /// `not%20a%20url` (Swift 6's `URL(string:)` encodes it; earlier Foundation refused it).
  ///
  /// - Parameter propertyListValue: The stored value.
  public init?(propertyListValue: PropertyListValue) {
    guard case .string(let string) = propertyListValue, !string.isEmpty else { return nil }
    if string.hasPrefix("/") {
      self = URL(fileURLWithPath: string)
    } else if string == "~" || string.hasPrefix("~/") {
      self = URL(fileURLWithPath: NSString(string: string).expandingTildeInPath)
    } else if Self.holdsOnlyURLCharacters(string), let url = URL(string: string) {
      self = url
    } else {
      return nil
    }
  }

  /// Whether every character of `text` may appear in a URL as RFC 3986 writes one: ASCII
  /// letters and digits, `-._~:/?#[]@!$&'()*+,;=` and `%`.
  private static func holdsOnlyURLCharacters(_ text: String) -> Bool {
    text.utf8.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        true
      default: "-._~:/?#[]@!$&'()*+,;=%".utf8.contains(byte)
      }
    }
  }

  /// Stores a file URL as its path, as `UserDefaults.set(_:forKey:)` does, so
  /// `UserDefaults.url(forKey:)` reads it back; stores any other URL as its absolute string,
  /// readable by people and plist tools (`UserDefaults.url(forKey:)` would instead expect an
  /// archive, so read such a value with `string(forKey:)` and `URL(string:)`).
  ///
  /// - Returns: ``PropertyListValue/string(_:)``.
  public func propertyListValue() -> PropertyListValue? {
    .string(isFileURL ? standardizedFileURL.path : absoluteString)
  }

  /// Why a string is not a URL: `it is not a URL (a URL can't hold ' ')`; `nil` for another
  /// value, whose description says enough.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: The reason, or `nil`.
  public static func readFailureReason(for value: PropertyListValue) -> String? {
    guard case .string(let text) = value,
      let bad = text.first(where: { !holdsOnlyURLCharacters(String($0)) })
    else { return nil }
    return "it is not a URL (a URL can't hold '\(bad)')"
  }
}
