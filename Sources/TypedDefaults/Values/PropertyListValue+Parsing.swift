import Foundation

// TEMPORARY (core helper): a simple stand-in for the text parser another helper writes; the
// integrator replaces this file with that helper's version at merge.

extension PropertyListValue {
  /// Reads a text (an environment variable, an argument, a mounted file) as a value of `type`.
  ///
  /// Tries the text as a string, an integer, a real number and a Boolean, in that order, and
  /// keeps the first that `type` reads.
  ///
  /// - Parameters:
  ///   - text: The text.
  ///   - type: The setting's value type.
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` if no reading of the text is one
  ///   `type` reads.
  public init(parsing text: String, as type: any SettingValue.Type) throws(SettingsError) {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    var candidates: [PropertyListValue] = [.string(text)]
    if let integer = Int64(trimmed) { candidates.append(.integer(Integer(integer))) }
    if let real = Double(trimmed) { candidates.append(.real(real)) }
    switch trimmed.lowercased() {
    case "true", "yes", "1": candidates.append(.bool(true))
    case "false", "no", "0": candidates.append(.bool(false))
    default: break
    }
    for candidate in candidates {
      guard let read = type.init(propertyListValue: candidate),
        let back = try? read.propertyListValue(), Self.sameKind(back, candidate)
      else { continue }
      self = candidate
      return
    }
    throw SettingsError(
      .valueNotRepresentable,
      reason: "'\(text)' can't be read as \(TypeNames.sugared(type))")
  }

  /// Whether two values are of the same case.
  private static func sameKind(_ a: PropertyListValue, _ b: PropertyListValue) -> Bool {
    switch (a, b) {
    case (.string, .string), (.integer, .integer), (.real, .real), (.bool, .bool): true
    default: false
    }
  }
}
