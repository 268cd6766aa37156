/// Text made safe to print to a terminal (`package`: the `settings` tool prints with it too).
package enum TerminalText {
  /// The text with every character that could change what a terminal shows written as `\u{…}`
  /// (uppercase hex): the C0 and C1 controls and DEL (escape sequences, bells, carriage returns),
  /// the line and paragraph separators, and the bidirectional-text controls (U+200E, U+200F,
  /// U+202A–U+202E, U+2066–U+2069), which can make a line read differently from what it holds.
  ///
  /// - Parameters:
  ///   - text: The text to print.
  ///   - keepingLinesAndTabs: Whether line feeds and tabs stay as they are.
  /// - Returns: The escaped text.
  package static func escaping(_ text: String, keepingLinesAndTabs: Bool = false) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
      switch scalar.value {
      case 0x0A where keepingLinesAndTabs, 0x09 where keepingLinesAndTabs:
        escaped.unicodeScalars.append(scalar)
      case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E,
        0x2066...0x2069:
        escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
      default:
        escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped
  }
}
