import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

private final class PlayerSettings: SettingsModel, @unchecked Sendable {
  @Setting var allowsCellularPlayback = false
  @Setting("volume", default: 0.8) var volume: Double
  @Setting("displayName") var name = "Player"
  @Setting var lastOpened: Date?
  @Setting("resumePosition", default: nil) var resumePosition: Double?
  @Setting var playbackRate: Double? = 1.0
  @Setting var recentSearches: [String] = []
  @Setting var quality = Quality.auto
}

/// Settings standing alone, each with its own backend, in a struct used through a `let`.
private struct StandaloneFlags: Sendable {
  static let backend = InMemoryBackend(name: "flags")
  @Setting("beta", default: false, backend: StandaloneFlags.backend) var beta: Bool
  @Setting("channel", backend: StandaloneFlags.backend) var channel = "stable"
}

@Suite struct SettingTests {
  // MARK: - Declaration forms

  @Test func everyDeclarationFormReadsItsDefaultAndWritesItsKey() {
    let backend = InMemoryBackend()
    let settings = PlayerSettings(backend: backend)
    #expect(settings.allowsCellularPlayback == false)
    #expect(settings.volume == 0.8)
    #expect(settings.name == "Player")
    #expect(settings.lastOpened == nil)
    #expect(settings.resumePosition == nil)
    #expect(settings.playbackRate == 1.0)

    settings.allowsCellularPlayback = true
    settings.volume = 0.5
    settings.name = "Living room"
    settings.lastOpened = Date(timeIntervalSinceReferenceDate: 100)
    settings.resumePosition = 12.5
    settings.recentSearches = ["jazz"]
    settings.quality = .high
    #expect(
      backend.dictionaryRepresentation() == [
        "allowsCellularPlayback": true,
        "volume": 0.5,
        "displayName": "Living room",
        "lastOpened": .date(Date(timeIntervalSinceReferenceDate: 100)),
        "resumePosition": 12.5,
        "recentSearches": ["jazz"],
        "quality": "high",
      ]
    )
  }

  @Test func aStandaloneSettingWorksWithoutAModelThroughALet() {
    let flags = StandaloneFlags()
    #expect(flags.beta == false)
    flags.beta = true
    flags.channel = "nightly"
    #expect(StandaloneFlags.backend.value(forKey: "beta") == true)
    #expect(StandaloneFlags().channel == "nightly")
    #expect(flags.$beta.backend.name == "flags")
    flags.$beta.reset()
    flags.$channel.reset()
  }

  // MARK: - Optional settings

  @Test func assigningNilRemovesTheKeySoTheDefaultShowsAgain() {
    let backend = InMemoryBackend()
    let settings = PlayerSettings(backend: backend)
    settings.playbackRate = 2.0
    #expect(backend.value(forKey: "playbackRate") == 2.0)
    settings.playbackRate = nil
    #expect(backend.value(forKey: "playbackRate") == nil)
    #expect(settings.playbackRate == 1.0)

    settings.lastOpened = Date(timeIntervalSinceReferenceDate: 1)
    settings.lastOpened = nil
    #expect(backend.value(forKey: "lastOpened") == nil)
    #expect(settings.lastOpened == nil)
  }

  // MARK: - Projected value

  @Test func theProjectedValueExposesKeyDefaultStoredStateAndReset() {
    let backend = InMemoryBackend()
    let settings = PlayerSettings(backend: backend)
    #expect(settings.$volume.key == "volume")
    #expect(settings.$name.key == "displayName")
    #expect(settings.$allowsCellularPlayback.key == "allowsCellularPlayback")
    #expect(settings.$volume.defaultValue == 0.8)
    #expect(!settings.$volume.hasStoredValue)
    #expect(settings.$volume.storedValue == nil)

    settings.volume = 0.3
    #expect(settings.$volume.hasStoredValue)
    #expect(settings.$volume.storedValue == 0.3)

    settings.$volume.reset()
    #expect(!settings.$volume.hasStoredValue)
    #expect(settings.volume == 0.8)
  }

  // MARK: - Wrong-typed stored values

  @Test func aWrongTypedValueReadsAsTheDefaultWithOneDiagnosticAndStaysUntouched() throws {
    let backend = InMemoryBackend(["volume": "loud", "recentSearches": ["a": 1]], name: "memory")
    let settings = PlayerSettings(backend: backend)
    let (values, diagnostics) = collectingDiagnostics {
      (settings.volume, settings.volume, settings.recentSearches, settings.recentSearches)
    }
    #expect(values.0 == 0.8 && values.1 == 0.8)
    #expect(values.2 == [] && values.3 == [])
    #expect(diagnostics.count == 2)
    let volume = try #require(diagnostics.first { $0.key == "volume" })
    #expect(volume.kind == .typeMismatch)
    #expect(volume.backend == "memory")
    #expect(volume.expectedType == "Double")
    #expect(volume.storedValue == "loud")
    #expect(
      volume.message
        == "'volume' in memory holds a string (loud) that can't be read as Double; using the default (0.8) and leaving the stored value untouched"
    )
    #expect(backend.value(forKey: "volume") == "loud")
    #expect(backend.value(forKey: "recentSearches") == ["a": 1])
  }

  @Test func aDifferentWrongValueIsReportedAgain() throws {
    let backend = InMemoryBackend(["volume": "loud"])
    let settings = PlayerSettings(backend: backend)
    let (_, diagnostics) = try collectingDiagnostics {
      _ = settings.volume
      try backend.setValue("quiet", forKey: "volume")
      _ = settings.volume
      _ = settings.volume
    }
    #expect(diagnostics.map(\.storedValue) == ["loud", "quiet"])
  }

  @Test func aNotANumberUnderAnIntSettingIsReportedOnceNotOnEveryRead() {
    struct Counter: SettingsGroup {
      @Setting var count = 0
    }
    let settings = Counter(backend: InMemoryBackend(["count": .real(.nan)]))
    let (_, diagnostics) = collectingDiagnostics {
      for _ in 0..<5 { _ = settings.count }
    }
    #expect(diagnostics.count == 1)
    #expect(diagnostics.first?.message.contains("(not a finite number)") == true)
  }

  // MARK: - Failed writes

  @Test func aValueThatCannotBeStoredIsAnErrorFromSetAndADiagnosticFromTheSetter() throws {
    struct Holder: SettingsGroup {
      @Setting var optionals: [Int?] = []
    }
    let backend = InMemoryBackend(["optionals": [1]])
    let holder = Holder(backend: backend)
    let error = #expect(throws: SettingsError.self) { try holder.$optionals.set([1, nil]) }
    #expect(error?.code == .valueNotRepresentable)
    #expect(error?.key == "optionals")
    #expect(
      error?.description
        == "Cannot store the value for 'optionals': Element 1 is nil, and property lists cannot store nil"
    )

    let (_, diagnostics) = collectingDiagnostics { holder.optionals = [nil] }
    #expect(diagnostics.map(\.kind) == [.writeFailed])
    #expect(diagnostics.first?.key == "optionals")
    // Nothing was written.
    #expect(backend.value(forKey: "optionals") == [1])
    #expect(holder.optionals == [1])
  }

  @Test func aBackendErrorReachesTheCaller() throws {
    struct Config: SettingsGroup {
      @Setting var name = ""
    }
    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(persistentFile: directory.file("data.plist"))
    let config = Config(backend: store)
    try config.$name.set("x")
    #expect(store.value(forKey: "name") == "x")
  }
}
