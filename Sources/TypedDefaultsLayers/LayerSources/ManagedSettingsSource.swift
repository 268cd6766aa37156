import Foundation
import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The values an administrator enforces on a machine or device: the ``LayeredPlistStore/Layer/managed``
/// layer, whose keys can't be written through the store.
///
/// Where they come from:
///
/// - **Linux (and every platform but Apple's): a property-list file** an administrator or a
///   configuration-management tool deploys, by default `/etc/<identifier>/managed.plist`
///   (``init(identifier:)``), or any file (``init(file:trustedOwner:)``), read by the library's
///   strict reader (``PropertyListFile``). A missing file (or folder) is an empty layer: the
///   machine is not managed. A zero-byte file is empty too. An entry whose value can't be read
///   is left out and listed in ``LayerContents/problems``; a file that isn't a property list, or
///   whose root isn't a dictionary, makes ``read()`` throw.
/// - **Apple platforms: the managed app configuration** an MDM server delivers, the dictionary
///   `UserDefaults.standard` holds under ``managedConfigurationKey``
///   (`com.apple.configuration.managed`), which ``init(identifier:)`` reads there; a file is read
///   only when you pass one to ``init(file:trustedOwner:)``. An entry Foundation gives that is not
///   a property-list value is left out and listed in ``LayerContents/problems``.
///
/// ```swift
/// let store = try LayeredPlistStore(
///   persistentFile: dataFile,
///   layers: [.source(ManagedSettingsSource(identifier: "com.example.app")), .runtime, .persistent])
/// ```
///
/// ## Trust
///
/// Managed settings bind every user of the machine, so a file is only read if no one but the
/// trusted owner (root by default) could have written it; otherwise ``read()`` throws
/// ``SettingsError/Code/fileNotTrusted`` naming the file and why, for example
/// `It is writable by others (mode 0666): managed settings must be writable only by root`:
///
/// - The file must be a regular file owned by the trusted owner (or root), and not writable by its
///   group or by others (`mode & 0o022 == 0`).
/// - The folder holding it must be owned by the trusted owner (or root) and not writable by its
///   group or by others, so that no one else can replace or rename the file. The folders above it
///   are not checked (`/etc` is root's).
/// - A symbolic link is followed (a Kubernetes ConfigMap or a configuration-management tool
///   deploys links) only if the folder holding each link of the chain passes the folder rule and
///   the file it finally names passes the file rule, at most 32 links deep; a link to nothing is
///   a missing file.
///
/// Since the folder can be changed only by the trusted owner, the file checked is the file read.
///
/// ## Watching
///
/// Once the store watches (``LayeredPlistStore/startWatching()``), a file's folder (and the folder
/// of each link) is watched as the store watches its own files (inotify on Linux), and every
/// change, also of permissions, is reported, so the store reads the file again; a file that
/// became untrusted or unreadable then leaves the layer as it was, reported as a diagnostic. The
/// managed app configuration is read again on each `UserDefaults.didChangeNotification`.
///
/// Thread-safety: `Sendable`; every method may be called from any thread.
public final class ManagedSettingsSource: LayerSource {
  /// The `UserDefaults` key under which an MDM server's managed app configuration is delivered:
  /// `com.apple.configuration.managed`.
  public static let managedConfigurationKey = "com.apple.configuration.managed"

  /// ``LayeredPlistStore/Layer/managed``.
  public let layer: LayeredPlistStore.Layer = .managed

  /// `true`: the keys an administrator sets can't be written through the store.
  public var isForced: Bool { true }

  /// The property-list file read, or `nil` when the source reads the managed app configuration
  /// (``init(identifier:)`` on Apple platforms).
  public let file: URL?

  /// The user who, with root, may own the file and its folder (root, `0`, by default).
  public let trustedOwner: uid_t

  /// Where the values come from.
  private let origin: Origin
  /// The watches of the file's folders, or the notification observation, while watching.
  private let watching = Locked<Watching?>(nil)

  private enum Origin: Sendable {
    case file(URL)
    /// The identifier isn't a plain name, so there is no file to read: `read()` throws this.
    case unusable(SettingsError)
    /// The managed app configuration, as `UserDefaults` gives it.
    case managedConfiguration(@Sendable () -> [String: Any]?)
  }

