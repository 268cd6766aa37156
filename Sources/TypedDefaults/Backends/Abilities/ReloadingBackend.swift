/// A backend whose storage others also write (another process, an editor, a sync service),
/// which it reads again when asked, taking in what they saved.
///
/// ``reload()`` makes what others saved readable and tells observers of it, without saving this
/// process's writes. The counterpart of reading `UserDefaults` again after
/// `synchronize()`, and of swift-sharing's `SharedReaderKey.load(context:continuation:)`.
///
/// ```swift
/// try store.reload()   // another process saved data.plist: take its values in
/// ```
///
/// `LayeredPlistStore` and ``UserDefaultsBackend`` adopt it; so does every ``ScopedBackend``
/// view, which reloads its base (see ``ScopedBackend/reload()``). A backend that watches its
/// storage (``WatchingBackend``) reloads by itself as changes happen.
///
/// ## Contract
///
/// - **Takes in others' saves.** After ``reload()`` returns, every value others saved before it
///   was called reads as they saved it, except keys this process changed and hasn't saved: this
///   process's unsaved writes win until saved.
/// - **Keeps what it has on failure.** A reload that can't read storage throws and changes
///   nothing; one that finds storage corrupt keeps the values it has (and may report or repair
///   the storage, as the backend documents).
/// - **Thread safety.** Callable from any thread at the same time as every other requirement.
/// - **Observation.** Reports the keys whose value changed
///   (``SettingsBackend/reportChanges(forKeys:)``), after they are readable and with none of the
///   backend's locks held, so observers get one change per key whose value a read returns
///   differently, and none for the others.
///
/// ## Writing your own
///
/// Read storage, keep your unsaved writes over what it holds, swap the result in under your lock,
/// then call ``SettingsBackend/reportChanges(forKeys:)`` with the keys whose value changed once
/// the lock is released. Skip the read when storage hasn't changed since you last read or wrote
/// it (a file's modification date and size, a database's change counter). The
/// `TypedDefaultsTesting` conformance suite checks the contract when the backend under test
/// adopts this protocol.
public protocol ReloadingBackend: SettingsBackend {
  /// Reads the backend's storage again and takes in what others saved since this process last
  /// read or wrote it; this process's unsaved writes win.
  ///
  /// - Throws: ``SettingsError`` naming the storage and the cause when it can't be read for a
  ///   reason other than its contents (``SettingsError/Code/fileNotReadable``,
  ///   ``SettingsError/Code/fileTooLarge``). Nothing changes then.
  func reload() throws(SettingsError)
}
