import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

#if !canImport(Darwin)
  private struct PlayerSettings: SettingsGroup {
    @Setting("launchCount") var launchCount = 0
    @Setting("volume") var volume = 1.0
    @Setting("nickname") var nickname = "guest"
    @Setting("recentSearches") var recentSearches: [String] = []
    /// Registered by one test only: registrations are process-wide.
    @Setting("promise.registered") var registered = 1
    /// Registered by the race test only.
    @Setting("promise.race") var race = "none"

    /// Whether the settings read through their backend's cells (no `UserDefaults` lookup).
    var readsThroughCells: Bool {
      _launchCount.storage.readCell != nil && _nickname.storage.readCell != nil
    }
  }

  /// `UserDefaultsBackend(…, writtenOnlyThroughLibrary: true)`, the owner's promise (issue 36):
  /// reads go through the suite's cells, every change the backend makes or takes in reaches
  /// them, and a raw `UserDefaults` write made anyway is taken in and reported.
  @Suite struct UserDefaultsPromiseTests {
    /// A promised suite whose debug-build sampling is stopped, so that the test itself decides
    /// when a raw write is looked for.
    private static func promisedSuite() -> TemporarySuite {
      let suite = TemporarySuite(writtenOnlyThroughLibrary: true)
      #if DEBUG
        suite.backend.suite.stopSamplingForRawWrites()
      #endif
      return suite
    }

    @Test func onlyABackendCreatedWithThePromiseHasItsSettingsReadThroughCells() {
      let promised = Self.promisedSuite()
      #expect(promised.backend.isWrittenOnlyThroughLibrary)
      #expect(PlayerSettings(backend: promised.backend).readsThroughCells)
      let exact = TemporarySuite()
      #expect(!exact.backend.isWrittenOnlyThroughLibrary)
      #expect(!PlayerSettings(backend: exact.backend).readsThroughCells)
      // A view of a promised backend reads its base's cells.
      #expect(PlayerSettings(backend: promised.backend.scoped(to: "sdk.")).readsThroughCells)
    }

    @Test func everyChangeTheBackendMakesIsReadThroughTheCells() throws {
      let suite = Self.promisedSuite()
      let backend = suite.backend
      let settings = PlayerSettings(backend: backend)
      #expect(settings.launchCount == 0)
      #expect(settings.nickname == "guest")

      settings.launchCount = 3
      settings.nickname = "ada"
      #expect(settings.launchCount == 3)
      #expect(settings.nickname == "ada")
      #expect(backend.value(forKey: "launchCount") == 3)
      #expect(backend.userDefaults.object(forKey: "launchCount") as? Int == 3)

      try backend.setValue(4, forKey: "launchCount")
      try backend.setValue(0.25, forKey: "volume")
      #expect(settings.launchCount == 4)
      #expect(settings.volume == 0.25)

      try backend.setValues(["nickname": "grace", "recentSearches": ["a", "b"]])
      #expect(settings.nickname == "grace")
      #expect(settings.recentSearches == ["a", "b"])

      try backend.update(forKey: "launchCount") { .integer(.init(($0?.intValue ?? 0) + 1)) }
      #expect(settings.launchCount == 5)

      backend.removeValue(forKey: "nickname")
      #expect(settings.nickname == "guest")
      #expect(!settings.$nickname.hasStoredValue)
      #expect(settings.$launchCount.hasStoredValue)
    }

    @Test func aRegisteredDefaultIsReadWhileTheSuiteStoresNoValueAndNeverCountsAsStored() throws {
      let suite = Self.promisedSuite()
      let settings = PlayerSettings(backend: suite.backend)
      let key = "promise.registered"
      #expect(settings.registered == 1)
      suite.backend.register(defaults: [key: 7])
      #expect(settings.registered == 7)
      #expect(!settings.$registered.hasStoredValue)
      #expect(suite.backend.value(forKey: key) == 7)
      #expect(suite.backend.storedValue(forKey: key) == nil)
      try suite.backend.setValue(9, forKey: key)
      #expect(settings.registered == 9)
      suite.backend.removeValue(forKey: key)
      #expect(settings.registered == 7)
    }

    @Test func anotherProcesssSaveIsReadOnceTheBackendTakesItIn() throws {
      let suite = Self.promisedSuite()
      let settings = PlayerSettings(backend: suite.backend)
      try suite.backend.setValue(1, forKey: "launchCount")
      try suite.backend.save()
      let run = try runProduct(
        "SettingsProbe", ["userdefaults", suite.name, "set", "launchCount", "int:2"])
      #expect(run.status == 0, "\(run.standardError)")
      try suite.backend.reload()
      #expect(settings.launchCount == 2)
    }

    @Test func aRawWriteToAPromisedSuiteIsTakenInBySynchronizeAndReported() throws {
      let suite = Self.promisedSuite()
      let settings = PlayerSettings(backend: suite.backend)
      try suite.backend.setValues(["launchCount": 1, "nickname": "ada"])
      let raw = try #require(UserDefaults(suiteName: suite.name))
      raw.set(8, forKey: "launchCount")
      raw.removeObject(forKey: "nickname")
      let (synchronized, diagnostics) = collectingDiagnostics { suite.backend.synchronize() }
      #expect(synchronized)
      #expect(settings.launchCount == 8)
      #expect(settings.nickname == "guest")
      #expect(diagnostics.map(\.kind) == [.rawUserDefaultsWrite, .rawUserDefaultsWrite])
      #expect(diagnostics.map(\.key) == ["launchCount", "nickname"])
      #expect(diagnostics.first?.backend == suite.backend.name)
      #expect(
        diagnostics.first?.message.hasPrefix(
          "'launchCount' was changed by a raw UserDefaults call (set, removeObject(forKey:)), "
            + "though the suite's backend was created with writtenOnlyThroughLibrary: true")
          == true)
      // Taken in as the process's own change: saved.
      #expect(try UserDefaultsSharingTests.saved(suite.fileURL)?["launchCount"] == 8)
      // Reported once.
      let (_, again) = collectingDiagnostics { suite.backend.synchronize() }
      #expect(again.isEmpty)
    }

    @Test func aRawWriteToASuiteNobodyPromisedIsTakenInWithNoDiagnostic() throws {
      let suite = TemporarySuite()
      let raw = try #require(UserDefaults(suiteName: suite.name))
      raw.set(8, forKey: "launchCount")
      let (_, diagnostics) = collectingDiagnostics { suite.backend.synchronize() }
      #expect(diagnostics.isEmpty)
      #expect(suite.backend.value(forKey: "launchCount") == 8)
    }

    /// A backend without the promise on the same suite still reads a raw write at once, and
    /// what it takes in reaches the promised backend's cells.
    @Test func anExactBackendOnAPromisedSuiteTakesInARawWriteForBoth() throws {
      let suite = Self.promisedSuite()
      let promised = PlayerSettings(backend: suite.backend)
      let exact = PlayerSettings(backend: UserDefaultsBackend(suiteName: suite.name))
      let raw = try #require(UserDefaults(suiteName: suite.name))
      raw.set(5, forKey: "launchCount")
      let (_, diagnostics) = collectingDiagnostics { exact.launchCount }
      #expect(exact.launchCount == 5)
      #expect(promised.launchCount == 5)
      #expect(diagnostics.map(\.kind) == [.rawUserDefaultsWrite])
    }

    /// A raw write still waiting to be taken in when the last backend on its suite went was
    /// lost (the backend's end saved only unsaved writes of its own), promised or not.
    @Test(arguments: [true, false])
    func aRawWriteIsSavedWhenTheLastBackendOnItsSuiteGoes(promised: Bool) throws {
      let name = "TypedDefaultsTests.\(UUID().uuidString)"
      let file = UserDefaultsBackend.fileURL(ofDomain: name)
      defer {
        try? FileManager.default.removeItem(at: file)
        try? FileManager.default.removeItem(atPath: file.path + ".lock")
      }
      let (_, diagnostics) = try collectingDiagnostics {
        let backend = UserDefaultsBackend(suiteName: name, writtenOnlyThroughLibrary: promised)
        try backend.setValue(1, forKey: "kept")
        try backend.save()
        UserDefaults(suiteName: name)?.set(5, forKey: "raw")
      }
      #expect(try UserDefaultsSharingTests.saved(file) == ["kept": 1, "raw": 5])
      #expect(diagnostics.map(\.kind) == (promised ? [.rawUserDefaultsWrite] : []))
      // Cleaned up through a backend, so that corelibs' copy holds no value of the test.
      let backend = UserDefaultsBackend(suiteName: name)
      for key in backend.keys { backend.removeValue(forKey: key) }
      backend.synchronize()
    }

    /// The promise was the suite's for as long as any backend on it lived, so a backend without
    /// it went on reporting raw writes after the one that promised was gone.
    @Test func thePromiseEndsWithTheLastBackendThatMadeIt() throws {
      let suite = TemporarySuite()
      do {
        let promised = UserDefaultsBackend(suiteName: suite.name, writtenOnlyThroughLibrary: true)
        #expect(promised.isWrittenOnlyThroughLibrary)
      }
      UserDefaults(suiteName: suite.name)?.set(3, forKey: "launchCount")
      let (_, diagnostics) = collectingDiagnostics { suite.backend.synchronize() }
      #expect(diagnostics.isEmpty)
      #expect(suite.backend.value(forKey: "launchCount") == 3)
    }

    #if DEBUG
      /// Debug builds compare a promised suite with `UserDefaults` on their own, so that a raw
      /// write is found with nothing synchronizing.
      @Test func aDebugBuildFindsARawWriteWithNothingSynchronizing() async throws {
        let suite = Self.promisedSuite()
        let settings = PlayerSettings(backend: suite.backend)
        try suite.backend.setValue(1, forKey: "launchCount")
        let raw = try #require(UserDefaults(suiteName: suite.name))
        raw.set(6, forKey: "launchCount")
        suite.backend.suite.sampleForRawWrites(every: 0.01)
        defer { suite.backend.suite.stopSamplingForRawWrites() }
        let found = await eventually("the raw write is taken in") { settings.launchCount == 6 }
        #expect(found)
      }
    #endif

    /// Readers of the lock-free cells race writes, registrations and raw writes taken in; run
    /// under ThreadSanitizer in CI.
    @Test func readersRacingEveryKindOfChangeReadOnlyValuesThatWereStored() async throws {
      let suite = Self.promisedSuite()
      let backend = suite.backend
      let name = suite.name
      try backend.setValue("n0", forKey: "nickname")
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<4 {
          group.addTask {
            let settings = PlayerSettings(backend: backend)
            for _ in 0..<2_000 {
              let count = settings.launchCount
              #expect((0...400).contains(count))
              #expect(settings.nickname.hasPrefix("n"))
              #expect(settings.race == "none" || settings.race.hasPrefix("r"))
            }
          }
        }
        group.addTask {
          let settings = PlayerSettings(backend: backend)
          let raw = UserDefaults(suiteName: name)
          // The raw writes' diagnostics are captured here rather than printed.
          _ = collectingDiagnostics {
            for index in 0..<200 {
              settings.launchCount = index
              settings.nickname = "n\(index)"
              if index % 20 == 0 {
                raw?.set(index + 200, forKey: "launchCount")
                backend.synchronize()
                backend.register(defaults: ["promise.race": .string("r\(index)")])
              }
            }
          }
        }
      }
      #expect(PlayerSettings(backend: backend).launchCount == 199)
    }
  }
#endif
