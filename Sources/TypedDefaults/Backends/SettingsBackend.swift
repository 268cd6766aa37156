/// A key-value store that settings read from and write to.
///
/// Every ``Setting`` reads and writes through a backend, and a model's settings run unchanged on
/// any of them: ``UserDefaultsBackend``, `LayeredPlistStore`, ``InMemoryBackend``, or one you
/// write. Backends exchange ``PropertyListValue``s only; converting them to Swift types is the
/// settings' job (``SettingValue``), so every backend reads a stored value the same way.
///
/// ## Contract
///
/// A conforming type must satisfy all of the following; the library's backend conformance tests
/// check each one.
///
/// - **Thread safety.** Every requirement can be called from any thread or task at the same time
///   as any other. A read that runs after a write returned (in the same thread, or ordered after it
///   by a lock, an `await` or a task) sees that write.
/// - **Reads.** ``value(forKey:)`` returns the value a reader should see for the key, or `nil`.
///   It never throws and never blocks on I/O for long: values are in memory.
/// - **Writes.** After ``setValue(_:forKey:)`` returns without throwing, ``value(forKey:)`` returns
///   the written value, unchanged (equal by `==`), until the next write. Writing `nil` removes the
///   key, exactly as ``removeValue(forKey:)`` does. A write that throws changes nothing.
/// - **Listing.** ``dictionaryRepresentation()`` returns a consistent snapshot (taken at one
///   instant) of the keys this backend stores and their values. ``value(forKey:)`` may return a
///   value for a key the snapshot lacks when the backend also reads from sources it does not own
///   (`UserDefaults`' argument and registration domains, for example); each backend documents such
///   sources.
/// - **Durability.** A backend that persists documents when writes reach storage (and offers a way
///   to force it).
/// - **Observation.** Nothing to implement: every backend can be observed
///   (``observe(key:initial:_:)``, ``changes(forKey:initial:)``), and writes made through a
///   ``Setting`` or a model are published to its observers by the library. A backend whose values
///   also change some other way (calls that bypass the library, another process, a file it
///   watches, a reload) calls ``reportChanges(forKeys:)`` after the new values are readable,
///   with none of its locks held; a backend never needs to report a key whose value didn't
///   change, but reporting one is harmless. ``value(forKey:)`` must not itself report changes.
///   See <doc:ObservingChanges>.
///
/// ## Abilities
///
/// What only some backends can do is a protocol refining this one, which a backend adopts when
/// it can, and which the library looks for, never for a concrete type:
///
/// - ``UpdatingBackend``: `update(forKey:_:)`, one key changed from its current value as one
///   step (a counter several processes increment).
/// - ``MultiKeyUpdatingBackend``: `updateValues(_:)`, several keys as one step; each migration
///   step runs as one (``SettingsMigrations/run(on:)``).
/// - ``SavingBackend``: `save()`; an import saves once its values are in
///   (``SettingsContainer/importValues(_:options:)``).
/// - ``ReloadingBackend``: `reload()`, taking in what other processes saved.
/// - ``WatchingBackend``: `startWatching()`, taking in their changes as they happen.
/// - ``RegistrationDomainBackend``: defaults that code reading the store directly sees
///   (``SettingsContainer/registerDefaults()``).
///
/// `LayeredPlistStore` and ``UserDefaultsBackend`` adopt the first five,
/// ``InMemoryBackend`` the two updates, and a
/// ``ScopedBackend`` view the first five, forwarding each to its base where the base has it.
///
/// ## Writing your own
///
/// A backend is a class: it is a store that settings and models share, and a class reference is
/// the cheapest thing to hold and call on every read. A class that keeps its state behind a lock,
/// as ``InMemoryBackend`` does, meets the contract. Adopt the abilities your storage can honour:
/// each protocol's "Writing your own" says how, and what the library then does with it (a
/// backend adopting ``MultiKeyUpdatingBackend`` gets atomic migrations; one adopting
/// ``SavingBackend`` is saved after an import).
/// Run the contract's checks against it from your tests with the `TypedDefaultsTesting` product
/// (`await BackendConformance.run { MyBackend() }`; see <doc:TestingWithTypedDefaults>): the
/// checks of each ability run when the backend adopts it.
public protocol SettingsBackend: AnyObject, Sendable {
  /// A short human-readable name for diagnostics and errors, such as
  /// `UserDefaults(suite: com.example.player)` or `LayeredPlistStore(/…/data.plist)`.
  var name: String { get }

