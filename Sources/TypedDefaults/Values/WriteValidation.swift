/// Checks, before a value is stored, that it can be read back from any file the library writes:
/// the reading side refuses values nested deeper than ``FoundationBridge/maximumDepth`` or
/// holding more than ``FoundationBridge/maximumValueCount`` values (its defences against hostile
/// files), and dates that are not finite (no time is NaN or infinite; XML can't write one, and
/// the binary reader refuses one).
///
/// Every backend (``InMemoryBackend`` too, so that a model tested in memory behaves as in
/// production) and ``PropertyListFile`` apply this one rule and refuse such a value rather than
/// store something the next launch can't read. What only some formats refuse (XML's characters) is
/// checked by the backends that store them.
enum WriteValidation {
  enum Problem {
    /// Nested more than this many levels: ``FoundationBridge/maximumDepth`` for a file's root,
    /// one less for a value stored under a key of the root dictionary.
    case tooDeep(levels: Int)
    case tooMany
    /// A date of this many seconds since 2001, which is not finite.
    case nonFiniteDate(Double)

    var reason: String {
      switch self {
      case .tooDeep(let levels):
        "It is nested more than \(levels) levels deep, deeper than can be read back"
      case .tooMany:
        "It holds more than \(FoundationBridge.maximumValueCount) values, more than can be read back"
      case .nonFiniteDate(let seconds):
        "A date is not finite (\(seconds) s), which no property-list file can hold"
      }
    }
  }

  /// Throws if `value`, stored under `key` in a root dictionary, could not be read back, or (when
  /// `checkingKey`) `key` is empty (see ``check(key:)``).
  ///
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` naming the key and the limit.
  static func check(
    _ value: PropertyListValue, key: String, checkingKey: Bool = true
  ) throws(SettingsError) {
    if checkingKey { try check(key: key) }
    switch value {
    case .array, .dictionary, .date: break
    default: return  // Other scalars are always readable.
    }
    var count = 1  // the root dictionary holding the key
    if let problem = problem(in: value, depth: 1, count: &count) {
      throw SettingsError(.valueNotRepresentable, key: key, reason: problem.reason)
    }
  }

  /// Throws for the empty key, which every backend refuses: UserDefaults stores it (on Linux, and
  /// written to the suite's file), but no setting can be declared under it, no tool names it,
  /// and a model's check reports it as a key no backend stores.
  ///
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` naming the key.
  static func check(key: String) throws(SettingsError) {
    guard key.isEmpty else { return }
    throw SettingsError(.valueNotRepresentable, key: key, reason: "A key can't be empty")
  }

  /// The reason a whole file's root could not be read back, or `nil` if it can.
  static func problem(inRoot root: PropertyListValue) -> Problem? {
    var count = 0
    return problem(in: root, depth: 0, count: &count)
  }

  /// What stops `value`, read at `depth`, from being read back.
  ///
  /// Stops at the first problem, so neither a deep nor a huge value is walked to its end. The walk
  /// keeps its own stack of the containers it is in, so no depth exhausts the thread's.
  private static func problem(
    in value: PropertyListValue,
    depth rootDepth: Int,
    count: inout Int
  ) -> Problem? {
    /// A container being walked and the position of its next child.
    enum Frame {
      case array([PropertyListValue], next: Int)
      case dictionary([String: PropertyListValue].Values, next: [String: PropertyListValue].Index)
    }
    var frames: [Frame] = []
    var next: PropertyListValue? = value
    while true {
      if let value = next {
        next = nil
        count += 1
        guard count <= FoundationBridge.maximumValueCount else { return .tooMany }
        let depth = rootDepth + frames.count
        switch value {
        case .array(let elements):
          // The reader accepts a container at depth d when d < maximumDepth.
          guard depth < FoundationBridge.maximumDepth else {
            return .tooDeep(levels: FoundationBridge.maximumDepth - rootDepth)
          }
          frames.append(.array(elements, next: 0))
        case .dictionary(let entries):
          guard depth < FoundationBridge.maximumDepth else {
            return .tooDeep(levels: FoundationBridge.maximumDepth - rootDepth)
          }
          frames.append(.dictionary(entries.values, next: entries.values.startIndex))
        case .date(let date):
          let seconds = date.timeIntervalSinceReferenceDate
          if !seconds.isFinite { return .nonFiniteDate(seconds) }
        default:
          break
        }
      }
      // The next child of the innermost container, leaving the containers that have no more.
      guard let frame = frames.popLast() else { return nil }
      switch frame {
      case .array(let elements, let index):
        guard index < elements.count else { continue }
        next = elements[index]
        frames.append(.array(elements, next: index + 1))
      case .dictionary(let values, let index):
        guard index < values.endIndex else { continue }
        next = values[index]
        frames.append(.dictionary(values, next: values.index(after: index)))
      }
    }
  }
}
