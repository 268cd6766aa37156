import Foundation

/// What an XML property list written and read back by CoreFoundation keeps of a value.
///
/// Measured with swift-corelibs-foundation (and matching Apple's documented XML format): dates
/// keep whole seconds (the writer rounds down); `-0.0` comes back as `0.0`; a string or key that
/// starts with U+FEFF (a byte-order mark) comes back without it; a non-finite date is written as
/// text no reader accepts, which makes the whole file unreadable; and control characters other
/// than tab, line feed and carriage return are written raw, which XML forbids, so other plist
/// readers (Python's plistlib, for one) reject the file. Everything else (every integer, every
/// other real bit for bit, infinities and NaN as reals) survives.
///
/// Backends whose values end up in an XML file (`LayeredPlistStore` saving XML, and
/// ``UserDefaultsBackend`` on Linux, where corelibs keeps suites as XML) store what the file will
/// give back, so a value reads the same before and after a relaunch, and refuse what it would
/// change into something else.
package enum XMLPropertyListRules {
  /// Returns `value` as an XML property list gives it back: dates rounded down to whole seconds,
  /// `-0.0` as `0.0`.
  ///
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` for a string or dictionary key that
  ///   starts with U+FEFF or holds a control character XML forbids, or a non-finite date.
  package static func normalized(
    _ value: PropertyListValue, key: String
  ) throws(SettingsError)
    -> PropertyListValue
  {
    do {
      try check(key, checkingByteOrderMark: true)
    } catch {
      throw error.settingsError(key: key, path: "(the key itself)")
    }
    do {
      return try walk(value, normalizing: true) ?? value
    } catch {
      throw error.settingsError(key: key)
    }
  }

  /// Why a whole XML property list can't hold `root`: a string or key with a character XML
  /// forbids (the file would be malformed) or starting with U+FEFF (dropped on reading), or a
  /// non-finite date (the file would be unreadable); `nil` if it can.
  ///
  /// Dates with fractions of a second and `-0.0` are fine: they are written as the reader will give
  /// them back.
  static func problem(inRoot root: PropertyListValue) -> String? {
    do {
      _ = try walk(root, normalizing: true)
      return nil
    } catch {
      return error.settingsError(key: "").reason
    }
  }

  /// What an XML property list can't hold, found somewhere inside a value.
  private enum Problem {
    case byteOrderMark
    case controlCharacter(Unicode.Scalar)
    case nonFiniteDate(seconds: Double)
  }

  /// A ``Problem`` and where it is: the path is only built when there is one, as the walk unwinds,
  /// so checking a value that is fine costs no text.
  private struct Located: Error {
    let problem: Problem
    /// The path's parts, innermost first (`[2]`, `["name"]`, ` (a key)`).
    var parts: [String] = []

    /// The same problem, seen from the container one level out.
    func inside(_ part: String) -> Located {
      var outer = self
      outer.parts.append(part)
      return outer
    }

    func settingsError(key: String, path: String? = nil) -> SettingsError {
      let path = path ?? parts.reversed().joined()
      let at = path.isEmpty ? "" : " at \(path)"
      let reason: String
      switch problem {
      case .byteOrderMark:
        reason =
          "A string\(at) starts with U+FEFF (a byte-order mark), which an XML property list drops"
      case .controlCharacter(let scalar):
        let digits = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        reason = "A string\(at) holds the control character \(code), which XML can't hold"
      case .nonFiniteDate(let seconds):
        reason = "A date\(at) is not finite (\(seconds) s), which an XML property list can't hold"
      }
      return SettingsError(.valueNotRepresentable, key: key, reason: reason)
    }
  }

  /// ``normalizedIfChanged(_:normalizing:)`` with a stack for the value's depth.
  private static func walk(
    _ value: PropertyListValue, normalizing: Bool
  ) throws(Located) -> PropertyListValue? {
    try value.withStackForItsDepth {
      Result { () throws(Located) in try normalizedIfChanged(value, normalizing: normalizing) }
    }.get()
  }

  /// Walks `value` once: with `normalizing`, returns the normalized value, or `nil` if it needs no
  /// change (so unchanged containers are not copied), and refuses a leading U+FEFF and non-finite
  /// dates too; without it, only checks for characters XML forbids and returns `nil`.
  ///
  /// One non-generic function for both uses, so the binary holds one copy of the walk.
  private static func normalizedIfChanged(
    _ value: PropertyListValue, normalizing: Bool
  ) throws(Located) -> PropertyListValue? {
    switch value {
    case .date(let date):
      guard normalizing else { return nil }
      let seconds = date.timeIntervalSinceReferenceDate
      guard seconds.isFinite else { throw Located(problem: .nonFiniteDate(seconds: seconds)) }
      let whole = seconds.rounded(.down)
      return whole == seconds ? nil : .date(Date(timeIntervalSinceReferenceDate: whole))
    case .real(let real):
      return normalizing && real == 0 && real.sign == .minus ? .real(0) : nil
    case .string(let string):
      try check(string, checkingByteOrderMark: normalizing)
      return nil
    case .array(var elements):
      var changed = false
      for index in elements.indices {
        do {
          if let element = try normalizedIfChanged(elements[index], normalizing: normalizing) {
            elements[index] = element
            changed = true
          }
        } catch {
          throw error.inside("[\(index)]")
        }
      }
      return changed ? .array(elements) : nil
    case .dictionary(var entries):
      var changed = false
      for (entryKey, entry) in entries {
        do {
          try check(entryKey, checkingByteOrderMark: normalizing)
        } catch {
          throw error.inside(" (a key)")
        }
        do {
          if let normalized = try normalizedIfChanged(entry, normalizing: normalizing) {
            entries[entryKey] = normalized
            changed = true
          }
        } catch {
          throw error.inside("[\"\(entryKey)\"]")
        }
      }
      return changed ? .dictionary(entries) : nil
    case .integer, .bool, .data:
      return nil
    }
  }

  private static func check(_ string: String, checkingByteOrderMark: Bool) throws(Located) {
    if checkingByteOrderMark, string.unicodeScalars.first == "\u{FEFF}" {
      throw Located(problem: .byteOrderMark)
    }
    if let scalar = string.unicodeScalars.first(where: isForbiddenInXML) {
      throw Located(problem: .controlCharacter(scalar))
    }
  }

  /// Characters XML 1.0 can't hold: the C0 controls other than tab, line feed and carriage
  /// return, and the two noncharacters U+FFFE and U+FFFF.
  private static func isForbiddenInXML(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x9, 0xA, 0xD: false
    case 0..<0x20, 0xFFFE, 0xFFFF: true
    default: false
    }
  }
}

extension XMLPropertyListRules {
  /// Checks that an XML property list could hold every string and key of `value`, and the key:
  /// none holds a control character XML forbids.
  ///
  /// Dates, `-0.0` and a leading U+FEFF are not checked: an XML rewrite changes them but stays
  /// readable.
  ///
  /// For values kept in a binary file that another program may rewrite as XML (a `UserDefaults`
  /// suite on Linux, which corelibs rewrites as XML when other code calls `synchronize()`).
  ///
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` naming the key and the character.
  static func checkCharacters(_ value: PropertyListValue, key: String) throws(SettingsError) {
    do {
      try check(key, checkingByteOrderMark: false)
    } catch {
      throw error.settingsError(key: key, path: "(the key itself)")
    }
    do {
      _ = try walk(value, normalizing: false)
    } catch {
      throw error.settingsError(key: key)
    }
  }
}
