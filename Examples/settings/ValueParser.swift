import Foundation
import TypedDefaults

/// What `write` does to a key, parsed from the arguments after it: `defaults`' value syntax.
enum WriteAction: Equatable {
  /// Store the value, replacing any other.
  case set(PropertyListValue)
  /// Append to the array the key holds (or start one).
  case arrayAdd([PropertyListValue])
  /// Add entries to the dictionary the key holds (or start one).
  case dictionaryAdd([String: PropertyListValue])
}

/// Parses `write`'s value arguments, as `defaults` takes them:
///
/// ```
/// value                     an old-style plist literal ('(a, b)', '{k = v;}', '<0fa1>'), else
///                           the text as a string
/// -string text              -int[eger] n     -float x     -bool[ean] yes|no|true|false|1|0
/// -date 2026-11-30T15:32:33Z                 -data 0fa1   (hex digits)
/// -array v1 v2 …            -array-add v …   (an array; -array-add appends)
/// -dict k1 v1 k2 v2 …       -dict-add k v …  (a dictionary; -dict-add merges)
/// ```
///
/// An element of `-array` or a value of `-dict` is parsed like a bare value, or may be preceded
/// by one of the scalar flags: `-array -int 1 -int 2`, `-dict size -int 3 name Ada`.
enum ValueParser {
  /// The flags that take exactly one value.
  static let scalarFlags: Set<String> = [
    "-string", "-int", "-integer", "-float", "-bool", "-boolean", "-date", "-data",
  ]
  /// The flags that take a list.
  static let containerFlags: Set<String> = ["-array", "-array-add", "-dict", "-dict-add"]

  /// Parses the arguments after the key.
  ///
  /// - Throws: A ``Failure`` naming the flag and the value that's wrong.
  static func parse(_ arguments: ArraySlice<String>) throws(Failure) -> WriteAction {
    var remaining = arguments
    guard let first = remaining.popFirst() else {
      throw Failure.usage("write: missing value; usage: settings write domain key value")
    }
    switch first {
    case "-array", "-array-add":
      var elements: [PropertyListValue] = []
      while !remaining.isEmpty { elements.append(try element(&remaining, of: first)) }
      return first == "-array" ? .set(.array(elements)) : .arrayAdd(elements)
    case "-dict", "-dict-add":
      var entries: [String: PropertyListValue] = [:]
      while let key = remaining.popFirst() {
        guard !remaining.isEmpty else {
          throw Failure.usage("\(first): the key '\(key)' has no value; give key value pairs")
        }
        entries[key] = try element(&remaining, of: first)
      }
      return first == "-dict" ? .set(.dictionary(entries)) : .dictionaryAdd(entries)
    default:
      var all = arguments
      let value = try element(&all, of: nil)
      if let extra = all.first {
        throw Failure.usage(
          "write: unexpected argument '\(extra)'; quote a value that holds spaces, or use -array")
      }
      return .set(value)
    }
  }

  /// One value: a scalar flag and its argument, or a bare value.
  private static func element(
    _ remaining: inout ArraySlice<String>,
    of container: String?
  ) throws(Failure) -> PropertyListValue {
    let argument = remaining.removeFirst()
    if scalarFlags.contains(argument) {
      guard let text = remaining.popFirst() else {
        throw Failure.usage("\(argument) needs a value")
      }
      return try scalar(argument, text)
    }
    if argument.hasPrefix("-"), argument != "-" {
      let place = container.map { " in \($0)" } ?? ""
      throw Failure.usage(
        "unknown type flag '\(argument)'\(place); to write text starting with '-', use -string")
    }
    return literal(argument)
  }

  /// A value given with a scalar type flag.
  static func scalar(_ flag: String, _ text: String) throws(Failure) -> PropertyListValue {
    func invalid(_ expected: String) -> Failure {
      Failure("\(flag): '\(text)' is not \(expected)")
    }
    switch flag {
    case "-string":
      return .string(text)
    case "-int", "-integer":
      if let value = Int64(text) { return .integer(.init(value)) }
      if let value = UInt64(text) { return .integer(.init(value)) }
      let digits = text.drop { $0 == "-" || $0 == "+" }
      let isWhole = !digits.isEmpty && digits.allSatisfy(\.isASCIIDigit)
      throw invalid(
        isWhole ? "in the integer range (\(Int64.min) to \(UInt64.max))" : "an integer")
    case "-float":
      guard let value = Double(text) else {
        throw invalid("a number")
      }
      return .real(value)
    case "-bool", "-boolean":
      switch text.lowercased() {
      case "yes", "true", "1": return .bool(true)
      case "no", "false", "0": return .bool(false)
      default: throw invalid("a boolean (yes, no, true, false, 1 or 0)")
      }
    case "-date":
      guard let date = CivilDate.parse(text) else {
        throw invalid("a date (2026-11-30T15:32:33Z, 2026-11-30 15:32:33 +0000 or 2026-11-30)")
      }
      return .date(date)
    case "-data":
      guard let data = hexData(text) else {
        throw invalid("hexadecimal data (an even number of hex digits, such as 0fa1)")
      }
      return .data(data)
    default:
      throw Failure.usage("unknown type flag '\(flag)'")
    }
  }

  /// A bare value: an old-style property-list literal when it parses as one (an array, a
  /// dictionary, data, a quoted string, or a whole XML plist), else the text as a string. As
  /// `defaults` does, `(1, 2)` is an array of the strings `1` and `2`: old-style plists have no
  /// numbers.
  static func literal(_ text: String) -> PropertyListValue {
    let start = text.drop { $0.isWhitespace }.first
    guard let start, "({<\"".contains(start) else { return .string(text) }
    return (try? PlistBytes.decode(Data(text.utf8), source: "value")) ?? .string(text)
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
}

extension Character {
  /// Whether this is one of the ASCII digits 0–9.
  fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
