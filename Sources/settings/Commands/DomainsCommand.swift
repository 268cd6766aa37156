import Foundation
import TypedDefaultsLayers

/// `domains` and `list`: the `UserDefaults` suites on this machine.
enum DomainsCommand: Command {
  static let verb = "domains"
  static let synopsis = "domains"
  static let summary = "list the UserDefaults suites, comma-separated"
  static let help = """
    usage: settings domains

    Lists the UserDefaults suites of this user, sorted and separated by ", " on one line, as
    `defaults domains` does (`settings list` prints one per line). Prints nothing if there are
    none.

    On Linux a suite is a file <name>.plist in $XDG_CONFIG_HOME (when it is an absolute path),
    else in $HOME/.config; on Apple platforms, in ~/Library/Preferences. Hidden files are left
    out, and so are files whose name without .plist isn't a suite name settings accepts (one
    ending in .plist, such as x.plist.plist, starting with '-', or only whitespace): read them
    by path. Plist files elsewhere, and store folders, are domains too, named by their path;
    an app's LayeredPlistStore is also named by the app's identifier, but not listed here.
    """

  static func run(_ arguments: inout Arguments) throws(Failure) {
    try arguments.finish()
    let names = try suiteNames()
    if !names.isEmpty { try Output.write(names.joined(separator: ", ") + "\n") }
  }

  /// The suites' names, sorted: the `*.plist` files of the suites folder, without `.plist`,
  /// whose names work as a suite name (see ``Domain/isSuiteName(_:)``).
  static func suiteNames() throws(Failure) -> [String] {
    let folder = Domain.suitesDirectory
    let files = FileManager.default
    var isDirectory: ObjCBool = false
    guard files.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue
    else { return [] }
    let names: [String]
    do {
      names = try files.contentsOfDirectory(atPath: folder.path)
    } catch {
      throw Failure(
        "Cannot list the UserDefaults suites in '\(folder.path)': \(error.localizedDescription)")
    }
    return
      names
      .filter { name in
        guard name.hasSuffix(".plist"), !name.hasPrefix(".") else { return false }
        // Only names that, typed as a domain, name this suite: not `x.plist` (of x.plist.plist),
        // a path to a file here, nor `-x`, an option.
        guard Domain.isSuiteName(String(name.dropLast(".plist".count))) else { return false }
        let path = folder.appendingPathComponent(name).path
        return files.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
      }
      .map { String($0.dropLast(".plist".count)) }
      .sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
  }
}

/// `list`: the `UserDefaults` suites, one per line.
enum ListCommand: Command {
  static let verb = "list"
  static let synopsis = "list"
  static let summary = "list the UserDefaults suites, one per line"
  static let help = """
    usage: settings list

    Lists the UserDefaults suites of this user, sorted, one per line: `settings domains` in a
    form for scripts (`settings list | while read suite; do …`). Prints nothing if there are
    none. See `settings domains --help` for where suites are found.
    """

  static func run(_ arguments: inout Arguments) throws(Failure) {
    try arguments.finish()
    try Output.write(DomainsCommand.suiteNames().map { $0 + "\n" }.joined())
  }
}
