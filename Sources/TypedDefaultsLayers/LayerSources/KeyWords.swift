import TypedDefaults

/// How a settings key splits into words, for the names a key has outside the store: an
/// environment variable (`PLAYER_SERVER_URL`) and a command-line option (`--server-url`).
///
/// A key splits at every ASCII character that is not a letter or a digit (`.`, `-`, `_`, a
/// space), and at case changes: before an upper-case letter that follows a lower-case letter or
/// a digit (`serverURL` → `server`, `URL`), and before the last upper-case letter of a run of
/// them that a lower-case letter follows, so acronyms stay whole (`URLSession` → `URL`,
/// `Session`), their plurals too (`recentURLs` → `recent`, `URLs`). Digits stay with the word before them (`oAuth2Token` → `o`, `Auth2`, `Token`;
/// `http2Enabled` → `http2`, `Enabled`).
enum KeyWords {
  /// The words of `key`, or `nil` if it holds a character that is not ASCII (no name is made up
  /// for it) or no letter or digit at all.
  static func words(of key: String) -> [String]? {
    guard key.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
    var words: [[UInt8]] = []
    var current: [UInt8] = []
    let bytes = Array(key.utf8)
    func isUpper(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) }
    func isLower(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) }
    func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    for (index, byte) in bytes.enumerated() {
      guard isUpper(byte) || isLower(byte) || isDigit(byte) else {
        if !current.isEmpty { words.append(current) }
        current = []
        continue
      }
      if isUpper(byte), let previous = current.last {
        let next = index + 1 < bytes.count ? bytes[index + 1] : nil
        let afterNext = index + 2 < bytes.count ? bytes[index + 2] : nil
        // An acronym's plural (`URLs`, `IDs`) stays one word.
        let isPlural = next == UInt8(ascii: "s") && afterNext.map(isLower) != true
        if isLower(previous) || isDigit(previous)
          || (isUpper(previous) && next.map(isLower) == true && !isPlural)
        {
          words.append(current)
          current = []
        }
      }
      current.append(byte)
    }
    if !current.isEmpty { words.append(current) }
    guard !words.isEmpty else { return nil }
    return words.map { String(decoding: $0, as: UTF8.self) }
  }

  /// The environment variable name of `key` without its prefix: its words in upper case, joined
  /// by `_` (`serverURL` → `SERVER_URL`).
  static func upperSnakeCase(_ key: String) -> String? {
    words(of: key).map { $0.map { $0.uppercased() }.joined(separator: "_") }
  }

  /// The command-line option name of `key` without its dashes: its words in lower case, joined by
  /// `-` (`serverURL` → `server-url`).
  static func kebabCase(_ key: String) -> String? {
    words(of: key).map { $0.map { $0.lowercased() }.joined(separator: "-") }
  }
}
