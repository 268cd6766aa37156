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
    try checkText(key, key: key, path: "(the key itself)")
    return try normalizedIfChanged(value, key: key, path: "") ?? value
  }

  /// Why a whole XML property list can't hold `root`: a string or key with a character XML
  /// forbids (the file would be malformed) or starting with U+FEFF (dropped on reading), or a
  /// non-finite date (the file would be unreadable); `nil` if it can.
  ///
  /// Dates with fractions of a second and `-0.0` are fine: they are written as the reader will give
  /// them back.
  static func problem(inRoot root: PropertyListValue) -> String? {
    do {
      _ = try normalizedIfChanged(root, key: "", path: "")
      return nil
    } catch {
      return error.reason
    }
  }

  /// The normalized value, or `nil` if `value` needs no change (so unchanged containers are not
  /// copied).
  private static func normalizedIfChanged(
    _ value: PropertyListValue,
    key: String,
    path: @autoclosure () -> String
  ) throws(SettingsError) -> PropertyListValue? {
    switch value {
    case .date(let date):
      let seconds = date.timeIntervalSinceReferenceDate
      guard seconds.isFinite else {
        throw SettingsError(
          .valueNotRepresentable,
          key: key,
          reason:
            "A date\(at(path())) is not finite (\(seconds) s), which an XML property list can't hold"
        )
      }
      let whole = seconds.rounded(.down)
      return whole == seconds ? nil : .date(Date(timeIntervalSinceReferenceDate: whole))
    case .real(let real):
      return real == 0 && real.sign == .minus ? .real(0) : nil
    case .string(let string):
      try checkText(string, key: key, path: path())
      return nil
    case .array(var elements):
      var changed = false
      for index in elements.indices {
        if let element = try normalizedIfChanged(
          elements[index], key: key, path: "\(path())[\(index)]")
        {
          elements[index] = element
          changed = true
        }
      }
      return changed ? .array(elements) : nil
    case .dictionary(var entries):
      var changed = false
      for (entryKey, entry) in entries {
        try checkText(entryKey, key: key, path: "\(path()) (a key)")
        if let normalized = try normalizedIfChanged(
          entry, key: key, path: "\(path())[\"\(entryKey)\"]")
        {
          entries[entryKey] = normalized
          changed = true
        }
      }
      return changed ? .dictionary(entries) : nil
    case .integer, .bool, .data:
      return nil
    }
  }

  private static func at(_ path: String) -> String {
    path.isEmpty ? "" : " at \(path)"
  }

  private static func checkText(_ string: String, key: String, path: String) throws(SettingsError) {
    if string.unicodeScalars.first == "\u{FEFF}" {
      throw SettingsError(
        .valueNotRepresentable,
        key: key,
        reason:
          "A string\(at(path)) starts with U+FEFF (a byte-order mark), which an XML property list drops"
      )
    }
    if let scalar = string.unicodeScalars.first(where: isForbiddenInXML) {
      let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
      throw SettingsError(
        .valueNotRepresentable,
        key: key,
        reason: "A string\(at(path)) holds the control character \(code), which XML can't hold"
      )
    }
  }

  /// Characters XML 1.0 can't hold: the C0 controls other than tab, line feed and carriage
  /// return, and the two noncharacters U+FFFE and U+FFFF.
  fileprivate static func isForbiddenInXML(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x9, 0xA, 0xD: false
    case 0..<0x20, 0xFFFE, 0xFFFF: true
    default: false
    }
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    String(repeating: "0", count: max(0, width - count)) + self
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
    try checkCharacters(in: key, key: key, path: "(the key itself)")
    try checkCharacters(of: value, key: key, path: "")
  }

  private static func checkCharacters(
    of value: PropertyListValue, key: String, path: @autoclosure () -> String
  ) throws(SettingsError) {
    switch value {
    case .string(let string):
      try checkCharacters(in: string, key: key, path: path())
    case .array(let elements):
      for (index, element) in elements.enumerated() {
        try checkCharacters(of: element, key: key, path: "\(path())[\(index)]")
      }
    case .dictionary(let entries):
      for (entryKey, entry) in entries {
        try checkCharacters(in: entryKey, key: key, path: "\(path()) (a key)")
        try checkCharacters(of: entry, key: key, path: "\(path())[\"\(entryKey)\"]")
      }
    case .date, .real, .integer, .bool, .data:
      return
    }
  }

  private static func checkCharacters(
    in string: String, key: String, path: String
  ) throws(SettingsError) {
    guard let scalar = string.unicodeScalars.first(where: isForbiddenInXML) else { return }
    let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
    throw SettingsError(
      .valueNotRepresentable,
      key: key,
      reason: "A string\(path.isEmpty ? "" : " at \(path)") holds the control character \(code), "
        + "which XML can't hold")
  }
}