  // @unchecked Sendable: the notification token is only handed to `NotificationCenter`, which is
  // thread-safe; the watchers are Sendable.
  private struct Watching: @unchecked Sendable {
    var watchers: [FileWatcher] = []
    var observation: (any NSObjectProtocol)?
  }

  /// The file ``init(identifier:)`` reads on Linux: `/etc/<identifier>/managed.plist`.
  ///
  /// - Parameter identifier: The app's identifier, such as `com.example.app`.
  /// - Returns: The file's location.
  public static func defaultFile(forIdentifier identifier: String) -> URL {
    URL(fileURLWithPath: "/etc", isDirectory: true)
      .appendingPathComponent(identifier, isDirectory: true)
      .appendingPathComponent("managed.plist")
  }

  /// Creates the source of an app's managed settings where the platform keeps them.
  ///
  /// On Apple platforms, the managed app configuration an MDM server delivers
  /// (`UserDefaults.standard`'s ``managedConfigurationKey``; the identifier is the app's own
  /// defaults, so it isn't used). Elsewhere, the file `/etc/<identifier>/managed.plist`, which
  /// root must own (see "Trust"); an identifier that isn't a plain folder name (empty, `.`,
  /// `..`, or holding `/`) makes ``read()`` throw ``SettingsError/Code/directoryNotUsable``.
  ///
  /// - Parameter identifier: The app's identifier, such as `com.example.app`.
  public convenience init(identifier: String) {
    #if canImport(Darwin)
      self.init(managedConfiguration: {
        UserDefaults.standard.dictionary(forKey: ManagedSettingsSource.managedConfigurationKey)
      })
    #else
      let url = Self.defaultFile(forIdentifier: identifier)
      if identifier.isEmpty || identifier == "." || identifier == ".."
        || identifier.contains("/") || identifier.contains("\0")
      {
        self.init(
          origin: .unusable(
            SettingsError(
              .directoryNotUsable, path: url.deletingLastPathComponent().path,
              reason: "The identifier '\(identifier)' is not a plain folder name")),
          file: url, trustedOwner: 0)
      } else {
        self.init(file: url)
      }
    #endif
  }

  /// Creates the source of managed settings kept in a property-list file.
  ///
  /// - Parameters:
  ///   - file: The file; it need not exist (no file is no management).
  ///   - trustedOwner: The user who, besides root, may own the file and its folder; root (`0`) by
  ///     default.
  public convenience init(file: URL, trustedOwner: uid_t = 0) {
    self.init(origin: .file(file.standardizedFileURL), file: file, trustedOwner: trustedOwner)
  }

  /// Creates the source of a managed app configuration, as `UserDefaults` gives it: on Apple
  /// platforms ``init(identifier:)`` reads `UserDefaults.standard`; tests give a dictionary.
  ///
  /// - Parameter managedConfiguration: Returns the configuration dictionary, or `nil` if none
  ///   was delivered.
  package convenience init(managedConfiguration: @escaping @Sendable () -> [String: Any]?) {
    self.init(origin: .managedConfiguration(managedConfiguration), file: nil, trustedOwner: 0)
  }

  private init(origin: Origin, file: URL?, trustedOwner: uid_t) {
    self.origin = origin
    self.file = file
    self.trustedOwner = trustedOwner
  }

  deinit {
    stopWatching()
  }

  /// ``RecordedLayerSource/managed(path:trustedOwner:)`` naming the file and the trusted owner,
  /// so that a tool opening the store's folder trusts the file as this source does; `nil` for
  /// the managed app configuration, which only the app's own process can read.
  public var recordedSource: RecordedLayerSource? {
    guard case .file(let url) = origin else { return nil }
    return .managed(path: url.path, trustedOwner: UInt32(trustedOwner))
  }

  // MARK: - Reading

