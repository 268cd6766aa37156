import Foundation
import TypedDefaults

/// What a domain argument names: a property-list file, a layered store folder, or a
/// `UserDefaults` suite.
///
/// - A **path** (it contains a `/`, ends in `.plist`, or is `.` or `..`) names an existing folder,
///   which is a layered store, or else a property-list file. As with `defaults`, the `.plist`
///   extension may be left out: `dir/name` means `dir/name.plist` unless `dir/name` exists. A
///   path ending in `/` names a folder, which must exist.
/// - **Any other name** is a `UserDefaults` suite, such as `com.example.app`; not one that is
///   only whitespace, or starts with `-` (an option).
struct Domain {
  /// The kind of store a domain is.
  enum Kind {
    /// A property-list file (XML, binary or OpenStep), read and written whole.
    case file(URL)
    /// A folder holding a layered store: `data.plist` (persistent, read-write), and if present
    /// `JF-info.plist` (delivered) and `Info.plist` (bundled), both read-only, unless
    /// `--delivered` or `--bundled` named them elsewhere.
    case layered(LayeredFiles)
    /// A `UserDefaults` suite.
    case suite(String)
  }

  /// A layered store's three files.
  struct LayeredFiles {
    /// The files' names inside the store folder, unless `--delivered` or `--bundled` says
    /// otherwise.
    static let persistentName = "data.plist"
    static let deliveredName = "JF-info.plist"
    static let bundledName = "Info.plist"

    let persistent: URL
    let delivered: URL
    let bundled: URL
    /// How output names each file: its name in the folder, or the path given for it.
    let persistentLabel = persistentName
    let deliveredLabel: String
    let bundledLabel: String

    init(folder: URL, options: LayerFileOptions) {
      persistent = folder.appendingPathComponent(Self.persistentName)
      delivered =
        options.delivered.map { URL(fileURLWithPath: $0) }
        ?? folder.appendingPathComponent(Self.deliveredName)
      bundled =
        options.bundled.map { URL(fileURLWithPath: $0) }
        ?? folder.appendingPathComponent(Self.bundledName)
      deliveredLabel = options.delivered ?? Self.deliveredName
      bundledLabel = options.bundled ?? Self.bundledName
    }

    /// The label of a read-only layer's file.
    func label(of layer: LayeredPlistStore.Layer) -> String {
      switch layer {
      case .delivered: deliveredLabel
      case .bundled: bundledLabel
      default: persistentLabel
      }
    }
  }

  /// Where a layered store's read-only files are, when they aren't in its folder: an app's
  /// `Info.plist` lives in its bundle. Given before the domain:
  /// `settings explain --bundled /opt/app/Info.plist ./store Key`.
  struct LayerFileOptions {
    var delivered: String?
    var bundled: String?

    var isEmpty: Bool { delivered == nil && bundled == nil }
  }

  /// The domain as the user typed it, for messages.
  let name: String
  /// What it names.
  let kind: Kind

  /// Resolves a domain argument.
  ///
  /// - Parameters:
  ///   - argument: The domain as typed.
  ///   - verb: The verb, for messages.
  ///   - layerFiles: Where a layered store's read-only files are, if not in its folder.
  /// - Throws: A usage ``Failure`` for an empty name or one that is only whitespace, an option in
  ///   the domain's place (`defaults`' `-g`, `-app`, `-currentHost`, which `settings` doesn't
  ///   have), or `--delivered`/`--bundled` given for a domain that isn't a store folder; a
  ///   ``Failure`` for a folder path (ending in `/`) where there is no folder, or
  ///   `--delivered`/`--bundled` naming no file.
  init(
    _ argument: String, verb: String, layerFiles: LayerFileOptions = .init()
  ) throws(Failure) {
    guard !argument.isEmpty else { throw Failure.usage("\(verb): the domain name is empty") }
    if argument.allSatisfy(\.isWhitespace) {
      throw Failure.usage("\(verb): the domain name '\(argument)' is only whitespace")
    }
    if argument.hasPrefix("-") {
      throw Failure.usage(
        "\(verb): unknown option '\(argument)'; a domain is a suite name, a .plist file or a "
          + "store folder (see 'settings --help')")
    }
    if argument.hasSuffix("/") {
      // A folder, by its final '/': never a file named after it, created by a write.
      var isDirectory: ObjCBool = false
      let path = URL(fileURLWithPath: argument).path  // without the final '/'
      if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
        throw Failure("there is no folder at \(argument); create it to start a store there")
      }
      if !isDirectory.boolValue {
        throw Failure("there is no folder at \(argument): it is a file (name it without the '/')")
      }
    }
    name = argument
    kind = Self.kind(of: argument, layerFiles: layerFiles)
    guard !layerFiles.isEmpty else { return }
    guard case .layered = kind else {
      throw Failure.usage(
        "\(verb): --delivered and --bundled apply to a layered store folder, and \(argument) "
          + "is not one (a folder is named by a path, such as ./store)")
    }
    for (option, path) in [
      ("--delivered", layerFiles.delivered), ("--bundled", layerFiles.bundled),
    ] {
      guard let path else { continue }
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
        !isDirectory.boolValue
      else {
        throw Failure("\(verb): \(option): there is no file at \(path)")
      }
    }
  }

  /// Whether a name is a path rather than a suite name: it contains a `/`, ends in `.plist`, or
  /// is `.` or `..`.
  static func looksLikePath(_ argument: String) -> Bool {
    argument.contains("/") || argument.hasSuffix(".plist") || argument == "." || argument == ".."
  }

  /// Whether `name`, typed as a domain, names the suite `name`: not a path, not an option, not
  /// empty or only whitespace. `domains` lists only the suites this holds for.
  static func isSuiteName(_ name: String) -> Bool {
    !name.allSatisfy(\.isWhitespace) && !name.hasPrefix("-") && !looksLikePath(name)
  }

  private static func kind(of argument: String, layerFiles: LayerFileOptions) -> Kind {
    guard looksLikePath(argument) else { return .suite(argument) }
    let url = URL(fileURLWithPath: argument)
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
      return isDirectory.boolValue
        ? .layered(LayeredFiles(folder: url, options: layerFiles)) : .file(url)
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
