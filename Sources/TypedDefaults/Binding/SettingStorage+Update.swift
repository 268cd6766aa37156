extension SettingStorage {
  /// Changes the value from the one stored now as one step of the backend.
  ///
  /// See ``Setting/update(_:)``: `body` gets the stored value read as `Value` (the default when
  /// nothing readable is stored), and what it leaves is stored, checked as ``write(_:)`` checks.
  /// A stored value it couldn't read is reported
  /// (``reportMismatch(_:notAllowed:replacedByUpdate:)``) once it is replaced.
  ///
  /// Not inlinable: an update reads and writes through the backend's own update (a file lock
  /// and a save on a file store), so the generic code kept here is only the conversions, and
  /// the rest is ``UntypedSettingStorage/updateStored(_:)``.
  final func update<Result>(
    _ body: (inout Value) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    var result: Result?
    // What the transform threw (the body's error, a refusal) comes back as it is; what the
    // backend threw is renamed as a write's error is.
    var transformError: SettingsError?
    // A stored value the setting can't read, which the update replaces: reported once the
    // backend's locks are released, as a read reports it, since it is then gone.
    var replaced: PropertyListValue?
    do throws(SettingsError) {
      try updateStored { stored throws(SettingsError) -> PropertyListValue? in
        do throws(SettingsError) {
          let readValue = stored.flatMap(readable)
          replaced = readValue == nil ? stored : nil
          var value = readValue ?? defaultValue
          result = try body(&value)
          return try storable(value)
        } catch {
          transformError = error
          throw error
        }
      }
    } catch {
      throw transformError ?? writeError(error)
    }
    guard let result else { preconditionFailure("updateStored calls its transform") }
    if let replaced {
      let notAllowed = Value(propertyListValue: replaced) == nil ? nil : annotations
      reportMismatch(replaced, notAllowed: notAllowed, replacedByUpdate: true)
    }
    return result
  }

  /// The stored value as `Value` if it can be read as one and the declaration accepts it (or,
  /// declared with `clamping: true`, its nearest bound); `nil` otherwise, reporting nothing: an
  /// update runs holding the backend's locks, where a diagnostics handler (which may use the
  /// backend) must not be called.
  final func readable(_ stored: PropertyListValue) -> Value? {
    guard let value = Value(propertyListValue: stored) else { return nil }
    guard let annotations, let accepts = annotations.accepts, !accepts(value) else { return value }
    // As a read: a range declared with `clamping: true` gives the nearest bound.
    if let clamped = clamped(value, by: annotations), accepts(clamped) { return clamped }
    return nil
  }
}

extension UntypedSettingStorage {
  /// Changes the stored value of the setting's key from its current one as one update of the
  /// backend reads and writes go to: the backend's ``UpdatingBackend/update(forKey:_:)`` where it
  /// has one, otherwise one write through the library (``SettingsBackends/update(of:forKey:_:)``),
  /// reported to the key's observers once either way.
  ///
  /// Not generic, and `transform` is handed on as it is, so the binary has one copy of the
  /// update's path whatever the setting's type.
  ///
  /// - Throws: What `transform` throws, and what the backend's update throws, as they are.
  final func updateStored(
    _ transform: (PropertyListValue?) throws(SettingsError) -> PropertyListValue?
  ) throws(SettingsError) {
    // A test's override takes the place of the base backend, as for a write.
    _ = try SettingsBackends.update(
      of: overridingBackend ?? boundTarget, forKey: targetKey, transform)
  }
}
