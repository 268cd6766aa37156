import TypedDefaults

extension LayeredPlistStore {
  /// Applies configuration delivered by a server: writes every value to the persistent layer, so
  /// it beats the delivered and bundled files and is saved, as the HuConfigration seed's
  /// `writeConfigWithKey:` did for each key.
  ///
  /// The keys the server delivered are recorded in `data.plist` under
  /// ``serverConfigurationKeysKey``, so that a later call with `replacingPrevious: true` can remove
  /// the keys an earlier configuration set and the new one no longer has, across launches.
  ///
  /// All or nothing: if any value can't be stored, nothing is changed.
  ///
  /// - Parameters:
  ///   - values: The configuration, by key.
  ///   - replacingPrevious: Whether to remove the keys of the previous server configuration that
  ///     `values` doesn't have (`false` by default: they are kept).
  /// - Throws: What ``setValue(_:forKey:)`` throws, for the first value that can't be stored
  ///   (``SettingsError/Code/forcedValue`` for a key a forced layer holds).
  public func applyServerConfiguration(
    _ values: [String: PropertyListValue],
    replacingPrevious: Bool = false
  ) throws(SettingsError) {
    try RealStoreGuard.check(writingTo: persistentFile.url, of: name)
    var storable: [String: PropertyListValue] = [:]
    for (key, value) in values {
      let key = normalizedKey(key)
      storable[key] = try self.storable(value, forKey: key, in: .persistent)
    }
    let recordKey = normalizedKey(Self.serverConfigurationKeysKey)
    let changed = try changingState { state throws(SettingsError) in
      let previous = Set(
        state.persistent[recordKey]?.arrayValue?.compactMap(\.stringValue) ?? [])
      let removed = replacingPrevious ? previous.subtracting(storable.keys) : []
      try state.checkNotForced(storable.keys)
      try state.checkNotForced(removed)
      try state.checkFileSize(
        after: storable.map { ($0.key, $0.value) } + removed.map { ($0, nil) },
        path: persistentFile.url.path)
      var changed = false
      if replacingPrevious {
        for key in previous.subtracting(storable.keys) {
          changed = state.writePersistent(nil, forKey: key) || changed
        }
      }
      for (key, value) in storable {
        changed = state.writePersistent(value, forKey: key) || changed
      }
      let delivered = replacingPrevious ? Set(storable.keys) : previous.union(storable.keys)
      let record = PropertyListValue.array(delivered.sorted().map(PropertyListValue.string))
      changed = state.writePersistent(record, forKey: recordKey) || changed
      return changed
    }
    if changed { fileDidChange() }
  }
}
