extension PropertyListValue {
  /// A property-list integer: any whole number from `Int64.min` through `UInt64.max`.
  ///
  /// Property lists store integers up to 128 bits wide, and real files hold values above
  /// `Int64.max` (a `UInt64` identifier, a 64-bit hash). `Integer` keeps every value in
  /// `Int64.min ... UInt64.max` exactly, which is the range `PropertyListSerialization` and
  /// `UserDefaults` read and write, so every fixed-width Swift integer round-trips unchanged.
  ///
  /// Convert to a Swift integer with `init?(exactly:)`, which never wraps or truncates:
  ///
  /// ```swift
  /// if case .integer(let n) = value, let count = Int(exactly: n) { … }
  /// ```
  public struct Integer: Sendable, Hashable, Comparable, CustomStringConvertible {
    // Canonical form: a value in Int64's range is stored as that Int64 with `isAboveInt64Max`
    // false; a value above Int64.max is stored as the bit pattern of its UInt64.
    @usableFromInline let bits: Int64
    @usableFromInline let isAboveInt64Max: Bool

    /// Creates an integer from a signed 64-bit value.
    ///
    /// - Parameter value: The value; every `Int64` is representable.
    @inlinable
    public init(_ value: Int64) {
      bits = value
      isAboveInt64Max = false
    }

    /// Creates an integer from an unsigned 64-bit value.
    ///
    /// - Parameter value: The value; every `UInt64` is representable.
    @inlinable
    public init(_ value: UInt64) {
      bits = Int64(bitPattern: value)
      isAboveInt64Max = value > UInt64(Int64.max)
    }

    /// Creates an integer from any binary integer, or `nil` if the value is outside
    /// `Int64.min ... UInt64.max`.
    ///
    /// - Parameter value: The value to represent.
    @inlinable
    public init?<T: BinaryInteger>(exactly value: T) {
      if let signed = Int64(exactly: value) {
        self.init(signed)
      } else if let unsigned = UInt64(exactly: value) {
        self.init(unsigned)
      } else {
        return nil
      }
    }

    /// The value as an `Int64`, or `nil` if it is above `Int64.max`.
    @inlinable
    public var int64Value: Int64? { isAboveInt64Max ? nil : bits }

    /// The value as a `UInt64`, or `nil` if it is negative.
    @inlinable
    public var uint64Value: UInt64? {
      if isAboveInt64Max { return UInt64(bitPattern: bits) }
      return bits >= 0 ? UInt64(bits) : nil
    }

    /// Whether the value is below zero.
    @inlinable
    public var isNegative: Bool { !isAboveInt64Max && bits < 0 }

    /// The value as a `Double`, if that `Double` is exactly equal to it; otherwise `nil`
    /// (for example 2⁵³ + 1, which no `Double` represents).
    @inlinable
    public var exactDoubleValue: Double? {
      isAboveInt64Max ? Double(exactly: UInt64(bitPattern: bits)) : Double(exactly: bits)
    }

    /// The value in decimal, as it appears in an XML property list.
    public var description: String {
      isAboveInt64Max ? String(UInt64(bitPattern: bits)) : String(bits)
    }

    /// Orders integers by value.
    ///
    /// - Parameters:
    ///   - lhs: An integer.
    ///   - rhs: Another integer.
    /// - Returns: Whether `lhs` is smaller than `rhs`.
    public static func < (lhs: Integer, rhs: Integer) -> Bool {
      switch (lhs.isAboveInt64Max, rhs.isAboveInt64Max) {
      case (false, false): lhs.bits < rhs.bits
      case (true, true): UInt64(bitPattern: lhs.bits) < UInt64(bitPattern: rhs.bits)
      case (false, true): true
      case (true, false): false
      }
    }
  }
}

extension PropertyListValue.Integer: ExpressibleByIntegerLiteral {
  /// Creates an integer from an integer literal.
  ///
  /// - Parameter value: The literal's value.
  public init(integerLiteral value: Int64) {
    self.init(value)
  }
}

extension FixedWidthInteger {
  /// Creates an integer from a property-list integer, or `nil` if the value doesn't fit in this
  /// type.
  ///
  /// Never wraps or truncates.
  ///
  /// - Parameter value: The property-list integer to convert.
  @inlinable
  public init?(exactly value: PropertyListValue.Integer) {
    if let signed = value.int64Value {
      guard let converted = Self(exactly: signed) else { return nil }
      self = converted
    } else {
      guard let converted = Self(exactly: UInt64(bitPattern: value.bits)) else { return nil }
      self = converted
    }
  }
}

extension PropertyListValue {
  /// An integer value from an `Int`: `.integer(count)` where `count` is a variable.
  ///
  /// Every `Int` fits (a property list holds `Int64.min ... UInt64.max`); for other integer types
  /// use `.integer(Integer(value))` with an `Int64` or `UInt64`, or ``Integer/init(exactly:)``.
  /// A literal (`.integer(5)`) works either way.
  ///
  /// - Parameter value: The integer.
  /// - Returns: `.integer` holding `value`.
  public static func integer(_ value: Int) -> PropertyListValue {
    .integer(Integer(Int64(value)))
  }
}

extension PropertyListValue.Integer {
  /// The integer a string holds in decimal, as `Int64(_:radix:)` and `UInt64(_:radix:)` read it
  /// (an optional sign, then digits only), or `nil` if it holds none in
  /// `Int64.min ... UInt64.max`.
  ///
  /// One function for every integer type's reading of a string: each type then checks that the
  /// integer fits it, so the binary holds one copy of the parser, not one per type.
  @usableFromInline @inline(never)
  init?(decimal text: String) {
    if let signed = Int64(text, radix: 10) {
      self.init(signed)
    } else if let unsigned = UInt64(text, radix: 10) {
      self.init(unsigned)
    } else {
      return nil
    }
  }
}
