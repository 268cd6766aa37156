import Foundation

extension LayeredPlistStore {
  /// Whether the store is watching its files (``startWatching()``).
  public var isWatching: Bool {
    watchers.withLock { !$0.isEmpty }
  }

  /// Starts watching the store's files, so that changes made by other processes (a save by
  /// another store, an editor, a deployment replacing the delivered file) are taken in as they
  /// happen; ``Options/watchesFiles`` calls it as the store opens.
  ///
  /// Calling it again while watching does nothing.
  ///
  /// - A change to `data.plist` is taken in by ``reload()``: this process's unsaved changes
  ///   still win, and observers get one event per key whose effective value changed, and only
  ///   those. A file made corrupt (an editor writing garbage) is moved aside and replaced at
  ///   once by the values the store has, which it keeps (see ``reload()``).
  /// - A delivered or bundled file created, replaced or removed is read again (a removed one is
  ///   an empty layer); observers of the keys whose effective value changed are told. A file
  ///   that can't be read is reported as a ``SettingsDiagnostic`` of kind
  ///   ``SettingsDiagnostic/Kind/watchFailed`` and the layer keeps its values.
  ///
  /// Each file's folder is watched (files are replaced by atomic renames, and may not exist
  /// yet): on Linux with inotify, on Apple platforms with a dispatch source on the folder.
  /// Events are gathered for 20 ms and then handled on a background queue. A folder that is
  /// missing, unreadable, or can't be watched (on Linux, at the inotify limits) is reported once
  /// as a ``SettingsDiagnostic/Kind/watchFailed`` diagnostic; the store then checks the files
  /// every 50 ms at first, backing off to once a second, until the watch can be set up, and a
  /// folder removed and created again is watched again.
  public func startWatching() {
    guard !isWatching else { return }
    var byFolder: [URL: [(name: String, layer: Layer)]] = [:]
    let files: [(Layer, URL?)] = [
      (.persistent, persistentFile.url), (.delivered, deliveredFile?.url),
      (.bundled, bundledFile?.url),
    ]
    for case (let layer, let url?) in files {
      for (folder, name) in FileWatcher.watchPoints(of: url) {
        byFolder[folder, default: []].append((name, layer))
      }
    }
    let created = byFolder.map { folder, files in
      FileWatcher(folder: folder, names: Set(files.map(\.name))) { [weak self] event in
        self?.handleWatch(event, folder: folder, files: files)
      }
    }
    let superfluous = watchers.withLock { watchers -> [FileWatcher] in
      guard watchers.isEmpty else { return created }
      watchers = created
      return []
    }
    for watcher in superfluous { watcher.stop() }
  }

  /// Stops watching the store's files; changes made by other processes are then taken in only
  /// by ``reload()`` and ``save()``.
  ///
  /// Safe from any thread, also from an observer's callback.
  public func stopWatching() {
    let stopped = watchers.withLock { watchers in
      defer { watchers = [] }
      return watchers
    }
    for watcher in stopped { watcher.stop() }
  }

  /// Handles a watcher's event: reloads the layers whose files changed.
  private func handleWatch(
    _ event: FileWatcher.Event, folder: URL, files: [(name: String, layer: Layer)]
  ) {
    switch event {
    case .armingFailed(let reason):
      SettingsDiagnostics.report(
        SettingsDiagnostic(
          kind: .watchFailed, key: nil, backend: name,
          message: "\(reason); checking the files every second at most instead, until it can"))
    case .changed(let names):
      var seen: Set<Layer> = []
      for (fileName, layer) in files where names.contains(fileName) && seen.insert(layer).inserted {
        if layer == .persistent {
          do {
            try reload()
          } catch {
            SettingsDiagnostics.report(
              SettingsDiagnostic(
                kind: .watchFailed, key: nil, backend: name,
                message: "\(error); the store keeps the values it has"))
          }
        } else {
          reloadShippedLayer(layer)
        }
      }
    }
  }

  /// Reads a delivered or bundled file again and takes in its values, re-resolving every key
  /// whose value in the layer changed and telling observers of those whose effective value did.
  ///
  /// A missing file is an empty layer; one that can't be read is reported and the layer keeps
  /// its values.
  ///
  /// - Parameter layer: ``Layer/delivered`` or ``Layer/bundled``.
  /// - Returns: Whether the layer's values changed.
  @discardableResult
  func reloadShippedLayer(_ layer: Layer) -> Bool {
    let file: PropertyListFile?
    switch layer {
    case .delivered: file = deliveredFile
    case .bundled: file = bundledFile
    default: file = nil
    }
    guard let file else { return false }
    let entries: [String: PropertyListValue]
    do {
      let contents = try Self.readLayerFile(file)
      entries = normalizingKeys(of: contents?.entries ?? [:], layer: layer)
      for problem in contents?.unreadable ?? [] { record(unreadableShippedEntry: problem) }
    } catch {
      SettingsDiagnostics.report(
        SettingsDiagnostic(
          kind: .watchFailed, key: nil, backend: name,
          message: "\(error); the \(layer) layer keeps the values it had"))
      return false
    }
    return changingState { state in
      guard let index = state.index(of: layer) else { return false }
      let previous = state.layers[index]
      guard previous != entries else { return false }
      state.layers[index] = entries
      for key in Set(previous.keys).union(entries.keys) where previous[key] != entries[key] {
        state.resolve(key)
      }
      return true
    }
  }
}
