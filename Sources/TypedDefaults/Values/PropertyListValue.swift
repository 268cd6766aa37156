import Foundation

/// A property-list value: the one value type that crosses the boundary between settings and a
/// backend.
///
/// Every backend stores and returns `PropertyListValue`s; every ``SettingValue`` converts to and
/// from one. The cases are exactly the kinds a property list (XML or binary, as written by
/// `PropertyListSerialization` and `UserDefaults`) can hold, so anything a backend returns can be
/// saved to a plist file and read back equal.
///
/// ```swift
/// let value: PropertyListValue = [
///   "volume": 0.8,
///   "recentSearches": ["jazz", "piano"],
///   "allowsCellularPlayback": false,
/// ]
/// ```
///
/// Equality is structural and kind-sensitive: `.integer(1)`, `.real(1.0)` and `.bool(true)` are
/// three different values, as they are three different elements in a plist file. Reading a value
/// as a Swift type is lenient where no information is lost (see ``SettingValue``).
///
/// Binary keyed-archiver UIDs, which some plist files contain, are read as the dictionary
/// `["CF$UID": .integer(n)]`, the form CoreFoundation itself uses for UIDs in XML property lists.
///
/// `PropertyListValue` is a value type and `Sendable`; it is safe to share between threads.
public enum PropertyListValue: Sendable, Hashable {
  /// A string (`<string>` in XML).
  case string(String)
  /// An integer (`<integer>`), anywhere in `Int64.min ... UInt64.max`, the range plists can hold.
  case integer(Integer)
  /// A double-precision floating-point number (`<real>`), including infinities and NaN.
  case real(Double)
  /// A Boolean (`<true/>` or `<false/>`).
  case bool(Bool)
  /// A point in time (`<date>`). XML property lists keep whole seconds; binary ones keep the
  /// full `Double` precision of `timeIntervalSinceReferenceDate`.
  case date(Date)
  /// Raw bytes (`<data>`).
  case data(Data)
  /// An ordered list of values (`<array>`).
  case array([PropertyListValue])
  /// A dictionary with string keys (`<dict>`).
  case dictionary([String: PropertyListValue])
}

// MARK: - Equality and hashing

extension PropertyListValue {
  /// Whether two values are the same element of a property list: the same case with equal
  /// contents, compared as Swift compares them (reals with `==`, so NaN equals nothing; dates to
  /// the bit; arrays in order; dictionaries key by key).
  ///
  /// An `.integer` never equals a `.real` or a `.bool`, even of the same number: they are
  /// different elements in a file. Any depth is safe to compare: values nested deeper than a
  /// small thread's stack surely holds are compared on a thread with a larger one.
  ///
  /// Declared here, and never inlined, rather than synthesized: the binary holds one copy of the
  /// comparison instead of one in every caller (55 KB in the smallest app; a call costs a few
  /// nanoseconds on a write, which compares the new value with the old).
  ///
  /// - Parameters:
  ///   - lhs: A value.
  ///   - rhs: Another value.
  /// - Returns: `true` if the two are the same.
  @inline(never)
  public static func == (lhs: PropertyListValue, rhs: PropertyListValue) -> Bool {
    switch (lhs, rhs) {
    case (.array, .array), (.dictionary, .dictionary):
      lhs.withStackForItsDepth { same(lhs, rhs) }
    default:
      same(lhs, rhs)
    }
  }

  private static func same(_ lhs: PropertyListValue, _ rhs: PropertyListValue) -> Bool {
    switch (lhs, rhs) {
    case (.string(let a), .string(let b)): a == b
    case (.integer(let a), .integer(let b)): a == b
    case (.real(let a), .real(let b)): a == b
    case (.bool(let a), .bool(let b)): a == b
    case (.date(let a), .date(let b)): a == b
    case (.data(let a), .data(let b)): a == b
    case (.array(let a), .array(let b)):
      a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
    case (.dictionary(let a), .dictionary(let b)):
      a.count == b.count && a.allSatisfy { key, value in b[key].map { same(value, $0) } ?? false }
    case (.string, _), (.integer, _), (.real, _), (.bool, _), (.date, _), (.data, _), (.array, _),
      (.dictionary, _):
      false
    }
  }

