import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

// MARK: - Fixture models

/// Keys prefixed with the suite's name: on Linux registration is process-wide, so other tests'
/// suites see these keys.
private struct HintSettings: SettingsGroup {
  @Setting("RegistrationDefaultsTests.showHints", default: true) var showHints: Bool
  @Setting("RegistrationDefaultsTests.launchDelay", default: 3) var launchDelay: Int
  @Setting("RegistrationDefaultsTests.lastOpened") var lastOpened: Date?
}

private final class HintModel: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting.
  @Setting("RegistrationDefaultsTests.model.showHints", default: true) var showHints: Bool
}

/// Registration defaults: `registerDefaults()` serves raw `UserDefaults` readers in this process,
/// and registered values are never stored, listed, exported or saved (H49).
@Suite struct RegistrationDefaultsTests {
  @Test func registeredDefaultsAreSeenByRawUserDefaultsButAreNotStoredValues() throws {
    let suite = TemporarySuite()
    let settings = HintSettings(backend: suite.backend)
    let raw = try #require(UserDefaults(suiteName: suite.name))
    #expect(settings.registerDefaults())
    #expect(raw.object(forKey: "RegistrationDefaultsTests.showHints") as? Bool == true)
    #expect(raw.integer(forKey: "RegistrationDefaultsTests.launchDelay") == 3)

    #expect(settings.showHints)
    #expect(!settings.$showHints.hasStoredValue)
    #expect(!settings.$launchDelay.hasStoredValue)
    #expect(settings.allSettings.allSatisfy { !$0.hasStoredValue && $0.readsDefaultValue })
    #expect(suite.backend.storedValue(forKey: "RegistrationDefaultsTests.showHints") == nil)
    #expect(suite.backend.value(forKey: "RegistrationDefaultsTests.showHints") == true)
    #expect(suite.backend.dictionaryRepresentation().isEmpty)
    #expect(settings.exportedValues(options: .init(omitsDefaultValues: true)).isEmpty)

    // A real value is stored, and wins over the registration for raw readers too.
    settings.showHints = false
    #expect(settings.$showHints.hasStoredValue)
    #expect(raw.object(forKey: "RegistrationDefaultsTests.showHints") as? Bool == false)
    settings.$showHints.reset()
    #expect(!settings.$showHints.hasStoredValue)
    #expect(settings.showHints)
  }

  /// Registration is process-wide, and so was the check for it: after a model on suite A
  /// registered `flag = true`, a setting on suite B storing `true` read as unset (`false`).
  ///
  /// A value equal to the registered one that this process's own raw `UserDefaults` code or
  /// another process stored is counted as stored once taken in (the whole domain is compared
  /// then); it reads `true` at once.
  @Test func aDefaultRegisteredForOneSuiteNeverHidesAnEqualValueStoredInAnother() throws {
    // A key of this test's own: the registration is seen by every suite of the process.
    let key = "RegistrationDefaultsTests.crossSuiteFlag"
    struct Flags: SettingsGroup {
      @Setting("RegistrationDefaultsTests.crossSuiteFlag") var flag = false
    }
    let a = TemporarySuite()
    let b = TemporarySuite()
    a.backend.register(defaults: [key: true])
    let flags = Flags(backend: b.backend)
    // Stored in B by code using UserDefaults directly.
    try #require(UserDefaults(suiteName: b.name)).set(true, forKey: key)
    #expect(flags.flag)
    #expect(b.backend.synchronize())
    #expect(flags.$flag.hasStoredValue)
    #expect(b.backend.storedValue(forKey: key) == true)

    // Stored in another suite by another process.
    let c = TemporarySuite()
    let inC = Flags(backend: c.backend)
    let run = try runProduct("SettingsProbe", ["userdefaults", c.name, "set", key, "bool:true"])
    #expect(run.status == 0, "\(run.standardError)")
    #expect(inC.flag)
    try c.backend.reload()
    #expect(inC.flag)
    #expect(inC.$flag.hasStoredValue)
    // A never-stored key of A reads the registration, and is not stored.
    let other = Flags(backend: a.backend)
    #expect(other.flag)
    #expect(!other.$flag.hasStoredValue)
  }

