import Foundation

/// The shared, reference-typed state behind one ``Setting``: its key, default and backend.
///
/// A `Setting` is a struct (so a model of settings can be a `Sendable` struct) whose only stored
/// property is a reference to one of these, so copies of a model share their settings' binding.
/// The key and backend are filled in once, by the model's initializer reading its settings at the
/// offsets its type's ``ReflectionPlan`` recorded (``SettingsReflection``; `Mirror` where the
/// stdlib's field reflection can't describe the type), or given explicitly when the setting is
/// declared. A storage is bound by one model only (``SettingsValidation`` stops the program when a
/// second model would re-bind it, see `Validation/SettingsValidation+BindingOnce.swift`).
///
/// ## Reading fast
///
/// On the library's own backends the storage keeps its key's ``ValueCell``, so a read needs no
/// dictionary lookup: a `Bool`, integer or `Double` is two atomic loads and no lock
/// (``ScalarValueCell``), anything else one lock and one load. A stored array or dictionary
/// converted to `Value` is cached with the stored value it came from; each read still fetches the
/// current stored value and reuses the conversion only if it is the same value (the same storage,
/// which makes the comparison immediate, or equal contents), so the cache can never serve a value
/// some other writer replaced.
///
/// What doesn't depend on `Value` (the key, the binding, the cell) is in the non-generic base
/// class, ``UntypedSettingStorage``, which a model's binding works with directly.
// @unchecked Sendable: `makeDefault` is immutable; the rest is the base class's.
//
// Not `final` only for ``FixedDefaultSettingStorage``, which holds a fixed default (every member
// here is `final`): a stored `Value?` would make every setting's deinit look up the metadata of
// `Optional<Value>` in the runtime's cache, about a third of the cost of releasing a setting.
@usableFromInline
class SettingStorage<Value: SettingValue>: UntypedSettingStorage, @unchecked Sendable {
  /// The declared default; `nil` only for a default computed at read time (`makeDefault`).
  @usableFromInline final var fixedDefault: Value? {
    makeDefault == nil
      ? unsafeDowncast(self, to: FixedDefaultSettingStorage<Value>.self).value : nil
  }
  /// A default computed on each read that falls back to it (`@Setting(default: { … })`).
  @usableFromInline let makeDefault: (@Sendable () -> Value)?
  /// The default as a property list, converted the first time it is asked for (descriptors,
  /// imports, exports and registration defaults ask), then kept, behind `slowLock`: converting
  /// it for every setting as it is created cost every model's creation, and converting it on
  /// each call cost every import a conversion per key.
  final var defaultPropertyListValue: PropertyListValue? {
    guard let fixedDefault else { return nil }
    if let cached = withSlowState({ $0.convertedDefault }) { return cached }
    let converted = try? fixedDefault.propertyListValue()
    withSlowState { $0.convertedDefault = .some(converted) }
    return converted
  }

  /// A setting whose default is computed on each read that falls back to it.
  ///
  /// It has no fixed default to register or describe: `defaultPropertyListValue` is `nil`.
  @inlinable
  convenience init(
    key: String?, makeDefault: @escaping @Sendable () -> Value, backend: (any SettingsBackend)?
  ) {
    self.init(key: key, makeDefault: makeDefault, storesContainers: false, backend: backend)
  }

  /// The designated initializer: ``FixedDefaultSettingStorage`` passes `makeDefault` `nil`.
  @inlinable
  init(
    key: String?, makeDefault: (@Sendable () -> Value)?, storesContainers: Bool,
    backend: (any SettingsBackend)?
  ) {
    self.makeDefault = makeDefault
    super.init(key: key, storesContainers: storesContainers, hasOwnBackend: backend != nil)
    if let backend { attach(ownBackend: backend) }
  }

  /// The value the setting shows while nothing readable is stored: the declared default, or the
  /// computed one, evaluated now.
  @inlinable
  final var defaultValue: Value {
    if let makeDefault { return makeDefault() }
    return unsafeDowncast(self, to: FixedDefaultSettingStorage<Value>.self).value
  }

