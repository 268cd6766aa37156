/// A view of another backend in which every key carries a prefix: the way a library keeps its
/// settings apart from its host's on one store.
///
/// Get one with ``SettingsBackend/scoped(to:)``. Every key is prefixed on the way in and
/// unprefixed on the way out: reading `volume` from a view scoped to `com.example.sdk.` reads
/// `com.example.sdk.volume` from the base; listing the view (``dictionaryRepresentation()``,
/// ``SettingsBackend/keys``) shows only the base's keys that start with the prefix, without it;
/// observing the view sees only those keys, unprefixed.
///
/// ```swift
/// let store = UserDefaultsBackend.standard
/// let sdk = store.scoped(to: "com.example.sdk.")
/// try sdk.setValue(0.5, forKey: "volume")         // stored as "com.example.sdk.volume"
/// sdk.keys                                        // ["volume"]
/// let player = PlayerKitSettings(backend: sdk)    // any model runs on a view unchanged
/// ```
///
/// A view holds no values of its own: it writes through to its base, so a write through the view
/// and a write of the prefixed key on the base are the same write, and the base's guarantees
/// (persistence, atomic saves, layers, observation) apply unchanged. ``setValues(_:)`` is one
/// batch on the base (one save on a file store).
///
/// A view offers every ability a backend can have (``UpdatingBackend``,
/// ``MultiKeyUpdatingBackend``, ``SavingBackend``, ``ReloadingBackend``, ``WatchingBackend``) and
/// forwards each to its base where the base has it: ``update(forKey:_:)`` is the base's atomic
/// update, ``save()`` saves the base. A view adopts every ability whatever its base, so
/// `view is any UpdatingBackend` is always true; over a base that lacks one, each method says
/// what the view does instead: an update reads, transforms and writes as one write through the
/// library, which no other write made through the library comes between (a write made to the
/// base directly can, and is lost); saving, reloading and watching do nothing, so a view over a
/// base that saves without adopting ``SavingBackend`` reports no unsaved changes and doesn't
/// save it. Scoping a view again adds to its prefix:
/// `store.scoped(to: "a.").scoped(to: "b.")` is `store.scoped(to: "a.b.")`. An empty prefix gives
/// an identity view: the base's keys and values, under the view's name.
///
/// A setting bound through a view reads straight from the base's storage, with the prefix applied
/// once when it is bound, so a read through a view costs what a read of the base costs.
///
/// On a `LayeredPlistStore` that normalizes keys (`LayeredPlistStore.Options.keyNormalization`),
/// the whole prefixed key is normalized, and listing strips the normalized prefix; a
/// normalization must map the prefix's characters the same wherever they occur (the built-in one
/// does).
///
/// Thread-safe: a view has no mutable state, and its base is thread-safe.
public final class ScopedBackend: SettingsBackend {
  /// The backend the view reads and writes: never itself a view (scoping a view scopes its base).
  public let base: any SettingsBackend
  /// The prefix every key of the view carries in ``base``.
  public let prefix: String
  /// The prefix as the base stores it: normalized, on a store that normalizes keys.
  let storedPrefix: String

  /// The view's name: `base` scoped to `prefix`, for example
  /// `UserDefaults(suite: com.example.player) scoped to 'com.example.sdk.'`.
  public let name: String

  init(base: any SettingsBackend, prefix: String) {
    if let view = base as? ScopedBackend {
      self.base = view.base
      self.prefix = view.prefix + prefix
    } else {
      self.base = base
      self.prefix = prefix
    }
    self.storedPrefix = self.base.observationKey(self.prefix)
    self.name = "\(self.base.name) scoped to '\(self.prefix)'"
  }

  /// The key in ``base`` for a key of the view: the prefix, then the key.
  ///
  /// - Parameter key: A key of the view.
  /// - Returns: `prefix + key`.
  public func baseKey(forKey key: String) -> String {
    prefix + key
  }

  /// The key of the view for a key of ``base`` (as the base stores it), or `nil` if the key is
  /// not under the view's prefix.
  ///
  /// - Parameter key: A key of the base.
  /// - Returns: The key without the prefix.
  public func key(forBaseKey key: String) -> String? {
    guard key.hasPrefix(storedPrefix) else { return nil }
    return String(key.dropFirst(storedPrefix.count))
  }

  /// Returns the base's value for the prefixed key.
  ///
  /// - Parameter key: A key of the view.
  /// - Returns: The value, or `nil` if the base has none.
  public func value(forKey key: String) -> PropertyListValue? {
    base.value(forKey: prefix + key)
  }

  /// Returns the base's stored value for the prefixed key
  /// (``SettingsBackend/storedValue(forKey:)``).
  ///
  /// - Parameter key: A key of the view.
  /// - Returns: The stored value, or `nil` if the base stores none.
  public func storedValue(forKey key: String) -> PropertyListValue? {
    base.storedValue(forKey: prefix + key)
  }

