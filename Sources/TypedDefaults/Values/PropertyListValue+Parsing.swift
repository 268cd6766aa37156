import Foundation

// Text read as a property-list value: the rules of the `settings write` type flags, in one place
// for the tool and for the layer sources whose values are text (environment variables,
// command-line arguments). Nothing here depends on a locale or on the platform's C library, so a
// text reads the same on Linux and on Apple platforms.

extension PropertyListValue {
  /// A scalar kind a text can be read as: the `settings write` type flags.
  ///
  /// | kind | flag | accepts |
  /// |---|---|---|
  /// | ``string`` | `-string` | any text, unchanged |
  /// | ``integer`` | `-int`, `-integer` | decimal digits with one optional sign (`-5`, `+5`), `Int64.min` to `UInt64.max`; no spaces, `_`, `0x` |
  /// | ``real`` | `-float` | a decimal (`0.5`, `.5`, `5.`, `1e3`) or C99 hexadecimal (`0x1p4`) number with one optional sign, `inf`, `infinity`, `nan` (any case); no spaces, `_`, NaN payloads |
  /// | ``bool`` | `-bool`, `-boolean` | `yes`, `no`, `true`, `false`, `1`, `0` (any case) |
  /// | ``date`` | `-date` | `2026-11-30T15:32:33Z`, `2026-11-30T15:32:33.250+01:00`, `2026-11-30T15:32` (UTC), `2026-11-30 15:32:33 +0000`, `2026-11-30` (midnight UTC) |
  /// | ``data`` | `-data` | an even number of hex digits (`0fa1`), spaces ignored, optionally `0x…` or `<…>` |
  ///
  /// A finite decimal too large for a `Double` (`1e400`) is refused rather than read as infinity;
  /// one too small (`1e-400`) reads as zero.
  public enum TextKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Any text, as ``PropertyListValue/string(_:)``.
    case string
    /// A decimal integer, as ``PropertyListValue/integer(_:)-swift.enum.case``.
    case integer
    /// A floating-point number, as ``PropertyListValue/real(_:)``.
    case real
    /// `yes`/`no`/`true`/`false`/`1`/`0`, as ``PropertyListValue/bool(_:)``.
    case bool
    /// An ISO 8601 date, as ``PropertyListValue/date(_:)``.
    case date
    /// Hexadecimal bytes, as ``PropertyListValue/data(_:)``.
    case data

    /// The kind of value a text of this kind reads as.
    public var kind: Kind {
      switch self {
      case .string: .string
      case .integer: .integer
      case .real: .real
      case .bool: .bool
      case .date: .date
      case .data: .data
      }
    }

