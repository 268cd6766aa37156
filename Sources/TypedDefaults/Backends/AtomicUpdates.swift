/// A backend that changes several keys as one step other writers (threads, and for file stores
/// other processes) can't come between: the library's three backends.
protocol UpdatesValuesAtomically: SettingsBackend {
  func updateValues<Result>(
    _ transform: (inout [String: PropertyListValue]) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result
}

extension InMemoryBackend: UpdatesValuesAtomically {}
extension LayeredPlistStore: UpdatesValuesAtomically {}
extension UserDefaultsBackend: UpdatesValuesAtomically {}

extension ScopedBackend: UpdatesValuesAtomically {
  /// Changes several keys of the view as one step of its base: atomic (and saved, on a file
  /// store) where the base's update is, with the view's keys unprefixed in `transform`.
  func updateValues<Result>(
    _ transform: (inout [String: PropertyListValue]) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    try SettingsBackends.updateValues(of: base) {
      values throws(SettingsError) -> Result in
      var own: [String: PropertyListValue] = [:]
      for (key, value) in values {
        if let ownKey = self.key(forBaseKey: key) { own[ownKey] = value }
      }
      let before = own
      let result = try transform(&own)
      for key in Set(before.keys).union(own.keys) where before[key] != own[key] {
        values[baseKey(forKey: key)] = own[key]
      }
      return result
    }
  }
}

/// Multi-key updates on any backend.
enum SettingsBackends {
  /// Changes several keys of `backend` as one step where the backend offers one
  /// (``InMemoryBackend/updateValues(_:)``, ``LayeredPlistStore/updateValues(_:)``,
  /// ``UserDefaultsBackend/updateValues(_:)``); on another backend, reads its values, transforms
  /// them and writes the differences with no lock around the whole.
  static func updateValues<Result>(
    of backend: any SettingsBackend,
    _ transform: (inout [String: PropertyListValue]) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    if let atomic = backend as? any UpdatesValuesAtomically {
      return try atomic.updateValues(transform)
    }
    return try updateValuesWithoutLock(of: backend, transform)
  }

  /// Reads every value, transforms them, and writes what changed: values as one
  /// ``SettingsBackend/setValues(_:)`` batch, then removals. Not atomic with other writers.
  static func updateValuesWithoutLock<Result>(
    of backend: any SettingsBackend,
    _ transform: (inout [String: PropertyListValue]) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    let before = backend.dictionaryRepresentation()
    var values = before
    let result = try transform(&values)
    var written: [String: PropertyListValue] = [:]
    var removed: [String] = []
    for key in Set(before.keys).union(values.keys) where before[key] != values[key] {
      if let value = values[key] { written[key] = value } else { removed.append(key) }
    }
    // A backend written outside the library doesn't tell its observers; the library does.
    try ObservationCenter.writing(Array(written.keys) + removed, to: backend) {
      () throws(SettingsError) in
      if !written.isEmpty { try backend.setValues(written) }
      for key in removed.sorted() { backend.removeValue(forKey: key) }
    }
    return result
  }
}
