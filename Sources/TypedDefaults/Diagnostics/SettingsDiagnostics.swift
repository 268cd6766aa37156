import Foundation

/// A problem the library recovered from without throwing: a stored value of the wrong type that
/// was replaced by the default, a property-setter write that failed, a background flush that
/// failed.
///
/// Diagnostics go to ``SettingsDiagnostics/handler``; by default they are printed to standard
/// error. A setting reports a given wrong stored value once, not on every read.
public struct SettingsDiagnostic: Sendable, Hashable, CustomStringConvertible {
  /// The kind of problem.
  public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The kind's stable identifier, for example `typeMismatch`.
    public let rawValue: String

    /// Creates a kind from its identifier.
    ///
    /// - Parameter rawValue: The identifier.
    public init(rawValue: String) {
      self.rawValue = rawValue
    }

    /// A stored value cannot be read as the setting's type; the default was used instead and the
    /// stored value was left untouched.
    public static let typeMismatch = Kind(rawValue: "typeMismatch")
    /// A stored value is not one the setting accepts; the default was used instead.
    ///
    /// The value reads as the setting's type but is outside the range its declaration gives
    /// (`@Setting(…, in: 0...1)`) or not one of its allowed values (`allowedValues:`); it was
    /// left untouched. Also reported when a model is first bound, for a declared default outside
    /// its own range.
    public static let valueNotAllowed = Kind(rawValue: "valueNotAllowed")
    /// A write through a property setter failed; the setting keeps its previous value.
    public static let writeFailed = Kind(rawValue: "writeFailed")
    /// A background save or flush failed; the changes stay in memory for the next attempt.
    public static let saveFailed = Kind(rawValue: "saveFailed")
    /// A file a backend relies on was corrupt (or a corrupt version of it was found left hidden
    /// by a killed process); it was kept aside (never overwritten), and the message says what
    /// the backend carried on with: nothing of it, the entries that could be read, or the
    /// values it already had, written back.
    public static let corruptFile = Kind(rawValue: "corruptFile")
    /// A file watch (`LayeredPlistStore.Options.watchesFiles`) couldn't be set up, or a file it
    /// reported couldn't be read again; the store polls, or keeps the values it has.
    public static let watchFailed = Kind(rawValue: "watchFailed")
    /// A model declares a setting under a key its backend can't store (an empty key, or one
    /// holding a character the backend's file format can't keep), so writes of it will fail; or
    /// a key prefix that doesn't end in a separator, so it runs into its keys.
    ///
    /// Reported in every build, once per model type and backend (see ``SettingsModel``).
    public static let invalidKey = Kind(rawValue: "invalidKey")
    /// Two model types on one backend have equal or overlapping key prefixes, or store one key as
    /// different types (reported in every build, once per pair of model types); or two keys of a
    /// file normalize to one key (`LayeredPlistStore.Options.keyNormalization`), and the value
    /// of the key sorting last is used.
    public static let keyCollision = Kind(rawValue: "keyCollision")
    /// A layer's source gave a value that the type a model declared for the key can't read (or a
    /// text that doesn't parse as it); the layer keeps the key's last value, or leaves the key
    /// out if it has none, so the layers below give the value (see `LayerSource`).
    public static let layerValueRejected = Kind(rawValue: "layerValueRejected")
    /// A layer's source left out something that isn't a corrupt entry of a file.
    ///
    /// An environment variable or a command-line option naming no setting, a malformed argument,
    /// two keys with one outside name: the error's code says which. The layer was read without
    /// it; a corrupt entry of a file is a ``corruptFile``.
    public static let layerSourceProblem = Kind(rawValue: "layerSourceProblem")

    /// Code in the process changed a `UserDefaults` suite with a raw call (`set`,
    /// `removeObject(forKey:)`) although its ``UserDefaultsBackend`` was created with the promise
    /// that it is written only through the library
    /// (``UserDefaultsBackend/isWrittenOnlyThroughLibrary``); the change was taken in as the
    /// process's own, but settings read the old value until then.
    ///
    /// Found on Linux, where the backend keeps the suite's values: by
    /// ``UserDefaultsBackend/synchronize()``, ``UserDefaultsBackend/reload()``, the save at exit
    /// and the end of the suite's last backend, and in debug builds by a comparison of the suite
    /// every second.
    public static let rawUserDefaultsWrite = Kind(rawValue: "rawUserDefaultsWrite")

