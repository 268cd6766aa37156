extension InMemoryBackend {
  /// Changes any number of keys as one step no other write can come between: `transform` gets
  /// every value, under the backend's lock, and every value it added, changed or removed is
  /// stored before the lock is released.
  ///
  /// - Parameter transform: Changes the values in place and returns what the caller wants back.
  ///   Called once, holding the backend's lock: keep it short, and don't use the backend inside
  ///   it. What it throws is rethrown and nothing is changed.
  /// - Returns: What `transform` returned.
  /// - Throws: What `transform` throws; ``SettingsError/Code/valueNotRepresentable`` for a value
  ///   that can't be read back (see ``setValue(_:forKey:)``). Nothing changes when this throws.
  @discardableResult
  public func updateValues<Result>(
    _ transform: (inout [String: PropertyListValue]) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    let (result, published) = try storage.withLock {
      storage throws(SettingsError) -> (Result, [SettingsChange]) in
      let before = storage.cells.compactMapValues(\.value)
      var values = before
      let result = try transform(&values)
      var changed: [String] = []
      for key in Set(before.keys).union(values.keys) where before[key] != values[key] {
        if let value = values[key] { try WriteValidation.check(value, key: key) }
        changed.append(key)
      }
      var published: [SettingsChange] = []
      for key in changed {
        let cell: ValueCell
        if let existing = storage.cells[key] {
          cell = existing
        } else {
          cell = ValueCell(nil)
          storage.cells[key] = cell
        }
        if cell.observed || storage.observesAllKeys {
          published.append(SettingsChange(key: key, newValue: values[key]))
        }
        cell.value = values[key]
        cell.conversion = nil
      }
      if !published.isEmpty { observers.record(published) }
      return (result, published)
    }
    if !published.isEmpty { observers.deliverRecorded() }
    return result
  }
}
