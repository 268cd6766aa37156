import TypedDefaults

/// A source each of whose keys an operator named by hand (a mounted folder's files), so that a
/// key no model bound to the store declared is a mistake (`reqestTimeout` for `requestTimeout`),
/// which ``LayeredPlistStore/configurationProblems()`` lists as the environment source lists a
/// variable naming no setting.
protocol NamesItsKeysByHand: LayerSource {
  /// Where the key was given, as a problem names it: `The file '/etc/config/reqestTimeout'`.
  ///
  /// - Parameter key: The key as the source named it (never its value).
  /// - Returns: The words that start the problem's message.
  func origin(ofKey key: String) -> String
}

extension DirectorySource: NamesItsKeysByHand {
  /// `The file '<folder>/<key>'`: the file is named, never read again nor shown.
  func origin(ofKey key: String) -> String {
    "The file '\(directory.path)/\(key)'"
  }
}

extension LayeredPlistStore {
  /// A problem for each key a source naming its keys by hand (``DirectorySource``) gave that no
  /// model bound to the store declared, compared as the store normalizes keys; none while no
  /// model declared a key (nothing to compare with).
  ///
  /// - Parameter declared: The declared keys, normalized.
  /// - Returns: The problems, by layer in the store's order, then by key.
  func undeclaredKeyProblems(declared: [String: DeclaredKey]) -> [ConfigurationProblem] {
    guard !declared.isEmpty else { return [] }
    var found: [ConfigurationProblem] = []
    for slot in sourceSlots {
      guard let source = slot.source as? any NamesItsKeysByHand else { continue }
      for name in slot.names.withLock({ $0 }).sorted()
      where declared[normalizedKey(name)] == nil {
        let hint = Self.closestKey(to: normalizedKey(name), among: declared.keys).map {
          "; did you mean '\($0)'?"
        }
        found.append(
          ConfigurationProblem(
            kind: .layerSourceProblem, key: name, layer: slot.layer,
            message: "\(source.origin(ofKey: name)) names no setting\(hint ?? "")"))
      }
    }
    return found
  }

  /// The declared key a mistyped one most likely meant: the nearest by edit distance, letter
  /// case aside (`reqestTimeout` → `requestTimeout`, `RequestTimeout` → `requestTimeout`), within
  /// one edit per four characters (at least one, at most three); ties go to the first in
  /// alphabetical order.
  ///
  /// - Parameters:
  ///   - key: The key that names no setting.
  ///   - keys: The declared keys.
  /// - Returns: The nearest declared key, or `nil` if none is near.
  static func closestKey(to key: String, among keys: some Sequence<String>) -> String? {
    let typed = Array(key.lowercased().unicodeScalars)
    let limit = min(3, max(1, typed.count / 4))
    var best: (distance: Int, key: String)?
    for candidate in keys {
      let distance = editDistance(typed, Array(candidate.lowercased().unicodeScalars))
      guard distance <= limit else { continue }
      if let current = best,
        current.distance < distance || (current.distance == distance && current.key < candidate)
      {
        continue
      }
      best = (distance, candidate)
    }
    return best?.key
  }

  /// The Levenshtein distance between two strings of scalars.
  private static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
        current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
      }
      swap(&previous, &current)
    }
    return previous[b.count]
  }
}
