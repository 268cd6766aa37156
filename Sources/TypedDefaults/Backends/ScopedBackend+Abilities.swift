// A view adopts every ability a backend can have, and forwards each to its base where the base
// has it (a class can't conform only when its base does): over a base that lacks one, it does
// what each method says. Where the view can't do it through the library either (a save, a
// reload), it refuses with a typed error, `SettingsError.Code.notSupported`; an update works over
// any base (see `update(forKey:_:)`), and a base that forces nothing or doesn't watch answers
// `false` truly.

extension ScopedBackend: MultiKeyUpdatingBackend {
  /// Changes a key's value from its current one, as one step where the base can.
  ///
  /// It uses the base's ``UpdatingBackend/update(forKey:_:)`` where it has one (on a
  /// `LayeredPlistStore` and, on Linux, a ``UserDefaultsBackend``, under the file lock, so no
  /// other process's save comes between). A view adopts every ability; over a base that lacks
  /// this one, it is a read, `transform` and a write run as one write through the library: every
  /// write the library makes to that base (a ``Setting``, a view's write or update, an import)
  /// holds the base's ordering lock, so none comes between. A write made to the base directly,
  /// not through the library, can come between and is then lost: without the base's help it
  /// can't be held off.
  ///
  /// Reported to the key's observers once, on every base.
  ///
  /// - Parameters:
  ///   - key: A key of the view.
  ///   - transform: Given the key's current value (`nil` if none), returns the new value, or `nil`
  ///     to remove the key. Called once, maybe holding a lock: don't use the backend inside it,
  ///     don't write another backend through the library, and don't wait for a thread that
  ///     writes this one (either could deadlock).
  /// - Returns: The value stored, or `nil` if the key was removed.
  /// - Throws: What `transform` throws, and what the base's update or write throws, naming the
  ///   key as the view spells it; ``SettingsError/Code/valueNotRepresentable`` for a value
  ///   under the empty key, which every backend refuses. Nothing changes when this throws.
  @discardableResult
  public func update(
    forKey key: String,
    _ transform: (PropertyListValue?) throws(SettingsError) -> PropertyListValue?
  ) throws(SettingsError) -> PropertyListValue? {
    let baseKey = prefix + key
    do {
      return try SettingsBackends.update(of: base, forKey: baseKey) {
        value throws(SettingsError) -> PropertyListValue? in
        let new = try transform(value)
        // The empty key would be the prefix itself in the base, which takes it.
        if new != nil { try WriteValidation.check(key: key) }
        return new
      }
    } catch {
      throw error.naming(key, insteadOf: baseKey)
    }
  }

  /// Changes several keys of the view as one step of its base, where the base can.
  ///
  /// `transform` sees the view's keys, unprefixed. It uses the base's
  /// ``MultiKeyUpdatingBackend/updateValues(_:)`` where it has one (atomic, and saved on a file
  /// store). A view adopts every ability; over a base that lacks this one, it is a read of the
  /// base's values, `transform` and a write of the differences run as one write through the
  /// library, which no other write made through the library comes between (see
  /// ``update(forKey:_:)``); a write made to the base directly can come between and is then
  /// lost.
  ///
  /// Each changed key is reported to its observers once, on every base.
  ///
  /// - Parameter transform: Changes the view's values (its keys, unprefixed) in place and
  ///   returns what the caller wants back. Called once, maybe holding a lock: keep it short,
  ///   don't use the backend inside it, don't write another backend through the library, and
  ///   don't wait for a thread that writes this one (either could deadlock).
  /// - Returns: What `transform` returned.
  /// - Throws: What `transform` throws, and what the base's update throws;
  ///   ``SettingsError/Code/valueNotRepresentable`` for a value under the empty key. Nothing
  ///   changes when this throws.
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
      if own[""] != nil { try WriteValidation.check(key: "") }
      for key in Set(before.keys).union(own.keys) where before[key] != own[key] {
        values[baseKey(forKey: key)] = own[key]
      }
      return result
    }
  }
}

extension ScopedBackend: SavingBackend {
  /// Whether the base has unsaved writes (``SavingBackend/hasUnsavedChanges``), of the view's
  /// keys or any other.
  ///
  /// A view adopts every ability; over a base that doesn't adopt ``SavingBackend``, it is
  /// `false`, even for a base that saves by a method of its own.
  public var hasUnsavedChanges: Bool {
    (base as? any SavingBackend)?.hasUnsavedChanges ?? false
  }

  /// Saves the base (``SavingBackend/save()``): all of its writes, not only the view's.
  ///
  /// A view adopts every ability; over a base that doesn't adopt ``SavingBackend`` (an
  /// ``InMemoryBackend``, or a base that saves by a method of its own) it refuses: the view knows
  /// a base's saving only by that protocol. Ask ``supportsSaving`` first where the base may not
  /// save. (``hasUnsavedChanges`` is then `false`, so an import, which saves what it wrote only
  /// where something is unsaved, never asks.)
  ///
  /// - Throws: ``SettingsError/Code/notSupported`` naming the base if it doesn't save; what the
  ///   base's save throws.
  public func save() throws(SettingsError) {
    guard let saving = base as? any SavingBackend else {
      throw refusal("save", lacking: "SavingBackend")
    }
    try saving.save()
  }

  /// Whether the base saves (adopts ``SavingBackend``), so that ``save()`` saves it rather than
  /// refuse.
  public var supportsSaving: Bool { base is any SavingBackend }
}

extension ScopedBackend: ReloadingBackend {
  /// Reloads the base (``ReloadingBackend/reload()``): all of its keys, not only the view's;
  /// observers of the view hear of its keys that changed.
  ///
  /// Over a base that doesn't reload (no ``ReloadingBackend``) it refuses; ask
  /// ``supportsReloading`` first where the base may not reload.
  ///
  /// - Throws: ``SettingsError/Code/notSupported`` naming the base if it doesn't reload; what the
  ///   base's reload throws.
  public func reload() throws(SettingsError) {
    guard let reloading = base as? any ReloadingBackend else {
      throw refusal("reload", lacking: "ReloadingBackend")
    }
    try reloading.reload()
  }

  /// The error of a view asked to `action` over a base that doesn't adopt `ability`.
  private func refusal(_ action: String, lacking ability: String) -> SettingsError {
    SettingsError(
      .notSupported, reason: "\(name) can't \(action): its base, \(base.name), is no \(ability)")
  }

  /// Whether the base reloads (adopts ``ReloadingBackend``), so that ``reload()`` reloads it
  /// rather than refuse.
  public var supportsReloading: Bool { base is any ReloadingBackend }
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
  /// Does nothing on a base that can't watch (no ``WatchingBackend``): ``isWatching`` then stays
  /// `false`, which is how a caller tells.
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

extension ScopedBackend: ForcingBackend {
  /// Whether the base forces the key (``ForcingBackend/isForced(forKey:)``); `false` on a base
  /// that forces nothing.
  ///
  /// - Parameter key: A key of the view.
  /// - Returns: Whether the base forces the key, prefixed.
  public func isForced(forKey key: String) -> Bool {
    (base as? any ForcingBackend)?.isForced(forKey: baseKey(forKey: key)) ?? false
  }
}

extension ScopedBackend: HasSecretLayers {
  /// Whether the base's value of the prefixed key comes from a layer holding secrets.
  package func holdsSecretValue(forKey key: String) -> Bool {
    (base as? any HasSecretLayers)?.holdsSecretValue(forKey: baseKey(forKey: key)) ?? false
  }
}
