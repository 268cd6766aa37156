/// A property wrapper for one typed setting: a key, a default value, and the backend that stores
/// it.
///
/// Declare settings as properties of a ``SettingsModel`` subclass or a ``SettingsGroup`` struct;
/// the model finds them by reflection when it is created (the stdlib's field reflection, once per
/// model type; `Mirror` where that can't describe the type) and attaches each to its backend. The
/// key is the property's name unless you give one:
///
/// ```swift
/// final class PlayerSettings: SettingsModel, @unchecked Sendable {
///   @Setting var allowsCellularPlayback = false           // key "allowsCellularPlayback"
///   @Setting("volume", default: 0.8) var volume: Double
///   @Setting("quality") var quality = Quality.auto        // any SettingValue type
///   @Setting var lastOpened: Date?                        // optional: default nil
/// }
///
/// let settings = PlayerSettings(backend: UserDefaultsBackend(suiteName: "com.example.player"))
/// settings.volume = 0.5        // written through the backend
/// settings.$volume.reset()     // the projected value: key, default, stored state, reset
/// ```
///
/// A setting can also stand alone with an explicit backend, with no model at all:
///
/// ```swift
/// struct FeatureFlags {
///   @Setting("beta", default: false, backend: UserDefaultsBackend.standard) var beta: Bool
/// }
/// let flags = FeatureFlags()
/// flags.beta = true   // works through a `let`: the setter doesn't mutate the struct
/// ```
///
/// Reading returns the stored value converted to `Value` (see ``SettingValue`` for the rules), or
/// the default when the key has no value or holds one that can't be read as `Value`; the latter is
/// reported once as a ``SettingsDiagnostic`` and the stored value is left untouched. Assigning
/// writes through the backend; assigning `nil` to an optional setting removes the key, so the
/// default shows again. An assignment that fails (a value the backend can't store) is reported as
/// a diagnostic; use ``set(_:)`` to get the error instead.
///
/// A `Setting` is thread-safe when its backend is, as every backend in this library is: it may be
/// read and written from any thread.
@propertyWrapper
public struct Setting<Value: SettingValue>: Sendable {
  @usableFromInline let storage: SettingStorage<Value>
  /// The storage, unretained, for reads.
  ///
  /// A read through a class's property then loads one word and takes no reference (a retain and
  /// release per read, which every reading thread writes to the same reference count).
  /// `storage` keeps it alive for as long as the setting exists, and a reader holds the setting
  /// (or the model holding it) for the length of its read.
  @usableFromInline let unretainedStorage: Unmanaged<SettingStorage<Value>>

  /// A setting over `storage`.
  @inlinable
  init(storage: SettingStorage<Value>) {
    self.storage = storage
    unretainedStorage = .passUnretained(storage)
  }

  // MARK: - Declaring a setting in a model

  /// Declares a setting whose default is the property's initial value: `@Setting var volume = 0.8`,
  /// `@Setting("volume") var volume = 0.8`, `@Setting("apiToken", secret: true) var apiToken = ""`,
  /// `@Setting(help: "Retries before giving up.") var retries = 3`.
  ///
  /// A **secret** setting (a token, a password) reads and writes like any other; what changes is
  /// what the library shows of it: its value never appears in the `description` of the setting
  /// or of its ``SettingDescriptor``, in `dump(model)`, in ``SettingsModel/snapshot()``, in an
  /// export (unless ``SettingsExportOptions/includesSecrets`` asks for it), in the messages of
  /// ``SettingsDiagnostic``s (a wrong-typed stored value, a failed write) or in a thrown
  /// ``SettingsError``. Each of those shows `<secret>` or leaves the value out. Secret is about
  /// what is printed, not how the value is stored: a backend keeps it as it keeps any value (a
  /// plaintext property list for ``UserDefaultsBackend``; a store's file is readable by its owner
  /// only when the store creates it). Keep credentials that must be encrypted at rest in the
  /// Keychain or a secret service.
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value, returned while no value is stored.
  ///   - key: The key in the backend; `nil` (the default) uses the property's name.
  ///   - secret: Whether the value is secret; `false` (the default) declares an ordinary setting.
  ///   - help: What the setting does, in a sentence, for people (see ``help``); `nil` for none.
  @inlinable
  public init(
    wrappedValue: Value, _ key: String? = nil, secret: Bool = false, help: String? = nil
  ) {
    self.init(
      storage: FixedDefaultSettingStorage(key: key, defaultValue: wrappedValue, backend: nil))
    if secret || help != nil { declare(secret: secret, help: help) }
  }

  /// Declares a setting with an explicit default: `@Setting("volume", default: 0.8) var volume: Double`,
  /// `@Setting("apiToken", default: "", secret: true) var apiToken: String`.
  ///
  /// See ``init(wrappedValue:_:secret:help:)`` for what a secret setting hides.
  ///
  /// - Parameters:
  ///   - key: The key in the backend; `nil` (the default) uses the property's name.
  ///   - defaultValue: The value returned while no value is stored.
  ///   - secret: Whether the value is secret; `false` (the default) declares an ordinary setting.
  ///   - help: What the setting does, in a sentence, for people (see ``help``); `nil` for none.
  @inlinable
  public init(
    _ key: String? = nil, default defaultValue: Value, secret: Bool = false, help: String? = nil
  ) {
    self.init(
      storage: FixedDefaultSettingStorage(key: key, defaultValue: defaultValue, backend: nil))
    if secret || help != nil { declare(secret: secret, help: help) }
  }

