import Foundation

/// The shared, reference-typed state behind one ``Setting``: its key, default and backend.
///
/// A `Setting` is a struct (so a model of settings can be a `Sendable` struct) whose only stored
/// property is a reference to one of these, so copies of a model share their settings' binding.
/// The key and backend are filled in once, by the model's initializer walking its properties
/// with `Mirror` (``SettingsReflection``), or given explicitly when the setting is declared.
///
/// ## Reading fast
///
/// On the library's own backends the storage keeps its key's ``ValueCell``, so a read is one
/// lock and one load, with no dictionary lookup. A stored array or dictionary converted to
/// `Value` is cached with the stored value it came from; each read still fetches the current
/// stored value and reuses the conversion only if it is the same value (the same storage, which
/// makes the comparison immediate, or equal contents), so the cache can never serve a value some
/// other writer replaced.
// @unchecked Sendable: `key`, `propertyName`, `backend`, `target`, `targetKey`, `cellBackend`,
// `cell` and `observable` are written only by `bind`, which runs while the owning model is being
// initialized, before the model can be shared with another thread; afterwards they are only read.
// `conversion`, `convertedDefault` and `lastReportedMismatch` are behind `slowLock`.
@usableFromInline
final class SettingStorage<Value: SettingValue>: @unchecked Sendable {
  /// The declared default; `nil` only for a default computed at read time (`makeDefault`).
  @usableFromInline let fixedDefault: Value?
  /// A default computed on each read that falls back to it (`@Setting(default: { … })`).
  @usableFromInline let makeDefault: (@Sendable () -> Value)?
  @usableFromInline let declaredKey: String?
  /// Whether the setting was declared with a backend of its own, which a model doesn't replace.
  @usableFromInline let hasOwnBackend: Bool
  // The binding is written once, before the setting can be shared (see the type's comment), so
  // reading it needs no dynamic exclusivity check, which would cost more than the rest of a read.
  @exclusivity(unchecked) @usableFromInline private(set) var key: String
  @exclusivity(unchecked) @usableFromInline private(set) var backend: (any SettingsBackend)?
  /// Where reads and writes go: `backend`, or the base of a ``ScopedBackend`` view, with
  /// `targetKey` the key there (the view's prefix applied once, at binding).
  @exclusivity(unchecked) @usableFromInline private(set) var target: (any SettingsBackend)?
  @exclusivity(unchecked) @usableFromInline private(set) var targetKey = ""
  @exclusivity(unchecked) @usableFromInline private(set) var cellBackend: (any CellBackend)?
  @exclusivity(unchecked) @usableFromInline private(set) var cell: ValueCell?
  /// `cell`, unretained, for the read path (`cell` keeps it alive): a retain and release of the
  /// cell around every read cost about a quarter of the read.
  @exclusivity(unchecked) @usableFromInline private(set) var readCell: Unmanaged<ValueCell>?
  private(set) var propertyName: String?
  /// The default as a property list, converted the first time it is asked for (descriptors,
  /// imports, exports and registration defaults ask), then kept, behind `slowLock`: converting
  /// it for every setting as it is created cost every model's creation, and converting it on
  /// each call cost every import a conversion per key.
  var defaultPropertyListValue: PropertyListValue? {
    guard let fixedDefault else { return nil }
    slowLock.lock()
    if let cached = convertedDefault {
      slowLock.unlock()
      return cached
    }
    slowLock.unlock()
    let converted = try? fixedDefault.propertyListValue()
    slowLock.lock()
    convertedDefault = .some(converted)
    slowLock.unlock()
    return converted
  }
  /// ``defaultPropertyListValue`` once converted, behind `slowLock`.
  @exclusivity(unchecked) private var convertedDefault: PropertyListValue??
  /// Whether the default is stored as an array or a dictionary, so that values of this setting
  /// are read together with their cached conversion (see ``read()``).
  @usableFromInline let storesContainers: Bool

