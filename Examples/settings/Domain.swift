import Foundation
import TypedDefaults

/// What a domain argument names: a property-list file, a layered store folder, or a
/// `UserDefaults` suite.
///
/// - A **path** (it contains a `/`, ends in `.plist`, or is `.` or `..`) names an existing folder,
///   which is a layered store, or else a property-list file. As with `defaults`, the `.plist`
///   extension may be left out: `dir/name` means `dir/name.plist` unless `dir/name` exists.
/// - **Any other name** is a `UserDefaults` suite, such as `com.example.app`.
struct Domain {
  /// The kind of store a domain is.
  enum Kind {
    /// A property-list file (XML, binary or OpenStep), read and written whole.
    case file(URL)
    /// A folder holding a layered store: `data.plist` (persistent, read-write), and if present
    /// `JF-info.plist` (delivered) and `Info.plist` (bundled), both read-only.
    case layered(URL)
    /// A `UserDefaults` suite.
    case suite(String)
  }

  /// The layered store's file names inside its folder.
  enum LayeredFiles {
    static let persistent = "data.plist"
    static let delivered = "JF-info.plist"
    static let bundled = "Info.plist"
  }

  /// The domain as the user typed it, for messages.
  let name: String
  /// What it names.
  let kind: Kind

  /// Resolves a domain argument.
  ///
  /// - Throws: A usage ``Failure`` for an empty name or an option in the domain's place
  ///   (`defaults`' `-g`, `-app`, `-currentHost`, which `settings` doesn't have).
  init(_ argument: String, verb: String) throws(Failure) {
    guard !argument.isEmpty else { throw Failure.usage("\(verb): the domain name is empty") }
    if argument.hasPrefix("-") {
      throw Failure.usage(
        "\(verb): unknown option '\(argument)'; a domain is a suite name, a .plist file or a "
          + "store folder (see 'settings --help')")
    }
    name = argument
    kind = Self.kind(of: argument)
  }

  private static func kind(of argument: String) -> Kind {
    let looksLikePath =
      argument.contains("/") || argument.hasSuffix(".plist") || argument == "."
      || argument == ".."
    guard looksLikePath else { return .suite(argument) }
    let url = URL(fileURLWithPath: argument)
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
      return isDirectory.boolValue ? .layered(url) : .file(url)
    }
    // `defaults` accepts a path without its `.plist` extension.
    if !argument.hasSuffix(".plist"), !argument.hasSuffix("/"),
      !FileManager.default.isSymbolicLink(url)
    {
      return .file(URL(fileURLWithPath: argument + ".plist"))
    }
    return .file(url)
  }

  /// The folder `UserDefaults` keeps suites in: on Linux `$XDG_CONFIG_HOME`, else
  /// `$HOME/.config` (`$HOME` honoured); on Apple platforms `~/Library/Preferences`.
  static var suitesDirectory: URL {
    #if canImport(Darwin)
      FileManager.default.homeDirectoryForCurrentUser.appending(path: "Library/Preferences")
    #else
      StandardLocation.configuration.baseDirectory()
    #endif
  }

  /// The file a suite is kept in: `<suites directory>/<name>.plist`.
  static func suiteFile(_ suite: String) -> URL {
    suitesDirectory.appendingPathComponent("\(suite).plist")
  }
}

extension FileManager {
  /// Whether a symbolic link (dangling or not) is at `url`.
  fileprivate func isSymbolicLink(_ url: URL) -> Bool {
    (try? attributesOfItem(atPath: url.path)[.type] as? FileAttributeType) == .typeSymbolicLink
  }
}
