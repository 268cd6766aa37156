import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

// "A setting's storage is bound only once" (issue 18, review §4.3): a group value shared by two
// models would have the second model re-bind the first's settings. Before the check, the break-it
// below showed the first model's setting silently reading and writing the second model's backend
// (0.7 written through the first model read back as the default, 0.5, and the next write went to
// the second backend); now the second model stops the program, naming the setting.

private struct LegitPlayback: SettingsGroup {
  @Setting var volume = 0.5
}

private struct LegitEqualizer: SettingsGroup {
  @Setting var bass = 0
}

private struct LegitApp: SettingsGroup {
  @Setting var theme = "light"
  var equalizer = LegitEqualizer()
}

/// The legitimate re-binding: a group created with its backend, then nested in the model that
/// creates it, within one init.
private final class OwnsAGroupItCreates: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a group of @Settings, set in init.
  let playback: LegitPlayback
  let app: LegitApp

  init(groupsOn groupBackend: any SettingsBackend, backend: any SettingsBackend) {
    playback = LegitPlayback(backend: groupBackend)
    app = LegitApp(backend: groupBackend)
    super.init(backend: backend)
  }
}

@Suite struct BindingOnceTests {
  @Test func aGroupCreatedWithItsBackendAndNestedInTheModelThatCreatesItReadsTheModelsKeys() throws
  {
    // On the model's own backend: a group created on another one stops the program (the
    // `static-group-nested` probe below), since nesting it would move its settings there.
    let backend = InMemoryBackend(name: "model")
    let settings = OwnsAGroupItCreates(groupsOn: backend, backend: backend)
    settings.playback.volume = 0.7
    settings.app.theme = "dark"
    settings.app.equalizer.bass = 3
    #expect(
      backend.dictionaryRepresentation() == [
        "playback.volume": 0.7, "app.theme": "dark", "app.equalizer.bass": 3,
      ])
    #expect(
      settings.allSettings.map(\.key) == ["playback.volume", "app.theme", "app.equalizer.bass"])
  }

  @Test func aGroupCreatedWithItsBackendKeepsItWhenNoModelNestsIt() throws {
    let backend = InMemoryBackend()
    let app = LegitApp(backend: backend)
    app.equalizer.bass = 2
    #expect(backend.value(forKey: "equalizer.bass") == 2)
    #expect(app.equalizer.$bass.key == "equalizer.bass")
  }

  @Test func theTypesPlanAndMirrorNameTheSameGroupsAroundEachSetting() {
    let backend = InMemoryBackend()
    let model = OwnsAGroupItCreates(groupsOn: backend, backend: backend)
    var planned: [String: [ObjectIdentifier]] = [:]
    SettingsReflection.forEachSetting(in: model, keyPrefix: "") {
      planned[$0.entry.propertyPath] = $0.entry.enclosingGroups
    }
    #expect(
      planned == [
        "playback.volume": [ObjectIdentifier(LegitPlayback.self)],
        "app.theme": [ObjectIdentifier(LegitApp.self)],
        "app.equalizer.bass": [
          ObjectIdentifier(LegitApp.self), ObjectIdentifier(LegitEqualizer.self),
        ],
      ])
    let mirrored = MirrorDiscovery.found(in: model, keyPrefix: "")
    #expect(
      planned
        == Dictionary(
          uniqueKeysWithValues: mirrored.map { ($0.entry.propertyPath, $0.entry.enclosingGroups) }))
  }

  /// Runs the probe's `programmer-error` mode, which must stop the program with `message`.
  private func expectStop(_ mode: String, saying message: String, probe: URL) throws {
    let run = try runExecutable(probe, ["programmer-error", mode])
    let standardError = String(decoding: run.standardError, as: UTF8.self)
    #expect(run.status != 0)
    #expect(run.standardOutput.isEmpty)
    #expect(standardError.contains("Fatal error: \(message)"), "\(standardError.prefix(600))")
  }

  @Test(arguments: ModelDeclarationChecksTests.probes)
  func aGroupKeptInAGlobalAndUsedByTwoModelsStopsTheSecondSayingWhich(probe: URL) throws {
    try expectStop(
      "shared-group",
      saying: "SecondOwner.playback.volume is already bound, as 'playback.volume' of FirstOwner "
        + "on first: a setting belongs to one model, and a SettingsGroup value shares its "
        + "settings with every copy (one kept in a global or a static and used as the initial "
        + "value of two models' properties, or stored in two properties); give each property a "
        + "group of its own (a new SharedPlayback() in each), or create the group with "
        + "init(backend:) where the model is initialized", probe: probe)
  }

  /// A group's `static let shared` on its own backend, nested in a model, stops the program.
  ///
  /// The hole a review found: the shared group, made with `init(backend:)` on its own backend and
  /// used there, as the initial value of one model's property. Before the check
  /// looked at the backend, the shared group's setting silently moved to the model's backend and
  /// key (it read the default, 0.5, after 0.7 was written to it).
  @Test(arguments: ModelDeclarationChecksTests.probes)
  func aSharedStaticGroupOnItsOwnBackendNestedInAModelStopsItSayingWhatWouldMove(probe: URL) throws
  {
    try expectStop(
      "static-group-nested",
      saying: "NestsTheSharedPlayer.player.volume is already bound, as 'volume' of a "
        + "StaticSharedPlayer created with init(backend:) on shared: nesting that group value in "
        + "a model on model would move its settings, under every copy of it (a static or a "
        + "global included), to model; nest a group of the model's own (StaticSharedPlayer(), "
        + "or StaticSharedPlayer(backend:) given the model's backend)", probe: probe)
  }

  @Test(arguments: ModelDeclarationChecksTests.probes)
  func oneGroupValueStoredInTwoPropertiesOfAModelStopsItSayingWhich(probe: URL) throws {
    try expectStop(
      "group-twice",
      saying: "TwoCopiesOfOneGroup.spare.volume is already bound, as 'main.volume' of "
        + "TwoCopiesOfOneGroup on twice: a setting belongs to one model", probe: probe)
  }
}
