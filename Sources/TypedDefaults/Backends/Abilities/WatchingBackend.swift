/// A backend that can watch its storage and take in others' changes as they happen, telling its
/// observers, with no ``ReloadingBackend/reload()`` needed.
///
/// The counterpart of observing `UserDefaults.didChangeNotification`, and of swift-sharing's
/// `SharedReaderKey.subscribe(context:subscriber:)` for a file (`FileStorageKey` watches its
/// file) and swift-configuration's `ReloadingFileProvider`.
///
/// ```swift
/// store.startWatching()
/// let token = store.observe(key: "volume") { print("now", $0.newValue ?? "unset") }
/// // another process saves data.plist: the observer is called
/// ```
///
/// `LayeredPlistStore` and ``UserDefaultsBackend`` adopt it (each documents what it sees); so
/// does every ``ScopedBackend`` view, which watches through its base (see
/// ``ScopedBackend/startWatching()``).
///
/// ## Contract
///
/// - **Start and stop.** ``startWatching()`` starts the watch; calling it while watching does
///   nothing. ``stopWatching()`` ends it; calling it while not watching does nothing. Both are
///   safe from any thread, an observer's callback included. ``isWatching`` tells which, and is
///   `false` once ``stopWatching()`` returned.
/// - **What a watch does.** While watching, a change others make to storage is taken in as a
///   reload takes it in (this process's unsaved writes win), and reported to the observers of
///   each key whose value changed, once, on a thread of the backend's choosing. The backend's own
///   writes are reported as they always are, never a second time by the watch.
/// - **Failures.** A watch that can't be set up (a missing folder, a system limit) is reported
///   as a ``SettingsDiagnostic`` of kind ``SettingsDiagnostic/Kind/watchFailed``, and the backend
///   watches another way (polling) or documents that it doesn't; nothing is thrown.
///
/// ## Writing your own
///
/// Keep the watch (a file watcher, a notification token, a subscription) behind your lock; on
/// each event, reload and report the keys whose value changed
/// (``SettingsBackend/reportChanges(forKeys:)``) with none of your locks held. Stop the watch
/// when the backend is released. The `TypedDefaultsTesting` conformance suite checks the contract
/// when the backend under test adopts this protocol.
public protocol WatchingBackend: SettingsBackend {
  /// Whether the backend is watching its storage now.
  var isWatching: Bool { get }

  /// Starts watching the backend's storage; does nothing while already watching.
  func startWatching()

  /// Stops watching; does nothing while not watching.
  func stopWatching()
}
