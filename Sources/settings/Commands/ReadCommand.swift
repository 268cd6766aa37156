import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsSchema

/// `read domain [key]`: prints a domain, or one key's value, as `defaults read` does.
enum ReadCommand: Command {
  static let verb = "read"
  static let synopsis = "read domain [key]"
  static let summary = "print a domain, or one key's value"
  static let help = """
    usage: settings read domain [key]

    Prints every key and value of the domain, or the value of one key, as old-style plist text
    (what `defaults read` prints):

      {
          Enabled = 1;
          Languages = (
              "en-US",
              fr
          );
          LastSync = "2026-11-30 15:32:33 +0000";
          Name = Ada;
          Token = {length = 4, bytes = 0xcafe0042};
          Volume = "0.5";
      }

    Keys are sorted. Booleans print as 1 and 0, dates in UTC, data as its length and bytes. In a
    dictionary or array, text is quoted unless it is only letters and digits, with \\", \\\\, \\n,
    \\t and \\Uxxxx escapes; a single value (read domain key) prints as it is, but for control
    characters other than tab and line feed, written as \\u{…}.
    A property-list file domain prints its root, whatever its type; other domains are
    dictionaries (a layered store folder prints the merged view: the value of each key that wins).

    `defaults read` with no domain prints every domain; settings needs one (list them with
    `settings domains`).

    Where the app wrote its schema next to the store (try model.writeSchema(): see `settings
    write --help`), the domain's keys come with what it declares: each key's help text in a
    comment above it, the declared keys with no stored value at their declared default (marked
    so), a stored value that doesn't fit its declaration marked too, and a secret's value as
    <secret>; the text still reads as a property list:

      {
          // Whether the next item starts on its own.
          autoplay = 1; // declared default
          // Playback volume, 0 to 1.
          volume = "0.6";
      }

    One key's value prints as it is, or its declared default as `0.8 (declared default)`.

    Errors: a key the domain lacks:
      settings: The domain/default pair of (<domain>, <key>) does not exist
    and a domain that doesn't exist: settings: Domain <domain> does not exist

    Examples:
      settings read ~/project/config.plist
      settings read ~/project/config.plist ServerURL
      settings read com.example.app
      settings read ./store Theme
    \(HelpText.domains)
    """

  static func run(_ arguments: inout Arguments) throws(Failure) {
    guard !arguments.isEmpty else {
      throw Failure.usage(
        "read: missing domain (settings doesn't print every domain as defaults does; "
          + "'settings domains' lists them); usage: settings \(synopsis)")
    }
    let domain = try arguments.domain()
    let key = arguments.next()
    try arguments.finish()
    let schema = try domain.schema()
    guard let key else {
      guard let root = try domain.readRoot(hidingSecrets: true) else {
        throw Failure.missingDomain(domain)
      }
      guard let schema, case .dictionary(let entries) = root else {
        return try Output.write(OldStylePlist.render(root) + "\n")
      }
      return try Output.write(render(entries, with: schema) + "\n")
    }
    guard let values = try domain.readValues(hidingSecrets: true) else {
      throw Failure.missingDomain(domain)
    }
    var value = values[key]
    var note = ""
    if let setting = schema?[key] {
      if value != nil, setting.isSecret {
        value = .string(LayeredPlistStore.Provenance.secretPlaceholder)
      } else if value == nil, let declared = declaredDefault(setting) {
        (value, note) = (declared, " (declared default)")
      }
    }
    guard let value else { throw missingKey(key, in: domain) }
    // As it is, but for control characters: a stored escape sequence never reaches the terminal.
    let rendered = OldStylePlist.render(value)
    try Output.write(
      Output.escapingControlCharacters(rendered, keepingLinesAndTabs: true) + note + "\n")
  }

  /// A domain's keys and values with what its schema says of them: each declared key's help text
  /// in a comment above it, the keys with no stored value at their declared default, marked
  /// `// declared default`, and a secret's value as `<secret>`.
  private static func render(
    _ stored: [String: PropertyListValue], with schema: SettingsSchema
  ) -> String {
    var entries = stored
    for setting in schema.settings {
      if setting.isSecret, entries[setting.key] != nil {
        entries[setting.key] = .string(LayeredPlistStore.Provenance.secretPlaceholder)
      } else if entries[setting.key] == nil, let declared = declaredDefault(setting) {
        entries[setting.key] = declared
      }
    }
    return OldStylePlist.render(entries) { key in
      (schema[key]?.help, note(on: stored[key], of: schema[key]))
    }
  }

  /// What `read` says after a declared key's entry: that it is the declared default, or that
  /// the stored value doesn't fit the declaration (so the app reads its default instead).
  private static func note(on stored: PropertyListValue?, of setting: SettingSchema?) -> String? {
    guard let stored else { return "declared default" }
    // A secret layer's value is already <secret>: nothing to check.
    guard let setting, stored != .string(LayeredPlistStore.Provenance.secretPlaceholder),
      let problem = setting.problem(with: stored)
    else { return nil }
    return setting.isSecret
      ? "doesn't fit its declaration; the app reads its default"
      : "doesn't fit: \(problem); the app reads its default"
  }

  /// What a key with no stored value reads, as the schema declares it: its default, or
  /// `<secret>` for a secret's; `nil` for none (an optional setting, a computed default).
  private static func declaredDefault(_ setting: SettingSchema) -> PropertyListValue? {
    guard let value = setting.defaultValue else { return nil }
    return setting.isSecret ? .string(LayeredPlistStore.Provenance.secretPlaceholder) : value
  }

  /// A key's value in a domain (for a layered store, the value that wins).
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - domain: The domain.
  ///   - hidingSecrets: Whether a value a secret layer gives is `<secret>` (see
  ///     ``Domain/readValues(hidingSecrets:)``).
  /// - Returns: The value.
  /// - Throws: "Domain … does not exist" if the domain doesn't (where `defaults` would blame
  ///   the key), else `defaults`' message if the key doesn't.
  static func value(
    of key: String, in domain: Domain, hidingSecrets: Bool = false
  ) throws(Failure) -> PropertyListValue {
    guard let values = try domain.readValues(hidingSecrets: hidingSecrets) else {
      throw Failure.missingDomain(domain)
    }
    guard let value = values[key] else { throw missingKey(key, in: domain) }
    return value
  }

  /// `defaults`' message for a key the domain lacks; for a store folder, naming the layers the
  /// tool can't see.
  static func missingKey(_ key: String, in domain: Domain) -> Failure {
    guard case .layered(let files) = domain.kind else { return Failure.missingKey(key, in: domain) }
    return Failure.missingKey(key, in: domain, invisibleLayers: files.invisibleLayers)
  }
}

/// `read-type domain key`: prints the type of a key's value, as `defaults read-type` does.
enum ReadTypeCommand: Command {
  static let verb = "read-type"
  static let synopsis = "read-type domain key"
  static let summary = "print the type of a key's value"
  static let help = """
    usage: settings read-type domain key

    Prints "Type is <type>", as `defaults read-type` does, where <type> is one of string,
    integer, float, boolean, date, data, array or dictionary: what `read` can't tell apart
    (1 may be an integer or a boolean; "0.5" a float or a string).

    Example:
      settings read-type com.example.app Volume      # Type is float
    \(HelpText.domains)
    """

  static func run(_ arguments: inout Arguments) throws(Failure) {
    let domain = try arguments.domain()
    let key = try arguments.required("key")
    try arguments.finish()
    let value = try ReadCommand.value(of: key, in: domain)
    try Output.write("Type is \(OldStylePlist.typeName(value))\n")
  }
}