  /// For a setting without a cell: the last conversion of a stored array or dictionary, behind
  /// `slowLock`. (A setting with a cell keeps it in the cell.)
  @exclusivity(unchecked) private var conversion: ConvertedValue<Value>?
  /// The lock of the slow paths, one of a few shared by all settings: a lock of its own would
  /// cost every setting an allocation, a mutex to set up and one to tear down, about a fifth of
  /// the cost of creating a setting, for paths that run rarely and briefly.
  @usableFromInline var slowLock: NSLock { SlowPathLocks.lock(for: self) }
  /// The last wrong-typed stored value reported, behind `slowLock`.
  @exclusivity(unchecked) private var lastReportedMismatch: PropertyListValue?
  /// Whether writes through the setting must report themselves to the backend's observers:
  /// `true` for a backend that doesn't publish its own changes (one written outside the library).
  @exclusivity(unchecked) @usableFromInline private(set) var reportsWrites = false
  /// Whether the value is secret: left out of diagnostics and errors (see `Setting+Secret.swift`).
  /// Set once, by a secret initializer of ``Setting``, before the setting can be shared.
  @exclusivity(unchecked) private(set) var isSecret = false
  /// The setting's part in Swift's Observation (a ``SettingObservable``), where the platform has
  /// it; taken when the setting is first attached (a setting with no backend can't be read, so
  /// it needs none).
  @exclusivity(unchecked) private(set) var observable: AnyObject?
  /// `observable`, unretained, for the read path: the storage keeps it alive, and a retain and
  /// release around every read would cost more than the rest of the check.
  @exclusivity(unchecked) @usableFromInline private(set) var observablePointer:
    UnsafeMutableRawPointer?
  /// The process's flag saying whether a test's backend override was ever installed
  /// (``BackendOverride``), kept here so that checking it is one load from the storage.
  @usableFromInline let overrideFlag: (any AnyObject & Sendable)? = installedFlag

  @inlinable
  convenience init(key: String?, defaultValue: Value, backend: (any SettingsBackend)?) {
    self.init(key: key, fixedDefault: defaultValue, makeDefault: nil, backend: backend)
  }

  /// A setting whose default is computed on each read that falls back to it. It has no fixed
  /// default to register or describe: `defaultPropertyListValue` is `nil`.
  @inlinable
  convenience init(
    key: String?, makeDefault: @escaping @Sendable () -> Value, backend: (any SettingsBackend)?
  ) {
    self.init(key: key, fixedDefault: nil, makeDefault: makeDefault, backend: backend)
  }

  @inlinable
  init(
    key: String?, fixedDefault: Value?, makeDefault: (@Sendable () -> Value)?,
    backend: (any SettingsBackend)?
  ) {
    self.declaredKey = key
    self.hasOwnBackend = backend != nil
    self.key = key ?? ""
    self.targetKey = key ?? ""
    self.fixedDefault = fixedDefault
    self.makeDefault = makeDefault
    // Inlined into the declaring module, this is specialized for `Value`: converting a scalar
    // default is a few instructions, and no generic metadata is looked up at run time.
    switch try? fixedDefault?.propertyListValue() {
    case .array?, .dictionary?: storesContainers = true
    default: storesContainers = false
    }
    if let backend { attach(ownBackend: backend) }
  }

  /// Attaches a setting declared with a backend of its own (`@Setting(…, backend:)`).
  @usableFromInline
  func attach(ownBackend backend: any SettingsBackend) {
    attach(BackendBinding(backend))
  }

  deinit {
    if let observable { invalidateSettingObservable(observable) }
  }

  /// The value the setting shows while nothing readable is stored: the declared default, or the
  /// computed one, evaluated now.
  @inlinable
  var defaultValue: Value {
    if let makeDefault { return makeDefault() }
    return fixedDefault.unsafelyUnwrapped
  }

  /// Whether the default is computed on each read (`@Setting(default: { … })`).
  var hasComputedDefault: Bool { makeDefault != nil }

