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
    /// A write through a property setter failed; the setting keeps its previous value.
    public static let writeFailed = Kind(rawValue: "writeFailed")
    /// A background save or flush failed; the changes stay in memory for the next attempt.
    public static let saveFailed = Kind(rawValue: "saveFailed")
    /// A file a backend relies on was corrupt; it was moved aside (never overwritten) and the
    /// backend carried on without its contents.
    public static let corruptFile = Kind(rawValue: "corruptFile")
    /// A file watch (``LayeredPlistStore/Options/watchesFiles``) couldn't be set up, or a file it
    /// reported couldn't be read again; the store polls, or keeps the values it has.
    public static let watchFailed = Kind(rawValue: "watchFailed")
    /// A model declares a setting under a key its backend can't store (an empty key, or one
    /// holding a character the backend's file format can't keep), so writes of it will fail; or
    /// a key prefix that doesn't end in a separator, so it runs into its keys. Reported in every
    /// build, once per model type and backend (see ``SettingsModel``).
    public static let invalidKey = Kind(rawValue: "invalidKey")
    /// Two model types on one backend have equal or overlapping key prefixes, or store one key as
    /// different types. Reported in every build, once per pair of model types.
    public static let keyCollision = Kind(rawValue: "keyCollision")

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

  private static let globalHandler = Locked<Handler>(standardErrorHandler)

  @TaskLocal private static var taskHandler: Handler?

  /// The process-wide handler, used when no task-local handler is installed. Thread-safe.
  public static var handler: Handler {
    get { globalHandler.withLock { $0 } }
    set { globalHandler.withLock { $0 = newValue } }
  }

  /// Sends diagnostics reported by `operation` (on the current task) to `handler` instead of the
  /// process-wide one.
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
    try $taskHandler.withValue(handler, operation: operation)
  }

  /// Sends diagnostics reported by `operation` (on the current task and the child tasks it
  /// creates) to `handler` instead of the process-wide one.
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
    try await $taskHandler.withValue(handler, operation: operation)
  }

  /// Delivers a diagnostic to the task-local handler if one is installed, else the global one.
  static func report(_ diagnostic: SettingsDiagnostic) {
    (taskHandler ?? handler)(diagnostic)
  }
}
