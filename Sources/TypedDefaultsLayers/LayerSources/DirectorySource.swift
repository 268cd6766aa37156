import Foundation
import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A layer read from a folder holding one file per key, as Kubernetes mounts a ConfigMap or a
/// Secret (and as Docker and systemd credentials lay out secrets).
///
/// ```swift
/// let config = DirectorySource(directory: URL(fileURLWithPath: "/etc/config"), layer: "config")
/// let secrets = DirectorySource(
///   directory: URL(fileURLWithPath: "/etc/secrets"), layer: "secrets", holdsSecrets: true)
/// let store = try LayeredPlistStore(
///   persistentFile: dataFile,
///   layers: [.runtime, .source(secrets), .source(config), .persistent])
/// ```
///
/// The rules:
///
/// - **The file name is the key**; the file's contents are the value. Names starting with `.`
///   are skipped: Kubernetes' own entries (`..data`, `..data_tmp`, the timestamped folders
///   `..2026_12_02_08_05_00.123456789`) and hidden files. Folders are ignored (a ConfigMap
///   item with a path of several components gives no key).
/// - **Values are text** (``valuesAreText``): a file holding UTF-8 without a NUL byte is a
///   ``PropertyListValue/string(_:)``, which the store reads as the type a model declares for the
///   key. One trailing newline (`"\n"` or `"\r\n"`) is removed, since a file made from a file
///   (`kubectl create configmap --from-file`, `echo value > key`) ends with one; a value that
///   must itself end with a newline is written with two. Any other file (not UTF-8, or holding a
///   NUL byte: a binary keystore) is a ``PropertyListValue/data(_:)`` of its exact bytes.
/// - **Kubernetes' layout is read as one snapshot.** A mount holds the payload in a timestamped
///   folder, a link `..data` to it, and a link `key -> ..data/key` per key; the kubelet updates it
///   by writing a new timestamped folder and renaming a new `..data` link over the old one. When
///   the folder holds a `..data` entry, the source reads the folder `..data` points to (resolved
///   once per read), not the per-key links, and reads again if `..data` was replaced meanwhile,
///   so that a read never mixes two versions of the mount.
/// - **A symbolic link is followed only inside the folder.** A link whose destination (after
///   every link on the way) lies outside ``directory`` is not followed, since a Secret must not be
///   redirected to another file: its key is left out and reported as a problem. A `..data`
///   pointing outside makes ``read()`` throw. A link to nothing is a missing file (no key).
/// - **A file that can't be read** (over ``maximumFileSize`` bytes, no permission, not a regular
///   file, such as a FIFO) is left out and reported as a problem (a ``SettingsError`` naming the
///   key and the file's path); the other files are still read.
/// - **A file naming no setting is a configuration problem.** Once a model is bound to the
///   store, ``LayeredPlistStore/configurationProblems()`` (and so
///   ``LayeredPlistStore/checkConfiguration()``) lists each file whose name, normalized as the
///   store normalizes keys, no bound model declared, tagged with the layer and naming the file's
///   path (never its contents), with a "did you mean" for a near key:
///   `[config] The file '/etc/config/reqestTimeout' names no setting; did you mean 'requestTimeout'?`.
/// - **A missing folder is an empty layer**, not an error: a mount may come later, and a
///   watching source takes it in when it does. A folder that can't be listed makes ``read()``
///   throw.
///
/// A plain folder (not Kubernetes' layout) is read file by file: a writer changing several files
/// one at a time may be seen halfway, as with any set of files.
///
/// Thread-safety: `Sendable`; ``read()`` keeps no state and may run on several threads at once;
/// watching is guarded by a lock.
public final class DirectorySource: LayerSource, CustomStringConvertible, CustomReflectable {
  /// The largest file read by default: 1 MiB (1,048,576 bytes), the limit Kubernetes puts on a
  /// whole ConfigMap or Secret.
  public static let defaultMaximumFileSize = 1024 * 1024

  /// How many times a read starts again when Kubernetes replaces `..data` during it.
  static let maximumAttempts = 16

  /// The folder read, as an absolute file URL.
  public let directory: URL
  /// The layer this source fills.
  public let layer: LayeredPlistStore.Layer
  /// Whether every value is a secret (a Secret mount): shown as `<secret>` wherever a value is
  /// shown; the source's own descriptions never show values either way.
  public let holdsSecrets: Bool
  /// The largest file read, in bytes; a larger one is left out and reported as a problem.
  public let maximumFileSize: Int

  /// The watch while watching.
  private let watcher = Locked<FileWatcher?>(nil)

  /// Creates a source reading a folder of one file per key; nothing is read until ``read()``.
  ///
  /// - Parameters:
  ///   - directory: The folder (a `file:` URL); it need not exist yet.
  ///   - layer: The layer the source fills, as ``LayeredPlistStore/explain(_:)`` names it.
  ///   - holdsSecrets: Whether the values are secrets (a Kubernetes Secret mount); `false` by
  ///     default.
  ///   - maximumFileSize: The largest file read, in bytes; 1 MiB by default
  ///     (``defaultMaximumFileSize``).
  public init(
    directory: URL, layer: LayeredPlistStore.Layer, holdsSecrets: Bool = false,
    maximumFileSize: Int = DirectorySource.defaultMaximumFileSize
  ) {
    self.directory = directory.standardizedFileURL
    self.layer = layer
    self.holdsSecrets = holdsSecrets
    self.maximumFileSize = maximumFileSize
  }

