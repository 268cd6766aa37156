import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

// MARK: - Fixtures

private struct EqualizerSettings: SettingsGroup {
  @Setting var bass = 0
  @Setting("treble.level") var treble = 0
}

private struct PlaybackSettings: SettingsGroup {
  @Setting var volume = 0.8
  @Setting var autoplay = true
  var equalizer = EqualizerSettings()
}

/// A group type that declares its own prefix, used whatever the property is called.
private struct DownloadSettings: SettingsGroup {
  static let keyPrefix = "downloads."
  @Setting var wifiOnly = true
}

private class PrefixedPlayerSettings: SettingsModel, @unchecked Sendable {
  override class var keyPrefix: String { "com.example.player." }
  @Setting var theme = "light"
  var playback = PlaybackSettings()
  var offline = DownloadSettings()
  let notAGroup = 3
}

private final class SubclassedPlayerSettings: PrefixedPlayerSettings, @unchecked Sendable {
  @Setting("launches") var launchCount = 0
}

private struct AppGroupSettings: SettingsGroup {
  static let keyPrefix = "com.example.app."
  @Setting var theme = "dark"
  var playback = PlaybackSettings()
}

private final class OwnBackendSettings: SettingsModel, @unchecked Sendable {
  override class var keyPrefix: String { "com.example.own." }
  static let elsewhere = InMemoryBackend()
  @Setting("shared.flag", default: false, backend: OwnBackendSettings.elsewhere) var flag: Bool
  @Setting var volume = 0.5
}

/// Key prefixes of models and groups, nested groups, and the per-type reflection behind them.
@Suite struct NestedGroupTests {
  @Test func aNestedGroupsSettingsHaveTheFullKeyAndAPropertyPath() {
    let settings = PrefixedPlayerSettings(backend: InMemoryBackend())
    let found = settings.allSettings
    #expect(
      found.map(\.propertyPath) == [
        "theme", "playback.volume", "playback.autoplay", "playback.equalizer.bass",
        "playback.equalizer.treble", "offline.wifiOnly",
      ])
    #expect(
      found.map(\.key) == [
        "com.example.player.theme", "com.example.player.playback.volume",
        "com.example.player.playback.autoplay", "com.example.player.playback.equalizer.bass",
        "com.example.player.playback.equalizer.treble.level",
        "com.example.player.downloads.wifiOnly",
      ])
    #expect(
      found.map(\.propertyName) == ["theme", "volume", "autoplay", "bass", "treble", "wifiOnly"])
    #expect(
      found.map(\.declaringTypeName) == [
        "PrefixedPlayerSettings", "PlaybackSettings", "PlaybackSettings", "EqualizerSettings",
        "EqualizerSettings", "DownloadSettings",
      ])
  }

  @Test func aNestedGroupReadsAndWritesItsKeysThroughItsParentsBackend() {
    let backend = InMemoryBackend()
    let settings = PrefixedPlayerSettings(backend: backend)
    settings.playback.volume = 0.3
    settings.playback.equalizer.bass = 4
    settings.offline.wifiOnly = false
    #expect(
      backend.dictionaryRepresentation() == [
        "com.example.player.playback.volume": 0.3,
        "com.example.player.playback.equalizer.bass": 4,
        "com.example.player.downloads.wifiOnly": false,
      ])
  }

  @Test(arguments: BackendFactory.all)
  func snapshotAndResetAllIncludeEveryNestedGroup(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let settings = PrefixedPlayerSettings(backend: backend)
      settings.playback.equalizer.treble = 2
      settings.theme = "sepia"
      let snapshot = settings.snapshot()
      #expect(snapshot.count == 6)
      #expect(snapshot["com.example.player.playback.equalizer.treble.level"] == 2)
      #expect(snapshot["com.example.player.theme"] == "sepia")
      try backend.setValue("the host's", forKey: "theme")
      settings.resetAll()
      #expect(backend.dictionaryRepresentation() == ["theme": "the host's"])
      #expect(settings.playback.equalizer.treble == 0)
    }
  }

  @Test func aSubclassesSettingsTakeTheModelsPrefixAfterTheInheritedOnes() {
    let settings = SubclassedPlayerSettings(backend: InMemoryBackend())
    let found = settings.allSettings
    #expect(found.last?.key == "com.example.player.launches")
    #expect(found.last?.declaringTypeName == "SubclassedPlayerSettings")
    #expect(found.first?.declaringTypeName == "PrefixedPlayerSettings")
    #expect(found.count == 7)
  }

  @Test func aStructModelNestsGroupsUnderItsPrefixToo() {
    let backend = InMemoryBackend()
    let settings = AppGroupSettings(backend: backend)
    settings.playback.autoplay = false
    #expect(backend.dictionaryRepresentation() == ["com.example.app.playback.autoplay": false])
    #expect(settings.allSettings.map(\.key).first == "com.example.app.theme")
    #expect(settings.allSettings.count == 5)
    // A group on its own takes its own prefix (here none).
    let alone = PlaybackSettings(backend: backend)
    #expect(alone.$volume.key == "volume")
    #expect(
      alone.allSettings.map(\.key) == [
        "volume", "autoplay", "equalizer.bass", "equalizer.treble.level",
      ])
  }

  @Test func aSettingWithItsOwnBackendKeepsItAndItsKeyInAPrefixedModel() throws {
    let backend = InMemoryBackend()
    let settings = OwnBackendSettings(backend: backend)
    settings.flag = true
    settings.volume = 0.1
    #expect(OwnBackendSettings.elsewhere.dictionaryRepresentation() == ["shared.flag": true])
    #expect(backend.dictionaryRepresentation() == ["com.example.own.volume": 0.1])
  }

  // MARK: - Reflection once per type

  @Test func everyInstanceOfATypeBindsItsOwnSettingsUnderTheSameKeys() {
    let backend = InMemoryBackend()
    let first = PrefixedPlayerSettings(backend: backend)
    let second = PrefixedPlayerSettings(backend: InMemoryBackend())
    #expect(first.allSettings.map(\.key) == second.allSettings.map(\.key))
    first.playback.volume = 0.1
    #expect(second.playback.volume == 0.8)
    #expect(backend.value(forKey: "com.example.player.playback.volume") == 0.1)
  }

  @Test func theTypesPlanFindsWhatMirrorFinds() {
    func mirrored(_ model: Any, prefix: String) -> [String] {
      MirrorDiscovery.found(in: model, keyPrefix: prefix).map {
        "\($0.entry.declaringTypeName).\($0.entry.propertyPath) "
          + $0.entry.key(declared: $0.setting.untypedStorage.declaredKey)
      }
    }
    func planned(_ descriptors: [SettingDescriptor]) -> [String] {
      descriptors.map { "\($0.declaringTypeName).\($0.propertyPath) \($0.key)" }
    }
    let model = SubclassedPlayerSettings(backend: InMemoryBackend())
    #expect(planned(model.allSettings) == mirrored(model, prefix: "com.example.player."))
    let group = AppGroupSettings(backend: InMemoryBackend())
    #expect(planned(group.allSettings) == mirrored(group, prefix: "com.example.app."))
    let all = AllTypesSettings(backend: InMemoryBackend())
    #expect(planned(all.allSettings) == mirrored(all, prefix: ""))
  }

  @Test func aStructGroupsAllSettingsDescribesTheSettingsOfThatCopy() {
    let backend = InMemoryBackend()
    let settings = AppGroupSettings(backend: backend)
    let copy = settings
    settings.theme = "blue"
    #expect(copy.allSettings.first?.valueDescription == "blue")
  }
}
