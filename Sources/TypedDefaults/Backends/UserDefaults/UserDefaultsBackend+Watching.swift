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
  ///   The file's folder is watched with inotify, exactly as a watching `LayeredPlistStore`
  ///   does (see `LayeredPlistStore.startWatching()`): events are gathered for 20 ms, then the
  ///   file is read again on a background queue, where observers' callbacks then run; this
  ///   process's unsaved changes keep winning. A read that fails is reported and tried again,
  ///   every second at most, until it succeeds. A folder that can't be watched is reported once
  ///   as a ``SettingsDiagnostic`` of kind ``SettingsDiagnostic/Kind/watchFailed`` and polled
  ///   instead (every 50 ms at first, backing off to once a second). Raw `UserDefaults.set`
  ///   calls in this process are not watched (corelibs posts no notification): they are taken
  ///   in, and reported, by the next read of their key (not with the owner's promise,
  ///   ``isWrittenOnlyThroughLibrary``), ``reload()`` and ``synchronize()``.
  /// - **Apple platforms**: raw `UserDefaults` writes to this instance made in this process
  ///   (`UserDefaults.didChangeNotification`): observers of single keys hear of every change of
  ///   their keys; observers of all keys hear of keys that hold a value (a raw removal of a key
  ///   is not reported to them). Changes other processes make are **not** reported: Foundation
  ///   posts no notification for them, and key-value observation can't observe keys that hold a
  ///   dot. They are read, as always, by the next read of the key.
  ///
  /// Thread-safe; the watch ends at ``stopWatching()`` or when the backend is released.
  public func startWatching() {
    guard !isWatching else { return }
    #if canImport(Darwin)
      let started = ExternalWatch.notifications(observeDidChangeNotifications())
    #else
      let (watcher, reloading) = watchSuiteFile()
      let started = ExternalWatch.file(watcher, reloading)
    #endif
    let superfluous = watch.withLock { watch -> ExternalWatch? in
      guard watch == nil else { return started }
      watch = started
      return nil
    }
    superfluous?.stop()
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
    stopped?.stop()
  }

  /// What ``startWatching()`` set up: a watch of the suite's file (Linux), or an observer of
  /// `UserDefaults.didChangeNotification` (Apple platforms).
  enum ExternalWatch: Sendable {
    /// The watch of the suite's file, and its reading again after a change (retried while it
    /// fails).
    case file(FileWatcher, RetriedReload)
    case notifications(NotificationObservation)

    /// Stops the watch: the file watcher and any retry of its reading, or removes the observer.
    func stop() {
      switch self {
      case .file(let watcher, let reloading):
        watcher.stop()
        reloading.stop()
      case .notifications(let observation): observation.remove()
      }
    }
  }

  /// Observes `UserDefaults.didChangeNotification` from ``userDefaults``, handled by
  /// ``userDefaultsDidChange()`` on the thread that posts it: the watch of Apple platforms, where
  /// Foundation posts it after a write to the instance in this process.
  ///
  /// Compiled on every platform; swift-corelibs-foundation posts no such notification, so on
  /// Linux only tests use it (posting the notification themselves).
  ///
  /// - Returns: The observation; remove it to stop.
  func observeDidChangeNotifications() -> NotificationObservation {
    NotificationObservation(
      NotificationCenter.default.addObserver(
        forName: UserDefaults.didChangeNotification, object: userDefaults, queue: nil
      ) { [weak self] _ in
        self?.userDefaultsDidChange()
      })
  }

  /// Tells observers about raw `UserDefaults` writes a `didChangeNotification` announced (the
  /// notification doesn't say which keys): ``keysToCheck(observedKeys:observesAllKeys:storedKeys:)``.
  ///
  /// Observers hear only of values that differ from what they have (``reportChanges(forKeys:)``).
  func userDefaultsDidChange() {
    guard let registry = ObservationCenter.existingRegistry(for: self) else { return }
    reportChanges(
      forKeys: Self.keysToCheck(
        observedKeys: registry.observedKeys, observesAllKeys: registry.hasObserversOfAllKeys,
        storedKeys: { dictionaryRepresentation().keys }))
  }

  /// The keys to read again after a change notification that names none: every observed key,
  /// and, when some observer watches every key, every key the suite stores (a raw removal of a
  /// key only such an observer watches is therefore not seen).
  ///
  /// - Parameters:
  ///   - observedKeys: The keys observed one by one.
  ///   - observesAllKeys: Whether some observer watches every key.
  ///   - storedKeys: The suite's keys; asked for only when `observesAllKeys`.
  /// - Returns: The keys whose values ``reportChanges(forKeys:)`` should compare.
  static func keysToCheck(
    observedKeys: Set<String>, observesAllKeys: Bool,
    storedKeys: () -> some Sequence<String>
  ) -> Set<String> {
    observesAllKeys ? observedKeys.union(storedKeys()) : observedKeys
  }

  #if !canImport(Darwin)
    /// Watches the suite's file for other processes' saves (Linux), reading it again after each
    /// (``RetriedReload``: a read that fails is reported and tried again until it succeeds).
    private func watchSuiteFile() -> (FileWatcher, RetriedReload) {
      let url = AtomicFile.resolvedTarget(of: suite.file.url).standardizedFileURL
      let name = name
      let reloading = RetriedReload(
        reload: { [weak suite] () throws(SettingsError) in try suite?.reloadFile() },
        report: { error in
          SettingsDiagnostics.report(
            SettingsDiagnostic(
              kind: .watchFailed, key: nil, backend: name,
              message: "\(error); the backend keeps the values it has and reads the file again, "
                + "every second at most, until it can"))
        })
      let watcher = FileWatcher(
        folder: url.deletingLastPathComponent(), names: [url.lastPathComponent]
      ) { [weak self] event in
        self?.handleWatch(event, reloading: reloading)
      }
      return (watcher, reloading)
    }

    /// Handles the watcher's event: reads the suite's file again if another process saved it.
    private func handleWatch(_ event: FileWatcher.Event, reloading: RetriedReload) {
      switch event {
      case .armingFailed(let reason):
        SettingsDiagnostics.report(
          SettingsDiagnostic(
            kind: .watchFailed, key: nil, backend: name,
            message:
              "\(reason); checking the suite's file every second at most instead, until it can"
          ))
      case .changed:
        reloading.run()
      }
    }
  #endif
}

/// An observer registered with `NotificationCenter.default`, until ``remove()``.
// @unchecked Sendable: the token is immutable and only handed back to `NotificationCenter`,
// which is thread-safe.
final class NotificationObservation: @unchecked Sendable {
  private let token: any NSObjectProtocol

  /// Wraps what `addObserver(forName:object:queue:using:)` returned.
  init(_ token: any NSObjectProtocol) { self.token = token }

  /// Removes the observer from `NotificationCenter.default`.
  func remove() { NotificationCenter.default.removeObserver(token) }
}
