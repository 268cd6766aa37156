import Foundation
import Testing

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
    #expect(suite.backend.value(forKey: "RegistrationDefaultsTests.showHints") == nil)
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