  /// Declares a setting whose default is computed each time a read falls back to it:
  /// `@Setting("expiry", default: { Date() + 86_400 }) var expiry: Date`.
  ///
  /// The closure runs on every read that finds no readable stored value (nothing stored, or a
  /// value that can't be read as `Value`), on the reading thread, so it must be cheap and
  /// thread-safe. Such a setting has no fixed default: ``defaultValue`` evaluates the closure,
  /// ``hasComputedDefault`` is `true`, a ``SettingDescriptor`` reports its default as `nil`, and
  /// registration defaults leave it out (a registered value would freeze one evaluation).
  /// ``reset()`` removes the stored value, so the next read computes the default again.
  ///
  /// - Parameters:
  ///   - key: The key in the backend; `nil` (the default) uses the property's name.
  ///   - makeDefault: Returns the value to show while nothing readable is stored.
  @inlinable
  public init(_ key: String? = nil, default makeDefault: @escaping @Sendable () -> Value) {
    self.init(storage: SettingStorage(key: key, makeDefault: makeDefault, backend: nil))
  }

  /// Marks the setting secret and records its help text, before it can be shared.
  @usableFromInline
  func declare(secret: Bool, help: String?) {
    if secret { storage.markSecret() }
    annotate(help: help)
  }

  /// A setting needs a default value.
  ///
  /// Give the property an initial value (`@Setting var volume = 0.8`) or write
  /// `@Setting("volume", default: 0.8)`. Optional settings default to `nil` and need neither.
  @available(
    *, unavailable,
    message:
      "A setting needs a default value: write '@Setting var name = value' or '@Setting(\"key\", default: value)'"
  )
  public init() {
    fatalError("unavailable")
  }

  /// A setting needs a default value.
  ///
  /// Give the property an initial value (`@Setting("volume") var volume = 0.8`) or write
  /// `@Setting("volume", default: 0.8)`.
  ///
  /// - Parameter key: The key in the backend.
  @available(
    *, unavailable,
    message:
      "A setting needs a default value: write '@Setting(\"key\") var name = value' or '@Setting(\"key\", default: value)'"
  )
  public init(_ key: String) {
    fatalError("unavailable")
  }

  // MARK: - Declaring a standalone setting

  /// Declares a setting attached to a backend of its own: it works outside any model, and inside
  /// one it keeps this backend.
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value, returned while no value is stored.
  ///   - key: The key in the backend.
  ///   - backend: The backend to read and write.
  @inlinable
  public init(wrappedValue: Value, _ key: String, backend: any SettingsBackend) {
    self.init(
      storage: FixedDefaultSettingStorage(key: key, defaultValue: wrappedValue, backend: backend))
  }

  /// Declares a setting attached to a backend of its own, with an explicit default.
  ///
  /// - Parameters:
  ///   - key: The key in the backend.
  ///   - defaultValue: The value returned while no value is stored.
  ///   - backend: The backend to read and write.
  @inlinable
  public init(_ key: String, default defaultValue: Value, backend: any SettingsBackend) {
    self.init(
      storage: FixedDefaultSettingStorage(key: key, defaultValue: defaultValue, backend: backend))
  }

  // MARK: - Value

  /// The setting's current value: the stored value read as `Value`, or ``defaultValue``.
  ///
  /// Assigning stores the value (`nil` removes the key).
  @inlinable
  public var wrappedValue: Value {
    get { unretainedStorage._withUnsafeGuaranteedRef { $0.read() } }
    nonmutating set { storage.writeReportingFailure(newValue) }
  }

  /// The setting itself, for `$name.key`, `$name.reset()` and the other members below.
  public var projectedValue: Setting<Value> { self }

  // MARK: - Inspecting and changing

  /// The key the setting is stored under: the declared key, or the property's name.
  public var key: String { storage.key }

  /// The value the setting shows while nothing (readable) is stored; for a setting declared with
  /// a computed default (`default: { … }`), the closure's value now.
  public var defaultValue: Value { storage.defaultValue }

  /// Whether the default is computed on each read that falls back to it, rather than fixed when
  /// the setting is declared (`@Setting("key", default: { … })`).
  public var hasComputedDefault: Bool { storage.hasComputedDefault }

  /// The backend the setting reads and writes.
  ///
  /// - Precondition: The setting is attached to a backend (see ``Setting``).
  public var backend: any SettingsBackend { storage.boundBackend }

  /// The value the backend stores for ``key``, unconverted; `nil` if it stores none.
  ///
  /// A launch argument or registration default a `UserDefaultsBackend` reads is not stored (see
  /// ``SettingsBackend/storedValue(forKey:)``).
  public var storedValue: PropertyListValue? { storage.storedValue }

  /// Whether the backend stores a value for ``key`` (a value of the wrong type counts).
  public var hasStoredValue: Bool { storedValue != nil }

