import Foundation
import TypedDefaults

/// A read-only layer read from a property-list file: a delivered `JF-info.plist`, a bundled
/// `Info.plist`, or any other read-only plist.
///
/// The file must hold a dictionary. A missing or zero-byte file is an empty layer (its
/// ``LayerContents/isMissing`` tells a missing one, which ``LayeredPlistStore/explain(_:)``
/// shows as `(no file)`); an entry whose value can't be read is left out and returned among the
/// contents' problems. The file is read by the library's own strict readers, never by a parser
/// that can crash.
///
/// While the store watches (``LayeredPlistStore/startWatching()``), the file's folder is watched
/// with the library's file watcher (inotify on Linux, a dispatch source on Apple platforms), and a
/// file created, replaced or removed is reported to the store, which reads it again. A watch
/// that can't be set up is reported as a ``SettingsDiagnostic/Kind/watchFailed`` diagnostic and
/// the file is polled instead.
///
/// ```swift
/// let store = try LayeredPlistStore(
///   persistentFile: dataPlist,
///   layers: [.runtime, .persistent, .source(PropertyListFileSource(file: site, layer: "site"))])
/// ```
///
/// Thread-safety: `Sendable`; every member may be used from any thread.
public final class PropertyListFileSource: LayerSource {
  /// The file read.
  public let file: PropertyListFile
  /// The layer the file fills.
  public let layer: LayeredPlistStore.Layer
  /// The watch of the file's folders while the store watches, and where changes go.
  private let watch = Locked<(watchers: [FileWatcher], reporter: LayerSourceReporter?)>(([], nil))

  /// Creates a source reading a property-list file.
  ///
  /// - Parameters:
  ///   - file: The file; it needn't exist.
  ///   - layer: The layer it fills (``LayeredPlistStore/Layer/delivered``,
  ///     ``LayeredPlistStore/Layer/bundled``, or one of your own).
  ///   - maximumSize: The largest file read, in bytes; 16 MiB by default.
  public init(
    file: URL,
    layer: LayeredPlistStore.Layer,
    maximumSize: Int = PropertyListFile.defaultMaximumSize
  ) {
    self.file = PropertyListFile(url: file, maximumSize: maximumSize)
    self.layer = layer
  }

  deinit {
    stopWatching()
  }

  /// Reads the file.
  ///
  /// - Returns: The file's entries (none for a missing or zero-byte file, which is marked
  ///   ``LayerContents/isMissing`` if missing), and the entries left out.
  /// - Throws: ``SettingsError`` naming the file if it exists but can't be read
  ///   (``SettingsError/Code/fileNotReadable``, ``SettingsError/Code/fileTooLarge``), isn't a
  ///   property list (``SettingsError/Code/corruptFile``), or has a root that isn't a dictionary
  ///   (``SettingsError/Code/wrongRootType``).
  public func read() throws(SettingsError) -> LayerContents {
    guard let data = try file.readData() else {
      var contents = LayerContents(values: [:])
      contents.isMissing = true
      return contents
    }
    if data.isEmpty { return LayerContents(values: [:]) }
    let decoded = try PropertyListFile.decode(data, path: file.url.path, salvagingEntries: true)
    let entries = try file.dictionary(
      in: PropertyListFile.Contents(root: decoded.root, format: decoded.format))
    return LayerContents(values: entries, problems: decoded.unreadableEntries)
  }

  /// Watches the file's folder and reports every change of the file to `reporter`; does nothing
  /// while already watching.
  ///
  /// - Parameter reporter: Where to report that the file changed.
  public func startWatching(reportingTo reporter: LayerSourceReporter) {
    let path = file.url.path
    var byFolder: [URL: Set<String>] = [:]
    for (folder, name) in FileWatcher.watchPoints(of: file.url) {
      byFolder[folder, default: []].insert(name)
    }
    let created = byFolder.map { folder, names in
      FileWatcher(folder: folder, names: names) { [weak self] event in
        switch event {
        case .changed:
          self?.watch.withLock { $0.reporter }?.reportChanges()
        case .armingFailed(let reason):
          SettingsDiagnostics.report(
            SettingsDiagnostic(
              kind: .watchFailed, key: nil, backend: "PropertyListFileSource(\(path))",
              message: "\(reason); checking the file every second at most instead, until it can"))
        }
      }
    }
    let superfluous = watch.withLock { watch -> [FileWatcher] in
      guard watch.watchers.isEmpty else { return created }
      watch = (created, reporter)
      return []
    }
    for watcher in superfluous { watcher.stop() }
  }

  /// Stops watching the file.
  public func stopWatching() {
    let stopped = watch.withLock { watch in
      defer { watch = ([], nil) }
      return watch.watchers
    }
    for watcher in stopped { watcher.stop() }
  }

  /// ``RecordedLayerSource/propertyListFile(path:)`` with the file's absolute path.
  public var recordedSource: RecordedLayerSource? {
    .propertyListFile(path: file.url.standardizedFileURL.path)
  }
}