  /// Hashes the value's case and contents, consistently with ``==(_:_:)``: a dictionary's entries
  /// in any order hash the same.
  ///
  /// Any depth is safe to hash, as with ``==(_:_:)``.
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    switch self {
    case .array, .dictionary: withStackForItsDepth { hashContents(into: &hasher) }
    default: hashContents(into: &hasher)
    }
  }

  private func hashContents(into hasher: inout Hasher) {
    func combine(_ tag: Int, _ value: some Hashable) {
      hasher.combine(tag)
      hasher.combine(value)
    }
    switch self {
    case .string(let value): combine(0, value)
    case .integer(let value): combine(1, value)
    case .real(let value): combine(2, value)
    case .bool(let value): combine(3, value)
    case .date(let value): combine(4, value)
    case .data(let value): combine(5, value)
    case .array(let elements):
      hasher.combine(6)
      hasher.combine(elements.count)
      for element in elements { element.hashContents(into: &hasher) }
    case .dictionary(let entries):
      hasher.combine(7)
      hasher.combine(entries.count)
      // Order-independent, as `Dictionary`'s own hash: each entry hashed alone, then combined
      // with an operation that doesn't depend on the order.
      var combined = 0
      for (key, value) in entries {
        var entryHasher = Hasher()
        entryHasher.combine(key)
        value.hashContents(into: &entryHasher)
        combined ^= entryHasher.finalize()
      }
      hasher.combine(combined)
    }
  }
}

// MARK: - Kinds

extension PropertyListValue {
  /// The kind of a property-list value, without its contents: used in diagnostics and errors.
  public enum Kind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// ``PropertyListValue/string(_:)``.
    case string
    /// ``PropertyListValue/integer(_:)-swift.enum.case``.
    case integer
    /// ``PropertyListValue/real(_:)``.
    case real
    /// ``PropertyListValue/bool(_:)``.
    case bool
    /// ``PropertyListValue/date(_:)``.
    case date
    /// ``PropertyListValue/data(_:)``.
    case data
    /// ``PropertyListValue/array(_:)``.
    case array
    /// ``PropertyListValue/dictionary(_:)``.
    case dictionary

    /// The kind's name, as it appears in an XML property list (`integer`, `dict` is `dictionary`).
    public var description: String { rawValue }
  }

  /// The kind of this value (string, integer, real, bool, date, data, array or dictionary).
  public var kind: Kind {
    switch self {
    case .string: .string
    case .integer: .integer
    case .real: .real
    case .bool: .bool
    case .date: .date
    case .data: .data
    case .array: .array
    case .dictionary: .dictionary
    }
  }
}

// MARK: - Accessors

extension PropertyListValue {
  /// The string, if this value is a ``string(_:)``; otherwise `nil`.
  ///
  /// Performs no conversion.
  public var stringValue: String? {
    if case .string(let value) = self { value } else { nil }
  }

  /// The Boolean, if this value is a ``bool(_:)``; otherwise `nil`.
  ///
  /// Performs no conversion.
  public var boolValue: Bool? {
    if case .bool(let value) = self { value } else { nil }
  }

  /// The integer as an `Int`, if this value is an ``integer(_:)-swift.enum.case`` that fits; otherwise `nil`.
  public var intValue: Int? {
    if case .integer(let value) = self { Int(exactly: value) } else { nil }
  }

  /// The number, if this value is a ``real(_:)``; otherwise `nil`.
  ///
  /// Performs no conversion.
  public var doubleValue: Double? {
    if case .real(let value) = self { value } else { nil }
  }

  /// The date, if this value is a ``date(_:)``; otherwise `nil`.
  public var dateValue: Date? {
    if case .date(let value) = self { value } else { nil }
  }

  /// The bytes, if this value is a ``data(_:)``; otherwise `nil`.
  public var dataValue: Data? {
    if case .data(let value) = self { value } else { nil }
  }

  /// The elements, if this value is an ``array(_:)``; otherwise `nil`.
  public var arrayValue: [PropertyListValue]? {
    if case .array(let value) = self { value } else { nil }
  }

  /// The entries, if this value is a ``dictionary(_:)``; otherwise `nil`.
  public var dictionaryValue: [String: PropertyListValue]? {
    if case .dictionary(let value) = self { value } else { nil }
  }

  /// The value at `key`, if this value is a dictionary that has one; otherwise `nil`.
  ///
  /// - Parameter key: A dictionary key.
  public subscript(key: String) -> PropertyListValue? {
    dictionaryValue?[key]
  }
}

// MARK: - Literals

extension PropertyListValue: ExpressibleByStringLiteral {
  /// Creates a ``string(_:)`` value from a string literal.
  ///
  /// - Parameter value: The literal's text.
  public init(stringLiteral value: String) {
    self = .string(value)
  }
}

