import Foundation
import TypedDefaults

/// `export domain file`: saves a domain to a property-list file, or prints it as XML.
enum ExportCommand: Command {
  static let verb = "export"
  static let synopsis = "export domain (file | -)"
  static let summary = "save a domain as a binary plist file, or XML on stdout (-)"
  static let help = """
    usage: settings export domain file
           settings export domain -

    Saves the domain's values to a property-list file, as `defaults export` does: a binary plist
    to a file (replaced atomically; convert it with `plutil -convert xml1 file`), an XML plist to
    standard output with -. A store folder exports its merged view (the value of each key that
    wins); a plist file domain exports its root as it is. An empty file name ("") is a usage
    error, not the current folder.

    Examples:
      settings export com.example.app backup.plist
      settings export ./store - > merged.plist
    \(HelpText.domains)
    """

  static func run(_ arguments: inout Arguments) throws(Failure) {
    let domain = try arguments.domain()
    let destination = try arguments.required("file (or - for standard output)")
    try arguments.finish()
    guard !destination.isEmpty else {
      throw Failure.usage(
        "export: the file path is empty; usage: settings \(synopsis)")
    }
    guard let root = try domain.readRoot() else { throw Failure.missingDomain(domain) }
    guard destination != "-" else {
      let xml = try Failure.fromLibrary { () throws(SettingsError) in
        try PlistBytes.encode(root, format: .xml)
      }
      return try Output.write(xml)
    }
    try Failure.fromLibrary { () throws(SettingsError) in
      try PropertyListFile(url: URL(fileURLWithPath: destination)).write(root, format: .binary)
    }
  }
}
