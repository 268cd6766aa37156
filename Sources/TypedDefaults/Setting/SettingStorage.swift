/// The shared, reference-typed state behind one ``Setting``: its key, default and backend.
///
/// A `Setting` is a struct (so a model of settings can be a `Sendable` struct) whose only stored
/// property is a reference to one of these, so copies of a model share their settings' binding.
/// The key and backend are filled in once, by the model's initializer walking its properties
/// with `Mirror` (``SettingsReflection``), or given explicitly when the setting is declared.
// @unchecked Sendable: `key`, `propertyName` and `backend` are written only by `bind`, which runs
// while the owning model is being initialized, before the model can be shared with another
// thread; afterwards they are only read. `lastReportedMismatch` is behind a lock.
@usableFromInline
final class SettingStorage<Value: SettingValue>: @unchecked Sendable {
  @usableFromInline let defaultValue: Value
  let declaredKey: String?
  @usableFromInline private(set) var key: String
  @usableFromInline private(set) var backend: (any SettingsBackend)?
  private(set) var propertyName: String?
  private let lastReportedMismatch = Locked<PropertyListValue?>(nil)

  init(key: String?, defaultValue: Value, backend: (any SettingsBackend)?) {
    self.declaredKey = key
    self.key = key ?? ""
    self.defaultValue = defaultValue
    self.backend = backend
  }

  /// Attaches the setting to its model's backend, inferring the key from the property name
  /// unless one was declared. A setting declared with its own backend keeps it.
  func bind(propertyName: String, backend: any SettingsBackend) {
    self.propertyName = propertyName
    if declaredKey == nil { key = propertyName }
    if self.backend == nil { self.backend = backend }
  }

  // MARK: - Reading and writing

  @inlinable
  var boundBackend: any SettingsBackend {
    if let backend { return backend }
    unbound()
  }

  /// The setting's value: the stored value read as `Value`, or the default when nothing is stored
  /// or the stored value can't be read as `Value` (reported once as a diagnostic).
  @inlinable
  func read() -> Value {
    let backend = boundBackend
    guard let stored = backend.value(forKey: key) else { return defaultValue }
    if let value = Value(propertyListValue: stored) { return value }
    reportMismatch(stored, backend: backend)
    return defaultValue
  }

  /// Stores a value; `nil` (from an `Optional`) removes the key.
  @inlinable
  func write(_ value: Value) throws(SettingsError) {
    let backend = boundBackend
    let stored: PropertyListValue?
    do {
      stored = try value.propertyListValue()
    } catch {
      throw representationError(error)
    }
    try backend.setValue(stored, forKey: key)
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

  // MARK: - Slow paths

  @usableFromInline
  func representationError(_ error: any Error) -> SettingsError {
    let reason = (error as? SettingsError)?.reason ?? CodingErrors.describe(error)
    return SettingsError(.valueNotRepresentable, key: key, reason: reason)
  }

  @usableFromInline
  func reportMismatch(_ stored: PropertyListValue, backend: any SettingsBackend) {
    let isNew = lastReportedMismatch.withLock { last in
      defer { last = stored }
      return last.map { !$0.isIdentical(to: stored) } ?? true
    }
    guard isNew else { return }
    let why = Value.readFailureReason(for: stored).map { " (\($0))" } ?? ""
    SettingsDiagnostics.report(
      SettingsDiagnostic(
        kind: .typeMismatch,
        key: key,
        backend: backend.name,
        expectedType: Value.typeName,
        storedValue: stored,
        message: "'\(key)' in \(backend.name) holds \(PropertyListFile.article(stored.kind)) "
          + "(\(stored)) that can't be read as \(Value.typeName)\(why); using the default "
          + "(\(ValueDescription.of(defaultValue))) and leaving the stored value untouched"
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
