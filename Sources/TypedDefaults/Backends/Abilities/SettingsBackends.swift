/// Updates of one key or of several on any backend, as the library makes them: through the
/// backend's own ability where it has one (``UpdatingBackend``, ``MultiKeyUpdatingBackend``),
/// otherwise by a read, a transform and a write, and reported to the backend's observers either
/// way.
enum SettingsBackends {
  /// Changes a key of `backend` from its current value: with the backend's
  /// ``UpdatingBackend/update(forKey:_:)`` where it has one (one step, as the backend documents);
  /// otherwise a read, `transform` and a write, as one write through the library.
  ///
  /// On a backend without its own update, the library's writes all hold its registry's ordering
  /// lock (``ObserverRegistry/init(serializesWrites:)``), so none comes between; a write made to the
  /// backend directly can, and is then lost. `transform` runs holding that lock: it must not
  /// wait for another thread that writes the backend, nor write another backend.
  ///
  /// Reported to the key's observers once (``ObservationCenter/writing(_:to:_:)``).
  static func update(
    of backend: any SettingsBackend,
    forKey key: String,
    _ transform: (PropertyListValue?) throws(SettingsError) -> PropertyListValue?
  ) throws(SettingsError) -> PropertyListValue? {
    var stored: PropertyListValue?
    try ObservationCenter.writing(CollectionOfOne(key), to: backend) {
      () throws(SettingsError) in
      if let updating = backend as? any UpdatingBackend {
        stored = try updating.update(forKey: key, transform)
      } else {
        stored = try transform(backend.value(forKey: key))
        try backend.setValue(stored, forKey: key)
      }
    }
    return stored
  }

  /// Changes several keys of `backend` as one step where the backend offers one
  /// (``MultiKeyUpdatingBackend/updateValues(_:)``); on another backend, reads its values,
  /// transforms them and writes the differences as one write through the library, which no
  /// other write through the library comes between (``updateValuesThroughTheLibrary(of:_:)``).
  ///
  /// Each key `transform` changed is reported to its observers once, with the value the update
  /// left.
  static func updateValues<Result>(
    of backend: any SettingsBackend,
    _ transform: (inout [String: PropertyListValue]) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    guard let atomic = backend as? any MultiKeyUpdatingBackend else {
      return try updateValuesThroughTheLibrary(of: backend, transform)
    }
    if backend is any PublishesOwnChanges { return try atomic.updateValues(transform) }
    // A backend written outside the library doesn't tell its observers, and the keys are known
    // only once `transform` ran: they are reported before the write ends, holding the observers'
    // ordering lock taken around it, so each is recorded with the value the update left before
    // a racing write can replace it (as `UserDefaultsBackend.updateValues` does on Linux).
    var result: Result?
    try ObservationCenter.writing(EmptyCollection<String>(), to: backend) {
      () throws(SettingsError) in
      var changed: [String] = []
      result = try atomic.updateValues { values throws(SettingsError) -> Result in
        let before = values
        let result = try transform(&values)
        changed = changedKeys(from: before, to: values)
        return result
      }
      ObservationCenter.report(changed, of: backend)
    }
    guard let result else { preconditionFailure("writing(_:to:_:) runs its write") }
    return result
  }

  /// Reads every value, transforms them, and writes what changed, as one write through the
  /// library (``ObservationCenter/writing(_:to:_:)``): the update of a backend without its own
  /// ``MultiKeyUpdatingBackend/updateValues(_:)``.
  ///
  /// Such a backend's registry holds its ordering lock around every write made through the
  /// library (``ObserverRegistry/init(serializesWrites:)``), so no other one (a ``Setting``, a
  /// view's write or update, an import) comes between the read and the write. A write made to
  /// the backend directly, not through the library, can: it is then lost. `transform` runs
  /// holding that lock: it must not wait for another thread that writes the backend through the
  /// library, nor write another such backend, which could deadlock.
  ///
  /// Each changed key is reported to its observers once, with the value the update left.
  static func updateValuesThroughTheLibrary<Result>(
    of backend: any SettingsBackend,
    _ transform: (inout [String: PropertyListValue]) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    var result: Result?
    // The keys are known only once `transform` ran: reported holding the ordering lock, before
    // the write ends, as for a backend's own `updateValues` above.
    try ObservationCenter.writing(EmptyCollection<String>(), to: backend) {
      () throws(SettingsError) in
      let (value, changed) = try readTransformWrite(of: backend, transform)
      result = value
      if !(backend is any PublishesOwnChanges) { ObservationCenter.report(changed, of: backend) }
    }
    guard let result else { preconditionFailure("writing(_:to:_:) runs its write") }
    return result
  }

  /// Reads every value, transforms them, and writes what changed: values as one
  /// ``SettingsBackend/setValues(_:)`` batch, then removals, each reporting itself (for a
  /// backend that publishes its own changes: ``UserDefaultsBackend`` on Apple platforms).
  ///
  /// Not atomic with other writers.
  static func updateValuesWithoutLock<Result>(
    of backend: any SettingsBackend,
    _ transform: (inout [String: PropertyListValue]) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    try readTransformWrite(of: backend, transform).0
  }

  /// Reads every value of `backend`, transforms them, and writes what changed (values as one
  /// ``SettingsBackend/setValues(_:)`` batch, then removals); returns what `transform` returned
  /// and the keys changed, sorted.
  private static func readTransformWrite<Result>(
    of backend: any SettingsBackend,
    _ transform: (inout [String: PropertyListValue]) throws(SettingsError) -> Result
  ) throws(SettingsError) -> (Result, [String]) {
    let before = backend.dictionaryRepresentation()
    var values = before
    let result = try transform(&values)
    return (result, try writeDifferences(from: before, to: values, of: backend))
  }

  /// Writes to `backend` what differs between `before` and `after`: values as one
  /// ``SettingsBackend/setValues(_:)`` batch, then removals in key order; returns the keys changed,
  /// sorted.
  ///
  /// Not generic, so every kind of update shares one copy in the binary.
  private static func writeDifferences(
    from before: [String: PropertyListValue], to after: [String: PropertyListValue],
    of backend: any SettingsBackend
  ) throws(SettingsError) -> [String] {
    let changed = changedKeys(from: before, to: after)
    var written: [String: PropertyListValue] = [:]
    for key in changed { if let value = after[key] { written[key] = value } }
    if !written.isEmpty { try backend.setValues(written) }
    for key in changed where after[key] == nil { backend.removeValue(forKey: key) }
    return changed
  }

  /// The keys whose values differ between `before` and `after` (added, changed or removed),
  /// sorted.
  private static func changedKeys(
    from before: [String: PropertyListValue], to after: [String: PropertyListValue]
  ) -> [String] {
    Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
  }
}