  /// Whether the default is computed on each read (`@Setting(default: { … })`).
  final var hasComputedDefault: Bool { makeDefault != nil }

  /// The name of the setting's type, for messages.
  override final var valueTypeName: String { Value.typeName }

  // MARK: - Reading and writing

  /// What the backend stores for the key (``SettingsBackend/storedValue(forKey:)``), through
  /// the key's cell where there is one.
  @inlinable
  final var storedValue: PropertyListValue? {
    if let override = overridingBackend { return override.storedValue(forKey: targetKey) }
    if let cellBackend, let cell { return cellBackend.storedValue(in: cell, forKey: targetKey) }
    return boundTarget.storedValue(forKey: targetKey)
  }

  /// The setting's value: the stored value read as `Value`, or the default when nothing is stored
  /// or the stored value can't be read as `Value` (reported once as a diagnostic).
  ///
  /// A scalar on the library's own backends is read from its cell's atomic words, with no lock
  /// (``ScalarValueCell``); everything else is read out of line (``readUnderLock()``), so that
  /// what is inlined into the caller is only the fast path.
  @inlinable
  final func read() -> Value {
    // A test's override bypasses the cells, which belong to the setting's own backend.
    if let override = overridingBackend { return read(overriding: override) }
    // Inside `withObservationTracking` (or SwiftUI's view updates), the read is recorded.
    if let observablePointer { settingAccessed(observablePointer) }
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *),
      !storesContainers, let readCell
    {
      // No reference to the backend is taken (binding `cellBackend` would retain and release it),
      // and the cell is borrowed.
      let published = readCell._withUnsafeGuaranteedRef {
        unsafeDowncast($0, to: ScalarValueCell.self).published()
      }
      // Each case converts a value whose kind the compiler sees, so that the type's conversion,
      // inlined, is reduced to that kind's few instructions.
      if let (kind, bits) = published {
        switch kind {
        case ScalarKind.absent.rawValue: return defaultValue
        case ScalarKind.bool.rawValue: return convertedScalar(.bool(bits != 0))
        case ScalarKind.integer.rawValue:
          return convertedScalar(.integer(.init(Int64(bitPattern: bits))))
        case ScalarKind.unsignedInteger.rawValue:
          return convertedScalar(.integer(.init(bits)))
        case ScalarKind.real.rawValue:
          return convertedScalar(.real(Double(bitPattern: bits)))
        default: break  // another kind of value: under the lock
        }
      }
    }
    return readUnderLock()
  }

  /// ``read()`` through the test's backend that replaces the setting's own in this task
  /// (``BackendOverride``); Observation's tracking follows it.
  @inlinable @inline(never)
  final func read(overriding override: any SettingsBackend) -> Value {
    accessed(through: override)
    return read(from: override)
  }

  /// ``read()`` of what isn't published in atomic words: the conversion of the current value an
  /// earlier read left in the key's cell, read without a lock where the cell publishes it
  /// (``ScalarValueCell/withPublishedConversion(_:)``) and under the backend's lock elsewhere;
  /// else the value read under the lock and converted, its conversion left in the cell for the
  /// next read; or, from a backend without cells, the value read by key.
  ///
  /// A cell's conversion is shared by the settings of the key, so a setting declared with a range
  /// or allowed values, which may refuse what another setting of the key reads, neither uses nor
  /// leaves one: it converts under the lock on every read.
  ///
  /// Observation has already been told of the read.
  @inlinable @inline(never)
  final func readUnderLock() -> Value {
    let sharesConversions = annotations?.accepts == nil
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *),
      sharesConversions, let readCell,
      let value = readCell._withUnsafeGuaranteedRef({
        unsafeDowncast($0, to: ScalarValueCell.self).withPublishedConversion { object -> Value? in
          guard type(of: object) == ConvertedValue<Value>.self else { return nil }
          return unsafeDowncast(object, to: ConvertedValue<Value>.self).value
        }
      })
    {
      return value
    }
    guard let cellBackend, let cell else {
      // The backend borrowed from the binding, not retained: a backend other code holds weakly
      // (`UserDefaultsBackend`'s suite does) keeps its count in a side table, whose retain and
      // release cost a `UserDefaultsBackend` read about 75 ns of its 2 µs on Linux.
      guard let binding = unretainedBinding else { unbound() }
      return binding._withUnsafeGuaranteedRef { readByKey(from: $0.target) }
    }
    if sharesConversions, let conversion = cellBackend.conversion(in: cell),
      type(of: conversion) == ConvertedValue<Value>.self
    {
      return unsafeDowncast(conversion, to: ConvertedValue<Value>.self).value
    }
    guard let stored = cellBackend.value(in: cell) else { return defaultValue }
    guard let value = converted(stored) else { return defaultValue }
    switch stored {
    case _ where !sharesConversions || !Self.conversionIsAValue, .bool, .integer, .real:
      // Not kept: a conversion this setting mustn't share or hand out twice, or a scalar (read
      // from the cell's atomic words).
      break
    default:
      cellBackend.setConversion(
        ConvertedValue(source: stored, value: value), in: cell, ifValueIs: stored)
    }
    return value
  }

  /// Whether a conversion of a stored value to `Value` may be kept and handed to every read: not
  /// for a class, or a value holding an object the reader may change (``Archived``, which also
  /// decodes anew so that a change of `NSKeyedUnarchiver`'s class mapping is obeyed), whose reads
  /// must each get an object of their own.
  @usableFromInline
  static var conversionIsAValue: Bool {
    var type: Any.Type = Value.self
    while let optional = type as? any OptionalProtocol.Type { type = optional.wrappedType }
    return !(type is AnyObject.Type) && !(type is any ConvertsAnew.Type)
  }

  /// The setting's value read through `backend` by its full key (`targetKey`), with no cell: a
  /// backend outside the library, or `UserDefaultsBackend` without the owner's promise.
  ///
  /// A converted array or dictionary is cached with its source. Inlinable, so that the caller's
  /// specialization converts: an unspecialized conversion asks the runtime for generic metadata
  /// on every read, about 80 ns of a `UserDefaultsBackend` read's 2 µs on Linux.
  @inlinable
  final func readByKey(from backend: any SettingsBackend) -> Value {
    guard let stored = backend.value(forKey: targetKey) else { return defaultValue }
    switch stored {
    case .array, .dictionary: return convertedCachingContainer(stored)
    default: return converted(stored) ?? defaultValue
    }
  }

  /// ``readByKey(from:)`` out of line, for a test's override (``BackendOverride``).
  @usableFromInline
  final func read(from backend: any SettingsBackend) -> Value { readByKey(from: backend) }

  /// An array or dictionary read by key as `Value`, or the default: its conversion is cached with
  /// its source, for a `Value` whose conversion may be handed out twice.
  @usableFromInline
  final func convertedCachingContainer(_ stored: PropertyListValue) -> Value {
    guard Self.conversionIsAValue else { return converted(stored) ?? defaultValue }
    if let cached = cachedConversion(of: stored) { return cached }
    guard let value = converted(stored) else { return defaultValue }
    cache(ConvertedValue(source: stored, value: value))
    return value
  }

  @usableFromInline
  final func cachedConversion(of stored: PropertyListValue) -> Value? {
    withSlowState { state -> Value? in
      guard let conversion = state.conversion as? ConvertedValue<Value>,
        conversion.source == stored
      else { return nil }
      return conversion.value
    }
  }

  @usableFromInline
  final func cache(_ conversion: ConvertedValue<Value>) {
    withSlowState { $0.conversion = conversion }
  }

  /// A scalar read from a cell's words as `Value`, or the default: the conversion of a setting
  /// with no range or allowed values is inlined into the read (for a `Double` read of a real, a
  /// move), everything else goes out of line.
  @inlinable @inline(__always)
  final func convertedScalar(_ stored: PropertyListValue) -> Value {
    if annotations == nil, let value = Value(propertyListValue: stored) { return value }
    return convertedOrDefault(stored)
  }

  /// ``converted(_:)``, or the default: a scalar read's way out of line.
  @usableFromInline @inline(never)
  final func convertedOrDefault(_ stored: PropertyListValue) -> Value {
    converted(stored) ?? defaultValue
  }

  /// The stored value as `Value`, or `nil` after reporting why it can't be read.
  @inlinable
  final func converted(_ stored: PropertyListValue) -> Value? {
    if let value = Value(propertyListValue: stored) {
      // A setting declared with a range or allowed values checks them out of line.
      if annotations != nil { return accepted(value, stored: stored) }
      return value
    }
    reportMismatch(stored)
    return nil
  }

  /// `value` if the declaration accepts it; else `nil`, reporting the stored value once, as a
  /// wrong-typed one is.
  @usableFromInline @inline(never)
  final func accepted(_ value: Value, stored: PropertyListValue) -> Value? {
    guard let annotations, let accepts = annotations.accepts, !accepts(value) else { return value }
    // A range declared with `clamping: true` reads a value outside it as the nearest bound.
    if let clamped = clamped(value, by: annotations), accepts(clamped) { return clamped }
    reportMismatch(stored, notAllowed: annotations)
    return nil
  }

  /// `value` clamped into the declared range, or `nil` if the declaration doesn't clamp.
  final func clamped(_ value: Value, by annotations: SettingAnnotations) -> Value? {
    annotations.clamp.flatMap { $0(value) as? Value }
  }

  /// The value a write stores: `value`, or, outside a range declared with `clamping: true`, the
  /// nearest bound.
  @usableFromInline
  final func clampedIfDeclared(_ value: Value) -> Value {
    guard let annotations, let accepts = annotations.accepts, !accepts(value),
      let clamped = clamped(value, by: annotations)
    else { return value }
    return clamped
  }

  /// The error of a write of a value the declaration doesn't accept, or `nil` if it accepts it.
  @usableFromInline
  final func refusal(of value: Value, stored: PropertyListValue?) -> SettingsError? {
    guard let annotations, let accepts = annotations.accepts, let stored, !accepts(value) else {
      return nil
    }
    let help = annotations.help.map { " (\($0))" } ?? ""
    return SettingsError(
      .valueNotAllowed, key: key,
      reason: Self.constraintProblem(with: stored, annotations, isSecret: isSecret) + help
        + annotations.declaredAt)
  }

  /// Why the declaration refuses `stored`, in the `settings` tool's words.
  ///
  /// One function for a refused write and a refused stored value; a secret's value and allowed
  /// values are never shown. The typed check can refuse what the stored form's doesn't (a
  /// `Float` near a bound).
  static func constraintProblem(
    with stored: PropertyListValue, _ annotations: SettingAnnotations, isSecret: Bool
  ) -> String {
    SettingSchema.constraintProblem(
      with: stored, allowedValues: annotations.allowedValues, minimum: annotations.minimum,
      maximum: annotations.maximum, isSecret: isSecret)
      ?? "\(isSecret ? "the secret value" : ValueDescription.of(stored)) is not "
      + annotations.constraintDescription(isSecret: isSecret)
  }

  /// `value` as the backend stores it (`nil` for an `Optional`'s `nil`: the key is removed),
  /// once the declaration accepts it (clamped first, where the declaration clamps).
  ///
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` if it can't be a property list;
  ///   ``SettingsError/Code/valueNotAllowed`` if the declaration's range or allowed values refuse
  ///   it.
  @inlinable
  final func storable(_ value: Value) throws(SettingsError) -> PropertyListValue? {
    // A range declared with `clamping: true` stores the nearest bound of a value outside it.
    let value = annotations == nil ? value : clampedIfDeclared(value)
    let stored: PropertyListValue?
    do {
      stored = try value.propertyListValue()
    } catch {
      throw representationError(error)
    }
    if annotations != nil, let refusal = refusal(of: value, stored: stored) { throw refusal }
    return stored
  }

  /// Stores a value; `nil` (from an `Optional`) removes the key.
  @inlinable
  final func write(_ value: Value) throws(SettingsError) {
    let stored = try storable(value)
    do {
      if let override = overridingBackend {
        try write(stored, to: override)
      } else if let cellBackend, let readCell {
        try write(stored, in: readCell, of: cellBackend)
      } else if reportsWrites {
        try write(stored, to: boundTarget)
      } else {
        try boundTarget.setValue(stored, forKey: targetKey)
      }
    } catch {
      throw writeError(error)
    }
  }

  /// Stores a value in the key's cell, which is borrowed: `binding` keeps the backend alive, and
  /// the backend its cells, so a retain and release of the cell around the write would buy
  /// nothing (they were one of the few costs of a write besides its locks).
  @inlinable @inline(__always)
  final func write(
    _ stored: PropertyListValue?, in cell: Unmanaged<ValueCell>, of backend: any CellBackend
  ) throws(SettingsError) {
    // `_withUnsafeGuaranteedRef` rethrows untyped errors: the backend's is carried out instead.
    var failure: SettingsError?
    cell._withUnsafeGuaranteedRef { cell in
      do throws(SettingsError) {
        try backend.setValue(stored, in: cell, forKey: targetKey)
      } catch {
        failure = error
      }
    }
    if let failure { throw failure }
  }

  /// Stores a value by key (no cell: a test's backend, or one without cells), reporting it to
  /// the observers of a backend that doesn't publish its own changes, in the order racing writes
  /// take effect (``ObservationCenter/writing(_:to:_:)``).
  @usableFromInline
  final func write(
    _ stored: PropertyListValue?, to backend: any SettingsBackend
  ) throws(SettingsError) {
    try ObservationCenter.writing(CollectionOfOne(targetKey), to: backend) {
      () throws(SettingsError) in
      try backend.setValue(stored, forKey: targetKey)
    }
  }

  /// What the setting reads for a stored value: the value as `Value`, or the default when there
  /// is none or it can't be read as `Value` (reported once as a diagnostic).
  final func value(from stored: PropertyListValue?) -> Value {
    guard let stored else { return defaultValue }
    return converted(stored) ?? defaultValue
  }

  /// Stores a value from a property setter, which can't throw: a failure is reported as a
  /// ``SettingsDiagnostic`` and the setting keeps its previous value.
  @inlinable
  final func writeReportingFailure(_ value: Value) {
    do {
      try write(value)
    } catch {
      reportWriteFailure(error)
    }
  }

  /// Removes the stored value.
  final func reset() {
    let backend = overridingBackend ?? boundTarget
    ObservationCenter.writing(CollectionOfOne(targetKey), to: backend) {
      backend.removeValue(forKey: targetKey)
    }
  }

  // MARK: - Slow paths

  @usableFromInline
  final func representationError(_ error: any Error) -> SettingsError {
    // An encoder's message may quote the value: a secret's is withheld.
    let reason =
      isSecret
      ? "The secret value can't be stored as a property list (details withheld)"
      : (error as? SettingsError)?.reason ?? CodingErrors.describe(error)
    return SettingsError(.valueNotRepresentable, key: key, reason: reason)
  }

  /// A backend's refusal of a write, as the setting reports it: naming the key as the setting
  /// knows it (not a scoped view's base key), and for a secret without the backend's reason,
  /// which may quote the value (a dictionary's keys, a string's characters), but still naming
  /// the key, which is no secret (a file too large to save says which key's value made it so).
  @usableFromInline
  final func writeError(_ error: SettingsError) -> SettingsError {
    if isSecret {
      return SettingsError(
        error.code, path: error.path, key: key,
        reason: "The backend refused the secret value of '\(key)' (details withheld)")
    }
    return error.naming(key, insteadOf: targetKey)
  }

  @usableFromInline
  final func reportMismatch(
    _ stored: PropertyListValue, notAllowed: SettingAnnotations? = nil,
    replacedByUpdate: Bool = false
  ) {
    let isNew = withSlowState { state -> Bool in
      defer { state.lastReportedMismatch = stored }
      return state.lastReportedMismatch.map { !$0.isIdentical(to: stored) } ?? true
    }
    // A diagnostics scope (a test capturing them) keeps its own "once until it changes", so
    // reads in other scopes (parallel tests sharing the model) neither hide nor repeat a report
    // in it. (The value's hash, not its text: it may be a secret's, and large.) A value an
    // update replaced is reported whether or not a read reported it: it is gone now.
    let isNewInScope = SettingsDiagnostics.isNewValueInScope(
      stored.hashValue, for: "typeMismatch \(UInt(bitPattern: ObjectIdentifier(self)))")
    guard replacedByUpdate || (isNewInScope ?? isNew) else { return }
    let backend = boundBackend
    // A secret's stored value, reason (which may quote it) and default are left out; so is a
    // value from a layer holding secrets (a Secret mount), whatever the setting declares.
    let isSecret = isSecret || valueIsFromSecretLayer
    let why = isSecret ? nil : Value.readFailureReason(for: stored).map { " (\($0))" }
    let shown = isSecret ? "" : " (\(stored))"
    let fallback = isSecret ? "" : " (\(ValueDescription.of(defaultValue)))"
    let problem =
      notAllowed.map { ": " + Self.constraintProblem(with: stored, $0, isSecret: isSecret) }
      ?? " that can't be read as \(Value.typeName)\(why ?? "")"
    SettingsDiagnostics.report(
      SettingsDiagnostic(
        kind: notAllowed == nil ? .typeMismatch : .valueNotAllowed,
        key: key,
        backend: backend.name,
        expectedType: Value.typeName,
        storedValue: isSecret ? nil : stored,
        message: "'\(key)' in \(backend.name) holds \(PropertyListFile.article(stored.kind))"
          + "\(shown)\(problem); "
          + (replacedByUpdate
            ? "the update started from the default\(fallback) and replaced it"
            : "using the default\(fallback) and leaving the stored value untouched")
          + (notAllowed?.declaredAt ?? annotations?.declaredAt ?? "")
      )
    )
  }

  @usableFromInline
  final func reportWriteFailure(_ error: SettingsError) {
    SettingsDiagnostics.report(
      SettingsDiagnostic(
        kind: .writeFailed,
        key: key,
        backend: backend?.name ?? "no backend",
        message: "\(error)"
      )
    )
  }
}

/// The storage of a setting with a fixed default, the common case: the default is a stored
/// `Value`, whose destruction needs no metadata lookup (see ``SettingStorage``).
// @unchecked Sendable: `value` is immutable; the rest is the base class's.
@usableFromInline
final class FixedDefaultSettingStorage<Value: SettingValue>: SettingStorage<Value>,
  @unchecked Sendable
{
  /// The declared default.
  @usableFromInline let value: Value

  @inlinable
  init(key: String?, defaultValue: Value, backend: (any SettingsBackend)?) {
    value = defaultValue
    // Inlined into the declaring module, this is specialized for `Value`: converting a scalar
    // default is a few instructions, and no generic metadata is looked up at run time.
    let storesContainers: Bool
    switch try? defaultValue.propertyListValue() {
    case .array?, .dictionary?: storesContainers = true
    default: storesContainers = false
    }
    super.init(
      key: key, makeDefault: nil, storesContainers: storesContainers, backend: backend)
  }
}
