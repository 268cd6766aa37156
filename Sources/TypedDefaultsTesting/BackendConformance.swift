import Foundation
import Testing
import TypedDefaults

/// The `SettingsBackend` contract as a test suite you run against your own backend.
///
/// Each check gets a fresh backend from `makeBackend` and reports every broken rule through
/// Swift Testing (`Issue.record`, at the call site), and in the returned report:
///
/// ```swift
/// import Testing
/// import TypedDefaultsTesting
///
/// @Test func myBackendConforms() async {
///   await BackendConformance.run { DictionaryBackend() }
/// }
///
/// // Or one test per check, run in parallel:
/// @Test(arguments: BackendConformance.checks)
/// func myBackend(_ check: BackendConformance.Check) async {
///   await check.run { DictionaryBackend() }
/// }
/// ```
///
/// The checks: every property-list kind at its extremes reads back equal; NaN stays NaN; a
/// missing key reads `nil`; writing `nil` and `removeValue(forKey:)` remove the
/// key; overwriting replaces the value and its kind; `dictionaryRepresentation()`
/// and `keys` list exactly the stored keys; eight concurrent writers lose
/// nothing; `setValues(_:)` stores every value; a model of every built-in setting
/// type (sets, UUIDs, ranges and archived objects included) round-trips; a write through a
/// `Setting` reaches an observer of the key exactly once; eight tasks racing to write one
/// setting deliver one event per write, each task's in the order it wrote, the last being the
/// value a read then returns. Given `reload` (what the next launch
/// reads: a new instance on the same file, say), also that every value reads the same after it.
///
/// Thread-safety: `run` may be called from any task; `makeBackend` and `reload` are called from
/// the calling task.
public enum BackendConformance {
  /// One rule of the contract, runnable on its own.
  public struct Check: Sendable, CustomStringConvertible, CustomTestStringConvertible {
    /// The check's name, such as `writingNilRemovesTheKey`.
    public let name: String
    /// Whether the check needs the `reload` closure (it passes without running when there is
    /// none).
    public let needsReload: Bool
    let body: @Sendable (Context) async throws -> Void

    /// The check's name.
    public var description: String { name }

    /// The check's name, as Swift Testing shows an argument.
    public var testDescription: String { name }

    /// Runs the check against a fresh backend and reports failures.
    ///
    /// - Parameters:
    ///   - sourceLocation: Where failures are reported; the caller's location by default.
    ///   - makeBackend: Returns a new, empty backend.
    ///   - reload: Returns what a new process would read from the backend's storage (a new
    ///     instance on the same file, say), after making the writes durable; `nil` if the backend
    ///     doesn't persist.
    /// - Returns: The failures found; empty if the backend passes.
    @discardableResult
    public func run(
      sourceLocation: SourceLocation = #_sourceLocation,
      makeBackend: () throws -> any SettingsBackend,
      reload: ((any SettingsBackend) throws -> any SettingsBackend)? = nil
    ) async -> [Failure] {
      let failures: [Failure]
      do {
        let backend = try makeBackend()
        if needsReload, reload == nil { return [] }
        let context = Context(check: name, backend: backend, reload: reload)
        do {
          try await body(context)
        } catch {
          context.fail("threw \(error)")
        }
        failures = context.failures
      } catch {
        failures = [Failure(check: name, message: "makeBackend() threw \(error)")]
      }
      for failure in failures {
        Issue.record(Comment(rawValue: failure.description), sourceLocation: sourceLocation)
      }
      return failures
    }
  }

  /// One broken rule: the check and what went wrong.
  public struct Failure: Sendable, Equatable, CustomStringConvertible {
    /// The name of the check that found it.
    public let check: String
    /// What was expected and what the backend did.
    public let message: String

    /// `check: message`.
    public var description: String { "\(check): \(message)" }
  }

  /// Every check, in a fixed order.
  public static var checks: [Check] { ConformanceChecks.all }

  /// Runs every check, each against a fresh backend, and reports failures.
  ///
  /// - Parameters:
  ///   - sourceLocation: Where failures are reported; the caller's location by default.
  ///   - makeBackend: Returns a new, empty backend.
  ///   - reload: Returns what a new process would read from the backend's storage, after making
  ///     the writes durable; `nil` (the default) skips the durability check.
  /// - Returns: The failures found; empty if the backend passes.
  @discardableResult
  public static func run(
    sourceLocation: SourceLocation = #_sourceLocation,
    makeBackend: () throws -> any SettingsBackend,
    reload: ((any SettingsBackend) throws -> any SettingsBackend)? = nil
  ) async -> [Failure] {
    var failures: [Failure] = []
    for check in checks {
      failures += await check.run(
        sourceLocation: sourceLocation, makeBackend: makeBackend, reload: reload)
    }
    return failures
  }

  /// What a check works with, and where it records failures.
  // @unchecked Sendable: `reloadBody` (not Sendable: the caller's closure) is only called from
  // the task running the check; `recorded` is behind `lock`.
  final class Context: @unchecked Sendable {
    let check: String
    let backend: any SettingsBackend
    private let reloadBody: ((any SettingsBackend) throws -> any SettingsBackend)?
    private let lock = NSLock()
    private var recorded: [Failure] = []

    init(
      check: String, backend: any SettingsBackend,
      reload: ((any SettingsBackend) throws -> any SettingsBackend)?
    ) {
      self.check = check
      self.backend = backend
      self.reloadBody = reload
    }

    var failures: [Failure] { lock.withLock { recorded } }

    func fail(_ message: String) {
      lock.withLock { recorded.append(Failure(check: check, message: message)) }
    }

    func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
      if !condition { fail(message()) }
    }

    /// Whether the check was given a `reload` closure.
    var canReload: Bool { reloadBody != nil }

    func reload() throws -> any SettingsBackend {
      guard let reloadBody else { throw ConformanceError.noReload }
      return try reloadBody(backend)
    }
  }

  enum ConformanceError: Error { case noReload }
}
