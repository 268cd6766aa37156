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

    With a schema, a store folder's layers are judged as the app's store judges them, so `read`
    shows what the app reads: a text layer's text (an environment variable, a ConfigMap file)
    is read as the declared type (SVC_PORT=8081 reads port = 8081), and a layer's value the
    setting refuses (the wrong type, outside its range, not an allowed value) is passed over
    for the next layer's, the entry saying so as the app reports it:

      port = 9000; // The environment layer's text '70000' for 'port' (SVC_PORT) is not allowed (the setting accepts in 1...65535); the layer is passed over for it: the setting reads the delivered layer's value, 9000

    (for one key, that line is a warning on standard error, the value alone on standard
    output). `settings explain` shows every layer's value.

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
    // A store folder is opened once: its values and what it passed over come from one store.
    var store: LayeredPlistStore?
    if case .layered = domain.kind {
      guard let opened = try domain.openLayeredStore() else { throw Failure.missingDomain(domain) }
      store = opened
    }
    guard let key else {
      let root: PropertyListValue? =
        if let store {
          .dictionary(Domain.values(of: store, hidingSecrets: true))
        } else {
          try domain.readRoot(hidingSecrets: true)
        }
      guard let root else { throw Failure.missingDomain(domain) }
      guard let schema, case .dictionary(let entries) = root else {
        return try Output.write(OldStylePlist.render(root) + "\n")
      }
      return try Output.write(render(entries, with: schema, passedOver: store) + "\n")
    }
    let values: [String: PropertyListValue]? =
      if let store {
        Domain.values(of: store, hidingSecrets: true)
      } else {
        try domain.readValues(hidingSecrets: true)
      }
    guard let values else { throw Failure.missingDomain(domain) }
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
    // A layer's value the app passes over: said on standard error, as the app's store says it,
    // so that the value printed stays the value alone.
    for passed in passedOverMessages(of: key, in: store) { Output.error("warning: \(passed)") }
    // As it is, but for control characters: a stored escape sequence never reaches the terminal.
    let rendered = OldStylePlist.render(value)
    try Output.write(
      Output.escapingControlCharacters(rendered, keepingLinesAndTabs: true) + note + "\n")
  }

  /// A domain's keys and values with what its schema says of them: each declared key's help text
  /// in a comment above it, the keys with no stored value at their declared default, marked
  /// `// declared default`, a secret's value as `<secret>`, and each layer's value the app's
  /// store passes over (a store folder's), as the store reports it.
  private static func render(
    _ stored: [String: PropertyListValue], with schema: SettingsSchema,
    passedOver store: LayeredPlistStore?
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
      let notes =
        [note(on: stored[key], of: schema[key])].compactMap { $0 }
        + passedOverMessages(of: key, in: store)
      return (schema[key]?.help, notes.isEmpty ? nil : notes.joined(separator: "; "))
    }
  }

  /// How the app's store reports each layer's value of `key` it passes over, highest layer first.
  ///
  /// A value the setting refuses (the wrong type, outside its range, not an allowed value):
  /// `The environment layer's text '70000' for 'port' (SVC_PORT) is not allowed (the setting
  /// accepts in 1...65535); the layer is passed over for it: the setting reads the delivered
  /// layer's value, 9000`. The store's own judgement (it learned the schema), never a second
  /// one; a secret's value is never in it.
  private static func passedOverMessages(
    of key: String, in store: LayeredPlistStore?
  ) -> [String] {
    guard let store else { return [] }
    let passed = store.passedOverValues(ofKey: key)
    return store.layers.compactMap { passed[$0]?.message }
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
