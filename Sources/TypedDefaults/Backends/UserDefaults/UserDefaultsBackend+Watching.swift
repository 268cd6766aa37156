import Foundation

extension UserDefaultsBackend {
  /// Whether the backend is watching for changes made outside it (``startWatching()``).
  public var isWatching: Bool {
    watch.withLock { $0 != nil }
  }

  /// Starts watching for changes made outside this backend, so that its observers hear of them
  /// as they happen, without a ``reload()``.
  ///
  /// Calling it again while watching does nothing.
  ///
  /// What is seen:
  /// - **Linux**: every save of the suite's file by another process: by another
  ///   `UserDefaultsBackend` (an atomic rename), by a program using plain `UserDefaults` (corelibs
  ///   rewrites the file in place at its `synchronize()`), by the `settings` tool or an editor.
  ///   (Seen, but not safe: such a program writes back its whole stale copy of the suite and can
  ///   drop keys this backend saved; see <doc:ChoosingABackend>.)
  ///   The file's folder is watched with inotify, exactly as a watching ``LayeredPlistStore``
  ///   does (see ``LayeredPlistStore/startWatching()``): events are gathered for 20 ms, then the
  ///   file is read again on a background queue, where observers' callbacks then run; this
  ///   process's unsaved changes keep winning. A folder that can't be watched is reported once
  ///   as a ``SettingsDiagnostic`` of kind ``SettingsDiagnostic/Kind/watchFailed`` and polled
  ///   instead (every 50 ms at first, backing off to once a second). Raw `UserDefaults.set`
  ///   calls in this process are not watched (corelibs posts no notification): they are taken
  ///   in, and reported, by the next read of their key, ``reload()`` and ``synchronize()``.
  /// - **Apple platforms**: raw `UserDefaults` writes to this instance made in this process
  ///   (`UserDefaults.didChangeNotification`): observers of single keys hear of every change of
  ///   their keys; observers of all keys hear of keys that hold a value (a raw removal of a key
  ///   is not reported to them). Changes other processes make are **not** reported: Foundation
  ///   posts no notification for them, and key-value observation can't observe keys that hold a
  ///   dot. They are read, as always, by the next read of the key.
  ///
  /// Thread-safe; the watch ends at ``stopWatching()`` or when the backend is released.
  public func startWatching() {
    #if canImport(Darwin)
      let token = NotificationCenter.default.addObserver(
        forName: UserDefaults.didChangeNotification, object: userDefaults, queue: nil
      ) { [weak self] _ in
        self?.reportRawChanges()
      }
      let superfluous = watch.withLock { watch -> NotificationToken? in
        guard watch == nil else { return NotificationToken(token) }
        watch = NotificationToken(token)
        return nil
      }
      if let superfluous { NotificationCenter.default.removeObserver(superfluous.token) }
    #else
      guard !isWatching else { return }
      let url = AtomicFile.resolvedTarget(of: suite.file.url).standardizedFileURL
      let watcher = FileWatcher(
        folder: url.deletingLastPathComponent(), names: [url.lastPathComponent]
      ) { [weak self] event in
        self?.handleWatch(event)
      }
      let superfluous = watch.withLock { watch -> FileWatcher? in
        guard watch == nil else { return watcher }
        watch = watcher
        return nil
      }
      superfluous?.stop()
    #endif
  }

  /// Stops watching (``startWatching()``); changes made outside the backend are then taken in
  /// only by ``reload()``, ``save()`` and ``synchronize()``.
  ///
  /// Safe from any thread, also from an observer's callback.
  public func stopWatching() {
    let stopped = watch.withLock { watch in
      defer { watch = nil }
      return watch
    }
    #if canImport(Darwin)
      if let stopped { NotificationCenter.default.removeObserver(stopped.token) }
    #else
      stopped?.stop()
    #endif
  }

  #if canImport(Darwin)
    /// Tells observers about raw `UserDefaults` writes: the observed keys, and the keys holding a
    /// value when some observer watches every key.
    ///
    /// Observers hear only of values that differ from what they have.
    private func reportRawChanges() {
      guard let registry = ObservationCenter.existingRegistry(for: self) else { return }
      var keys = registry.observedKeys
      if registry.hasObserversOfAllKeys { keys.formUnion(dictionaryRepresentation().keys) }
      reportChanges(forKeys: keys)
    }
  #else
    /// Handles the watcher's event: reads the suite's file again if another process saved it.
    private func handleWatch(_ event: FileWatcher.Event) {
      switch event {
      case .armingFailed(let reason):
        SettingsDiagnostics.report(
          SettingsDiagnostic(
            kind: .watchFailed, key: nil, backend: name,
            message:
              "\(reason); checking the suite's file every second at most instead, until it can"
          ))
      case .changed:
        do {
          try suite.reloadFile()
        } catch {
          SettingsDiagnostics.report(
            SettingsDiagnostic(
              kind: .watchFailed, key: nil, backend: name,
              message: "\(error); the backend keeps the values it has"))
        }
      }
    }
  #endif
}

#if canImport(Darwin)
  /// A `NotificationCenter` observer token, to keep in a lock.
  // @unchecked Sendable: the token is immutable and only handed back to `NotificationCenter`,
  // which is thread-safe.
  final class NotificationToken: @unchecked Sendable {
    let token: any NSObjectProtocol
    init(_ token: any NSObjectProtocol) { self.token = token }
  }
#endif
