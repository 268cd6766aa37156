import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport
import TypedDefaultsTesting

@testable import TypedDefaults

/// An app's model, reached the usual way: through a shared instance on a real `UserDefaults`
/// suite (unique to this test process, so a failure can't touch anything else).
private final class IsolatedAppSettings: SettingsModel, @unchecked Sendable {
  @Setting var name = "Guest"
  @Setting var launches = 0
  @Setting var recent: [String] = []

  static let suiteName = "TypedDefaultsTests.isolation.\(UUID().uuidString)"
  static let shared = IsolatedAppSettings(backend: UserDefaultsBackend(suiteName: suiteName))
}

/// A model on an in-memory backend shared by every test in the process.
private struct SharedMemorySettings: SettingsGroup {
  @Setting var count = 0
  @Setting var tags: [String] = []
  @Setting("explicit", default: "none") var explicit: String

  static let backend = InMemoryBackend(["count": 1, "tags": ["real"]], name: "shared")
  static let shared = SharedMemorySettings(backend: backend)
}

/// What a set of observed changes held.
private final class Observed: Sendable {
  private let values = Locked<[Int]>([])
  var all: [Int] { values.withLock { $0 } }
  func append(_ value: Int) { values.withLock { $0.append(value) } }
}

/// Test isolation (TypedDefaultsTesting): a task-local backend that replaces every setting's
/// own, so tests touch no real store and tests running in parallel never see each other.
@Suite struct TestIsolationTests {
  // MARK: - H45: tests must not write into the developer's real settings

  @Test func aSharedModelOnUserDefaultsWritesNothingToUserDefaultsInsideTheScope() throws {
    let backend = InMemoryBackend()
    SettingsTesting.withBackend(backend) {
      IsolatedAppSettings.shared.name = "Test user"
      IsolatedAppSettings.shared.launches += 1
      IsolatedAppSettings.shared.recent = ["a", "b"]
      #expect(IsolatedAppSettings.shared.name == "Test user")
      #expect(IsolatedAppSettings.shared.launches == 1)
      IsolatedAppSettings.shared.$recent.reset()
      #expect(IsolatedAppSettings.shared.recent == [])
    }
    #expect(backend.dictionaryRepresentation() == ["name": "Test user", "launches": 1])
    // Nothing reached the suite: not its backend, not UserDefaults, not a file.
    let real = IsolatedAppSettings.shared.backend
    #expect(real.dictionaryRepresentation().isEmpty)
    let defaults = try #require(UserDefaults(suiteName: IsolatedAppSettings.suiteName))
    #expect(defaults.object(forKey: "name") == nil)
    #expect(defaults.object(forKey: "launches") == nil)
    #expect(IsolatedAppSettings.shared.name == "Guest")
    #if !canImport(Darwin)
      // Where corelibs would keep the suite's file: nothing was written there, or beside it.
      let folder =
        ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"] ?? NSHomeDirectory() + "/.config"
      let file = folder + "/" + IsolatedAppSettings.suiteName + ".plist"
      #expect(!FileManager.default.fileExists(atPath: file))
      #expect(!FileManager.default.fileExists(atPath: file + ".lock"))
    #endif
  }

  @Test func aGroupCreatedWithoutABackendWorksInsideTheScope() {
    let backend = InMemoryBackend()
    SettingsTesting.withBackend(backend) {
      let unattached = SharedMemorySettings()
      // Only a setting with a declared key can be read unattached: the others have no key yet.
      #expect(unattached.explicit == "none")
      unattached.explicit = "set"
      #expect(unattached.explicit == "set")
    }
    #expect(backend.dictionaryRepresentation() == ["explicit": "set"])
  }

  // MARK: - H46: parallel and repeated tests must not share one domain

  @Test(arguments: 0..<100)
  func parallelTestsOverASharedModelEachSeeOnlyTheirOwnValues(_ index: Int) async {
    await SettingsTesting.withBackend(InMemoryBackend()) {
      #expect(SharedMemorySettings.shared.count == 0)  // no earlier case's value
      SharedMemorySettings.shared.count = index
      SharedMemorySettings.shared.tags = ["case \(index)"]
      await Task.yield()
      #expect(SharedMemorySettings.shared.count == index)
      #expect(SharedMemorySettings.shared.tags == ["case \(index)"])
    }
  }

  @Test(.isolatedSettings, arguments: 0..<50)
  func theTraitGivesEachTestCaseAFreshBackend(_ index: Int) async throws {
    let backend = try #require(SettingsTesting.currentBackend)
    #expect(backend.dictionaryRepresentation().isEmpty)
    #expect(IsolatedAppSettings.shared.launches == 0)
    IsolatedAppSettings.shared.launches = index
    await Task.yield()
    #expect(IsolatedAppSettings.shared.launches == index)
    #expect(backend.value(forKey: "launches") == .integer(.init(Int64(index))))
  }

