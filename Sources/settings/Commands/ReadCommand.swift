import TypedDefaults

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
    guard let key else {
      guard let root = try domain.readRoot(hidingSecrets: true) else {
        throw Failure.missingDomain(domain)
      }
      return try Output.write(OldStylePlist.render(root) + "\n")
    }
    // As it is, but for control characters: a stored escape sequence never reaches the terminal.
    let rendered = OldStylePlist.render(try value(of: key, in: domain, hidingSecrets: true))
    try Output.write(Output.escapingControlCharacters(rendered, keepingLinesAndTabs: true) + "\n")
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
    guard let value = values[key] else {
      guard case .layered(let files) = domain.kind else {
        throw Failure.missingKey(key, in: domain)
      }
      throw Failure.missingKey(key, in: domain, invisibleLayers: files.invisibleLayers)
    }
    return value
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
