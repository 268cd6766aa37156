import Foundation

/// What an XML property list written and read back by CoreFoundation keeps of a value.
///
/// Measured with swift-corelibs-foundation (and matching Apple's documented XML format): dates
/// keep whole seconds (the writer rounds down), `-0.0` comes back as `0.0`, and a string or key
/// that starts with U+FEFF (a byte-order mark) comes back without it. Everything else (every
/// integer, every other real bit for bit, infinities, NaN, control characters) survives.
///
/// Backends whose values end up in an XML file (``LayeredPlistStore`` saving XML, and
/// ``UserDefaultsBackend`` on Linux, where corelibs keeps suites as XML) store what the file will
/// give back, so a value reads the same before and after a relaunch, and refuse what it would
/// change into something else.
enum XMLPropertyListRules {
  /// Returns `value` as an XML property list gives it back: dates rounded down to whole seconds,
  /// `-0.0` as `0.0`.
  ///
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` for a string or dictionary key that
  ///   starts with U+FEFF, which the XML round trip would silently drop.
  static func normalized(
    _ value: PropertyListValue, key: String
  ) throws(SettingsError)
    -> PropertyListValue
  {
    try normalizedIfChanged(value, key: key, path: "") ?? value
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
      let whole = seconds.rounded(.down)
      return whole == seconds || !seconds.isFinite
        ? nil : .date(Date(timeIntervalSinceReferenceDate: whole))
    case .real(let real):
      return real == 0 && real.sign == .minus ? .real(0) : nil
    case .string(let string):
      try checkNoByteOrderMark(string, key: key, path: path())
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
        try checkNoByteOrderMark(entryKey, key: key, path: "\(path()) (a key)")
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

  private static func checkNoByteOrderMark(
    _ string: String,
    key: String,
    path: String
  ) throws(SettingsError) {
    guard string.unicodeScalars.first == "\u{FEFF}" else { return }
    throw SettingsError(
      .valueNotRepresentable,
      key: key,
      reason:
        "A string\(path.isEmpty ? "" : " at \(path)") starts with U+FEFF (a byte-order mark), "
        + "which an XML property list drops"
    )
  }
}
