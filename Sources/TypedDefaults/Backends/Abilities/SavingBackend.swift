/// A backend that keeps writes in memory and saves them to its storage when asked (or on a
/// schedule of its own): a file, a database.
///
/// ``save()`` makes every write made before it durable: what the next launch, or another process,
/// reads. The counterpart of `UserDefaults.synchronize()` and of swift-sharing's
/// `SharedKey.save(_:context:continuation:)`.
///
/// ```swift
/// try settings.importValues(values)   // a SavingBackend is saved once the values are in
/// try store.save()                    // or save yourself, before the process exits
/// ```
///
/// `LayeredPlistStore` and ``UserDefaultsBackend`` adopt it; so does every ``ScopedBackend``
/// view, whatever its base (see ``ScopedBackend/save()``): it saves its base where the base adopts
/// this protocol. Over a base that doesn't, its ``save()`` does nothing and its
/// ``hasUnsavedChanges`` is `false`, even for a base that saves by a method of its own: the view
/// knows a base's saving only by this protocol. What the library does with it: an
/// import saves each backend it wrote, once all its values are in, if it reports unsaved changes
/// (``SettingsContainer/importValues(_:options:)``), so an import is durable when it returns.
///
/// ## Contract
///
/// - **Durable.** When ``save()`` returns without throwing, every write that returned before it
///   was called is in storage; ``hasUnsavedChanges`` is then `false` unless writes were made
///   meanwhile. Saving with nothing unsaved succeeds (and may take in what others saved).
/// - **Nothing lost on failure.** When ``save()`` throws, the backend's values are unchanged and
///   stay unsaved (``hasUnsavedChanges`` stays `true`), so a later save can succeed; storage is
///   left as it was, never half written.
/// - **Thread safety.** Callable from any thread at the same time as every other requirement;
///   reads and writes may go on while a save runs.
/// - **Observation.** A save that takes in values other processes saved reports the keys whose
///   value changed (``SettingsBackend/reportChanges(forKeys:)``), after they are readable and
///   with none of the backend's locks held.
///
/// ## Writing your own
///
/// Keep the writes not yet in storage (a set of dirty keys is enough), write them in
/// ``save()`` so that a failure leaves storage as it was (a temporary file renamed over the old
/// one, a transaction), and clear them only once the write succeeded. A backend that writes
/// through to storage on every write has nothing to do: ``hasUnsavedChanges`` is always `false`
/// and `save()` returns. The `TypedDefaultsTesting` conformance suite checks the contract when
/// the backend under test adopts this protocol.
public protocol SavingBackend: SettingsBackend {
  /// Whether writes this process made are not yet in storage.
  var hasUnsavedChanges: Bool { get }

  /// Saves every write made so far to the backend's storage.
  ///
  /// - Throws: ``SettingsError`` naming the storage and the cause when it can't be written
  ///   (``SettingsError/Code/fileNotWritable``, ``SettingsError/Code/fileTooLarge``,
  ///   ``SettingsError/Code/fileNotReadable``). The values stay in memory, unsaved, and storage
  ///   is left as it was.
  func save() throws(SettingsError)
}