  /// Returns the value stored for a key.
  ///
  /// - Parameter key: The key to look up.
  /// - Returns: The value, or `nil` if the key has no value.
  func value(forKey key: String) -> PropertyListValue?

  /// Returns the value the backend itself stores for a key: what ``value(forKey:)`` returns,
  /// without what the backend only reads from elsewhere. For ``UserDefaultsBackend``, the
  /// suite's own (persistent) value, without launch arguments (`-key value`) and registration
  /// defaults. What ``Setting/hasStoredValue``, snapshots and exports count as stored, so that an
  /// export never carries a launch argument or a registered default into another store.
  ///
  /// The default implementation returns ``value(forKey:)``: a backend with one source of values
  /// needs nothing more.
  ///
  /// - Parameter key: The key to look up.
  /// - Returns: The stored value, or `nil` if the backend stores none for the key.
  func storedValue(forKey key: String) -> PropertyListValue?

  /// Stores a value for a key, or removes the key when `value` is `nil`.
  ///
  /// - Parameters:
  ///   - value: The value to store, or `nil` to remove the key.
  ///   - key: The key to write.
  /// - Throws: ``SettingsError`` if the backend can't store the value exactly
  ///   (``SettingsError/Code/valueNotRepresentable``; the library's backends refuse the empty key
  ///   so) or can't write at all (``SettingsError/Code/readOnlyLayer``). A write that throws
  ///   changes nothing.
  func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError)

  /// Removes a key, so ``value(forKey:)`` returns `nil` for it (or a value from a source the
  /// backend does not own, as documented by the backend). Removing a missing key does nothing.
  ///
  /// - Parameter key: The key to remove.
  func removeValue(forKey key: String)

  /// Returns a snapshot of every key this backend stores and its value.
  ///
  /// - Returns: The keys and values, as of one instant.
  func dictionaryRepresentation() -> [String: PropertyListValue]

  /// Stores several values at once: an import. Every value is checked first; if one can't be
  /// stored, nothing is.
  ///
  /// The default implementation checks nothing first and calls ``setValue(_:forKey:)`` for each
  /// key; the library's backends validate first and store the batch efficiently.
  ///
  /// - Parameter values: The keys and values to store.
  /// - Throws: What ``setValue(_:forKey:)`` throws, for the first value that can't be stored.
  func setValues(_ values: [String: PropertyListValue]) throws(SettingsError)
}

extension SettingsBackend {
  /// Returns ``value(forKey:)``: every value of a backend with one source of values is stored.
  ///
  /// - Parameter key: The key to look up.
  /// - Returns: The value, or `nil` if the key has no value.
  public func storedValue(forKey key: String) -> PropertyListValue? {
    value(forKey: key)
  }

  /// Calls ``setValue(_:forKey:)`` for each key, in key order; stops at the first error.
  ///
  /// - Parameter values: The keys and values to store.
  /// - Throws: What ``setValue(_:forKey:)`` throws.
  public func setValues(_ values: [String: PropertyListValue]) throws(SettingsError) {
    for (key, value) in values.sortedByKey() {
      try setValue(value, forKey: key)
    }
  }

  /// The keys this backend stores, sorted; the keys of ``dictionaryRepresentation()``.
  public var keys: [String] {
    dictionaryRepresentation().keys.sorted()
  }
}
