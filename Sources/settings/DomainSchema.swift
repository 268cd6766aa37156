import Foundation
import TypedDefaults
import TypedDefaultsSchema

/// The schema an app wrote next to a domain's store (`SettingsContainer.writeSchema()`): what the
/// tool checks writes against, and where it finds help texts and declared defaults.
///
/// The file is `<store file>.schema.json` beside the file the tool writes: `data.plist.schema.json`
/// in a layered store folder, `<suite file>.schema.json` beside a UserDefaults suite's file,
/// `<file>.schema.json` beside a property-list file. Without one, every verb works as it does
/// without schemas.
extension Domain {
  /// The store file a schema would be written next to: the file writes go to; `nil` for a name
  /// that names no store yet.
  var storeFile: URL? {
    switch kind {
    case .file(let url): url
    case .layered(let files): files.persistent
    case .suite(let suite): Self.suiteFile(suite)
    case .unresolved: nil
    }
  }

  /// Where the domain's schema file is (or would be); `nil` for a name that names no store yet.
  var schemaFile: URL? {
    storeFile.map { SettingsSchema.fileURL(nextTo: $0) }
  }

  /// How output names the schema file: its name for a store folder (as `explain` names
  /// `data.plist`), else its path.
  var schemaLabel: String {
    guard let schemaFile else { return "-" }
    if case .layered = kind { return schemaFile.lastPathComponent }
    return schemaFile.path
  }

  /// The schema written next to the domain's store.
  ///
  /// - Returns: The schema, or `nil` if there is no schema file (or no store).
  /// - Throws: A ``Failure`` (exit status 1) naming the schema file for one that can't be read
  ///   or isn't a JSON Schema the library reads.
  func schema() throws(Failure) -> SettingsSchema? {
    guard let storeFile else { return nil }
    do {
      return try SettingsSchema(contentsOfFileNextTo: storeFile)
    } catch {
      throw Failure.schema(error, file: SettingsSchema.fileURL(nextTo: storeFile))
    }
  }
}

extension Failure {
  /// A schema file that can't be read: `Cannot read the settings schema at '<path>': <cause>`.
  static func schema(_ error: SettingsError, file: URL) -> Failure {
    Failure("Cannot read the settings schema at '\(error.path ?? file.path)': \(error.reason)")
  }
}

/// What the tool says of a value a schema doesn't accept, and of a declared setting.
enum SchemaCheck {
  /// Why `value` can't be stored under `key`, in one line: the reason the schema gives
  /// (`SettingSchema.problem(with:)`), a type flag that would have stored the text as the declared
  /// kind, and the setting's help text: `'autoplay': a string where a bool is declared (Bool);
  /// did you mean -bool yes? (Whether the next item starts on its own.)`.
  ///
  /// A secret setting's reason never shows the value.
  ///
  /// - Parameters:
  ///   - value: The value to be written.
  ///   - key: The key.
  ///   - schema: The domain's schema.
  ///   - suggestingFlags: Whether to suggest the type flag for a string (`write`'s arguments;
  ///     not `import`'s file, which has no flags).
  /// - Returns: The message, starting with the quoted key; `nil` if the value fits, or the schema
  ///   doesn't declare the key.
  static func problem(
    with value: PropertyListValue, forKey key: String, in schema: SettingsSchema,
    suggestingFlags: Bool = true
  ) -> String? {
    guard let setting = schema[key], var reason = setting.problem(with: value) else { return nil }
    if setting.isSecret {
      // Neither the value nor the allowed values are shown.
      reason =
        setting.shape.problem(with: value) == nil
          && setting.allowedValues.map({ !$0.contains(value) }) == true
        ? "the secret value is not an allowed value (\(setting.typeName))"
        : "the secret value doesn't fit its declaration (\(declaration(of: setting)))"
    } else if suggestingFlags, case .string(let text) = value,
      let hint = flag(parsing: text, as: setting.shape)
    {
      reason += "; did you mean \(hint) \(text)?"
    }
    return "'\(key)': \(reason)" + (setting.help.map { " (\($0))" } ?? "")
  }

  /// The type flag that stores `text` as `shape` declares, if the text parses as that kind:
  /// `-float` for `0.5` where a real is declared, `-bool` for `yes` where a bool is.
  private static func flag(parsing text: String, as shape: SettingSchema.Shape) -> String? {
    let flags: [PropertyListValue.Kind: (String, PropertyListValue.TextKind)] = [
      .integer: ("-int", .integer), .real: ("-float", .real), .bool: ("-bool", .bool),
      .date: ("-date", .date), .data: ("-data", .data),
    ]
    guard let kind = shape.kind, let (flag, textKind) = flags[kind],
      (try? PropertyListValue(parsing: text, as: textKind)) != nil
    else { return nil }
    return flag
  }

  /// A setting's declaration in a few words: its Swift type, then its range or allowed values:
  /// `Double, 0.0...1.0`, `Quality, one of auto, high, low`, `Bool`.
  static func declaration(of setting: SettingSchema) -> String {
    var words = setting.typeName
    if let range = setting.rangeDescription { words += ", \(range)" }
    if setting.isSecret, setting.allowedValues != nil {
      words += ", one of its secret allowed values"
    } else if let allowed = setting.allowedValues {
      words += ", one of " + allowed.map(OldStylePlist.inline).joined(separator: ", ")
    }
    return words
  }
}