    /// The kind's name: `integer`, `real`.
    public var description: String { rawValue }
  }

  /// Reads a text as a value of a scalar kind, with the rules of the `settings write` type flags.
  ///
  /// The rules are those of ``TextKind``, the same on every platform (no locale is involved).
  ///
  /// ```swift
  /// try PropertyListValue(parsing: "0.5", as: .real)  // .real(0.5)
  /// try PropertyListValue(parsing: "loud", as: .real)  // throws: 'loud' is not a number
  /// ```
  ///
  /// - Parameters:
  ///   - text: The text.
  ///   - kind: The kind to read it as.
  /// - Throws: ``SettingsError/Code/unparsableText`` naming the text and what the kind takes, for
  ///   example `'loud' is not a number` or `'99999999999999999999' is not in the integer range
  ///   (-9223372036854775808 to 18446744073709551615)`.
  public init(parsing text: String, as kind: TextKind) throws(SettingsError) {
    switch TextParsing.parse(text, as: kind) {
    case .success(let value): self = value
    case .failure(let predicate):
      throw SettingsError(.unparsableText, reason: "'\(text)' \(predicate.text)")
    }
  }

  /// Reads a text as the value a setting of a declared type stores, as a layer whose values are
  /// text (environment variables, arguments) is read once a model declares the key.
  ///
  /// Tries the kinds in a fixed order, ``TextKind/string``, ``TextKind/bool``,
  /// ``TextKind/integer``, ``TextKind/real``, ``TextKind/date``, ``TextKind/data``, and keeps the
  /// first whose parse succeeds, that `type` reads (``SettingValue/init(propertyListValue:)``),
  /// and that `type` stores as the same kind again (``SettingValue/propertyListValue()``); the
  /// value is then what `type` stores, as a write of the setting would store it. So a
  /// `String` setting keeps `42` as text, an `Int` setting refuses `yes` (it reads a bool but
  /// stores an integer), a `Double` setting reads `0.5`, a `Bool` setting `yes`/`no`/`true`/
  /// `false`/`1`/`0`, a `Date` setting ISO 8601, a `Data` setting hex digits, `URL`, `UUID` and
  /// `String`-backed enums their text, `Int`-backed enums their number. A text that starts with
  /// `(` or `{` is then read as an old-style (OpenStep) property-list literal, for array,
  /// dictionary, `Set` and `Codable` types: `(a, b)`, `{ name = Ada; age = 36; }` (old-style
  /// property lists have no numbers; their elements are strings, which the element types read
  /// leniently, so `(1, 2)` is the `[Int]` `[1, 2]`). JSON text is not read.
  ///
  /// - Parameters:
  ///   - text: The text.
  ///   - type: The setting's declared type (``SettingDescriptor/valueType``).
  /// - Throws: ``SettingsError/Code/unparsableText`` naming the text, the type, and why when it
  ///   can be told: `'loud' can't be read as Int: it is not an integer`.
  public init(parsing text: String, as type: any SettingValue.Type) throws(SettingsError) {
    let stored = TextParsing.storedKinds(of: type)
    var detail: String?
    for kind in TextParsing.typeOrder {
      switch TextParsing.parse(text, as: kind) {
      case .failure(let predicate):
        if detail == nil, stored.contains(kind.kind) { detail = "it " + predicate.text }
      case .success(let value):
        if let stored = TextParsing.storedValue(value, as: type) {
          self = stored
          return
        }
        if detail == nil, stored.contains(kind.kind) {
          detail = type.readFailureReason(for: value) ?? "\(type) can't hold it"
        }
      }
    }
    let start = text.first { !$0.isWhitespace }
    if start == "(" || start == "{" {
      switch TextParsing.literal(text) {
      case .success(let value):
        if let stored = TextParsing.storedValue(value, as: type) {
          self = stored
          return
        }
        detail = type.readFailureReason(for: value) ?? "\(type) can't hold \(value)"
      case .failure(let reason):
        detail = "it is not an old-style property list (\(reason.text))"
      }
    } else if detail == nil {
      if stored.contains(.array) {
        detail = "give an old-style property-list array, such as (a, b)"
      } else if stored.contains(.dictionary) {
        detail = "give an old-style property-list dictionary, such as { key = value; }"
      }
    }
    let name = TypeNames.sugared(type)
    throw SettingsError(
      .unparsableText,
      reason: "'\(text)' can't be read as \(name)" + (detail.map { ": \($0)" } ?? ""))
  }
}