  /// Attaches the setting to its model's backend, inferring the key from the property name
  /// unless one was declared. A setting declared with its own backend keeps it.
  func bind(propertyName: String, backend: any SettingsBackend) {
    bind(propertyName: propertyName, key: declaredKey ?? propertyName, to: BackendBinding(backend))
  }

  /// Attaches the setting under a key worked out by its model (its key prefixes applied). A
  /// setting declared with its own backend keeps it, and its declared key.
  func bind(propertyName: String, key: String, to binding: BackendBinding) {
    self.propertyName = propertyName
    guard !hasOwnBackend else { return }
    self.key = key
    attach(binding)
  }

  private func attach(_ binding: BackendBinding) {
    self.backend = binding.backend
    self.target = binding.target
    self.targetKey = binding.targetPrefix.isEmpty ? key : binding.targetPrefix + key
    reportsWrites = binding.reportsWrites
    if observable == nil, let taken = makeSettingObservable() {
      observable = taken
      observablePointer = Unmanaged.passUnretained(taken).toOpaque()
    }
    if let observable {
      bindSettingObservable(observable, backend: binding.target, key: targetKey)
    }
    if let cellBackend = binding.cellBackend {
      self.cellBackend = cellBackend
      self.cell = cellBackend.cell(forKey: targetKey)
      self.readCell = self.cell.map { Unmanaged.passUnretained($0) }
    }
  }

  // MARK: - Reading and writing

  /// The backend reads and writes go to: a test's override (``BackendOverride``) if one is
  /// installed for this task, otherwise the setting's own.
  @inlinable
  var boundBackend: any SettingsBackend {
    if let override = overridingBackend { return overriding(override) }
    if let backend { return backend }
    unbound()
  }

  /// A test's backend as this setting sees it: scoped as the setting's own backend is, so that
  /// what goes through ``Setting/backend`` (imports, observation) uses the keys the setting
  /// reads (`targetKey`).
  @usableFromInline
  func overriding(_ override: any SettingsBackend) -> any SettingsBackend {
    BackendOverride.seen(through: backend, override)
  }

  /// The backend reads and writes go to (see `target`).
  @inlinable
  var boundTarget: any SettingsBackend {
    if let target { return target }
    unbound()
  }

  /// The test's backend that replaces this setting's own in this task (``BackendOverride``), if
  /// any: one relaxed atomic load when no override was ever installed in the process. It takes
  /// the place of the base backend: keys are the full keys (`targetKey`), prefixes included.
  @inlinable
  var overridingBackend: (any SettingsBackend)? {
    BackendOverride.mayBeActive(overrideFlag) ? currentOverride() : nil
  }

  /// The override of this task, for a setting that has a key (an unattached setting declared
  /// without one has none to read).
  @usableFromInline
  func currentOverride() -> (any SettingsBackend)? {
    guard let override = BackendOverride.current, backend != nil || declaredKey != nil else {
      return nil
    }
    return override
  }

  /// What the backend holds for the key, through the key's cell where there is one.
  @inlinable
  var storedValue: PropertyListValue? {
    if let override = overridingBackend { return override.value(forKey: targetKey) }
    if let cellBackend, let cell { return cellBackend.value(in: cell) }
    return boundTarget.value(forKey: targetKey)
  }