extension PropertyListValue: ExpressibleByIntegerLiteral {
  /// Creates an ``integer(_:)-swift.enum.case`` value from an integer literal.
  ///
  /// - Parameter value: The literal's value.
  public init(integerLiteral value: Int64) {
    self = .integer(Integer(value))
  }
}

extension PropertyListValue: ExpressibleByFloatLiteral {
  /// Creates a ``real(_:)`` value from a floating-point literal.
  ///
  /// - Parameter value: The literal's value.
  public init(floatLiteral value: Double) {
    self = .real(value)
  }
}

extension PropertyListValue: ExpressibleByBooleanLiteral {
  /// Creates a ``bool(_:)`` value from `true` or `false`.
  ///
  /// - Parameter value: The literal's value.
  public init(booleanLiteral value: Bool) {
    self = .bool(value)
  }
}

extension PropertyListValue: ExpressibleByArrayLiteral {
  /// Creates an ``array(_:)`` value from an array literal.
  ///
  /// - Parameter elements: The array's elements, in order.
  public init(arrayLiteral elements: PropertyListValue...) {
    self = .array(elements)
  }
}

extension PropertyListValue: ExpressibleByDictionaryLiteral {
  /// Creates a ``dictionary(_:)`` value from a dictionary literal.
  ///
  /// If a key appears more than once, the last value for it wins.
  ///
  /// - Parameter elements: The dictionary's key-value pairs.
  public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
    self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
}

// MARK: - Description

extension PropertyListValue {
  /// Whether a container is nested more than `levels` deep in this value (a scalar is 0 levels,
  /// an empty array 1).
  ///
  /// Recurses at most `levels + 1` deep whatever the value's depth, without allocating: cheap to
  /// ask with the small `levels` of ``DeepStack/levelsOnCallingThread``.
  func isNested(deeperThan levels: Int) -> Bool {
    switch self {
    case .array(let elements):
      levels <= 0 || elements.contains { $0.isNested(deeperThan: levels - 1) }
    case .dictionary(let entries):
      levels <= 0 || entries.values.contains { $0.isNested(deeperThan: levels - 1) }
    default:
      false
    }
  }
}

extension PropertyListValue: CustomStringConvertible {
  /// A compact rendering of the value in the style of old-style (OpenStep) property lists:
  /// strings quoted when needed, dictionaries with sorted keys, dates in ISO 8601 and data in
  /// hexadecimal.
  ///
  /// Booleans print as `true` and `false`, so they can't be mistaken for the integers 1 and 0.
  /// Containers nested deeper than a property list file can hold (512 levels) print as `(...)`
  /// and `{...}` below that depth, so no value, however deep, exhausts the stack.
  public var description: String {
    // Written by a walk that recurses once per level.
    withStackForItsDepth {
      var output = ""
      write(to: &output, depth: 0)
      return output
    }
  }

  private func write(to output: inout String, depth: Int) {
    if depth >= FoundationBridge.maximumDepth {
      switch self {
      case .array: return output += "(...)"
      case .dictionary: return output += "{...}"
      default: break
      }
    }
    switch self {
    case .string(let value):
      output += Self.quotedIfNeeded(value)
    case .integer(let value):
      output += value.description
    case .real(let value):
      output += value.description
    case .bool(let value):
      output += value ? "true" : "false"
    case .date(let value):
      output += "\"\(value.formatted(.iso8601))\""
    case .data(let value):
      output += "{length = \(value.count), bytes = 0x"
      output += value.prefix(32).map { String(format: "%02x", $0) }.joined()
      output += value.count > 32 ? "...}" : "}"
    case .array(let elements):
      output += "("
      for (index, element) in elements.enumerated() {
        if index > 0 { output += ", " }
        element.write(to: &output, depth: depth + 1)
      }
      output += ")"
    case .dictionary(let entries):
      output += "{"
      for (key, value) in entries.sortedByKey() {
        output += Self.quotedIfNeeded(key) + " = "
        value.write(to: &output, depth: depth + 1)
        output += "; "
      }
      output += "}"
    }
  }

  private static func quotedIfNeeded(_ string: String) -> String {
    let plain =
      !string.isEmpty
      && string.unicodeScalars.allSatisfy { scalar in
        scalar.isASCII
          && (CharacterSet.alphanumerics.contains(scalar)
            || "_.$/:-".unicodeScalars.contains(scalar))
      }
    if plain { return string }
    var escaped = "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": escaped += "\\\""
      case "\\": escaped += "\\\\"
      case "\n": escaped += "\\n"
      case "\t": escaped += "\\t"
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped + "\""
  }
}
