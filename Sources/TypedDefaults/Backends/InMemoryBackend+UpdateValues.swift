extension InMemoryBackend: MultiKeyUpdatingBackend {
  /// Changes a key's value from its current one as one step no other write can come between:
  /// `transform` gets the key's value under the backend's lock, and its result is stored before
  /// the lock is released.
  ///
  /// ```swift
  /// try backend.update(forKey: "launchCount") { .integer(.init(($0?.intValue ?? 0) + 1)) }
  /// ```
  ///
  /// - Parameters:
  ///   - key: The key to change.
  ///   - transform: Given the key's current value (`nil` if none), returns the new value, or
  ///     `nil` to remove the key. Called once, holding the backend's lock: keep it short, and
  ///     don't use the backend inside it.
  /// - Returns: The value stored, or `nil` if the key was removed.
  /// - Throws: What `transform` throws; what ``setValue(_:forKey:)`` throws for its result.
  ///   Nothing changes when this throws.
  @discardableResult
  public func update(
    forKey key: String,
    _ transform: (PropertyListValue?) throws(SettingsError) -> PropertyListValue?
  ) throws(SettingsError) -> PropertyListValue? {
    let (stored, claims) = try storage.withLock {
      storage throws(SettingsError) -> (PropertyListValue?, ObserverClaims) in
      var claims = ObserverClaims()
      let cell = storage.cells[key]
      let value = try transform(cell?.value)
      if let value { try WriteValidation.check(value, key: key) }
      guard let cell else {
        guard value != nil else { return (nil, claims) }
        storage.cells[key] = ValueCell.make(value)
        claims.offer(SettingsChange(key: key, newValue: value), to: [], storage.allKeysObservers)
        return (value, claims)
      }
      let publishes = (cell.observed || storage.observesAllKeys) && !cell.holds(value)
      cell.value = value
      if publishes {
        claims.offer(
          SettingsChange(key: key, newValue: value), toObserversOf: cell, storage.allKeysObservers)
      }
      return (value, claims)
    }
    claims.deliver()
    return stored
  }

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
    let (result, claims) = try storage.withLock {
      storage throws(SettingsError) -> (Result, ObserverClaims) in
      let before = storage.cells.compactMapValues(\.value)
      var values = before
      let result = try transform(&values)
      var changed: [String] = []
      for key in Set(before.keys).union(values.keys) where before[key] != values[key] {
        if let value = values[key] { try WriteValidation.check(value, key: key) }
        changed.append(key)
      }
      var claims = ObserverClaims()
      for key in changed {
        let cell = storage.cell(forKey: key)
        cell.value = values[key]
        claims.offer(
          SettingsChange(key: key, newValue: values[key]), toObserversOf: cell,
          storage.allKeysObservers)
      }
      return (result, claims)
    }
    claims.deliver()
    return result
  }
}
