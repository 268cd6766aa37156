import Testing
import TypedDefaults

/// Runs code against a backend of its own, so tests never touch `UserDefaults` or files and
/// tests running in parallel never see each other's values.
///
/// Inside the scope, every `Setting` read, written, reset or observed in this task goes to the
/// given backend instead of its own: the settings of a model created with any backend, of a
/// model reached through an app's `static let shared`, and of a struct of settings created with
/// `init()` and never attached. The scope is task-local: it holds for the tasks the scope starts
/// (`async let`, task groups, `Task {}`), and not for `Task.detached`, Dispatch queues or threads,
/// which use the settings' own backends.
///
/// ```swift
/// import Testing
/// import TypedDefaultsTesting
///
/// @Test func signingOutClearsTheName() {
///   SettingsTesting.withBackend(InMemoryBackend()) {
///     AppSettings.shared.name = "Ann"          // written to this test's backend only
///     AppSettings.shared.signOut()
///     #expect(AppSettings.shared.name == "Guest")
///   }
/// }
///
/// @Test(.isolatedSettings) func anotherTest() { … }  // the same, as a trait (Swift 6.1+)
/// ```
///
/// What the override does not change: calls made directly on a backend (`model.backend`,
/// `UserDefaultsBackend.standard.value(forKey:)`). `observe` and `changes` on a setting, and
/// Swift Observation tracking (`withObservationTracking`, SwiftUI) of a setting read in the
/// scope, follow the override.
///
/// Cost: the first override installed in a process turns on a check on every setting read and
/// write in that process (about 30 ns, a task-local lookup); a process that never installs one,
/// every app, pays one relaxed load of a flag per read.
public enum SettingsTesting {
  /// Runs `operation` with `backend` replacing every setting's backend in this task and the
  /// tasks it starts.
  ///
  /// - Parameters:
  ///   - backend: The backend every setting uses in the scope; a new, empty `InMemoryBackend`
  ///     by default.
  ///   - operation: The code to run.
  /// - Returns: What `operation` returns.
  /// - Throws: What `operation` throws.
  public static func withBackend<Result>(
    _ backend: any SettingsBackend = InMemoryBackend(name: "InMemoryBackend (test)"),
    operation: () throws -> Result
  ) rethrows -> Result {
    try BackendOverride.withBackend(backend, operation: operation)
  }

  /// Runs `operation` with `backend` replacing every setting's backend in this task and the
  /// tasks it starts.
  ///
  /// - Parameters:
  ///   - backend: The backend every setting uses in the scope; a new, empty `InMemoryBackend`
  ///     by default.
  ///   - isolation: The actor `operation` runs on; the caller's, by default.
  ///   - operation: The code to run.
  /// - Returns: What `operation` returns.
  /// - Throws: What `operation` throws.
  public static func withBackend<Result>(
    _ backend: any SettingsBackend = InMemoryBackend(name: "InMemoryBackend (test)"),
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> Result
  ) async rethrows -> Result {
    try await BackendOverride.withBackend(backend, isolation: isolation, operation: operation)
  }

  /// The backend that replaces every setting's own in this task, or `nil` outside
  /// ``withBackend(_:operation:)`` and the `isolatedSettings` trait.
  public static var currentBackend: (any SettingsBackend)? {
    BackendOverride.current
  }
}

#if compiler(>=6.1)  // Swift Testing's TestScoping arrived with Swift 6.1.
  /// A trait that runs each test (each case of a parameterized test) with a fresh
  /// `InMemoryBackend` replacing every setting's backend; see ``SettingsTesting``.
  ///
  /// Apply it to a test or a suite: `@Test(.isolatedSettings)`, `@Suite(.isolatedSettings)`.
  /// ``SettingsTesting/currentBackend`` is the test's backend.
  public struct IsolatedSettingsTrait: TestTrait, SuiteTrait, TestScoping {
    /// `true`: applied to a suite, the trait applies to every test in it.
    public var isRecursive: Bool { true }

    /// Returns the trait for a test case and `nil` for a suite, so each test case gets a backend
    /// of its own.
    ///
    /// - Parameters:
    ///   - test: The test or suite.
    ///   - testCase: The test case, or `nil` for a suite.
    /// - Returns: `self` for a test case, otherwise `nil`.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> IsolatedSettingsTrait? {
      testCase == nil ? nil : self
    }

    /// Runs the test case with a fresh in-memory backend replacing every setting's backend.
    ///
    /// - Parameters:
    ///   - test: The test.
    ///   - testCase: The test case.
    ///   - function: The test case's body.
    /// - Throws: What the test throws.
    public func provideScope(
      for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
      try await SettingsTesting.withBackend(InMemoryBackend(name: "InMemoryBackend (\(test.name))"))
      {
        try await function()
      }
    }
  }

  extension Trait where Self == IsolatedSettingsTrait {
    /// Runs each test case with a fresh `InMemoryBackend` replacing every setting's backend, so
    /// it never touches `UserDefaults` or files and never sees another test's values.
    public static var isolatedSettings: Self { IsolatedSettingsTrait() }
  }
#endif