  @Test func theSettingsOwnBackendAndItsCellsAreUntouchedByTheScope() {
    let real = SharedMemorySettings.backend
    #expect(SharedMemorySettings.shared.count == 1)
    #expect(SharedMemorySettings.shared.tags == ["real"])
    let test = InMemoryBackend(["tags": ["test"]])
    SettingsTesting.withBackend(test) {
      #expect(SharedMemorySettings.shared.$count.backend === test)
      #expect(SharedMemorySettings.shared.count == 0)
      #expect(SharedMemorySettings.shared.tags == ["test"])
      #expect(SharedMemorySettings.shared.$count.storedValue == nil)
      SharedMemorySettings.shared.count = 99
    }
    #expect(real.value(forKey: "count") == 1)
    #expect(SharedMemorySettings.shared.count == 1)
    #expect(SharedMemorySettings.shared.tags == ["real"])
  }

  @Test func anObserverInOneScopeSeesNothingFromAnother() async {
    let first = Observed()
    let second = Observed()
    await withTaskGroup(of: Void.self) { group in
      for (observed, values) in [(first, [1, 2, 3]), (second, [10, 20])] {
        group.addTask {
          await SettingsTesting.withBackend(InMemoryBackend()) {
            let token = SharedMemorySettings.shared.$count.observe { observed.append($0) }
            for value in values {
              SharedMemorySettings.shared.count = value
              await Task.yield()
            }
            withExtendedLifetime(token) {}
          }
        }
      }
    }
    #expect(first.all == [1, 2, 3])
    #expect(second.all == [10, 20])
    #expect(SharedMemorySettings.backend.value(forKey: "count") == 1)
  }

  @Test func childTasksInheritTheScopeAndDetachedTasksDoNot() async {
    await SettingsTesting.withBackend(InMemoryBackend(["count": 5])) {
      async let child = SharedMemorySettings.shared.count
      let unstructured = await Task { SharedMemorySettings.shared.count }.value
      // Documented: a detached task (like a Dispatch queue) uses the setting's own backend.
      let detached = await Task.detached { SharedMemorySettings.shared.count }.value
      #expect(await child == 5)
      #expect(unstructured == 5)
      #expect(detached == 1)
    }
  }

  @Test func diagnosticsInsideTheScopeNameTheTestsBackend() throws {
    let backend = InMemoryBackend(["count": "many"], name: "the test's backend")
    let (count, diagnostics) = collectingDiagnostics {
      SettingsTesting.withBackend(backend) { SharedMemorySettings.shared.count }
    }
    #expect(count == 0)
    #expect(try #require(diagnostics.first).backend == "the test's backend")
  }

  @Test func nestedScopesUseTheInnermostBackend() {
    let outer = InMemoryBackend(["count": 2])
    let inner = InMemoryBackend(["count": 3])
    SettingsTesting.withBackend(outer) {
      #expect(SharedMemorySettings.shared.count == 2)
      SettingsTesting.withBackend(inner) { #expect(SharedMemorySettings.shared.count == 3) }
      #expect(SharedMemorySettings.shared.count == 2)
    }
  }
}

/// The trait applied to a suite: every test in it gets a backend of its own.
@Suite(.isolatedSettings) struct IsolatedSuiteTests {
  @Test func aWriteHere() {
    IsolatedAppSettings.shared.name = "first"
    #expect(IsolatedAppSettings.shared.name == "first")
  }

  @Test func isNotSeenHere() {
    #expect(IsolatedAppSettings.shared.name == "Guest")
    IsolatedAppSettings.shared.name = "second"
  }
}

#if canImport(Observation)
  import Observation

  /// Swift Observation inside a test's scope: tracking follows the backend a setting reads there.
  @Suite struct TestIsolationTrackingTests {
    /// A view-model test: tracking an app's shared model inside `.isolatedSettings` is told of a
    /// change in the test's backend (it used to observe the model's own backend, so `onChange`
    /// never came).
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test(.isolatedSettings) func trackingInsideAnIsolatedScopeFiresForAChangeThere() throws {
      let calls = Observed()
      let seen = withObservationTracking {
        IsolatedAppSettings.shared.launches
      } onChange: {
        calls.append(IsolatedAppSettings.shared.launches)
      }
      #expect(seen == 0)
      IsolatedAppSettings.shared.launches = 3
      #expect(calls.all == [3])

      // A change made on the test's backend directly counts too.
      let again = Observed()
      _ = withObservationTracking {
        IsolatedAppSettings.shared.launches
      } onChange: {
        again.append(IsolatedAppSettings.shared.launches)
      }
      try #require(SettingsTesting.currentBackend).setValue(4, forKey: "launches")
      #expect(again.all == [4])
    }