  /// The setting's value: the stored value read as `Value`, or the default when nothing is stored
  /// or the stored value can't be read as `Value` (reported once as a diagnostic).
  @inlinable
  func read() -> Value {
    // A test's override bypasses the cells, which belong to the setting's own backend.
    if let override = overridingBackend { return read(from: override) }
    // Inside `withObservationTracking` (or SwiftUI's view updates), the read is recorded.
    if let observablePointer { settingAccessed(observablePointer) }
    if !storesContainers, let cellBackend, let readCell {
      // A scalar: one lock and one load, borrowing the cell. (An optional setting holding an
      // array or dictionary goes on below, to use the conversion cached in the cell.)
      let stored = readCell._withUnsafeGuaranteedRef { cellBackend.value(in: $0) }
      switch stored {
      case nil: return defaultValue
      case .array?, .dictionary?: break
      case let stored?: return converted(stored) ?? defaultValue
      }
    }
    if let cellBackend, let cell {
      // A type stored as an array or dictionary first looks for its conversion of the current
      // value, left in the cell by an earlier read: one lock, no conversion.
      if storesContainers, let conversion = cellBackend.conversion(in: cell),
        type(of: conversion) == ConvertedValue<Value>.self
      {
        return unsafeDowncast(conversion, to: ConvertedValue<Value>.self).value
      }
      guard let stored = cellBackend.value(in: cell) else { return defaultValue }
      guard let value = converted(stored) else { return defaultValue }
      switch stored {
      case .array, .dictionary:
        cellBackend.setConversion(
          ConvertedValue(source: stored, value: value), in: cell, ifValueIs: stored)
      default:
        break
      }
      return value
    }
    return read(from: boundTarget)
  }

  /// The setting's value read through `backend` by its full key (`targetKey`), with no cell: a
  /// backend outside the library, or a test's override. A converted array or dictionary is
  /// cached with its source.
  @usableFromInline
  func read(from backend: any SettingsBackend) -> Value {
    guard let stored = backend.value(forKey: targetKey) else { return defaultValue }
    switch stored {
    case .array, .dictionary:
      if let cached = cachedConversion(of: stored) { return cached }
      guard let value = converted(stored) else { return defaultValue }
      cache(ConvertedValue(source: stored, value: value))
      return value
    default:
      return converted(stored) ?? defaultValue
    }
  }

  @usableFromInline
  func cachedConversion(of stored: PropertyListValue) -> Value? {
    slowLock.lock()
    defer { slowLock.unlock() }
    guard let conversion, conversion.source == stored else { return nil }
    return conversion.value
  }

  @usableFromInline
  func cache(_ conversion: ConvertedValue<Value>) {
    slowLock.lock()
    self.conversion = conversion
    slowLock.unlock()
  }

  /// The stored value as `Value`, or `nil` after reporting why it can't be read.
  @inlinable
  func converted(_ stored: PropertyListValue) -> Value? {
    if let value = Value(propertyListValue: stored) { return value }
    reportMismatch(stored)
    return nil
  }

  /// Stores a value; `nil` (from an `Optional`) removes the key.
  @inlinable
  func write(_ value: Value) throws(SettingsError) {
    let stored: PropertyListValue?
    do {
      stored = try value.propertyListValue()
    } catch {
      throw representationError(error)
    }
    do {
      if let override = overridingBackend {
        try write(stored, to: override)
      } else if let cellBackend, let cell {
        try cellBackend.setValue(stored, in: cell, forKey: targetKey)
      } else {
        try boundTarget.setValue(stored, forKey: targetKey)
        if reportsWrites { reportWrite() }
      }
    } catch {
      throw writeError(error)
    }
  }

  /// Stores a value in a test's backend by key (no cell: cells belong to the setting's own
  /// backend), reporting it to the observers of a backend that doesn't publish its own changes.
  @usableFromInline
  func write(_ stored: PropertyListValue?, to backend: any SettingsBackend) throws(SettingsError) {
    try backend.setValue(stored, forKey: targetKey)
    if !(backend is any PublishesOwnChanges) {
      backend.reportChanges(forKeys: CollectionOfOne(targetKey))
    }
  }

  /// Tells the observers of a backend that doesn't publish its own changes about a write.
  @usableFromInline
  func reportWrite() {
    boundTarget.reportChanges(forKeys: CollectionOfOne(targetKey))
  }

  /// What the setting reads for a stored value: the value as `Value`, or the default when there
  /// is none or it can't be read as `Value` (reported once as a diagnostic).
  func value(from stored: PropertyListValue?) -> Value {
    guard let stored else { return defaultValue }
    return converted(stored) ?? defaultValue
  }