  /// Reads the managed values: the file's, once it is trusted, or the managed app
  /// configuration's.
  ///
  /// - Returns: The values by key (none if there is no file or no configuration), and the entries
  ///   left out.
  /// - Throws: ``SettingsError/Code/fileNotTrusted`` naming the file and why if someone other
  ///   than the trusted owner or root could have written it (see "Trust"); what
  ///   ``PropertyListFile/readDictionary()`` throws for a file that can't be read, isn't a
  ///   property list or has a root that isn't a dictionary.
  public func read() throws(SettingsError) -> LayerContents {
    switch origin {
    case .unusable(let error):
      throw error
    case .managedConfiguration(let configuration):
      return Self.contents(ofManagedConfiguration: configuration())
    case .file(let url):
      guard let target = try ManagedFileTrust(trustedOwner: trustedOwner).trustedTarget(of: url)
      else { return LayerContents(values: [:]) }
      let file = PropertyListFile(url: target)
      guard let data = try file.readData() else { return LayerContents(values: [:]) }
      if data.isEmpty { return LayerContents(values: [:]) }
      let decoded = try PropertyListFile.decode(data, path: url.path, salvagingEntries: true)
      let values = try PropertyListFile(url: url).dictionary(
        in: PropertyListFile.Contents(root: decoded.root, format: decoded.format))
      return LayerContents(values: values, problems: decoded.unreadableEntries)
    }
  }

  /// The contents of a managed app configuration: each entry converted to a
  /// ``PropertyListValue``, an entry that is no property-list value left out as a problem naming
  /// its key.
  ///
  /// - Parameter configuration: The dictionary `UserDefaults` gives, or `nil` for none.
  /// - Returns: The values, and a ``SettingsError/Code/valueNotRepresentable`` problem per entry
  ///   left out.
  package static func contents(
    ofManagedConfiguration configuration: [String: Any]?
  )
    -> LayerContents
  {
    var values: [String: PropertyListValue] = [:]
    var problems: [SettingsError] = []
    for (key, object) in configuration ?? [:] {
      do {
        values[key] = try FoundationBridge.value(from: object)
      } catch {
        problems.append(
          SettingsError(
            .valueNotRepresentable, key: key,
            reason:
              "The managed app configuration's value is not a property-list value (\(error.reason)); the layer was read without it"
          ))
      }
    }
    problems.sort { ($0.key ?? "") < ($1.key ?? "") }
    return LayerContents(values: values, problems: problems)
  }

  // MARK: - Watching

  /// Starts reporting changes: of the file, by watching its folder and the folder of each link
  /// to it; of the managed app configuration, on each `UserDefaults.didChangeNotification`.
  ///
  /// Calling it again while watching does nothing.
  ///
  /// - Parameter reporter: Where changes are reported, from a background queue (for a file) or
  ///   the thread posting the notification.
  public func startWatching(reportingTo reporter: LayerSourceReporter) {
    guard watching.withLock({ $0 == nil }) else { return }
    var started = Watching()
    switch origin {
    case .unusable:
      break
    case .managedConfiguration:
      started.observation = NotificationCenter.default.addObserver(
        forName: UserDefaults.didChangeNotification, object: nil, queue: nil
      ) { _ in reporter.reportChanges() }
    case .file(let url):
      var byFolder: [URL: Set<String>] = [:]
      for (folder, name) in FileWatcher.watchPoints(of: url) {
        byFolder[folder, default: []].insert(name)
      }
      let description = "ManagedSettingsSource(\(url.path))"
      started.watchers = byFolder.map { folder, names in
        FileWatcher(folder: folder, names: names) { event in
          switch event {
          case .changed:
            reporter.reportChanges()
          case .armingFailed(let reason):
            SettingsDiagnostics.report(
              SettingsDiagnostic(
                kind: .watchFailed, key: nil, backend: description,
                message: "\(reason); checking the file every second at most instead, until it can"
              ))
          }
        }
      }
    }
    let superfluous = watching.withLock { watching -> Watching? in
      guard watching == nil else { return started }
      watching = started
      return nil
    }
    if let superfluous { Self.stop(superfluous) }
  }

  /// Stops reporting changes.
  ///
  /// Safe from any thread, also from the reporter's callback.
  public func stopWatching() {
    let stopped = watching.withLock { watching in
      defer { watching = nil }
      return watching
    }
    if let stopped { Self.stop(stopped) }
  }