  /// Whether the backend enforces the key's value (managed settings on a
  /// `LayeredPlistStore`, see ``ForcingBackend``), so that writes of it are refused: a UI
  /// disables the setting's control, as with `UserDefaults.objectIsForced(forKey:)`.
  ///
  /// `false` on a backend that forces nothing. Thread-safe.
  public var isForced: Bool { storage.isForced }

  /// Stores a value, reporting failure by throwing instead of through diagnostics.
  ///
  /// - Parameter value: The value to store; `nil` (for an optional setting) removes the key.
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` if the value can't be a property list
  ///   or the backend can't store it exactly; whatever else the backend's
  ///   ``SettingsBackend/setValue(_:forKey:)`` throws. Nothing is changed when this throws.
  public func set(_ value: Value) throws(SettingsError) {
    try storage.write(value)
  }

  /// Changes the value from the one stored now, as one step no other write of the key can come
  /// between: a counter, a list appended to.
  ///
  /// `settings.launchCount += 1` is a read and then a write: another thread's or another
  /// process's write made in between is lost. `update` can't lose it:
  ///
  /// ```swift
  /// try settings.$launchCount.update { $0 += 1 }
  /// let recent = try settings.$recentSearches.update { recent in
  ///   recent.append("jazz")
  ///   return recent.count
  /// }
  /// ```
  ///
  /// `body` gets the value stored now, read as a read would (the default when nothing is stored
  /// or the stored value can't be read as `Value` or isn't accepted by the declaration; a stored
  /// value it replaces that way is reported as a ``SettingsDiagnostic`` of kind `typeMismatch` or
  /// `valueNotAllowed`, once the update is done); what it leaves in the value is stored, as ``set(_:)`` stores it (`nil` removes the key of an
  /// optional setting). It mirrors swift-sharing's `Shared.withLock(_:)` and
  /// `Synchronization.Mutex.withLock(_:)`: the value is borrowed `inout` for the length of
  /// `body`, and what `body` returns comes back.
  ///
  /// How it is one step, by backend:
  ///
  /// - **`LayeredPlistStore`** and, on Linux, **``UserDefaultsBackend``**: across processes. It
  ///   takes the file's lock (the lock `save()` takes), reads the file again if another process
  ///   saved it since, calls `body` with the value there, and saves before releasing the lock, so
  ///   two processes each adding one a thousand times leave the counter 2,000 higher. It saves
  ///   this process's other unsaved changes too.
  /// - **``UserDefaultsBackend`` on Apple platforms**: within the process only. The system owns
  ///   the suite's file and offers no lock between processes: a write another process makes
  ///   between the read and the write is lost there.
  /// - **``InMemoryBackend``**, and a backend of your own adopting ``UpdatingBackend``: as its
  ///   ``UpdatingBackend/update(forKey:_:)`` promises. A backend without it: a read, `body` and a
  ///   write as one write through the library, which no other write made through the library
  ///   comes between.
  /// - Through a ``ScopedBackend`` view (a prefix): as on the view's base.
  ///
  /// The change reaches the key's observers once, as a write does.
  ///
  /// - Parameter body: Changes the value in place and returns what the caller wants back. Called
  ///   once, holding the backend's locks (a file lock, on a file store): keep it short, and don't
  ///   read or write settings of the same backend inside it, nor wait for a thread that does.
  /// - Returns: What `body` returned.
  /// - Throws: What `body` throws, as it is; ``SettingsError/Code/valueNotAllowed`` if the
  ///   declaration's range or allowed values refuse the value `body` left;
  ///   ``SettingsError/Code/valueNotRepresentable`` if it can't be a property list or the backend
  ///   can't store it; what the backend's update throws (a forced key, a save that fails, naming
  ///   the key as the setting does). Nothing is changed when this throws.
  ///
  /// Thread-safe: callable from any thread, at the same time as every other use of the setting.
  @discardableResult
  public func update<Result>(
    _ body: (inout Value) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    try storage.update(body)
  }

  /// Removes the stored value, so the setting shows its default again (or, on a layered store, a
  /// value from a lower layer).
  public func reset() {
    storage.reset()
  }
}

extension Setting where Value: ExpressibleByNilLiteral {
  /// Declares an optional setting whose default is `nil`: `@Setting var lastOpened: Date?`,
  /// `@Setting("lastOpened") var lastOpened: Date?`,
  /// `@Setting("refreshToken", secret: true) var refreshToken: String?`.
  ///
  /// See ``init(wrappedValue:_:secret:help:)`` for what a secret setting hides.
  ///
  /// - Parameters:
  ///   - key: The key in the backend; `nil` (the default) uses the property's name.
  ///   - secret: Whether the value is secret; `false` (the default) declares an ordinary setting.
  ///   - help: What the setting does, in a sentence, for people (see ``help``); `nil` for none.
  @inlinable
  public init(_ key: String? = nil, secret: Bool = false, help: String? = nil) {
    self.init(storage: FixedDefaultSettingStorage(key: key, defaultValue: nil, backend: nil))
    if secret || help != nil { declare(secret: secret, help: help) }
  }
}