  /// Stores a value from a property setter, which can't throw: a failure is reported as a
  /// ``SettingsDiagnostic`` and the setting keeps its previous value.
  @inlinable
  func writeReportingFailure(_ value: Value) {
    do {
      try write(value)
    } catch {
      reportWriteFailure(error)
    }
  }

  /// Removes the stored value.
  func reset() {
    if let override = overridingBackend {
      override.removeValue(forKey: targetKey)
      if !(override is any PublishesOwnChanges) {
        override.reportChanges(forKeys: CollectionOfOne(targetKey))
      }
      return
    }
    boundTarget.removeValue(forKey: targetKey)
    if reportsWrites { reportWrite() }
  }

  /// Marks the setting secret (see ``isSecret``).
  func markSecret() { isSecret = true }

  // MARK: - Slow paths

  @usableFromInline
  func representationError(_ error: any Error) -> SettingsError {
    // An encoder's message may quote the value: a secret's is withheld.
    let reason =
      isSecret
      ? "The secret value can't be stored as a property list (details withheld)"
      : (error as? SettingsError)?.reason ?? CodingErrors.describe(error)
    return SettingsError(.valueNotRepresentable, key: key, reason: reason)
  }

  /// A backend's refusal of a write, as the setting reports it: naming the key as the setting
  /// knows it (not a scoped view's base key), and for a secret without the backend's reason,
  /// which may quote the value (a dictionary's keys, a string's characters).
  @usableFromInline
  func writeError(_ error: SettingsError) -> SettingsError {
    if isSecret {
      return SettingsError(
        error.code, path: error.path, key: key,
        reason: "The backend refused the secret value (details withheld)")
    }
    return error.naming(key, insteadOf: targetKey)
  }

  @usableFromInline
  func reportMismatch(_ stored: PropertyListValue) {
    slowLock.lock()
    let isNew = lastReportedMismatch.map { !$0.isIdentical(to: stored) } ?? true
    lastReportedMismatch = stored
    slowLock.unlock()
    guard isNew else { return }
    let backend = boundBackend
    // A secret's stored value, reason (which may quote it) and default are left out.
    let why = isSecret ? nil : Value.readFailureReason(for: stored).map { " (\($0))" }
    let shown = isSecret ? "" : " (\(stored))"
    let fallback = isSecret ? "" : " (\(ValueDescription.of(defaultValue)))"
    SettingsDiagnostics.report(
      SettingsDiagnostic(
        kind: .typeMismatch,
        key: key,
        backend: backend.name,
        expectedType: Value.typeName,
        storedValue: isSecret ? nil : stored,
        message: "'\(key)' in \(backend.name) holds \(PropertyListFile.article(stored.kind))"
          + "\(shown) that can't be read as \(Value.typeName)\(why ?? ""); using the default"
          + "\(fallback) and leaving the stored value untouched"
      )
    )
  }

  @usableFromInline
  func reportWriteFailure(_ error: SettingsError) {
    SettingsDiagnostics.report(
      SettingsDiagnostic(
        kind: .writeFailed,
        key: key,
        backend: backend?.name ?? "no backend",
        message: "\(error)"
      )
    )
  }

  @usableFromInline
  func unbound() -> Never {
    let name = propertyName ?? declaredKey.map { "'\($0)'" } ?? "(no key)"
    preconditionFailure(
      "The @Setting \(name) of type \(Value.typeName) is not attached to a backend. Declare it in "
        + "a SettingsModel subclass, in a SettingsGroup created with init(backend:), or with an "
        + "explicit backend: @Setting(\"key\", default: …, backend: …)"
    )
  }
}

/// The locks ``SettingStorage``'s slow paths share: each setting uses the one its address picks.
/// Never held while taking another lock or calling out.
enum SlowPathLocks {
  static let locks = (0..<64).map { _ in NSLock() }

  static func lock(for object: AnyObject) -> NSLock {
    // Objects are at least 16-byte aligned: the low bits carry no information.
    locks[Int((UInt(bitPattern: ObjectIdentifier(object)) >> 4) & 63)]
  }
}
