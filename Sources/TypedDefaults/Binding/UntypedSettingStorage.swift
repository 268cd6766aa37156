import Foundation

/// The part of a setting's storage that doesn't depend on its value type: its key, its binding
/// to a backend, its cell and its part in Observation.
///
/// ``SettingStorage`` adds the default and the conversions. Keeping this part out of the generic
/// class lets a model bind its settings without knowing their types (it reads each storage
/// reference at its offset in the instance, see ``SettingsReflection``), and gives its fields
/// offsets fixed at compile time, which the read path loads directly.
// @unchecked Sendable: `key`, `binding`, `targetKey`, `cellBackend`, `readCell`, `reportsWrites`,
// `isSecret`, `annotations` and `observablePointer` are written only while the setting is declared
// or bound, which happens while the owning model is being initialized, before the model can be shared with
// another thread; afterwards they are only read. A setting is bound by one model only: a second
// model reaching it (through a shared group value) stops the program before writing them
// (`SettingsValidation.checkBindingOnce`). `slowState` is behind `slowLock`.
@usableFromInline
package class UntypedSettingStorage: @unchecked Sendable {
  /// The key given in the declaration (`@Setting("volume")`), if any.
  @usableFromInline let declaredKey: String?
  /// Whether the setting was declared with a backend of its own, which a model doesn't replace.
  @usableFromInline let hasOwnBackend: Bool
  /// Whether the default is stored as an array or a dictionary, so that values of this setting
  /// are read together with their cached conversion (``SettingStorage/read()``).
  @usableFromInline let storesContainers: Bool
  // The binding is written once, before the setting can be shared (see the type's comment), so
  // reading it needs no dynamic exclusivity check, which would cost more than the rest of a read.
  @exclusivity(unchecked) @usableFromInline private(set) final var key: String
  /// What the setting shares with the other settings of its model once bound: the backend, the
  /// view's base reads and writes go to (``BackendBinding/target``), and the settings' parts in
  /// Observation.
  ///
  /// It keeps the backend, and with it the cell, alive.
  @exclusivity(unchecked) @usableFromInline private(set) final var binding: BackendBinding?
  /// The key in `binding.target`: `key`, with a ``ScopedBackend`` view's prefix applied once, at
  /// binding.
  @exclusivity(unchecked) @usableFromInline private(set) final var targetKey: String
  /// `binding.cellBackend`, unretained, for the read path (`binding` keeps it alive).
  @exclusivity(unchecked) @usableFromInline unowned(unsafe) private(set) final var cellBackend:
    (any CellBackend)?
  /// The key's cell in `cellBackend`, unretained: the backend never removes a cell, and `binding`
  /// keeps the backend alive.
  ///
  /// A retain and release of the cell around every read cost about a quarter of the read.
  @exclusivity(unchecked) @usableFromInline private(set) final var readCell: Unmanaged<ValueCell>?
  /// Whether writes through the setting must report themselves to the backend's observers:
  /// `true` for a backend that doesn't publish its own changes (one written outside the library).
  @exclusivity(unchecked) @usableFromInline private(set) final var reportsWrites = false
  /// Whether the value is secret: left out of diagnostics and errors (see `Setting+Secret.swift`).
  ///
  /// Set once, by a secret initializer of ``Setting``, before the setting can be shared.
  @exclusivity(unchecked) private(set) final var isSecret = false
  /// The declaration's help text and accepted values, `nil` for a setting declared without them.
  ///
  /// Set once, by an initializer of ``Setting`` that takes them, before the setting can be shared.
  @exclusivity(unchecked) @usableFromInline private(set) final var annotations: SettingAnnotations?
  /// The setting's part in Swift's Observation (a ``SettingObservable``), unretained, for the
  /// read path: `binding` keeps it alive; `nil` until the setting is attached (a setting with no
  /// backend can't be read) and where the platform has no Observation.
  @exclusivity(unchecked) @usableFromInline private(set) final var observablePointer:
    UnsafeMutableRawPointer?
  /// The process's flag saying whether a test's backend override was ever installed
  /// (``BackendOverride``), kept here so that checking it is one load from the storage;
  /// unretained, as the flag lives as long as the process.
  @usableFromInline unowned(unsafe) let overrideFlag: (any AnyObject & Sendable)? = installedFlag
  /// What only the slow paths use, created when first needed, behind `slowLock`: most settings
  /// never need it, and one field costs each setting less to create and release than three.
  @exclusivity(unchecked) private final var slowState: SlowPathState?

  @usableFromInline
  init(key: String?, storesContainers: Bool, hasOwnBackend: Bool) {
    self.declaredKey = key
    self.hasOwnBackend = hasOwnBackend
    self.storesContainers = storesContainers
    self.key = key ?? ""
    self.targetKey = key ?? ""
  }

  /// The name of the setting's value type, for messages (``SettingStorage`` overrides it).
  var valueTypeName: String { "" }

  /// The backend as the model was given it (a view, possibly), once bound.
  @inlinable final var backend: (any SettingsBackend)? { binding?.backend }

  /// Where reads and writes go: `backend`, or the base of a ``ScopedBackend`` view.
  @inlinable final var target: (any SettingsBackend)? { binding?.target }

  /// `binding`, unretained, for the read path (`self` keeps it alive until it is replaced, which
  /// happens only at binding, before any read).
  @inlinable final var unretainedBinding: Unmanaged<BackendBinding>? {
    binding.map { .passUnretained($0) }
  }

  /// The key's cell, for a backend that keeps cells.
  @inlinable final var cell: ValueCell? { readCell?.takeUnretainedValue() }

  /// The lock of the slow paths, one of a few shared by all settings: a lock of its own would
  /// cost every setting an allocation, a mutex to set up and one to tear down, about a fifth of
  /// the cost of creating a setting, for paths that run rarely and briefly.
  @usableFromInline final var slowLock: NSLock { SlowPathLocks.lock(for: self) }

  /// Runs `body` on the slow paths' state, created if needed, under `slowLock`.
  @usableFromInline
  final func withSlowState<Result>(_ body: (SlowPathState) -> Result) -> Result {
    slowLock.lock()
    defer { slowLock.unlock() }
    let state: SlowPathState
    if let existing = slowState {
      state = existing
    } else {
      state = SlowPathState()
      slowState = state
    }
    return body(state)
  }

  /// Marks the setting secret (see ``isSecret``).
  final func markSecret() { isSecret = true }

  /// Records the declaration's help text and accepted values (see ``annotations``).
  final func annotate(_ annotations: SettingAnnotations) { self.annotations = annotations }

  // MARK: - Binding

  /// Attaches a setting declared with a backend of its own (`@Setting(…, backend:)`).
  @usableFromInline
  final func attach(ownBackend backend: any SettingsBackend) {
    attachAlone(to: BackendBinding(backend))
  }

  /// Attaches the setting under a key worked out by its model (its key prefixes applied), with
  /// what its model's binding prepared for it.
  ///
  /// A setting declared with its own backend keeps it, and its declared key.
  ///
  /// The cell and the observable come unretained, as the setting keeps them: the backend keeps
  /// the one and `binding` the other.
  ///
  /// - Parameters:
  ///   - key: The full key.
  ///   - targetKey: `key` in `binding.target` (``BackendBinding/targetKey(for:)``).
  ///   - cell: The cell of `targetKey`, where the target keeps cells.
  ///   - observable: The setting's part in Observation, prepared for `targetKey`.
  ///   - binding: The model's binding.
  final func bind(
    key: String, targetKey: String, cell: Unmanaged<ValueCell>?,
    observable: Unmanaged<AnyObject>?, to binding: BackendBinding
  ) {
    guard !hasOwnBackend else { return }
    self.key = key
    attach(binding, targetKey: targetKey, cell: cell, observable: observable)
  }

  /// Attaches the setting under `key` to a binding of its own.
  private final func attachAlone(to binding: BackendBinding) {
    let targetKey = binding.targetKey(for: key)
    let observable = binding.takeObservables(count: 1)?.first
    if let observable {
      prepareSettingObservable(observable, binding: binding, key: targetKey)
    }
    let cell = binding.cellBackend?.cell(forKey: targetKey)
    attach(
      binding, targetKey: targetKey, cell: cell.map { .passUnretained($0) },
      observable: observable.map { .passUnretained($0) })
  }

  private final func attach(
    _ binding: BackendBinding, targetKey: String, cell: Unmanaged<ValueCell>?,
    observable: Unmanaged<AnyObject>?
  ) {
    self.binding = binding
    self.targetKey = targetKey
    reportsWrites = binding.reportsWrites
    observablePointer = observable?.toOpaque()
    cellBackend = cell == nil ? nil : binding.cellBackend
    readCell = cell
  }

  // MARK: - The backend reads and writes go to

  /// The backend reads and writes go to: a test's override (``BackendOverride``) if one is
  /// installed for this task, otherwise the setting's own.
  @inlinable
  final var boundBackend: any SettingsBackend {
    if let override = overridingBackend { return overriding(override) }
    if let backend { return backend }
    unbound()
  }

  /// A test's backend as this setting sees it: scoped as the setting's own backend is, so that
  /// what goes through ``Setting/backend`` (imports, observation) uses the keys the setting
  /// reads (`targetKey`).
  @usableFromInline
  final func overriding(_ override: any SettingsBackend) -> any SettingsBackend {
    BackendOverride.seen(through: backend, override)
  }

  /// The backend reads and writes go to (see `target`).
  @inlinable
  final var boundTarget: any SettingsBackend {
    if let target { return target }
    unbound()
  }

  /// Whether the backend forces the key (``ForcingBackend/isForced(forKey:)``): `false` on a
  /// backend that forces nothing.
  final var isForced: Bool {
    let backend = overridingBackend ?? boundTarget
    return (backend as? any ForcingBackend)?.isForced(forKey: targetKey) ?? false
  }

  /// Whether the value a read returns comes from a layer holding secrets (a Secret mount), so
  /// that a report of it leaves the value out even for a setting not declared secret.
  final var valueIsFromSecretLayer: Bool {
    let backend = overridingBackend ?? boundTarget
    return (backend as? any HasSecretLayers)?.holdsSecretValue(forKey: targetKey) ?? false
  }

  /// Whether a description, an export or a report of the setting withholds its value.
  ///
  /// It was declared secret, or its value comes from a layer holding secrets. Call it once bound.
  final var hidesValue: Bool { isSecret || valueIsFromSecretLayer }

  /// The test's backend that replaces this setting's own in this task (``BackendOverride``), if
  /// any: one relaxed atomic load when no override was ever installed in the process.
  ///
  /// It takes the place of the base backend: keys are the full keys (`targetKey`), prefixes
  /// included.
  @inlinable
  final var overridingBackend: (any SettingsBackend)? {
    BackendOverride.mayBeActive(overrideFlag) ? currentOverride() : nil
  }

  /// Records a read through a test's backend for Swift Observation, so that tracking follows
  /// the backend the setting reads in this task (see ``OverrideTracking``).
  ///
  /// Costs a lock or two on each read inside a test's scope; never called outside one.
  @usableFromInline
  final func accessed(through override: any SettingsBackend) {
    let tracking = withSlowState { state -> AnyObject? in
      if state.overrideTracking == nil { state.overrideTracking = makeOverrideTracking() }
      return state.overrideTracking
    }
    if let tracking { settingAccessed(through: override, key: targetKey, tracking: tracking) }
  }

  /// The override of this task, for a setting that has a key (an unattached setting declared
  /// without one has none to read).
  @usableFromInline
  final func currentOverride() -> (any SettingsBackend)? {
    guard let override = BackendOverride.current, backend != nil || declaredKey != nil else {
      return nil
    }
    return override
  }

  @usableFromInline
  final func unbound() -> Never {
    let name = declaredKey.map { "'\($0)'" } ?? "(no key)"
    // `fatalError`, not `preconditionFailure`: `-O` keeps only its message.
    fatalError(
      "The @Setting \(name) of type \(valueTypeName) is not attached to a backend. Declare it in "
        + "a SettingsModel subclass, in a SettingsGroup created with init(backend:), or with an "
        + "explicit backend: @Setting(\"key\", default: …, backend: …)"
    )
  }
}

