extension SettingStorage {
  /// Changes the value from the one stored now as one step of the backend (see
  /// ``Setting/update(_:)``): `body` gets the stored value read as `Value` (the default when
  /// nothing readable is stored), and what it leaves is stored, checked as ``write(_:)`` checks.
  ///
  /// Not inlinable: an update reads and writes through the backend's own update (a file lock
  /// and a save on a file store), so the generic code kept here is only the conversions, and
  /// the rest is ``UntypedSettingStorage/updateStored(_:renamingBackendError:)``.
  final func update<Result>(
    _ body: (inout Value) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    var result: Result?
    try updateStored(
      { stored throws(SettingsError) -> PropertyListValue? in
        var value = stored.flatMap(readable) ?? defaultValue
        result = try body(&value)
        return try storable(value)
      }, renamingBackendError: writeError)
    guard let result else { preconditionFailure("updateStored calls its transform") }
    return result
  }

  /// The stored value as `Value` if it can be read as one and the declaration accepts it;
  /// `nil` otherwise, reporting nothing: an update runs holding the backend's locks, where a
  /// diagnostics handler (which may use the backend) must not be called.
  final func readable(_ stored: PropertyListValue) -> Value? {
    guard let value = Value(propertyListValue: stored) else { return nil }
    guard let accepts = annotations?.accepts else { return value }
    return accepts(value) ? value : nil
  }
}

extension UntypedSettingStorage {
  /// Changes the stored value of the setting's key from its current one as one update of the
  /// backend reads and writes go to: the backend's ``UpdatingBackend/update(forKey:_:)`` where it
  /// has one, otherwise one write through the library (``SettingsBackends/update(of:forKey:_:)``),
  /// reported to the key's observers once either way.
  ///
  /// What `transform` throws is rethrown as it is; what the backend throws is renamed by
  /// `renamingBackendError` (the key as the setting knows it, a secret's details withheld).
  final func updateStored(
    _ transform: (PropertyListValue?) throws(SettingsError) -> PropertyListValue?,
    renamingBackendError: (SettingsError) -> SettingsError
  ) throws(SettingsError) {
    // A test's override takes the place of the base backend, as for a write.
    let backend = overridingBackend ?? boundTarget
    var transformThrew = false
    do throws(SettingsError) {
      _ = try SettingsBackends.update(of: backend, forKey: targetKey) {
        stored throws(SettingsError) -> PropertyListValue? in
        do throws(SettingsError) {
          return try transform(stored)
        } catch {
          transformThrew = true
          throw error
        }
      }
    } catch {
      throw transformThrew ? error : renamingBackendError(error)
    }
  }
}