  /// Values other code registers directly with `UserDefaults.register(defaults:)` were counted
  /// as stored: `hasStoredValue`, changed-only exports, and from there an import into another
  /// store.
  ///
  /// They are read, as `object(forKey:)` reads them, and never stored.
  @Test func aValueOtherCodeRegistersDirectlyIsReadButNeverCountedAsStored() throws {
    struct Delays: SettingsGroup { @Setting("RegistrationDefaultsTests.directDelay") var delay = 0 }
    UserDefaults.standard.register(defaults: ["RegistrationDefaultsTests.directDelay": 3])
    let suite = TemporarySuite()
    let delays = Delays(backend: suite.backend)
    #expect(delays.delay == 3)
    #expect(!delays.$delay.hasStoredValue)
    #expect(suite.backend.storedValue(forKey: "RegistrationDefaultsTests.directDelay") == nil)
    #expect(delays.exportedValues(options: .init(omitsDefaultValues: true)).isEmpty)
    #expect(suite.backend.dictionaryRepresentation().isEmpty)
    delays.delay = 5
    #expect(delays.$delay.hasStoredValue)
    #expect(
      delays.exportedValues(options: .init(omitsDefaultValues: true)) == [
        "RegistrationDefaultsTests.directDelay": 5
      ])
  }

  /// `-key value` launch arguments override what a setting reads, as in corelibs, but are not
  /// stored: not in `hasStoredValue`, nor in a changed-only export (an import of it used to
  /// persist the argument into another store).
  @Test func aLaunchArgumentIsReadButNeverCountedAsStored() throws {
    #if !canImport(Darwin)
      let config = try TemporaryDirectory()
      let run = try runProduct(
        "SettingsProbe",
        ["userdefaults", "TypedDefaultsTests.arguments", "ud-stored", "go", "-volume", "0.25"],
        environment: ["XDG_CONFIG_HOME": config.url.path])
      #expect(run.status == 0, "\(run.standardError)")
      #expect(run.standardOutput == "reads 0.25 stored false exports []\n")
    #endif
  }

  @Test func registeredDefaultsAreNeverSavedNorSeenByAnotherProcess() throws {
    let suite = TemporarySuite()
    let settings = HintSettings(backend: suite.backend)
    settings.registerDefaults()
    settings.launchDelay = 7  // something to save
    #expect(suite.backend.synchronize())
    let saved = try PropertyListFile(url: suite.fileURL).readDictionary()
    #expect(saved == ["RegistrationDefaultsTests.launchDelay": 7])
    // Process B: plain UserDefaults sees no registration; the library reads the declared default.
    let rawGet = try runProduct(
      "SettingsProbe", ["raw", suite.name, "raw-get", "RegistrationDefaultsTests.showHints"])
    #expect(rawGet.standardOutput == "nil\n")
    let libraryGet = try runProduct(
      "SettingsProbe", ["userdefaults", suite.name, "get", "RegistrationDefaultsTests.showHints"])
    #expect(libraryGet.standardOutput == "nil\n")
  }

  @Test func aSettingReadBeforeAnyRegistrationReadsItsDeclaredDefault() throws {
    let suite = TemporarySuite()
    let model = HintModel(backend: suite.backend)
    #expect(model.showHints)  // not the raw getter's false
    #expect(model.registerDefaults())
    #expect(model.showHints)
    #expect(!model.$showHints.hasStoredValue)
  }

  @Test(arguments: [BackendFactory.inMemory, .layeredPlistStore])
  func backendsWithoutARegistrationDomainAreLeftAsTheyAre(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let settings = HintSettings(backend: backend)
      #expect(!settings.registerDefaults())
      #expect(backend.dictionaryRepresentation().isEmpty)
      #expect(settings.showHints)
      #expect(!settings.$showHints.hasStoredValue)
    }
  }
}
