import Testing
import TypedDefaults

extension SettingsTesting {
  /// Makes every write to a real store in this test process an error: a test that forgot
  /// `.isolatedSettings` (or `withBackend`) fails instead of changing the developer's own
  /// settings.
  ///
  /// A real store is one whose file is outside the temporary folders (`$TMPDIR`, `/tmp`,
  /// `/var/tmp`): a `LayeredPlistStore` whose `data.plist` is elsewhere (its writes and saves),
  /// and a `UserDefaultsBackend` on a suite in the user's preferences (its writes; on Apple
  /// platforms every suite). Such a write throws ``SettingsError/Code/fileNotWritable`` naming
  /// the file, and records an issue in the running test, so a write through a property setter,
  /// which can't throw (it reports a `writeFailed` diagnostic), fails the test too. Writes inside
  /// an isolation scope go to the test's backend and are never refused; stores a test opens in a
  /// temporary folder aren't either.
  ///
  /// Call it once, before the tests that write run: from the initializer of a suite, or with the
  /// ``RefusingRealStoreWritesTrait`` trait (`@Suite(.refusingRealStoreWrites)`). It holds for
  /// the rest of the process, for every test and thread, and can't be turned off. It is not on by
  /// default: Swift runs no code when a library is merely linked, and tests that mean to write a
  /// real suite (of a `UserDefaultsBackend` itself) would fail.
  ///
  /// Cost: one lock-protected flag check per write to a file-backed backend; reads pay nothing.
  public static func refuseWritesToRealStores() {
    RealStoreGuard.turnOn { message in
      Issue.record(Comment(rawValue: message))
    }
  }

  /// Whether ``refuseWritesToRealStores()`` was called in this process.
  public static var refusesWritesToRealStores: Bool { RealStoreGuard.isOn }
}

#if compiler(>=6.1)  // Swift Testing's TestScoping arrived with Swift 6.1.
  /// A trait that calls ``SettingsTesting/refuseWritesToRealStores()`` before its tests run:
  /// apply it to a suite, `@Suite(.refusingRealStoreWrites)`, or a test.
  public struct RefusingRealStoreWritesTrait: TestTrait, SuiteTrait, TestScoping {
    /// `true`: applied to a suite, the trait applies to every test in it.
    public var isRecursive: Bool { true }

    /// Returns the trait for a test case and `nil` for a suite, so the guard is on before each
    /// test case starts.
    ///
    /// - Parameters:
    ///   - test: The test or suite.
    ///   - testCase: The test case, or `nil` for a suite.
    /// - Returns: `self` for a test case, otherwise `nil`.
    public func scopeProvider(
      for test: Test, testCase: Test.Case?
    ) -> RefusingRealStoreWritesTrait? {
      testCase == nil ? nil : self
    }

    /// Turns the guard on, then runs the test case.
    ///
    /// - Parameters:
    ///   - test: The test.
    ///   - testCase: The test case.
    ///   - function: The test case's body.
    /// - Throws: What the test throws.
    public func provideScope(
      for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
      SettingsTesting.refuseWritesToRealStores()
      try await function()
    }
  }

  extension Trait where Self == RefusingRealStoreWritesTrait {
    /// Makes every write to a real store in the test process an error, from the first test this
    /// trait applies to on; see ``SettingsTesting/refuseWritesToRealStores()``.
    public static var refusingRealStoreWrites: Self { RefusingRealStoreWritesTrait() }
  }
#endif