/// What a setting's slow paths keep, behind its `slowLock` (see
/// ``UntypedSettingStorage/withSlowState(_:)``).
// @unchecked Sendable: every field is read and written only under the owning setting's
// `slowLock`.
@usableFromInline
final class SlowPathState: @unchecked Sendable {
  /// The default as a property list, once converted (``SettingStorage/defaultPropertyListValue``).
  var convertedDefault: PropertyListValue??
  /// For a setting without a cell: the last conversion of a stored array or dictionary (a
  /// ``ConvertedValue`` of the setting's type).
  ///
  /// A setting with a cell keeps it in the cell.
  var conversion: AnyObject?
  /// The last wrong-typed stored value reported.
  var lastReportedMismatch: PropertyListValue?
  /// The setting's parts in Swift Observation for the tests' backends it was read through (an
  /// ``OverrideTracking``), created at the first such read.
  var overrideTracking: AnyObject?

  init() {}
}

/// The locks ``UntypedSettingStorage``'s slow paths share: each setting uses the one its address picks.
///
/// Never held while taking another lock or calling out.
enum SlowPathLocks {
  static let locks = (0..<64).map { _ in NSLock() }

  static func lock(for object: AnyObject) -> NSLock {
    // Objects are at least 16-byte aligned: the low bits carry no information.
    locks[Int((UInt(bitPattern: ObjectIdentifier(object)) >> 4) & 63)]
  }
}
