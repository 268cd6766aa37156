import Foundation

/// The standard per-user folders an app or tool keeps its files in, resolved for the platform and
/// checked: an unusable folder is an error that names it.
///
/// | location | Apple platforms | Linux and other platforms |
/// |---|---|---|
/// | ``data`` | Application Support | `$XDG_DATA_HOME`, default `~/.local/share` |
/// | ``documents`` | Documents | `$XDG_DATA_HOME`, default `~/.local/share` |
/// | ``configuration`` | Application Support | `$XDG_CONFIG_HOME`, default `~/.config` |
/// | ``cache`` | Caches | `$XDG_CACHE_HOME`, default `~/.cache` |
///
/// On Linux, as the XDG Base Directory specification says, a variable that is unset, empty or
/// not an absolute path is ignored, and `~` is `$HOME` (Foundation's `homeDirectoryForCurrentUser`
/// ignores `$HOME` on Linux; this does not). `STATE_DIRECTORY` (systemd's) is not read.
///
/// Finding a folder creates nothing and needs no write permission, so a program that only reads
/// its settings starts with a read-only or missing folder. A `LayeredPlistStore` opened in a
/// missing folder reads no values and creates the folder, readable by its owner only (0700), with
/// any missing folder above it, at its first save; a save into a folder that can't be written
/// fails with an error naming the folder and the cause, and keeps the changes for a later save.
///
/// ```swift
/// let folder = try StandardLocation.data.directory(for: "com.example.player")
/// let store = try LayeredPlistStore(persistentFile: folder.appending(path: "data.plist"))
/// ```
///
/// The FilePersistence seed lost a day to a wrong folder constant (`NSDocumentationDirectory` for
/// `NSDocumentDirectory`) that made every write fail silently: here a folder that can't be used
/// fails loudly, with its path.
public enum StandardLocation: String, Sendable, Hashable, CaseIterable {
  /// Files the app creates and keeps: `data.plist`, databases.
  case data
  /// Documents: the HuConfigration and FilePersistence seeds kept `data.plist` here on iOS.
  case documents
  /// Configuration files.
  case configuration
  /// Files that can be recreated and may be deleted by the system.
  case cache

  /// The per-user folder of this kind, without an app's subfolder.
  ///
  /// - Parameter environment: The environment to read `XDG_*` and `HOME` from; the process's by
  ///   default.
  /// - Returns: The folder's location; nothing is created or checked. On Linux, with neither the
  ///   location's variable nor an absolute `HOME`, the account's home (`NSHomeDirectory()`);
  ///   ``directory(for:environment:)`` throws instead, as it does for a `HOME` of `/`.
  public func baseDirectory(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> URL {
    #if canImport(Darwin)
      if let url = FileManager.default.urls(for: searchPathDirectory, in: .userDomainMask).first {
        return url
      }
    #endif
    let (variable, fallback) = variableAndFallback
    if let value = environment[variable], value.hasPrefix("/") {
      return URL(fileURLWithPath: value, isDirectory: true)
    }
    let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
    return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(fallback)
  }

  /// The system's name of this kind of folder, which Apple platforms ask for.
  ///
  /// `FileManager.urls(for:in:)` is asked for Application Support (data and configuration),
  /// Documents or Caches. Compiled everywhere; Linux uses the XDG folders instead.
  var searchPathDirectory: FileManager.SearchPathDirectory {
    switch self {
    case .data, .configuration: .applicationSupportDirectory
    case .documents: .documentDirectory
    case .cache: .cachesDirectory
    }
  }

  /// The folder of this kind for one app or tool, found but not created: nothing is written.
  ///
  /// The folder may not exist yet, and may be read-only: a store opened there reads what is there
  /// (nothing, if it is missing) and its first save creates it (see ``StandardLocation``).
  ///
  /// - Parameters:
  ///   - name: The app's or tool's folder name, typically its bundle identifier
  ///     (`com.example.player`) or its executable's name.
  ///   - environment: The environment to read `XDG_*` and `HOME` from; the process's by default.
  /// - Returns: The folder's location.
  /// - Throws: ``SettingsError/Code/directoryNotUsable`` naming the path if `name` isn't a plain
  ///   folder name or something other than a folder is in the way (the folder, or the nearest
  ///   one above it that exists); on Linux, if no folder is
  ///   chosen: the location's variable (`XDG_DATA_HOME` for ``data``) is unset or not an absolute
  ///   path and `HOME` is unset, not an absolute path, or `/` (as for a service with no home);
  ///   the message names the variables that choose it.
  public func directory(
    for name: String,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(SettingsError) -> URL {
    let base = try chosenBaseDirectory(for: name, environment: environment)
    guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
      throw SettingsError(
        .directoryNotUsable, path: base.appendingPathComponent(name).path,
        reason: "'\(name)' is not a folder name")
    }
    let folder = base.appendingPathComponent(name, isDirectory: true)
    // The folder, or the nearest folder above it that exists, must be a folder.
    var existing = folder
    var isDirectory: ObjCBool = false
    while !FileManager.default.fileExists(atPath: existing.path, isDirectory: &isDirectory) {
      let parent = existing.deletingLastPathComponent()
      guard parent.path != existing.path else { return folder }
      existing = parent
    }
    guard isDirectory.boolValue else {
      throw SettingsError(
        .directoryNotUsable, path: existing.path, reason: "Something other than a folder is there")
    }
    return folder
  }

  /// The location's variable and its default below the home (Linux and other platforms).
  private var variableAndFallback: (variable: String, fallback: String) {
    switch self {
    case .data, .documents: ("XDG_DATA_HOME", ".local/share")
    case .configuration: ("XDG_CONFIG_HOME", ".config")
    case .cache: ("XDG_CACHE_HOME", ".cache")
    }
  }

  /// ``baseDirectory(environment:)``, or on Linux an error naming `name`'s folder as
  /// `$<variable>/<name>` if neither the location's variable nor a home (`HOME`, absolute and not
  /// `/`) chooses one.
  private func chosenBaseDirectory(
    for name: String, environment: [String: String]
  ) throws(SettingsError) -> URL {
    #if !canImport(Darwin)
      let (variable, fallback) = variableAndFallback
      let chosen = environment[variable].map { $0.hasPrefix("/") } ?? false
      let home = environment["HOME"] ?? ""
      if !chosen, !home.hasPrefix("/") || home.allSatisfy({ $0 == "/" }) {
        let found =
          environment["HOME"].flatMap { $0.isEmpty ? nil : "HOME is '\($0)'" } ?? "HOME is not set"
        throw SettingsError(
          .directoryNotUsable, path: "$\(variable)/\(name)",
          reason: "No \(rawValue) folder is chosen: \(variable) is not set to an absolute path "
            + "and \(found); set \(variable) to the folder (or HOME to a home, whose "
            + "'\(fallback)' is used)")
      }
    #endif
    return baseDirectory(environment: environment)
  }
}