/// The rules behind ``PropertyListValue/init(parsing:as:)-(_,TextKind)``.
package enum TextParsing {
  /// Why a text isn't of a kind: the predicate of `'text' …`.
  struct Predicate: Error {
    var text: String
  }

  /// The order in which kinds are tried for a declared type: text first, so a type storing
  /// strings keeps the text as given.
  static let typeOrder: [PropertyListValue.TextKind] = [
    .string, .bool, .integer, .real, .date, .data,
  ]

  /// Reads `text` as `kind`, or says why not.
  static func parse(
    _ text: String, as kind: PropertyListValue.TextKind
  ) -> Result<PropertyListValue, Predicate> {
    switch kind {
    case .string:
      return .success(.string(text))
    case .integer:
      if let value = Int64(text) { return .success(.integer(.init(value))) }
      if let value = UInt64(text) { return .success(.integer(.init(value))) }
      // One sign at most: `--5` is no integer, `99999999999999999999` one out of range.
      let digits = text.first == "-" || text.first == "+" ? text.dropFirst() : text[...]
      let isWhole = !digits.isEmpty && digits.utf8.allSatisfy { (0x30...0x39).contains($0) }
      return .failure(
        Predicate(
          text: isWhole
            ? "is not in the integer range (\(Int64.min) to \(UInt64.max))" : "is not an integer"))
    case .real:
      guard isRealNumber(text), let value = Double(text) else {
        return .failure(Predicate(text: "is not a number"))
      }
      // `Double` rounds a finite number too large for it to infinity; only `inf` means that.
      let name = (text.first == "-" || text.first == "+" ? text.dropFirst() : text[...])
        .lowercased()
      if value.isInfinite, name != "inf", name != "infinity" {
        return .failure(Predicate(text: "is out of the range of a float"))
      }
      return .success(.real(value))
    case .bool:
      switch text.lowercased() {
      case "yes", "true", "1": return .success(.bool(true))
      case "no", "false", "0": return .success(.bool(false))
      default: return .failure(Predicate(text: "is not a boolean (yes, no, true, false, 1 or 0)"))
      }
    case .date:
      guard let date = TextDate.parse(text) else {
        return .failure(
          Predicate(
            text: "is not a date (2026-11-30T15:32:33Z, 2026-11-30 15:32:33 +0000 or 2026-11-30)"
          ))
      }
      return .success(.date(date))
    case .data:
      guard let data = hexData(text) else {
        return .failure(
          Predicate(text: "is not hexadecimal data (an even number of hex digits, such as 0fa1)"))
      }
      return .success(.data(data))
    }
  }

  /// Whether `text` is a number in the grammar ``PropertyListValue/TextKind/real`` documents, so
  /// that `Double(_:)`, which hands the text to the C library, only sees text every platform's C
  /// library reads alike (no NaN payloads, no `snan`, no text after a NUL).
  package static func isRealNumber(_ text: String) -> Bool {
    var bytes = Array(text.utf8)[...]
    if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
      bytes = bytes.dropFirst()
    }
    let word = String(decoding: bytes, as: UTF8.self).lowercased()
    if word == "inf" || word == "infinity" || word == "nan" { return true }
    func isDigit(_ byte: UInt8, hex: Bool) -> Bool {
      (0x30...0x39).contains(byte)
        || (hex && ((0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)))
    }
    var hex = false
    if bytes.starts(with: [0x30, 0x78]) || bytes.starts(with: [0x30, 0x58]) {  // 0x, 0X
      hex = true
      bytes = bytes.dropFirst(2)
    }
    let whole = bytes.prefix { isDigit($0, hex: hex) }.count
    bytes = bytes.dropFirst(whole)
    var fraction = 0
    if bytes.first == UInt8(ascii: ".") {
      bytes = bytes.dropFirst()
      fraction = bytes.prefix { isDigit($0, hex: hex) }.count
      bytes = bytes.dropFirst(fraction)
    }
    guard whole + fraction > 0 else { return false }
    let exponentMarks: [UInt8] = hex ? [0x70, 0x50] : [0x65, 0x45]  // p P, e E
    if let mark = bytes.first, exponentMarks.contains(mark) {
      bytes = bytes.dropFirst()
      if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
        bytes = bytes.dropFirst()
      }
      let exponent = bytes.prefix { isDigit($0, hex: false) }.count
      guard exponent > 0 else { return false }
      bytes = bytes.dropFirst(exponent)
    }
    return bytes.isEmpty
  }

  /// Bytes from hex digits; spaces are ignored, and `0x` or `<…>` around them are allowed.
  static func hexData(_ text: String) -> Data? {
    var digits = Substring(text.filter { !$0.isWhitespace })
    if digits.hasPrefix("<"), digits.hasSuffix(">") { digits = digits.dropFirst().dropLast() }
    if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
    guard digits.count % 2 == 0, digits.allSatisfy(\.isHexDigit) else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    var index = digits.startIndex
    while index < digits.endIndex {
      let next = digits.index(index, offsetBy: 2)
      guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
      bytes.append(byte)
      index = next
    }
    return Data(bytes)
  }

  /// What `type` stores for `value`, if it reads it and stores it as the same kind of value.
  static func storedValue(
    _ value: PropertyListValue, as type: any SettingValue.Type
  ) -> PropertyListValue? {
    guard let read = type.init(propertyListValue: value),
      let stored = try? read.propertyListValue(), stored.kind == value.kind
    else { return nil }
    return stored
  }

  /// The kinds `type` stores, as far as an empty value of each kind tells (`0`, `""`, `[]`): what
  /// an error says the text should have been.
  static func storedKinds(of type: any SettingValue.Type) -> Set<PropertyListValue.Kind> {
    let samples: [PropertyListValue] = [
      .string(""), .bool(false), .integer(0), .real(0), .date(Date(timeIntervalSince1970: 0)),
      .data(Data()), .array([]), .dictionary([:]),
    ]
    return Set(samples.filter { storedValue($0, as: type) != nil }.map(\.kind))
  }

  /// An old-style property-list literal, read by the library's reader (``PropertyListFile``);
  /// nesting deeper than the readers' limit is refused before any parser sees it.
  static func literal(_ text: String) -> Result<PropertyListValue, Predicate> {
    guard nestingDepth(of: text) <= PropertyListReaders.maximumDepth else {
      return .failure(
        Predicate(text: "nested more than \(PropertyListReaders.maximumDepth) levels deep"))
    }
    do {
      return .success(try PropertyListFile.decode(Data(text.utf8), path: "<text>").root)
    } catch {
      return .failure(Predicate(text: error.reason))
    }
  }

  /// How deeply the arrays and dictionaries of an old-style literal nest: the most `(` and `{`
  /// open at once, outside quoted strings.
  static func nestingDepth(of text: String) -> Int {
    var depth = 0
    var deepest = 0
    var quote: UInt8?
    var escaped = false
    for byte in text.utf8 {
      if let open = quote {
        if escaped {
          escaped = false
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == open {
          quote = nil
        }
        continue
      }
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "'"):
        quote = byte
      case UInt8(ascii: "("), UInt8(ascii: "{"):
        depth += 1
        deepest = max(deepest, depth)
      case UInt8(ascii: ")"), UInt8(ascii: "}"):
        depth = max(depth - 1, 0)
      default:
        break
      }
    }
    return deepest
  }
}