    /// Tests running in parallel on one shared model: a tracker in one scope hears nothing of
    /// another scope's writes, nor of the model's own backend.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test func trackingInOneScopeIsNotToldOfAnotherScopesWrites() async {
      let own = InMemoryBackend()
      let model = IsolationTrackedSettings(backend: own)
      let first = InMemoryBackend(name: "first test")
      let second = InMemoryBackend(name: "second test")
      let calls = Observed()
      SettingsTesting.withBackend(first) {
        _ = withObservationTracking {
          model.volume
        } onChange: {
          calls.append(1)
        }
      }
      SettingsTesting.withBackend(second) { model.volume = 5 }
      model.volume = 6  // the model's own backend, outside any scope
      #expect(calls.all == [])
      SettingsTesting.withBackend(first) { model.volume = 7 }
      #expect(calls.all == [1])
      #expect(own.value(forKey: "volume") == 6)
    }

    /// Tracking a shared model through a test's backend doesn't keep that backend alive after
    /// the test: the model outlives it.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test func aTestsBackendTrackedThroughASharedModelIsFreedAfterTheScope() {
      let model = IsolationTrackedSettings(backend: InMemoryBackend())
      weak var weakBackend: InMemoryBackend?
      do {
        let backend = InMemoryBackend()
        weakBackend = backend
        SettingsTesting.withBackend(backend) {
          _ = withObservationTracking {
            model.volume
          } onChange: {
          }
        }
      }
      #expect(weakBackend == nil)
      // A later scope's tracking still works.
      let calls = Observed()
      SettingsTesting.withBackend(InMemoryBackend()) {
        _ = withObservationTracking {
          model.volume
        } onChange: {
          calls.append(1)
        }
        model.volume = 2
      }
      #expect(calls.all == [1])
    }
  }

  /// A model of the tracking tests, on a backend of each test's choosing.
  // @unchecked Sendable: its stored properties are `@Setting`s (see SettingsModel).
  private final class IsolationTrackedSettings: SettingsModel, @unchecked Sendable {
    @Setting var volume = 1
  }
#endif

/// `SettingsTesting.refuseWritesToRealStores()`, in a process of its own, since it holds for the
/// rest of its process (issue 17, item 11).
@Suite struct RealStoreWritesTests {
  @Test func aTestThatForgetsIsolationCantWriteARealStore() throws {
    // A "real" folder: outside the temporary folders, as a user's data folder is. The build
    // folder is one, unless the clone itself is in a temporary folder (a clone under /tmp):
    // then the home folder, or the working directory.
    let candidates = [
      TestPaths.productsDirectory.deletingLastPathComponent(),
      FileManager.default.homeDirectoryForCurrentUser,
      URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
    ]
    let parent = try #require(
      candidates.first { !RealStoreGuard.isTemporary($0.appendingPathComponent("x")) },
      "every candidate for a real folder is in a temporary folder: \(candidates)")
    let real = parent.appendingPathComponent("typeddefaults-real-store-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: real) }
    let temporary = try TemporaryDirectory()
    let run = try runProduct(
      "SettingsProbe", ["refuse-real-writes", real.path, temporary.url.path],
      environment: ["XDG_CONFIG_HOME": real.path])
    #expect(run.status == 0, "\(run.standardError)")
    let store = "LayeredPlistStore(\(real.path)/data.plist)"
    let refusal =
      "issue: Cannot write the property list at '\(real.path)/data.plist': A test wrote to a real "
      + "store (\(store)), which holds this user's own settings; run the test with "
      + ".isolatedSettings, or open the store on a temporary folder"
    // Every kind of write is refused: a removal, which can't throw, with a diagnostic.
    var expected = [
      refusal, "real setValue: fileNotWritable", refusal, "real save: fileNotWritable", refusal,
      "diagnostic: writeFailed", "real removeValue: returned", refusal,
      "real update: fileNotWritable", refusal, "real setValueForNextLaunch: fileNotWritable",
      refusal, "diagnostic: writeFailed", "real model reads 0.5", "isolated model reads 3.0",
      "temporary setValue: written", "temporary save: written",
    ]
    #if !canImport(Darwin)
      let suiteRefusal =
        "issue: Cannot write the property list at '\(real.path)/TypedDefaultsTests.guard.plist': "
        + "A test wrote to a real store (UserDefaults(suite: TypedDefaultsTests.guard, "
        + "\(real.path)/TypedDefaultsTests.guard.plist)), which "
        + "holds this user's own settings; run the test with .isolatedSettings, or open the "
        + "store on a temporary folder"
      expected += [
        suiteRefusal, "suite setValue: fileNotWritable", suiteRefusal, "diagnostic: writeFailed",
        "suite removeValue: returned", suiteRefusal, "suite update: fileNotWritable",
      ]
    #endif
    #expect(run.standardOutput.split(separator: "\n").map(String.init) == expected)
    // Nothing reached the real folder; the temporary store was saved.
    #expect(try FileManager.default.contentsOfDirectory(atPath: real.path) == [])
    #expect(
      try PropertyListFile(url: temporary.file("data.plist")).readDictionary() == ["k": 1])
  }

  @Test func theGuardIsOffUnlessATestTargetTurnsItOn() {
    #expect(!SettingsTesting.refusesWritesToRealStores)
  }
}
