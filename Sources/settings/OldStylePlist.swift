import Foundation
import TypedDefaults

/// Renders values as `defaults read` prints them: old-style (OpenStep) property-list text.
///
/// ```
/// {
///     AppleLanguages = (
///         "en-US",
///         en
///     );
///     LastSync = "2026-11-30 15:32:33 +0000";
///     Volume = "0.5";
///     Enabled = 1;
/// }
/// ```
///
/// - Dictionaries are `{ key = value; }` with sorted keys, arrays `( a, b )`, one entry per line,
///   indented by 4 spaces per level. (`defaults` misaligns a container nested in a dictionary,
///   `key =     (`, an artifact of `NSDictionary`'s description; this renderer doesn't.)
/// - Inside a container, a string (or number, or date) is quoted unless it is only ASCII letters
///   and digits, as `defaults` does: `en`, `42`, but `"en-US"`, `"0.5"`, `"-1"`, `""`. In quotes,
///   `"` and `\` are escaped, newline, tab and return are `\n`, `\t`, `\r`, and every other
///   control or non-ASCII character is `\Uxxxx` (UTF-16, as `defaults` prints `"caf\U00e9"`).
/// - At the top level (`read domain key` on a string), text is printed as it is.
/// - Booleans are `1` and `0`; integers in decimal; reals in the shortest form that reads back
///   exactly (`0.5`, `1`, `1e+20`); dates `2026-11-30 15:32:33 +0000` (UTC); data
///   `{length = 3, bytes = 0x010203}`, and over 24 bytes the first 16 and last 8 bytes:
///   `{length = 100, bytes = 0x00010203 04050607 08090a0b 0c0d0e0f ... 5c5d5e5f 60616263 }`.
enum OldStylePlist {
  /// The text `defaults read` prints for a value, without a final newline.
  static func render(_ value: PropertyListValue) -> String {
    var output = ""
    switch value {
    case .array, .dictionary: append(value, level: 0, to: &output)
    default: output = leaf(value)
    }
    return output
  }

  /// A dictionary as ``render(_:)`` prints it, with old-style comments: a line `// <above>`
  /// before an entry, and ` // <after>` at the end of its last line, where `notes` gives them.
  ///
  /// The comments are what `read` adds from a schema (help texts, declared defaults); the text
  /// still reads as a property list. A comment is one line: control characters are escaped.
  ///
  /// - Parameters:
  ///   - entries: The dictionary.
  ///   - notes: The comments of an entry, by key; `nil` for none.
  /// - Returns: The text, without a final newline.
  static func render(
    _ entries: [String: PropertyListValue],
    notes: (String) -> (above: String?, after: String?)
  ) -> String {
    var output = "{\n"
    for (key, element) in sortedEntries(entries) {
      let (above, after) = notes(key)
      if let above { output += "    // " + TerminalText.escaping(above) + "\n" }
      output += "    " + quotedIfNeeded(key) + " = "
      append(element, level: 1, to: &output)
      output += ";" + (after.map { " // " + TerminalText.escaping($0) } ?? "") + "\n"
    }
    return output + "}"
  }

  /// The value on one line, as in a container: `(a, "b c")`, `{k = v; n = 1;}`.
  static func inline(_ value: PropertyListValue) -> String {
    switch value {
    case .array(let elements):
      return "(" + elements.map(inline).joined(separator: ", ") + ")"
    case .dictionary(let entries):
      let body = sortedEntries(entries).map { "\(quotedIfNeeded($0)) = \(inline($1));" }
      return "{" + body.joined(separator: " ") + "}"
    case .data:
      return leaf(value)
    default:
      return quotedIfNeeded(leaf(value))
    }
  }

