import Foundation

/// Type names as Swift code spells them: `Date?`, `[String]`, `[String: Int]`, rather than the
/// runtime's `Optional<Date>`, `Array<String>`, `Dictionary<String, Int>`.
package enum TypeNames {
  package static func sugared(_ type: Any.Type) -> String {
    sugared(String(describing: type))
  }

  static func sugared(_ name: String) -> String {
    guard let open = name.firstIndex(of: "<"), name.last == ">" else { return name }
    let base = name[..<open]
    let arguments = splitArguments(
      name[name.index(after: open)..<name.index(before: name.endIndex)]
    )
    .map(sugared)
    switch (base, arguments.count) {
    case ("Optional", 1): return "\(arguments[0])?"
    case ("Array", 1): return "[\(arguments[0])]"
    case ("Dictionary", 2): return "[\(arguments[0]): \(arguments[1])]"
    default: return "\(base)<\(arguments.joined(separator: ", "))>"
    }
  }

  /// Splits `A, B<C, D>` into `A` and `B<C, D>`.
  private static func splitArguments(_ text: Substring) -> [String] {
    var parts: [String] = []
    var depth = 0
    var current = ""
    for character in text {
      switch character {
      case "<": depth += 1
      case ">": depth -= 1
      case "," where depth == 0:
        parts.append(current.trimmingCharacters(in: .whitespaces))
        current = ""
        continue
      default: break
      }
      current.append(character)
    }
    parts.append(current.trimmingCharacters(in: .whitespaces))
    return parts
  }
}
