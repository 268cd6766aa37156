import Foundation
import TypedDefaults

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
  ///   once by the values the store has, which it keeps (see ``reload()``). A reload that fails
  ///   (the process at its limit of open files, `EMFILE`; the file unreadable for a while) is
  ///   reported as a ``SettingsDiagnostic`` of kind ``SettingsDiagnostic/Kind/watchFailed``,
  ///   once while its reason stays the same, and tried again after 50 ms, backing off to once a
  ///   second, until it succeeds: the change is taken in late, never lost.
  /// - Every layer's source starts watching (``LayerSource/startWatching(reportingTo:)``): a
  ///   delivered or bundled file created, replaced or removed is read again (a removed one is an
  ///   empty layer), and so is any source that reports a change; its new values are validated
  ///   before they are applied (see ``LayerSource``), and observers of the keys whose effective
  ///   value changed are told, once each. A source that can't be read is reported as a
  ///   ``SettingsDiagnostic`` of kind ``SettingsDiagnostic/Kind/watchFailed`` and the layer keeps
  ///   its values.
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
    let name = name
    let reloading = RetriedReload(
      reload: { [weak self] () throws(SettingsError) in _ = try self?.reload() },
      report: { error in
        SettingsDiagnostics.report(
          SettingsDiagnostic(
            kind: .watchFailed, key: nil, backend: name,
            message: "\(error); the store keeps the values it has and reads the file again, "
              + "every second at most, until it can"))
      })
    var byFolder: [URL: [(name: String, layer: Layer)]] = [:]
    for (folder, name) in FileWatcher.watchPoints(of: persistentFile.url) {
      byFolder[folder, default: []].append((name, .persistent))
    }
    let created = byFolder.map { folder, files in
      FileWatcher(folder: folder, names: Set(files.map(\.name))) { [weak self] event in
        self?.handleWatch(event, files: files, reloading: reloading)
      }
    }
    let superfluous = watchers.withLock { watchers -> [FileWatcher] in
      guard watchers.isEmpty else { return created }
      watchers = created
      return []
    }
    for watcher in superfluous { watcher.stop() }
    if superfluous.isEmpty {
      watchReload.withLock { $0 = reloading }
      connectSources()
    } else {
      reloading.stop()
    }
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
    watchReload.withLock { reloading in
      defer { reloading = nil }
      return reloading
    }?.stop()
    disconnectSources()
  }

  /// Handles a watcher's event: reloads the layers whose files changed, retrying while that
  /// fails.
  private func handleWatch(
    _ event: FileWatcher.Event, files: [(name: String, layer: Layer)], reloading: RetriedReload
  ) {
    switch event {
    case .armingFailed(let reason):
      SettingsDiagnostics.report(
        SettingsDiagnostic(
          kind: .watchFailed, key: nil, backend: name,
          message: "\(reason); checking the files every second at most instead, until it can"))
    case .changed(let names):
      guard files.contains(where: { names.contains($0.name) }) else { return }
      reloading.run()
    }
  }
}
