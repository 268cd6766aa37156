import Foundation
import TypedDefaults

/// `import domain file`: merges a property-list file's dictionary into a domain.
enum ImportCommand: Command {
  static let verb = "import"
  static let synopsis = "import domain (file | -)"
  static let summary = "merge a plist file's (or stdin's) dictionary into a domain"
  static let help = """
    usage: settings import domain file
           settings import domain -

    Reads a property list (XML, binary or OpenStep) from the file, or from standard input with
    -, and writes each key of its top-level dictionary to the domain, replacing the values those
    keys had; other keys of the domain are kept. (`defaults import` replaces the whole domain;
    run `settings delete domain` first for that.) A file whose root isn't a dictionary is an
    error, and nothing is changed. Saved as `write` saves.

    Examples:
      settings import com.example.app backup.plist
      settings export com.example.app - | settings import ./copy.plist -
    \(HelpText.domains)
    """

  static func run(_ arguments: inout Arguments) throws(Failure) {
    let domain = try arguments.domain()
    let source = try arguments.required("file (or - for standard input)")
    try arguments.finish()
    let entries = try read(source)
    let target = try domain.openForWriting()
    for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
      try target.setValue(value, forKey: key)
    }
    try target.save()
  }

  /// The top-level dictionary of a file, or of standard input (`-`).
  private static func read(_ source: String) throws(Failure) -> [String: PropertyListValue] {
    do throws(SettingsError) {
      guard source == "-" else {
        let file = PropertyListFile(url: URL(fileURLWithPath: source))
        let entries = try withStandardErrorSilenced { () throws(SettingsError) in
          try file.readDictionary()
        }
        guard let entries else {
          throw SettingsError(.fileNotReadable, path: file.url.path, reason: "No such file")
        }
        return entries
      }
      let data = FileHandle.standardInput.readDataToEndOfFile()
      let root = try PlistBytes.decode(data, source: "<stdin>")
      guard case .dictionary(let entries) = root else {
        throw SettingsError(
          .wrongRootType, path: "<stdin>",
          reason: "The root is \(OldStylePlist.typeName(root, article: true)), not a dictionary")
      }
      return entries
    } catch {
      throw Failure(error)
    }
  }
}
