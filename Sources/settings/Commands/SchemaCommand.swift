import Foundation
import TypedDefaults
import TypedDefaultsSchema

/// `schema domain`: prints the schema the app wrote next to the domain's store.
enum SchemaCommand: Command {
  static let verb = "schema"
  static let synopsis = "schema domain"
  static let summary = "print the schema the app wrote next to the store"
  static let help = """
    usage: settings schema [--format json|markdown] domain

    Prints the schema the app wrote next to the domain's store with try model.writeSchema(): a
    JSON Schema (draft 2020-12) of each key the app's models declare, its type, default, range
    or allowed values, help text, and whether it is secret or managed, as the file holds it. It
    is the file `write` checks values against and `read` and `explain` take help texts and
    declared defaults from:

      a store folder         data.plist.schema.json in the folder
      a UserDefaults suite   <suite file>.schema.json beside the suite's file
                             (on Linux $XDG_CONFIG_HOME/<name>.plist.schema.json)
      a property-list file   <file>.schema.json beside it

    --format json (the default) prints it as stored; --format markdown as a reference table, a
    row for each key (its type, default, accepted values and help text; a secret's default as
    <secret>). A domain without a schema file is an error (exit status 1) saying where it would
    be; so is a schema file that can't be read, named by its path.

    Examples:
      settings schema com.example.app
      settings schema ./store > settings.schema.json
      settings schema --format markdown com.example.app > Docs/Settings.md
    \(HelpText.domains)
    """

  /// The formats `--format` takes.
  static let formats = ["json", "markdown"]

  static func run(_ arguments: inout Arguments) throws(Failure) {
    var format = try takeFormat(&arguments) ?? "json"
    let domain = try arguments.domain()
    format = try takeFormat(&arguments) ?? format
    try arguments.finish()
    guard let file = domain.schemaFile else { throw Failure.missingDomain(domain) }
    // Read as `write` reads it, so a file the tool can't use is an error here too.
    guard let schema = try domain.schema() else {
      throw Failure(
        "No schema was written for \(domain.name) (there is no \(file.path)); an app writes one "
          + "next to its store with try model.writeSchema()")
    }
    if format == "markdown" {
      // Help texts are a file's bytes: never terminal control sequences.
      let markdown = schema.markdownReference()
      return try Output.write(
        Output.escapingControlCharacters(markdown, keepingLinesAndTabs: true))
    }
    // As stored: JSON holds no raw control character (the file read as JSON).
    let data: Data
    do {
      data = try Data(contentsOf: file)
    } catch {
      throw Failure(
        "Cannot read the settings schema at '\(file.path)': \(error.localizedDescription)")
    }
    try Output.write(data)
    if data.last != UInt8(ascii: "\n") { try Output.write("\n") }
  }

  /// Takes `--format FORMAT` if it is the next argument.
  private static func takeFormat(_ arguments: inout Arguments) throws(Failure) -> String? {
    guard arguments.remaining.first == "--format" else { return nil }
    _ = arguments.next()
    guard let format = arguments.next(), formats.contains(format) else {
      throw Failure.usage(
        "schema: --format takes \(formats.joined(separator: " or ")); usage: settings schema "
          + "[--format \(formats.joined(separator: "|"))] domain")
    }
    return format
  }
}
