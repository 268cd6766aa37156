// A view offers every ability a backend can have, and forwards each to its base where the base
// has it (a class can't conform only when its base does): what the view does where the base
// lacks the ability is said on each method.

extension ScopedBackend: MultiKeyUpdatingBackend {
  /// Changes a key's value from its current one, as one step where the base can.
  ///
  /// It uses the base's ``UpdatingBackend/update(forKey:_:)`` where it has one (on a
  /// ``LayeredPlistStore`` and, on Linux, a ``UserDefaultsBackend``, under the file lock, so no
  /// other process's save comes between); on a base without one, it is a read, `transform`, and a
  /// write, with nothing held between them.
  ///
  /// Reported to the key's observers once, on every base.
  ///
  /// - Parameters:
  ///   - key: A key of the view.
  ///   - transform: Given the key's current value (`nil` if none), returns the new value, or `nil`
  ///     to remove the key. Called once; don't use the backend inside it.
  /// - Returns: The value stored, or `nil` if the key was removed.
  /// - Throws: What `transform` throws, and what the base's update or write throws, naming the
  ///   key as the view spells it. Nothing changes when this throws.
  @discardableResult
  public func update(
    forKey key: String,
    _ transform: (PropertyListValue?) throws(SettingsError) -> PropertyListValue?
  ) throws(SettingsError) -> PropertyListValue? {
    let baseKey = prefix + key
    do {
      return try SettingsBackends.update(of: base, forKey: baseKey, transform)
    } catch {
      throw error.naming(key, insteadOf: baseKey)
    }
  }

  /// Changes several keys of the view as one step of its base, where the base can.
  ///
  /// `transform` sees the view's keys, unprefixed. It uses the base's
  /// ``MultiKeyUpdatingBackend/updateValues(_:)`` where it has one (atomic, and saved on a file
  /// store); otherwise it is a read of the base's values, `transform` and a write of the
  /// differences, with nothing held between them.
  ///
  /// Each changed key is reported to its observers once, on every base.
  ///
  /// - Parameter transform: Changes the view's values (its keys, unprefixed) in place and
  ///   returns what the caller wants back. Called once: keep it short, and don't use the backend
  ///   inside it.
  /// - Returns: What `transform` returned.
  /// - Throws: What `transform` throws, and what the base's update throws. Nothing changes when
  ///   this throws.
  @discardableResult
  public func updateValues<Result>(
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

extension ScopedBackend: SavingBackend {
  /// Whether the base has unsaved writes (``SavingBackend/hasUnsavedChanges``), of the view's
  /// keys or any other; `false` on a base that doesn't save.
  public var hasUnsavedChanges: Bool {
    (base as? any SavingBackend)?.hasUnsavedChanges ?? false
  }

  /// Saves the base (``SavingBackend/save()``): all of its writes, not only the view's.
  ///
  /// Does nothing on a base that doesn't save (an ``InMemoryBackend``).
  ///
  /// - Throws: What the base's save throws.
  public func save() throws(SettingsError) {
    try (base as? any SavingBackend)?.save()
  }
}

extension ScopedBackend: ReloadingBackend {
  /// Reloads the base (``ReloadingBackend/reload()``): all of its keys, not only the view's;
  /// observers of the view hear of its keys that changed.
  ///
  /// Does nothing on a base that doesn't reload.
  ///
  /// - Throws: What the base's reload throws.
  public func reload() throws(SettingsError) {
    try (base as? any ReloadingBackend)?.reload()
  }
}

extension ScopedBackend: WatchingBackend {
  /// Whether the base is watching its storage (``WatchingBackend/isWatching``); `false` on a
  /// base that can't watch.
  public var isWatching: Bool {
    (base as? any WatchingBackend)?.isWatching ?? false
  }

  /// Starts the base's watch (``WatchingBackend/startWatching()``), which the base and every
  /// view of it share.
  ///
  /// Does nothing on a base that can't watch.
  public func startWatching() {
    (base as? any WatchingBackend)?.startWatching()
  }

  /// Stops the base's watch (``WatchingBackend/stopWatching()``): for the base and every view
  /// of it.
  ///
  /// Does nothing on a base that can't watch.
  public func stopWatching() {
    (base as? any WatchingBackend)?.stopWatching()
  }
}

extension ScopedBackend: BackendView {}

// A view reports its writes to its base's observers itself (`writingBase`, and
// `SettingsBackends` for updates): a write through it needs no report of its own.
extension ScopedBackend: PublishesOwnChanges {}