  /// A value's name as `defaults read-type` prints it: `string`, `integer`, `float`, `boolean`,
  /// `date`, `data`, `array`, `dictionary`.
  ///
  /// - Parameters:
  ///   - value: The value to name.
  ///   - article: Whether to put `a` or `an` in front (`data` has none).
  /// - Returns: The name, with its article when `article` is set.
  static func typeName(_ value: PropertyListValue, article: Bool = false) -> String {
    guard !article else {
      switch value {
      case .data: return "data"
      case .integer, .array: return "an " + typeName(value)
      default: return "a " + typeName(value)
      }
    }
    return switch value {
    case .string: "string"
    case .integer: "integer"
    case .real: "float"
    case .bool: "boolean"
    case .date: "date"
    case .data: "data"
    case .array: "array"
    case .dictionary: "dictionary"
    }
  }

  // MARK: - Containers

  private static func append(_ value: PropertyListValue, level: Int, to output: inout String) {
    let indent = String(repeating: " ", count: 4 * level)
    let inner = String(repeating: " ", count: 4 * (level + 1))
    switch value {
    case .array(let elements):
      output += "(\n"
      for (index, element) in elements.enumerated() {
        output += inner
        append(element, level: level + 1, to: &output)
        output += index == elements.count - 1 ? "\n" : ",\n"
      }
      output += indent + ")"
    case .dictionary(let entries):
      output += "{\n"
      for (key, element) in sortedEntries(entries) {
        output += inner + quotedIfNeeded(key) + " = "
        append(element, level: level + 1, to: &output)
        output += ";\n"
      }
      output += indent + "}"
    case .data:
      output += leaf(value)
    default:
      output += quotedIfNeeded(leaf(value))
    }
  }

  /// Entries in `NSString.compare(_:)` order for ASCII keys: by UTF-16 code units.
  private static func sortedEntries(
    _ entries: [String: PropertyListValue]
  ) -> [(key: String, value: PropertyListValue)] {
    entries.sorted { $0.key.utf16.lexicographicallyPrecedes($1.key.utf16) }
  }

  // MARK: - Leaves

  /// A scalar's text, unquoted.
  private static func leaf(_ value: PropertyListValue) -> String {
    switch value {
    case .string(let string): string
    case .integer(let integer): integer.description
    case .real(let real): number(real)
    case .bool(let bool): bool ? "1" : "0"
    case .date(let date): CivilDate.format(date)
    case .data(let data): describe(data)
    case .array, .dictionary: inline(value)
    }
  }

  /// The shortest decimal text that reads back as `real`, without a trailing `.0`.
  private static func number(_ real: Double) -> String {
    let text = real.description
    return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
  }

  /// `NSData`'s description: every byte up to 24, else the first 16 and the last 8 in groups.
  private static func describe(_ data: Data) -> String {
    let bytes = [UInt8](data)
    func hex(_ slice: ArraySlice<UInt8>) -> String {
      slice.map { byte in
        let digits = String(byte, radix: 16)
        return byte < 16 ? "0" + digits : digits
      }.joined()
    }
    var text = "{length = \(bytes.count), bytes = 0x"
    if bytes.count <= 24 {
      text += hex(bytes[...])
    } else {
      for start in stride(from: 0, to: 16, by: 4) { text += hex(bytes[start..<start + 4]) + " " }
      text += "... "
      for start in stride(from: bytes.count - 8, to: bytes.count, by: 4) {
        text += hex(bytes[start..<start + 4]) + " "
      }
    }
    return text + "}"
  }

  /// The text as is if it is only ASCII letters and digits; otherwise quoted and escaped.
  static func quotedIfNeeded(_ text: String) -> String {
    let plain =
      !text.isEmpty
      && text.utf8.allSatisfy { byte in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
          || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
      }
    if plain { return text }
    var quoted = "\""
    for unit in text.utf16 {
      switch unit {
      case 0x22: quoted += "\\\""
      case 0x5C: quoted += "\\\\"
      case 0x0A: quoted += "\\n"
      case 0x09: quoted += "\\t"
      case 0x0D: quoted += "\\r"
      case 0x20..<0x7F: quoted.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
      default:
        let digits = String(unit, radix: 16)
        quoted += "\\U" + String(repeating: "0", count: 4 - digits.count) + digits
      }
    }
    return quoted + "\""
  }
}
