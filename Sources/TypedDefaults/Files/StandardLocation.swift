import Foundation

/// The standard per-user folders an app or tool keeps its files in, resolved for the platform,
/// created when missing, and checked: an unusable folder is an error that names it.
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
/// ignores `$HOME` on Linux; this does not). Folders it creates are readable by their owner only
/// (0700).
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
  /// - Returns: The folder's location; nothing is created or checked.
  public func baseDirectory(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> URL {
    #if canImport(Darwin)
      if let url = FileManager.default.urls(for: searchPathDirectory, in: .userDomainMask).first {
        return url
      }
    #endif
    let (variable, fallback) =
      switch self {
      case .data, .documents: ("XDG_DATA_HOME", ".local/share")
      case .configuration: ("XDG_CONFIG_HOME", ".config")
      case .cache: ("XDG_CACHE_HOME", ".cache")
      }
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

  /// The folder of this kind for one app or tool, created (with any missing parents) if it
  /// doesn't exist.
  ///
  /// - Parameters:
  ///   - name: The app's or tool's folder name, typically its bundle identifier
  ///     (`com.example.player`) or its executable's name.
  ///   - environment: The environment to read `XDG_*` and `HOME` from; the process's by default.
  /// - Returns: The folder, which exists and is writable.
  /// - Throws: ``SettingsError/Code/directoryNotUsable`` naming the path if `name` isn't a plain
  ///   folder name, if something other than a folder is in the way, if the folder can't be
  ///   created, or if it isn't writable.
  public func directory(
    for name: String,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(SettingsError) -> URL {
    let base = baseDirectory(environment: environment)
    guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
      throw SettingsError(
        .directoryNotUsable, path: base.appendingPathComponent(name).path,
        reason: "'\(name)' is not a folder name")
    }
    let folder = base.appendingPathComponent(name, isDirectory: true)
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
      guard isDirectory.boolValue else {
        throw SettingsError(
          .directoryNotUsable, path: folder.path, reason: "Something other than a folder is there")
      }
    } else {
      do {
        try FileManager.default.createDirectory(
          at: folder, withIntermediateDirectories: true,
          attributes: [.posixPermissions: 0o700])
      } catch {
        throw SettingsError(
          .directoryNotUsable, path: folder.path,
          reason: "It can't be created: \(PropertyListFile.describe(error))")
      }
    }
    guard FileManager.default.isWritableFile(atPath: folder.path) else {
      throw SettingsError(.directoryNotUsable, path: folder.path, reason: "It is not writable")
    }
    return folder
  }
}