  private static func stop(_ watching: Watching) {
    for watcher in watching.watchers { watcher.stop() }
    if let observation = watching.observation {
      NotificationCenter.default.removeObserver(observation)
    }
  }
}

/// The trust rule of ``ManagedSettingsSource``: who may own a managed file and its folder, and
/// what they may let others do.
struct ManagedFileTrust {
  /// The user who, besides root, may own the file and its folders.
  var trustedOwner: uid_t

  /// How the owner is named in messages: `root` or `uid 501`.
  var ownerName: String { trustedOwner == 0 ? "root" : "root or uid \(trustedOwner)" }

  /// Checks the file at `url` and the chain of symbolic links to it.
  ///
  /// - Parameter url: The managed file, as configured.
  /// - Returns: The regular file to read (the end of the chain of links), or `nil` if there is
  ///   none (no file, or a link to nothing).
  /// - Throws: ``SettingsError/Code/fileNotTrusted`` naming `url` and why; or
  ///   ``SettingsError/Code/fileNotReadable`` if the path can't be examined or ends in something
  ///   other than a regular file.
  func trustedTarget(of url: URL) throws(SettingsError) -> URL? {
    let path = url.path
    guard try Self.linkStatus(path, of: path) != nil else { return nil }
    let chain = AtomicFile.symbolicLinkChain(of: url)
    for (link, _) in chain {
      let folder = link.deletingLastPathComponent().path
      var info = stat()
      guard stat(folder, &info) == 0 else {
        throw SettingsError(
          .fileNotReadable, path: path, reason: "Its folder '\(folder)': \(POSIX.lastError)")
      }
      if let problem = problem(with: info) {
        let via =
          link.path == url.standardizedFileURL.path ? "" : " (reached through a symbolic link)"
        throw SettingsError(
          .fileNotTrusted, path: path,
          reason:
            "Its folder '\(folder)'\(via) \(problem): managed settings must be writable only by \(ownerName)"
        )
      }
    }
    guard let target = chain.last?.url else { return nil }
    // A link to nothing is a missing file.
    guard let info = try Self.linkStatus(target.path, of: path) else { return nil }
    switch info.st_mode & S_IFMT {
    case S_IFREG:
      break
    case S_IFLNK:
      throw SettingsError(
        .fileNotReadable, path: path, reason: "It is reached through more than 32 symbolic links")
    case S_IFDIR:
      throw SettingsError(.fileNotReadable, path: path, reason: "It is a directory")
    default:
      throw SettingsError(.fileNotReadable, path: path, reason: "It is not a regular file")
    }
    if let problem = problem(with: info) {
      let subject =
        target.path == url.standardizedFileURL.path
        ? "It" : "The file it links to, '\(target.path)',"
      throw SettingsError(
        .fileNotTrusted, path: path,
        reason: "\(subject) \(problem): managed settings must be writable only by \(ownerName)")
    }
    return target
  }

  /// What lets someone other than the trusted owner or root write a file or folder, such as `is
  /// writable by others (mode 0666)`, or `nil` if nothing does.
  private func problem(with info: stat) -> String? {
    let mode = info.st_mode & 0o7777
    let octal = "mode 0" + String(mode, radix: 8)
    if info.st_uid != trustedOwner && info.st_uid != 0 {
      return "is owned by uid \(info.st_uid) (\(octal))"
    }
    switch (mode & 0o020 != 0, mode & 0o002 != 0) {
    case (true, true): return "is writable by its group and by others (\(octal))"
    case (true, false): return "is writable by its group (\(octal))"
    case (false, true): return "is writable by others (\(octal))"
    case (false, false): return nil
    }
  }

  /// The status of the path itself (`lstat`), or `nil` if there is nothing there.
  ///
  /// - Throws: ``SettingsError/Code/fileNotReadable`` naming `file` if the path can't be examined
  ///   (no permission to search a folder, a loop of links).
  private static func linkStatus(_ path: String, of file: String) throws(SettingsError) -> stat? {
    var info = stat()
    if lstat(path, &info) == 0 { return info }
    if errno == ENOENT || errno == ENOTDIR { return nil }
    throw SettingsError(.fileNotReadable, path: file, reason: POSIX.lastError)
  }
}
