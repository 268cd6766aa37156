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

/// Parses `write`'s value arguments, as `defaults` takes them.
///
/// The forms:
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

  /// Every type flag: what a key can't be (`settings write dom -bool true` forgot the key).
  static var typeFlags: Set<String> { scalarFlags.union(containerFlags) }

  /// What follows a type flag, for a usage line: `value`, `value …` or `key value …`.
  static func valueSynopsis(of flag: String) -> String {
    switch flag {
    case "-array", "-array-add": "value …"
    case "-dict", "-dict-add": "key value …"
    default: "value"
    }
  }

  /// Near misses of the type flags, by name without the dash, lowercased: what other tools
  /// (`plutil`, other languages) call the types.
  private static let typeFlagAliases: [String: String] = [
    "double": "-float", "real": "-float", "number": "-float",
    "str": "-string", "text": "-string",
    "dictionary": "-dict", "dictionary-add": "-dict-add",
    "list": "-array", "list-add": "-array-add",
    "bytes": "-data", "hex": "-data",
    "datetime": "-date",
  ]

  /// The type flag an unknown one was probably meant to be: the same name in another case or
  /// with two dashes (`-Float`, `--float`), or a near miss (`-double` for `-float`); `nil` for
  /// none, or for a type flag out of place (`-array` in `-array`).
  static func suggestion(for flag: String) -> String? {
    let name = flag.drop { $0 == "-" }.lowercased()
    let suggestion = typeFlags.contains("-" + name) ? "-" + name : typeFlagAliases[name]
    return suggestion == flag ? nil : suggestion
  }

  /// Parses the arguments after the key.
  ///
  /// - Parameters:
  ///   - arguments: The arguments after the key.
  ///   - key: The key, for the message when a literal's value can't be stored.
  /// - Returns: What `write` does to the key.
  /// - Throws: A usage ``Failure`` naming the flag and the value that's wrong; a ``Failure``
  ///   (exit status 1) for an old-style literal whose value can't be stored.
  static func parse(
    _ arguments: ArraySlice<String>,
    key: String
  ) throws(Failure) -> WriteAction {
    var remaining = arguments
    guard let first = remaining.popFirst() else {
      throw Failure.usage("write: missing value; usage: settings write domain key value")
    }
    switch first {
    case "-array", "-array-add":
      var elements: [PropertyListValue] = []
      while !remaining.isEmpty {
        elements.append(try element(&remaining, of: first, key: key))
      }
      return first == "-array" ? .set(.array(elements)) : .arrayAdd(elements)
    case "-dict", "-dict-add":
      var entries: [String: PropertyListValue] = [:]
      while let entry = remaining.popFirst() {
        guard !remaining.isEmpty else {
          throw Failure.usage("\(first): the key '\(entry)' has no value; give key value pairs")
        }
        entries[entry] = try element(&remaining, of: first, key: key)
      }
      return first == "-dict" ? .set(.dictionary(entries)) : .dictionaryAdd(entries)
    default:
      var all = arguments
      let value = try element(&all, of: nil, key: key)
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
    of container: String?,
    key: String
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
      let hint = "to write text starting with '-', use -string"
      guard let suggestion = suggestion(for: argument) else {
        throw Failure.usage("unknown type flag '\(argument)'\(place); \(hint)")
      }
      throw Failure.usage(
        "unknown type flag '\(argument)'\(place); did you mean \(suggestion)? (\(hint))")
    }
    return try literal(argument, key: key)
  }

  /// A value given with a scalar type flag.
  ///
  /// - Throws: A usage ``Failure`` (exit status 64) for text the flag doesn't take: the command
  ///   line is wrong.
  static func scalar(_ flag: String, _ text: String) throws(Failure) -> PropertyListValue {
    let kind: PropertyListValue.TextKind
    switch flag {
    case "-string": kind = .string
    case "-int", "-integer": kind = .integer
    case "-float": kind = .real
    case "-bool", "-boolean": kind = .bool
    case "-date": kind = .date
    case "-data": kind = .data
    default: throw Failure.usage("unknown type flag '\(flag)'")
    }
    do {
      return try PropertyListValue(parsing: text, as: kind)
    } catch {
      // The library's rules and words (`'loud' is not a number`), after the flag.
      throw Failure.usage("\(flag): \(error.reason)")
    }
  }

  /// A bare value: an old-style property-list literal when it parses as one (an array, a
  /// dictionary, data, a quoted string, or a whole XML plist), else the text as a string.
  ///
  /// As `defaults` does, `(1, 2)` is an array of the strings `1` and `2`: old-style plists have no
  /// numbers.
  ///
  /// Text that parses as a literal but holds a value that can't be stored is an error, not a
  /// string: nested more than ``maximumDepth`` levels deep (which CoreFoundation's parser, past
  /// a few levels more, reports as a syntax error, so the nesting is counted here too).
  ///
  /// - Parameters:
  ///   - text: The argument.
  ///   - key: The key, for the message when the value can't be stored.
  /// - Returns: The literal's value, or `text` as a string.
  /// - Throws: A ``Failure`` (a ``SettingsError/Code/valueNotRepresentable`` error for `key`) for
  ///   text that parses as a literal whose value can't be stored, or that is nested more than
  ///   ``maximumDepth`` levels deep.
  static func literal(_ text: String, key: String) throws(Failure) -> PropertyListValue {
    let start = text.drop { $0.isWhitespace }.first
    guard let start, "({<\"".contains(start) else { return .string(text) }
    let data = Data(text.utf8)
    let parses = withStandardErrorSilenced {
      (try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)) != nil
    }
    let tooDeep = (start == "(" || start == "{") && nestingDepth(of: text) > maximumDepth
    func unstorable(_ reason: String) -> Failure {
      Failure(
        SettingsError(
          .valueNotRepresentable, key: key,
          reason: tooDeep
            ? "It is nested more than \(maximumDepth - 1) levels deep, deeper than can be read back"
            : reason))
    }
    if parses {
      do {
        return try PlistBytes.decode(data, source: "value")
      } catch {
        throw unstorable(error.reason)
      }
    }
    if tooDeep { throw unstorable("") }
    return .string(text)
  }

  /// The deepest nesting the library reads back (its reader's limit, `FoundationBridge.
  /// maximumDepth`, which counts the file's root dictionary): a literal nested deeper is refused
  /// in the library's words for a value stored under a key, which may nest one level less.
  static let maximumDepth = 512

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