    /// The kind's identifier.
    public var description: String { rawValue }
  }

  /// The kind of problem.
  public let kind: Kind
  /// The settings key involved, if any.
  public let key: String?
  /// The name of the backend involved (its ``SettingsBackend/name``).
  public let backend: String
  /// For a type mismatch: the Swift type the setting expected, for example `Int`.
  public let expectedType: String?
  /// For a type mismatch: the stored value that could not be read.
  public let storedValue: PropertyListValue?
  /// A one-line explanation.
  public let message: String

  /// Creates a diagnostic.
  ///
  /// - Parameters:
  ///   - kind: The kind of problem.
  ///   - key: The settings key involved, if any.
  ///   - backend: The name of the backend involved.
  ///   - expectedType: For a type mismatch, the expected Swift type's name.
  ///   - storedValue: For a type mismatch, the stored value that could not be read.
  ///   - message: A one-line explanation.
  public init(
    kind: Kind,
    key: String?,
    backend: String,
    expectedType: String? = nil,
    storedValue: PropertyListValue? = nil,
    message: String
  ) {
    self.kind = kind
    self.key = key
    self.backend = backend
    self.expectedType = expectedType
    self.storedValue = storedValue
    self.message = message
  }

  /// The message, prefixed by the kind: `typeMismatch: …`.
  public var description: String { "\(kind): \(message)" }
}

/// Where the library reports the problems it recovers from.
///
/// Replace ``handler`` to route diagnostics to your logging system, or use
/// `withHandler(_:operation:)` to capture them for the duration of a call (in tests, for
/// example), without affecting other threads or tasks:
///
/// ```swift
/// SettingsDiagnostics.handler = { diagnostic in logger.warning("\(diagnostic)") }
/// ```
///
/// Handlers may be called on any thread, so they must be `@Sendable`. Setting and reading
/// ``handler`` are thread-safe.
///
/// ## Reported once
///
/// A problem that would recur on every instance or read is reported once: a model declaration's
/// problem (``SettingsDiagnostic/Kind/invalidKey``, ``SettingsDiagnostic/Kind/keyCollision``)
/// once per process, and a wrong stored value once per setting until the value changes. Inside
/// a `withHandler(_:operation:)` scope that de-duplication is the scope's own: the scope sees
/// each such problem once the first time it arises there (a wrong value again once it
/// changed), even if it was reported before elsewhere in the process, and reports elsewhere
/// never make it see one again, so that two tests running in parallel, each in its own scope,
/// each see their diagnostic. (`SettingsDiagnostics.withCapture` in `TypedDefaultsTesting` is
/// such a scope.)
public enum SettingsDiagnostics {
  /// A function that receives diagnostics.
  public typealias Handler = @Sendable (SettingsDiagnostic) -> Void

  /// The default handler: writes `TypedDefaults: <kind>: <message>` as one line to standard error,
  /// with control characters and bidirectional-text controls (which a hostile key or file name
  /// could use to rewrite the terminal or disguise the line) written as `\u{…}`.
  public static let standardErrorHandler: Handler = { diagnostic in
    let line = TerminalText.escaping("TypedDefaults: \(diagnostic)")
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }

  /// The process-wide handler, in a struct: a bare function type as a `Locked` state would be
  /// wrapped in one more reabstraction thunk on every access (see ``HandlerBox``).
  private static let globalHandler = Locked(HandlerBox(handler: standardErrorHandler))

  /// A task's handler and the problems already reported to it, so that reporting once applies
  /// per scope.
  private final class Scope: Sendable {
    let handler: Handler
    private let reported = Locked<Set<String>>([])
    /// For each subject (a setting), the hash of the last wrong value reported in this scope.
    private let lastValues = Locked<[String: Int]>([:])

    init(_ handler: @escaping Handler) { self.handler = handler }

