/// A backend that changes any number of keys as one step no other writer can come between:
/// what a migration renaming one key to another needs.
///
/// ``updateValues(_:)`` hands `transform` every value the backend stores, and stores every value
/// it added, changed or removed, all or nothing. The library runs each step of a model's
/// migrations as one `updateValues` (``SettingsMigrations/run(on:)``): the step, the check that
/// it hasn't run yet and the new schema version are stored together, so two processes migrating
/// one file apply each step once, and a step that throws leaves nothing half done. On a backend
/// that doesn't adopt this protocol, a step reads the values, transforms them and writes the
/// differences as one write through the library: no other write made through the library comes
/// between, but a write made to the backend directly (or by another process) can, and is lost.
///
/// ```swift
/// try backend.updateValues { values in
///   if let old = values.removeValue(forKey: "fontSize"), values["text.fontSize"] == nil {
///     values["text.fontSize"] = old
///   }
/// }
/// ```
///
/// ``InMemoryBackend``, `LayeredPlistStore` and ``UserDefaultsBackend`` adopt it; so does every
/// ``ScopedBackend`` view, whatever its base (see ``ScopedBackend/updateValues(_:)``): its update
/// is one update of its base where the base adopts this protocol. Over a base that doesn't, it
/// is a read of the base's values, `transform` and a write of the differences run as one write
/// through the library, which no other write made through the library comes between; a write
/// made to the base directly can come between and is then lost: it can't be held off without
/// the base's help.
///
/// ## Contract
///
/// - **One step.** `transform` is called once, with every key the backend stores and its value
///   (what ``SettingsBackend/dictionaryRepresentation()`` lists), and what it leaves is stored
///   before any other write (from this process, and for a backend whose storage other processes
///   write, from them too) takes effect: keys it added or changed get their new values, keys it
///   removed are removed, the others are left alone.
/// - **All or nothing.** When `transform` throws, or one of its values can't be stored, nothing
///   changes and the error is rethrown.
/// - **Returns** what `transform` returned.
/// - **Thread safety.** Callable from any thread at the same time as every other requirement.
///   `transform` may run holding the backend's locks: it must be short and must not use the
///   backend.
/// - **Observation.** When the library calls `updateValues` (a migration, a ``ScopedBackend``
///   view), it reports each key `transform` changed to that key's observers itself, once, with
///   the value the update left; a backend that publishes its own changes doesn't get a second
///   report.
///
/// A backend that can't make it one step against every writer says so in its documentation
/// (``UserDefaultsBackend`` on Apple platforms).
///
/// ## Writing your own
///
/// Hold the lock your ``SettingsBackend/setValue(_:forKey:)`` takes around copying the values,
/// calling `transform` and storing the differences; check every changed value first, as
/// ``SettingsBackend/setValues(_:)`` does, and store nothing if one fails. A backend whose
/// storage other processes write takes its cross-process lock too (a file lock, a database
/// transaction). Adopting this protocol gives ``UpdatingBackend/update(forKey:_:)`` for free,
/// built on `updateValues`; implement it yourself where one key can be changed more cheaply
/// than by copying every value. The `TypedDefaultsTesting` conformance suite checks the contract
/// when the backend under test adopts this protocol.
public protocol MultiKeyUpdatingBackend: UpdatingBackend {
  /// Changes any number of keys as one step no other write can come between.
  ///
  /// - Parameter transform: Changes the backend's values in place and returns what the caller
  ///   wants back. Called once, maybe holding the backend's locks: keep it short, and don't use
  ///   the backend inside it. What it throws is rethrown and nothing is changed.
  /// - Returns: What `transform` returned.
  /// - Throws: What `transform` throws; what ``SettingsBackend/setValue(_:forKey:)`` throws for a
  ///   value it stored; a backend that saves as it updates, what its save throws. Nothing
  ///   changes when this throws.
  @discardableResult
  func updateValues<Result>(
    _ transform: (inout [String: PropertyListValue]) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result
}

extension MultiKeyUpdatingBackend {
  /// Changes a key's value from its current one as one ``updateValues(_:)``.
  ///
  /// Copies every value to change one; a backend that can change one key more cheaply
  /// implements ``UpdatingBackend/update(forKey:_:)`` itself.
  ///
  /// - Parameters:
  ///   - key: The key to change.
  ///   - transform: Given the key's current value (`nil` if none), returns the new value, or
  ///     `nil` to remove the key. Called once, as `updateValues` calls its transform.
  /// - Returns: What `transform` returned: the value stored, or `nil` if the key was removed.
  /// - Throws: What `transform` and ``updateValues(_:)`` throw. Nothing changes when this throws.
  @discardableResult
  public func update(
    forKey key: String,
    _ transform: (PropertyListValue?) throws(SettingsError) -> PropertyListValue?
  ) throws(SettingsError) -> PropertyListValue? {
    try updateValues { values throws(SettingsError) -> PropertyListValue? in
      let value = try transform(values[key])
      values[key] = value
      return value
    }
  }
}