  deinit {
    watcher.withLock { $0 }?.stop()
  }

  /// `true`: every value is the text of a file (or the bytes of a binary one), read as the type a
  /// model declares for the key.
  public var valuesAreText: Bool { true }

  /// ``RecordedLayerSource/directory(path:holdsSecrets:)`` with the folder's absolute path.
  public var recordedSource: RecordedLayerSource? {
    .directory(path: directory.path, holdsSecrets: holdsSecrets)
  }

  /// The source's layer and folder, never its values: `DirectorySource(secrets: /etc/secrets, secret values)`.
  public var description: String {
    "DirectorySource(\(layer): \(directory.path)\(holdsSecrets ? ", secret values" : ""))"
  }

  /// The layer, folder and limits, never the values or the watch's state, for `dump` and
  /// debuggers.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "directory": directory.path, "layer": layer.name, "holdsSecrets": holdsSecrets,
        "maximumFileSize": maximumFileSize,
      ], displayStyle: .class)
  }

  // MARK: - Reading

  /// Reads every file of the folder (or, in Kubernetes' layout, of the version `..data` points
  /// to) as one snapshot.
  ///
  /// - Returns: The values by file name, and a problem for each file left out (too large,
  ///   unreadable, not a regular file, a link leading outside the folder); empty if the folder
  ///   doesn't exist.
  /// - Throws: ``SettingsError/Code/fileNotReadable`` naming the folder if it can't be listed or
  ///   is not a folder, if its `..data` leads outside it or to no folder (a link to nothing
  ///   at each of 16 attempts says so), or if `..data` was replaced during each of 16 attempts
  ///   to read it.
  public func read() throws(SettingsError) -> LayerContents {
    var contents = try readContents()
    contents.holdsSecrets = holdsSecrets
    return contents
  }

  /// The folder's contents (see ``read()``).
  private func readContents() throws(SettingsError) -> LayerContents {
    let path = directory.path
    switch POSIX.kind(ofFileAt: path) {
    case .missing:
      return LayerContents(values: [:])
    case .directory:
      break
    case .regular, .other:
      throw SettingsError(.fileNotReadable, path: path, reason: "It is not a folder")
    case .unreachable(let reason):
      throw SettingsError(.fileNotReadable, path: path, reason: reason)
    }
    let root: String
    switch Self.resolve(path) {
    case .success(let resolved): root = resolved
    case .failure(let code) where code == ENOENT: return LayerContents(values: [:])
    case .failure(let code):
      throw SettingsError(.fileNotReadable, path: path, reason: Self.describe(code))
    }
    let dataLink = root + "/..data"
    guard Self.entryExists(dataLink) else {
      // A plain folder.
      return try readFolder(root, root: root) ?? LayerContents(values: [:])
    }
    // Kubernetes' layout: read the version `..data` points to, and make sure it still does.
    // Whether `..data` led to nothing at every attempt: a link left dangling, not a swap.
    var ledNowhere = true
    for _ in 0..<Self.maximumAttempts {
      guard let version = try dataFolder(dataLink, root: root) else { continue }
      ledNowhere = false
      let read = try readFolder(version, root: root)
      guard Self.resolve(dataLink) == .success(version) else { continue }
      if let read { return read }
    }
    throw SettingsError(
      .fileNotReadable, path: path + "/..data",
      reason: ledNowhere
        ? "It leads to nothing (a link to a folder that doesn't exist) at each of "
          + "\(Self.maximumAttempts) attempts to read it"
        : "It was replaced during each of \(Self.maximumAttempts) attempts to read it")
  }

  /// The folder `..data` points to now, checked to lie inside the mount; `nil` if it points to
  /// nothing (it is being replaced).
  private func dataFolder(_ dataLink: String, root: String) throws(SettingsError) -> String? {
    let visible = directory.path + "/..data"
    switch Self.resolve(dataLink) {
    case .failure(let code) where code == ENOENT:
      return nil
    case .failure(let code):
      throw SettingsError(.fileNotReadable, path: visible, reason: Self.describe(code))
    case .success(let version):
      guard Self.isInside(version, root) else {
        throw SettingsError(
          .fileNotReadable, path: visible,
          reason: "It leads to \(version), outside the folder; it is not followed")
      }
      switch POSIX.kind(ofFileAt: version) {
      case .directory: return version
      case .missing: return nil
      case .regular, .other:
        throw SettingsError(.fileNotReadable, path: visible, reason: "It is not a folder")
      case .unreachable(let reason):
        throw SettingsError(.fileNotReadable, path: visible, reason: reason)
      }
    }
  }

  /// Reads the files of `folder` (a resolved path inside `root`); `nil` if the folder is gone
  /// (replaced by Kubernetes during the read).
  private func readFolder(
    _ folder: String, root: String
  ) throws(SettingsError) -> LayerContents? {
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: folder)
    } catch {
      if POSIX.kind(ofFileAt: folder) == .missing { return nil }
      throw SettingsError(
        .fileNotReadable, path: directory.path, reason: PropertyListFile.describe(error))
    }
    var contents = LayerContents(values: [:])
    for name in names.sorted() where !name.hasPrefix(".") {
      let visible = directory.path + "/" + name
      let file: String
      switch Self.resolve(folder + "/" + name) {
      case .failure(let code) where code == ENOENT:
        continue  // a link to nothing, or a file removed meanwhile
      case .failure(let code):
        contents.problems.append(
          SettingsError(.fileNotReadable, path: visible, key: name, reason: Self.describe(code)))
        continue
      case .success(let resolved):
        file = resolved
      }
      guard Self.isInside(file, root) else {
        contents.problems.append(
          SettingsError(
            .fileNotReadable, path: visible, key: name,
            reason: "It is a symbolic link to \(file), outside the folder; it is not followed"))
        continue
      }
      if POSIX.kind(ofFileAt: file) == .directory { continue }
      do {
        let reader = PropertyListFile(url: URL(fileURLWithPath: file), maximumSize: maximumFileSize)
        guard let data = try reader.readData() else { continue }
        contents.values[name] = Self.value(of: data)
      } catch {
        contents.problems.append(
          SettingsError(error.code, path: visible, key: name, reason: error.reason))
      }
    }
    return contents
  }

  /// The value a file's bytes give: text without its one trailing newline, or the bytes.
  static func value(of data: Data) -> PropertyListValue {
    var bytes = [UInt8](data)
    guard !bytes.contains(0) else { return .data(data) }
    let text = String(decoding: bytes, as: UTF8.self)
    // Decoding replaces invalid sequences; a round trip that differs means the bytes aren't UTF-8.
    guard text.utf8.elementsEqual(bytes) else { return .data(data) }
    if bytes.last == UInt8(ascii: "\n") {
      bytes.removeLast()
      if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
      return .string(String(decoding: bytes, as: UTF8.self))
    }
    return .string(text)
  }

  // MARK: - Paths

  /// Whether something exists at `path`, without following a link there (`lstat`).
  private static func entryExists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
  }

  /// The path with every link and `.`/`..` resolved (`realpath`), or the `errno` it failed with.
  private static func resolve(_ path: String) -> Resolution {
    guard let resolved = realpath(path, nil) else { return .failure(errno) }
    defer { free(resolved) }
    return .success(String(cString: resolved))
  }

  /// What resolving a path gave.
  private enum Resolution: Equatable {
    /// The resolved path.
    case success(String)
    /// The `errno` resolving failed with.
    case failure(Int32)
  }

  /// Whether the resolved `path` lies strictly inside the resolved folder `root`.
  private static func isInside(_ path: String, _ root: String) -> Bool {
    path.hasPrefix(root.hasSuffix("/") ? root : root + "/") && path != root
  }

  private static func describe(_ code: Int32) -> String {
    String(cString: strerror(code))
  }

  // MARK: - Watching

  /// Starts watching the folder, reporting every change of its files, or of the version `..data`
  /// points to, as a change of any key (``LayerSourceReporter/reportChanges()``).
  ///
  /// The folder is watched as the store watches its files (on Linux with inotify, on Apple
  /// platforms with a dispatch source), events gathered for 20 ms. Kubernetes' update of a mount
  /// (a new timestamped folder, a new `..data` link renamed over the old one, the old folder
  /// removed) is one report or a few, each followed by a ``read()`` that sees the old version or
  /// the new one, never a mix. A missing folder (or one that can't be watched) is reported once as
  /// a ``SettingsDiagnostic/Kind/watchFailed`` diagnostic and checked every 50 ms at first, backing
  /// off to once a second, until it can be watched; its files are then reported. Calling it again
  /// replaces the reporter.
  ///
  /// - Parameter reporter: Where changes are reported, on the watch's own serial queue.
  public func startWatching(reportingTo reporter: LayerSourceReporter) {
    let name = "\(layer) (\(directory.path))"
    let created = FileWatcher(folder: directory, names: nil) { event in
      switch event {
      case .changed(let names):
        // Kubernetes' work in progress (`..data_tmp`, a new or removed timestamped folder) changes
        // nothing read; the rename of `..data` and any file of a plain folder do.
        if names.contains(where: { !$0.hasPrefix(".") || $0 == "..data" }) {
          reporter.reportChanges()
        }
      case .armingFailed(let reason):
        SettingsDiagnostics.report(
          SettingsDiagnostic(
            kind: .watchFailed, key: nil, backend: name,
            message: "\(reason); checking the folder every second at most instead, until it can"))
      }
    }
    let previous = watcher.withLock { watcher in
      defer { watcher = created }
      return watcher
    }
    previous?.stop()
  }

  /// Stops watching the folder; safe from any thread, also from a report.
  public func stopWatching() {
    let stopped = watcher.withLock { watcher in
      defer { watcher = nil }
      return watcher
    }
    stopped?.stop()
  }
}
