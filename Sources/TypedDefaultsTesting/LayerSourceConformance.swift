import Foundation
import Testing
import TypedDefaults
import TypedDefaultsLayers

/// The ``LayerSource`` contract as a test suite you run against your own source.
///
/// Give it a way to make your source holding some values, and, if its values can change, a way
/// to change them the way they change in production (a fetch delivering new flags, a file
/// rewritten), after which the source reports the change through the ``LayerSourceReporter``
/// it was given:
///
/// ```swift
/// import Testing
/// import TypedDefaultsTesting
///
/// @Test func featureFlagsSourceConforms() async {
///   await LayerSourceConformance.run(
///     makeSource: { values in FeatureFlagsSource(values) },
///     change: { source, values in source.apply(values) })
/// }
///
/// // Or one test per check, run in parallel:
/// @Test(arguments: LayerSourceConformance.checks)
/// func featureFlagsSource(_ check: LayerSourceConformance.Check) async {
///   await check.run(makeSource: { FeatureFlagsSource($0) }, change: { $0.apply($1) })
/// }
/// ```
///
/// The checks, each against a fresh source: ``LayerSource/read()`` gives exactly the values the
/// source was made with (strings, if ``LayerSource/valuesAreText``), also when eight tasks read
/// at once while the values change; the layer is named and is not one of the store's own; a
/// ``LayeredPlistStore`` opened with `[.runtime, .persistent, .source(source)]` (in a temporary
/// folder) reads the source's values below its own and ``LayeredPlistStore/explain(_:)`` names
/// the source's layer, showing `<secret>` for every value if ``LayerSource/holdsSecrets``; writes
/// of the source's keys are refused with ``SettingsError/Code/forcedValue`` if
/// ``LayerSource/isForced``, and accepted otherwise. Given `change`, also: a change is reported to
/// the reporter the source was given, and not after ``LayerSource/stopWatching()`` was called
/// and the source told of a later one; a store watching the source delivers exactly one change
/// event per key whose value changed (added, changed, removed) and none for the others; removing
/// a key from a source layered above the persistent layer lets the persistent value show.
///
/// Thread-safety: `run` may be called from any task; `makeSource` and `change` are called from
/// the calling task.
public enum LayerSourceConformance {
  /// One rule of the contract, runnable on its own.
  public struct Check: Sendable, CustomStringConvertible, CustomTestStringConvertible {
    /// The check's name, such as `readGivesTheValuesTheSourceHolds`.
    public let name: String
    /// Whether the check needs the `change` closure (it passes without running when there is
    /// none).
    public let needsChange: Bool
    let body: @Sendable (Context) async throws -> Void

    /// The check's name.
    public var description: String { name }

    /// The check's name, as Swift Testing shows an argument.
    public var testDescription: String { name }

    /// Runs the check against fresh sources and reports failures.
    ///
    /// - Parameters:
    ///   - sourceLocation: Where failures are reported; the caller's location by default.
    ///   - makeSource: Returns a new source holding exactly these values, by key (strings, for a
    ///     source whose values are text). It may be called several times per check.
    ///   - change: Replaces a source's values by these (keys missing from them are removed), the
    ///     way they change in production; once the source watches, it reports the change through
    ///     its reporter (before `change` returns, or later from another thread). `nil` if the
    ///     source's values can't change.
    /// - Returns: The failures found; empty if the source passes.
    @discardableResult
    public func run<Source: LayerSource>(
      sourceLocation: SourceLocation = #_sourceLocation,
      makeSource: @escaping ([String: PropertyListValue]) throws -> Source,
      change: ((Source, [String: PropertyListValue]) async throws -> Void)? = nil
    ) async -> [Failure] {
      if needsChange, change == nil { return [] }
      let context = Context(
        check: name,
        makeSource: { try makeSource($0) },
        change: change.map { change in
          { source, values in
            guard let source = source as? Source else { throw ConformanceError.wrongSource }
            try await change(source, values)
          }
        })
      do {
        try await body(context)
      } catch {
        context.fail("threw \(error)")
      }
      context.removeFolders()
      let failures = context.failures
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
    /// What was expected and what the source (or a store layering it) did.
    public let message: String

    /// `check: message`.
    public var description: String { "\(check): \(message)" }
  }

  /// Every check, in a fixed order.
  public static var checks: [Check] { LayerSourceChecks.all }