    /// Whether `id` is reported for the first time in this scope (it then counts as reported).
    func firstReport(of id: String) -> Bool {
      reported.withLock { $0.insert(id).inserted }
    }

    /// Whether `value` differs from the last value recorded for `subject` in this scope (it is
    /// then the last one).
    func isNewValue(_ value: Int, for subject: String) -> Bool {
      lastValues.withLock { $0.updateValue(value, forKey: subject) != value }
    }
  }

  @TaskLocal private static var scope: Scope?

  /// A handler held as a struct's field.
  ///
  /// `Locked` passes its state `inout` to a generic closure;
  /// a function type there is converted to the generic representation and back on each access,
  /// and the value written back is the old one wrapped in a thunk, so a handler read 30,000 times
  /// (a diagnostic reported 30,000 times) was 30,000 thunks deep and overflowed the stack. A
  /// field of a concrete struct keeps its own representation.
  private struct HandlerBox: Sendable {
    var handler: Handler
  }
  /// The problems reported once per process outside any scope.
  private static let reportedInProcess = Locked<Set<String>>([])

  /// The process-wide handler, used when no task-local handler is installed.
  ///
  /// Thread-safe.
  public static var handler: Handler {
    get { globalHandler.withLock { $0.handler } }
    set { globalHandler.withLock { $0.handler = newValue } }
  }

  /// Sends diagnostics reported by `operation` (on the current task) to `handler` instead of the
  /// process-wide one, each problem that is reported once per process reported once in this
  /// scope (see "Reported once").
  ///
  /// - Parameters:
  ///   - handler: The handler to use while `operation` runs.
  ///   - operation: The work whose diagnostics to capture.
  /// - Returns: What `operation` returns.
  /// - Throws: What `operation` throws.
  public static func withHandler<Result>(
    _ handler: @escaping Handler,
    operation: () throws -> Result
  ) rethrows -> Result {
    try $scope.withValue(Scope(handler), operation: operation)
  }

  /// Sends diagnostics reported by `operation` (on the current task and the child tasks it
  /// creates) to `handler` instead of the process-wide one, each problem that is reported once
  /// per process reported once in this scope (see "Reported once").
  ///
  /// Work the scope hands to a Dispatch queue or a detached task (a file watch, a debounced save)
  /// reports to the process-wide handler.
  ///
  /// - Parameters:
  ///   - handler: The handler to use while `operation` runs.
  ///   - operation: The work whose diagnostics to capture.
  /// - Returns: What `operation` returns.
  /// - Throws: What `operation` throws.
  public static func withHandler<Result>(
    _ handler: @escaping Handler,
    operation: () async throws -> Result
  ) async rethrows -> Result {
    try await $scope.withValue(Scope(handler), operation: operation)
  }

  /// Delivers a diagnostic to the task-local handler if one is installed, else the global one.
  package static func report(_ diagnostic: SettingsDiagnostic) {
    (scope?.handler ?? handler)(diagnostic)
  }

  /// Delivers a diagnostic unless the problem `id` names was reported already: in this task's
  /// scope if it has one, else in the process.
  static func report(_ diagnostic: SettingsDiagnostic, once id: String) {
    if let scope {
      if scope.firstReport(of: id) { scope.handler(diagnostic) }
    } else if reportedInProcess.withLock({ $0.insert(id).inserted }) {
      handler(diagnostic)
    }
  }

  /// Whether this task reports to a scope's handler (`withHandler(_:operation:)`), whose
  /// de-duplication is its own: a check that runs once per process runs again in such a scope.
  static var isScoped: Bool { scope != nil }

  /// In this task's scope, whether `value` (a wrong stored value's hash) differs from the last
  /// one reported there for `subject` (it then counts as reported there): reporting once until
  /// the value changes, kept per scope, so that another scope's reads neither hide nor repeat
  /// a report.
  ///
  /// `nil` outside any scope, without building `subject`.
  static func isNewValueInScope(
    _ value: @autoclosure () -> Int, for subject: @autoclosure () -> String
  ) -> Bool? {
    scope?.isNewValue(value(), for: subject())
  }
}
