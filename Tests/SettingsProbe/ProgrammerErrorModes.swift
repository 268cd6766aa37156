// SettingsProbe programmer-error duplicate-key   (creates a model with two settings under one
//   key: the program must stop, saying which)
// SettingsProbe programmer-error unattached      (reads a group never attached to a backend)
// SettingsProbe programmer-error duplicate-inherited  (a subclass declares its superclass's key)
// SettingsProbe programmer-error duplicate-nested     (a setting's key is a nested group's key)
// SettingsProbe programmer-error shared-group   (a group kept in a global is the initial value of
//   two models' properties: the second model must stop instead of re-binding the first's settings)
// SettingsProbe programmer-error group-twice    (one group value stored in two properties of a
//   model)
// SettingsProbe programmer-error static-group-nested  (a group's `static let shared`, created with
//   init(backend:) and used, then the initial value of one model's property: prints the shared
//   group's key and backend after the model is created)
//
// Run by the tests in a debug build; build the probe with `-c release` to see the same messages
// in a release build.

import TypedDefaults

private struct TwoSettingsOneKey: SettingsGroup {
  @Setting("volume") var volume = 0.5
  @Setting("volume") var loudness = 1.0
}

private class BasePlayerSettings: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting.
  @Setting("volume") var volume = 0.5
}

private final class DerivedPlayerSettings: BasePlayerSettings, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting.
  @Setting("volume") var loudness = 1.0
}

private struct NestedPlayback: SettingsGroup {
  @Setting var speed = 1.0
}

private struct NestedCollision: SettingsGroup {
  @Setting("playback.speed") var speed = 2.0
  var playback = NestedPlayback()
}

private struct SharedPlayback: SettingsGroup {
  @Setting var volume = 0.5
}

/// A group value kept in a global: every copy of it shares its settings.
private let sharedPlayback = SharedPlayback()

private final class FirstOwner: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a group of @Settings.
  var playback = sharedPlayback
}

private final class SecondOwner: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a group of @Settings.
  var playback = sharedPlayback
}

private struct TwoCopiesOfOneGroup: SettingsGroup {
  var main = sharedPlayback
  var spare = sharedPlayback
}

private struct StaticSharedPlayer: SettingsGroup {
  @Setting var volume = 0.5
  static let shared = StaticSharedPlayer(backend: InMemoryBackend(name: "shared"))
}

private final class NestsTheSharedPlayer: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a group of @Settings.
  var player = StaticSharedPlayer.shared
}

/// Runs a `programmer-error` mode; `false` for other arguments.
func runProgrammerErrorMode(_ arguments: [String]) -> Bool {
  guard arguments.first == "programmer-error", arguments.count == 2 else { return false }
  switch arguments[1] {
  case "duplicate-key":
    let settings = TwoSettingsOneKey(backend: InMemoryBackend())
    print(settings.volume)
  case "duplicate-inherited":
    print(DerivedPlayerSettings(backend: InMemoryBackend()).volume)
  case "duplicate-nested":
    print(NestedCollision(backend: InMemoryBackend()).speed)
  case "shared-group":
    let first = FirstOwner(backend: InMemoryBackend(name: "first"))
    let second = SecondOwner(backend: InMemoryBackend(name: "second"))
    print(first.playback.volume, second.playback.volume)
  case "group-twice":
    print(TwoCopiesOfOneGroup(backend: InMemoryBackend(name: "twice")).main.volume)
  case "static-group-nested":
    StaticSharedPlayer.shared.volume = 0.7
    let model = NestsTheSharedPlayer(backend: InMemoryBackend(name: "model"))
    print(
      StaticSharedPlayer.shared.$volume.key, StaticSharedPlayer.shared.$volume.backend.name,
      StaticSharedPlayer.shared.volume, model.player.volume)
  case "unattached":
    print(TwoSettingsOneKey().volume)
  default:
    fail("unknown programmer-error mode '\(arguments[1])'")
  }
  return true
}