  /// Runs every check, each against fresh sources, and reports failures.
  ///
  /// - Parameters:
  ///   - sourceLocation: Where failures are reported; the caller's location by default.
  ///   - makeSource: Returns a new source holding exactly these values, by key (strings, for a
  ///     source whose values are text).
  ///   - change: Replaces a source's values by these, the way they change in production, the
  ///     source then reporting the change through its reporter; `nil` (the default) if its values
  ///     can't change, which skips the checks of changes.
  /// - Returns: The failures found; empty if the source passes.
  @discardableResult
  public static func run<Source: LayerSource>(
    sourceLocation: SourceLocation = #_sourceLocation,
    makeSource: @escaping ([String: PropertyListValue]) throws -> Source,
    change: ((Source, [String: PropertyListValue]) async throws -> Void)? = nil
  ) async -> [Failure] {
    var failures: [Failure] = []
    for check in checks {
      failures += await check.run(
        sourceLocation: sourceLocation, makeSource: makeSource, change: change)
    }
    return failures
  }

  /// What a check works with, and where it records failures.
  // @unchecked Sendable: `makeBody` and `changeBody` (not Sendable: the caller's closures) are
  // only called from the task running the check; `recorded` and `folders` are behind locks.
  final class Context: @unchecked Sendable {
    let check: String
    private let makeBody: ([String: PropertyListValue]) throws -> any LayerSource
    private let changeBody: ((any LayerSource, [String: PropertyListValue]) async throws -> Void)?
    private let recorded = Locked<[Failure]>([])
    private let folders = Locked<[URL]>([])
    /// Whether the source's values are text, asked of an empty source once.
    private let text = Locked<Bool?>(nil)

    init(
      check: String,
      makeSource: @escaping ([String: PropertyListValue]) throws -> any LayerSource,
      change: ((any LayerSource, [String: PropertyListValue]) async throws -> Void)?
    ) {
      self.check = check
      self.makeBody = makeSource
      self.changeBody = change
    }

    var failures: [Failure] { recorded.withLock { $0 } }

    func fail(_ message: String) {
      recorded.withLock { $0.append(Failure(check: check, message: message)) }
    }

    func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
      if !condition { fail(message()) }
    }

    /// A new source holding `values`.
    func makeSource(_ values: [String: PropertyListValue]) throws -> any LayerSource {
      try makeBody(values)
    }

    /// Whether the source's values are text (``LayerSource/valuesAreText``).
    func valuesAreText() throws -> Bool {
      if let known = text.withLock({ $0 }) { return known }
      let isText = try makeSource([:]).valuesAreText
      text.withLock { $0 = isText }
      return isText
    }

    /// A value to give the source: `typed` itself, or a string for a source of text.
    func value(_ typed: PropertyListValue, text: String) throws -> PropertyListValue {
      try valuesAreText() ? .string(text) : typed
    }

    /// Changes the source's values.
    func change(_ source: any LayerSource, to values: [String: PropertyListValue]) async throws {
      guard let changeBody else { throw ConformanceError.noChange }
      try await changeBody(source, values)
    }

    /// A store on `data.plist` in a new temporary folder (removed after the check), holding
    /// `persistent` as it opens.
    func store(
      layers: [LayeredPlistStore.LayerDefinition],
      persistent: [String: PropertyListValue] = [:],
      watching: Bool = false
    ) throws -> LayeredPlistStore {
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "LayerSourceConformance-\(UUID().uuidString)", isDirectory: true)
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      folders.withLock { $0.append(folder) }
      let file = folder.appendingPathComponent("data.plist")
      if !persistent.isEmpty { try PropertyListFile(url: file).write(.dictionary(persistent)) }
      return try LayeredPlistStore(
        persistentFile: file, layers: layers,
        options: .init(savesAtExit: false, watchesFiles: watching))
    }

    /// Polls `condition` every 2 ms for up to 10 seconds, for a change the source reports from
    /// another thread; records a failure and returns `false` if it never holds.
    @discardableResult
    func wait(until what: @autoclosure () -> String, _ condition: () -> Bool) async -> Bool {
      let deadline = ContinuousClock.now.advanced(by: .seconds(10))
      while !condition() {
        guard ContinuousClock.now < deadline else {
          fail("timed out after 10 s waiting until \(what())")
          return false
        }
        try? await Task.sleep(for: .milliseconds(2))
      }
      return true
    }

    func removeFolders() {
      for folder in folders.withLock({ $0 }) { try? FileManager.default.removeItem(at: folder) }
    }
  }

  enum ConformanceError: Error, CustomStringConvertible {
    case noChange, wrongSource

    var description: String {
      switch self {
      case .noChange: "the check needs `change`, which wasn't given"
      case .wrongSource: "`change` was given a source `makeSource` didn't make"
      }
    }
  }
}
