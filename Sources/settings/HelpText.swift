/// The tool's verbs and its shared help text.
enum HelpText {
  /// Every verb, in the order `settings --help` lists them.
  static let commands: [any Command.Type] = [
    ReadCommand.self, ReadTypeCommand.self, WriteCommand.self, DeleteCommand.self,
    DomainsCommand.self, ListCommand.self, ExportCommand.self, ImportCommand.self,
    ExplainCommand.self, WatchCommand.self, SchemaCommand.self, HelpCommand.self,
  ]

  /// The verb's command, if there is one.
  static func command(named verb: String) -> (any Command.Type)? {
    commands.first { $0.verb == verb }
  }

  /// The error for a verb that doesn't exist.
  static func unknownVerb(_ verb: String) -> Failure {
    Failure.usage("unknown verb '\(verb)'; run 'settings --help' for the list")
  }

  /// What `settings --help` prints.
  static var overview: String {
    let width = commands.map { $0.synopsis.count }.max() ?? 0
    let verbs = commands.map { command in
      let padding = String(repeating: " ", count: width - command.synopsis.count)
      return "  \(command.synopsis)\(padding)  \(command.summary)"
    }
    return """
      usage: settings <verb> [arguments]       (settings <verb> --help for a verb's details)

      Reads and edits settings stores in the manner of macOS `defaults`: UserDefaults suites,
      property-list files (XML, binary, OpenStep), and layered store folders of TypedDefaults'
      LayeredPlistStore. Values print as `defaults read` prints them; `write` takes its type
      flags (-string, -int, -float, -bool, -date, -data, -array, -array-add, -dict, -dict-add).
      `watch` prints each change to a file or store folder as another process makes it.

      Verbs:
      \(verbs.joined(separator: "\n"))
      \(domains)

      Output: results on standard output; nothing on standard error unless something is wrong.
      Exit status: 0 on success; 1 when the command fails (a missing key, a file that can't be
      read, standard output that can't be written); 64 when the command line is wrong (an
      unknown verb or flag, a missing or extra argument, a value its type flag doesn't take,
      such as -int abc). Each error is one line on standard error, "settings: <message>", its
      control characters escaped (ESC as \\u{1B}); problems the library recovers from are
      "settings: warning: <message>".

      Schemas: where the app wrote its schema next to the store (try model.writeSchema()),
      write and import refuse a value that doesn't fit a key's declared type, range or allowed
      values, naming the key, the reason and its help text (exit status 1); read and explain
      show help texts and the declared defaults of keys with no stored value; `settings schema`
      prints it. Without one, nothing changes.

      Secrets: values print as they are stored, unless the app's schema declares the key
      secret: true (then read, explain and watch show <secret>). Without a schema the tool runs
      without the app's models, so nothing tells it which keys are secret; it reads only files
      you can already read (a store's files are yours alone, mode 0600). A store folder's layer
      the app marks as holding secrets (a Secret mount) shows <secret> for its values in read,
      explain and watch too; export copies every value as it is.

      Differences from defaults: no -g, -app or -currentHost; read needs a domain; import merges
      rather than replaces; containers in a dictionary are indented evenly (defaults prints
      "key =     (").
      """ + "\n"
  }

  /// How domains are named, shared by every verb's help.
  static let domains = """

    A domain is one of:
      a property-list file   a path: it contains a '/' or ends in .plist (./config.plist,
                             /etc/app/settings.plist). As with defaults, .plist may be left
                             out: dir/name means dir/name.plist unless dir/name exists.
      a layered store        a folder, named by a path (./store, /var/lib/app; a path ending
                             in '/' must be an existing folder): data.plist in it is the
                             persistent layer (read-write; created by the first write). The
                             read-only layers are those the app's store recorded in
                             data.plist.layers as it opened, in its order: its delivered and
                             bundled files wherever they are, mounted folders, a managed file
                             (its keys can't be written), environment variables (read from
                             the tool's own environment, with the app's prefix and keys); a
                             layer the tool can't open (the app's command-line arguments) is
                             shown by explain as not visible. Without a record: JF-info.plist
                             (delivered) and Info.plist (bundled) in the folder, if present.
                             --delivered FILE and --bundled FILE before the domain replace
                             either, as in
                             settings explain --bundled /opt/app/Info.plist ./store Key
                             A read returns the value of the highest layer holding the key.
      an app's identifier    any other name, such as com.example.app (not one that is only
                             whitespace or starts with '-'): the store the app keeps under it,
                             found as the app finds it:
                               its LayeredPlistStore, the folder <name> in the standard data
                               folder ($XDG_DATA_HOME, else $HOME/.local/share; on Apple
                               platforms Application Support) when it holds data.plist or
                               data.plist.layers;
                               its UserDefaults suite, the file <name>.plist in
                               $XDG_CONFIG_HOME, else $HOME/.config (on Apple platforms
                               ~/Library/Preferences), when it exists;
                               else its LayeredPlistStore if the folder <name> exists
                               (an app opened its store there and hasn't saved yet).
                             When both exist, the name is an error (exit status 64) listing
                             them; when neither does, it is a domain that doesn't exist, and
                             write and import refuse it (64) rather than create a store the
                             app may not read. Say which with --store layered or
                             --store defaults before the name:
                             settings write --store defaults com.example.app Name Ada
    A file that can't be read (corrupt, truncated, not a dictionary) is reported and never
    changed, moved or replaced.
    """
}
