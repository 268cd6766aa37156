import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsSchema

/// `write domain key value`: stores a value, typed by `defaults`' flags.
enum WriteCommand: Command {
  static let verb = "write"
  static let synopsis = "write domain key value"
  static let summary = "store a value (typed with -string, -int, -bool, -array, …)"
  static let help = """
    usage: settings write domain key value

    Stores a value for the key, replacing any other. The value is typed as with `defaults write`:

      value                  an old-style plist literal when it parses as one, else a string:
                               '(a, b)' an array   '{k = v;}' a dictionary   '<0fa1>' data
                               '"quoted"' a string   (old-style plists have no numbers: '(1, 2)'
                               is an array of two strings; use -array -int 1 -int 2)
                             anything else, such as hello or 'two words', is stored as a string
                             (a literal that parses but can't be stored, such as one nested
                             more than 511 levels deep, is an error, not a string)
      -string text           a string, as it is (also text starting with '-')
      -int n, -integer n     an integer, from \(Int64.min) to \(UInt64.max)
      -float x               a real number: 0.5, -2, 1e-3, inf, nan (one too large for a
                             float, such as 1e309, is refused)
      -bool b, -boolean b    a boolean: yes, no, true, false (any case), 1 or 0
      -date d                a date: 2026-11-30T15:32:33Z (ISO 8601, any offset, optional
                             fraction), 2026-11-30 15:32:33 +0000 (what read prints), or
                             2026-11-30 (midnight UTC); no offset means UTC
      -data hex              bytes, as hex digits: 0fa1 (spaces, 0x, and <…> allowed)
      -array v1 v2 …         an array of the values (none for an empty array)
      -array-add v1 v2 …     appends to the array the key holds, or starts one
      -dict k1 v1 k2 v2 …    a dictionary of the keys and values
      -dict-add k1 v1 …      adds to the dictionary the key holds, or starts one

    An element of -array or a value of -dict is a bare value as above, or a scalar type flag and
    its value: -array -int 1 -int 2, -dict size -int 3 name Ada.

    A value its flag doesn't take (-int abc, -bool maybe, -date now), an unknown flag (a near
    miss gets a suggestion: -double, did you mean -float?), and a key that is a type flag
    (settings write dom -bool true, the key left out) are usage errors: exit status 64, and
    nothing is written.

    Writes to a plist file or a store folder go through LayeredPlistStore: saved atomically (a
    temporary file renamed over the old one), under a lock shared with other processes (the
    file <name>.plist.lock beside it, kept on purpose), and merged with their changes, so
    several `settings write` at once lose nothing (-array-add and -dict-add included: they
    read and write the value as one step). A new file is binary (as `defaults` writes),
    readable by its owner only (0600); an existing XML file stays XML; an OpenStep file is
    rewritten as binary (OpenStep can't be written). A file that can't be read is never written: the command fails
    and leaves it as it was. A store folder's writes go to its data.plist, the persistent
    layer, which wins over JF-info.plist and Info.plist. A key a store folder's managed layer
    forces can't be written: the command fails (exit status 1) naming the key and the layer,
    and nothing is written. A suite is written through
    UserDefaults and flushed to disk (synchronize()) before the command returns; on Linux,
    settings processes take turns on it (a lock on <suite file>.lock).

    Examples:
      settings write com.example.app Name Ada
      settings write com.example.app Volume -float 0.5
      settings write ./config.plist Languages -array en fr
      settings write ./config.plist Limits -dict daily -int 10 weekly -int 50
      settings write ./store Theme dark

    Where the app wrote its schema next to the store (try model.writeSchema():
    data.plist.schema.json in a store folder, <file>.schema.json beside a plist file or a
    suite's file), a value that doesn't fit the key's declared type, range or allowed values is
    refused (exit status 1), and nothing is written; the message names the key, the reason, and
    the setting's help text:

      settings: Cannot write 'volume': 1.5 is greater than the maximum, 1.0 (Playback volume.)
      settings: Cannot write 'autoplay': a string where a bool is declared (Bool); did you mean
        -bool yes? (Whether the next item starts on its own.)

    A schema doesn't change how a value is typed: a bare yes or 0.5 is still a string, so give
    the flag. An integer is accepted where a real is declared, as the app reads it. A key the
    schema doesn't declare is written as without one.
    \(HelpText.domains)
    """

  static func run(_ arguments: inout Arguments) throws(Failure) {
    let domain = try arguments.domain()
    let key = try arguments.required("key")
    if ValueParser.typeFlags.contains(key) {
      throw Failure.usage(
        "write: '\(key)' is a type flag, not a key; usage: settings write domain key \(key) "
          + ValueParser.valueSynopsis(of: key))
    }
    guard !arguments.isEmpty else {
      throw Failure.usage("write: missing value; usage: settings \(synopsis)")
    }
    let action = try ValueParser.parse(arguments.rest(), key: key)
    let schema = try domain.schema()
    if case .set(let value) = action {
      try check(value, forKey: key, in: schema)
    }
    let target = try domain.openForWriting()
    if let source = target.forcingSource(ofKey: key) {
      throw Failure.forced(key, by: source, verb: "write")
    }
    if case .set(let value) = action {
      try target.setValue(value, forKey: key)
    } else {
      // Appending or merging reads the current value: as one step, so that concurrent
      // `settings write … -array-add` processes lose none of each other's elements.
      try target.update(forKey: key) { current throws(Failure) in
        let value = try newValue(action, current: current, key: key)
        try check(value, forKey: key, in: schema)
        return value
      }
    }
    try target.save()
  }

  /// Refuses a value the domain's schema doesn't accept for the key (exit status 1): `Cannot
  /// write 'volume': 1.5 is greater than the maximum, 1.0 (Playback volume, 0 to 1.)`.
  private static func check(
    _ value: PropertyListValue, forKey key: String, in schema: SettingsSchema?
  ) throws(Failure) {
    if let schema, let problem = SchemaCheck.problem(with: value, forKey: key, in: schema) {
      throw Failure("Cannot write \(problem)")
    }
  }

  /// The value to store for an action, given the key's current value.
  private static func newValue(
    _ action: WriteAction,
    current: PropertyListValue?,
    key: String
  ) throws(Failure) -> PropertyListValue {
    switch (action, current) {
    case (.set(let value), _):
      return value
    case (.arrayAdd(let elements), nil):
      return .array(elements)
    case (.arrayAdd(let elements), .array(let existing)?):
      return .array(existing + elements)
    case (.dictionaryAdd(let entries), nil):
      return .dictionary(entries)
    case (.dictionaryAdd(let entries), .dictionary(let existing)?):
      return .dictionary(existing.merging(entries) { _, new in new })
    case (.arrayAdd, let current?):
      throw Failure(
        "-array-add: '\(key)' holds \(OldStylePlist.typeName(current, article: true)), not an array; "
          + "nothing was changed")
    case (.dictionaryAdd, let current?):
      throw Failure(
        "-dict-add: '\(key)' holds \(OldStylePlist.typeName(current, article: true)), not a dictionary; "
          + "nothing was changed")
    }
  }
}
