import Foundation
import TypedDefaults

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
/// ignores `$HOME` on Linux; this does not). Without the location's `XDG_*` variable, the folder
/// systemd gives a service is used next (`STATE_DIRECTORY` for ``data`` and ``documents``,
/// `CONFIGURATION_DIRECTORY`, `CACHE_DIRECTORY`; the first of a colon-separated list), then the
/// home: `HOME`, or, if it is unset or `/` (a service's), the account's home in the user
/// database (`/nonexistent` for `nobody`), so a service that only reads starts whatever its
/// environment.
///
/// Finding a folder creates nothing and needs no write permission, so a program that only reads
/// its settings starts with a read-only or missing folder. A `LayeredPlistStore` opened in a
/// missing folder reads no values and creates the folder, readable by its owner only (0700), with
/// any missing folder above it, at its first save, but never a home that doesn't exist (root
/// with `HOME=/nonexistent`); a save into a folder that can't be written or created fails with
/// an error naming the folder, the cause and the variables that choose it, and keeps the
/// changes for a later save.
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
    baseDirectory(environment: environment, accountHome: Self.accountHome)
  }

  /// ``baseDirectory(environment:)`` with the user database's home given.
  private func baseDirectory(
    environment: [String: String], accountHome: () -> String?
  ) -> URL {
    #if canImport(Darwin)
      if let url = FileManager.default.urls(for: searchPathDirectory, in: .userDomainMask).first {
        return url
      }
    #endif
    let (variable, fallback) = variableAndFallback
    for name in [variable, serviceVariable] {
      if let value = environment[name]?.split(separator: ":").first, value.hasPrefix("/") {
        return URL(fileURLWithPath: String(value), isDirectory: true)
      }
    }
    let home = Self.home(environment, accountHome: accountHome) ?? NSHomeDirectory()
    return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(fallback)
  }

  /// The variable systemd sets to a service's own folder of this kind (`StateDirectory=`).
  var serviceVariable: String {
    switch self {
    case .data, .documents: "STATE_DIRECTORY"
    case .configuration: "CONFIGURATION_DIRECTORY"
    case .cache: "CACHE_DIRECTORY"
    }
  }

  /// `HOME` if it is an absolute path other than `/`; else the account's home in the user
  /// database, if it is one; else `nil`.
  package static func home(
    _ environment: [String: String], accountHome: () -> String? = accountHome
  ) -> String? {
    func usable(_ path: String?) -> String? {
      guard let path, path.hasPrefix("/"), !path.allSatisfy({ $0 == "/" }) else { return nil }
      return path
    }
    return usable(environment["HOME"]) ?? usable(accountHome())
  }

  /// The home the user database gives the process's user (`getpwuid`), or `nil`.
  package static func accountHome() -> String? {
    #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
      guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
      return String(cString: directory)
    #else
      return nil
    #endif
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
  ///   one above it that exists); on Linux, if no folder is chosen: neither the location's
  ///   variable (`XDG_DATA_HOME` for ``data``) nor systemd's (`STATE_DIRECTORY`) is an absolute
  ///   path, `HOME` is unset, not an absolute path, or `/`, and the account's home in the user
  ///   database isn't one either; the message names the variables that choose it.
  public func directory(
    for name: String,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(SettingsError) -> URL {
    try directory(for: name, environment: environment, accountHome: Self.accountHome)
  }

  /// ``directory(for:environment:)`` with the user database's home given (for tests).
  package func directory(
    for name: String, environment: [String: String], accountHome: () -> String?
  ) throws(SettingsError) -> URL {
    let base = try chosenBaseDirectory(
      for: name, environment: environment, accountHome: accountHome)
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
    #if !canImport(Darwin)
      let (variable, _) = variableAndFallback
      let chosen = [variable, serviceVariable].contains { environment[$0]?.hasPrefix("/") == true }
      let home = chosen ? nil : Self.home(environment, accountHome: accountHome)
      Self.choices.withLock {
        $0[folder.standardizedFileURL.path] = Choice(location: self, home: home)
      }
    #endif
    return folder
  }

  /// How a folder ``directory(for:environment:)`` found was chosen: its location, and the home
  /// it is in when no variable chose it.
  package struct Choice: Sendable, Hashable {
    /// The kind of folder.
    let location: StandardLocation
    /// The home the folder is in (`HOME`, or the account's), when neither the location's
    /// variable nor systemd's chose it; `nil` when one did.
    let home: String?

    /// The variables that choose the folder, in order: `XDG_DATA_HOME, then STATE_DIRECTORY
    /// (as systemd's StateDirectory= sets it), then HOME`.
    var variables: String {
      let (variable, _) = location.variableAndFallback
      let service = location.serviceVariable
      let setting = StandardLocation.systemdSetting(service)
      return "\(variable), then \(service) (as systemd's \(setting) sets it), then HOME"
    }

    /// Why the store's first save must not create the folder, or `nil` if it may: a folder in a
    /// home that doesn't exist (`HOME=/nonexistent`, root's writes would make the home itself)
    /// is never created as a side effect of a save.
    ///
    /// - Parameter folder: The folder to be created.
    /// - Returns: The reason, naming the home and the variables that choose the folder.
    package func creationProblem(of folder: URL) -> String? {
      guard let home, !FileManager.default.fileExists(atPath: home) else { return nil }
      return "The folder '\(folder.path)' is in the home '\(home)', which does not exist, and a "
        + "home is not created as a side effect of a write; the folder is chosen by "
        + "\(variables): set one of them to a folder this user can write"
    }

    /// What a failing first save adds to the reason of the folder it couldn't create: which
    /// variables choose it.
    package var advice: String {
      "; the folder is chosen by \(variables): set one of them to a folder this user can write"
    }
  }

  /// The folders ``directory(for:environment:)`` found in this process, by path, and how each
  /// was chosen, so that a store's first save in one can say which variables choose it.
  private static let choices = Locked<[String: Choice]>([:])

  /// How a folder ``directory(for:environment:)`` found in this process was chosen, if it did.
  ///
  /// - Parameter folder: A store's folder.
  /// - Returns: The choice, or `nil` for a folder it didn't find (one the app named itself).
  package static func choice(ofFolder folder: URL) -> Choice? {
    choices.withLock { $0[folder.standardizedFileURL.path] }
  }

  /// The location's variable and its default below the home (Linux and other platforms).
  var variableAndFallback: (variable: String, fallback: String) {
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
    for name: String, environment: [String: String], accountHome: () -> String?
  ) throws(SettingsError) -> URL {
    #if !canImport(Darwin)
      let (variable, fallback) = variableAndFallback
      let chosen = [variable, serviceVariable].contains { environment[$0]?.hasPrefix("/") == true }
      if !chosen, Self.home(environment, accountHome: accountHome) == nil {
        let found =
          environment["HOME"].flatMap { $0.isEmpty ? nil : "HOME is '\($0)'" } ?? "HOME is not set"
        throw SettingsError(
          .directoryNotUsable, path: "$\(variable)/\(name)",
          reason: "No \(rawValue) folder is chosen: neither \(variable) nor \(serviceVariable) "
            + "is set to an absolute path, \(found), and the account has no home; set "
            + "\(variable) (or \(serviceVariable), as systemd's \(Self.systemdSetting(serviceVariable)) "
            + "does) to the folder, or HOME to a home, whose '\(fallback)' is used")
      }
    #endif
    return baseDirectory(environment: environment, accountHome: accountHome)
  }

  /// The systemd unit setting that sets a service variable: `StateDirectory=`.
  static func systemdSetting(_ variable: String) -> String {
    switch variable {
    case "STATE_DIRECTORY": "StateDirectory="
    case "CONFIGURATION_DIRECTORY": "ConfigurationDirectory="
    default: "CacheDirectory="
    }
  }
}