  /// Stores a value under the prefixed key in the base.
  ///
  /// - Parameters:
  ///   - value: The value to store, or `nil` to remove the key.
  ///   - key: A key of the view.
  /// - Throws: What the base's ``SettingsBackend/setValue(_:forKey:)`` throws, naming the key
  ///   as the view spells it (without the prefix); ``SettingsError/Code/valueNotRepresentable``
  ///   for the empty key, which every backend refuses (it would be the prefix in the base).
  public func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    if value != nil { try WriteValidation.check(key: key) }
    do {
      try writingBase(CollectionOfOne(prefix + key)) { () throws(SettingsError) in
        try base.setValue(value, forKey: prefix + key)
      }
    } catch {
      throw error.naming(key, insteadOf: prefix + key)
    }
  }

  /// Removes the prefixed key from the base.
  ///
  /// - Parameter key: A key of the view.
  public func removeValue(forKey key: String) {
    writingBase(CollectionOfOne(prefix + key)) { base.removeValue(forKey: prefix + key) }
  }

  /// Stores several values in the base as one batch (one save on a file store), all or nothing
  /// as the base's ``SettingsBackend/setValues(_:)`` is.
  ///
  /// - Parameter values: Keys of the view and their values.
  /// - Throws: What the base's ``SettingsBackend/setValues(_:)`` throws, naming the key as the
  ///   view spells it; ``SettingsError/Code/valueNotRepresentable`` for the empty key.
  public func setValues(_ values: [String: PropertyListValue]) throws(SettingsError) {
    for key in values.keys { try WriteValidation.check(key: key) }
    var prefixed: [String: PropertyListValue] = [:]
    prefixed.reserveCapacity(values.count)
    for (key, value) in values { prefixed[prefix + key] = value }
    do {
      try writingBase(prefixed.keys) { () throws(SettingsError) in try base.setValues(prefixed) }
    } catch {
      throw error.key.flatMap(key(forBaseKey:)).map { error.naming($0, insteadOf: error.key) }
        ?? error
    }
  }

  /// Returns the base's keys under the prefix, without it, and their values, as of one instant.
  ///
  /// - Returns: The view's keys and values.
  public func dictionaryRepresentation() -> [String: PropertyListValue] {
    var result: [String: PropertyListValue] = [:]
    for (key, value) in base.dictionaryRepresentation() {
      if let own = self.key(forBaseKey: key) { result[own] = value }
    }
    return result
  }

  /// Runs a write of `keys` of the base: a base outside the library doesn't publish its own
  /// changes, so the write is reported to its observers as a ``Setting`` reports its own
  /// (``ObservationCenter/writing(_:to:_:)``).
  private func writingBase<Failure: Error>(
    _ keys: some Collection<String>, _ write: () throws(Failure) -> Void
  ) throws(Failure) {
    try ObservationCenter.writing(keys, to: base, write)
  }

  // MARK: - Observation

  /// Registers an observer of keys of the view (`nil`: all of them) with the base, translating
  /// keys both ways.
  package func observeThroughBase(
    registering keys: Set<String>?,
    initial: Bool,
    retaining: Bool,
    _ handler: @escaping @Sendable (SettingsChange) -> Void
  ) -> ObservationToken {
    let storedPrefix = storedPrefix
    let baseKeys = keys.map { Set($0.map { base.observationKey(prefix + $0) }) }
    return base.observe(registering: baseKeys, initial: initial, retaining: retaining) { change in
      guard change.key.hasPrefix(storedPrefix) else { return }
      handler(
        SettingsChange(
          key: String(change.key.dropFirst(storedPrefix.count)), newValue: change.newValue,
          valueIsSecret: change.valueIsSecret))
    }
  }
}

extension SettingsBackend {
  /// Returns a view of this backend in which every key carries `prefix`: reads, writes, listing
  /// and observation of the view use its own keys, unprefixed, and touch only the base's keys
  /// that start with `prefix`.
  ///
  /// ```swift
  /// let sdk = UserDefaultsBackend.standard.scoped(to: "com.example.sdk.")
  /// try sdk.setValue(true, forKey: "enabled")  // "com.example.sdk.enabled" in the standard defaults
  /// ```
  ///
  /// Scoping a view again adds to its prefix; an empty prefix gives an identity view. See
  /// ``ScopedBackend``. Thread-safe.
  ///
  /// - Parameter prefix: The prefix, usually a reverse-DNS name ending in a dot
  ///   (`com.example.sdk.`).
  /// - Returns: The view.
  public func scoped(to prefix: String) -> ScopedBackend {
    ScopedBackend(base: self, prefix: prefix)
  }
}

extension SettingsError {
  /// The same error naming `key` where it named `original`: how a view reports its base's errors
  /// in its own keys.
  @usableFromInline
  func naming(_ key: String, insteadOf original: String?) -> SettingsError {
    guard self.key != nil, self.key == original else { return self }
    return SettingsError(code, path: path, key: key, reason: reason)
  }
}
