// HostAppDemo: the host half of the library-author example. An app with settings of its own
// embeds PlayerKit, gives it the app's backend, and lists, changes and resets each model's
// settings without touching the other's. Runs on embedded data and needs no arguments.

import Foundation
import PlayerKit
import TypedDefaults

/// The app's own settings: no prefix, and a `volume` of its own.
final class AppSettings: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting (see SettingsModel).
  @Setting var volume = 0.5
  @Setting var theme = "light"
  @Setting var userName = "Guest"
}

/// What the app's store holds at launch: saved by earlier runs, the app's keys and PlayerKit's.
let savedByEarlierRuns: [String: PropertyListValue] = [
  "theme": "dark",
  "userName": "Ann",
  "com.example.playerkit.volume": 0.6,
  "com.example.playerkit.playback.quality": "high",
]

// One backend, owned by the app: PlayerKit's settings live in it beside the app's.
let backend = InMemoryBackend(savedByEarlierRuns, name: "the app's store")
let app = AppSettings(backend: backend)
let playerKit = PlayerKitSettings(backend: backend)
let player = Player(settings: playerKit)

func printSettings(_ title: String, _ settings: [SettingDescriptor]) {
  print(title)
  for setting in settings {
    let path = setting.propertyPath.padding(toLength: 25, withPad: " ", startingAt: 0)
    let key = setting.key.padding(toLength: 47, withPad: " ", startingAt: 0)
    let marker = setting.readsDefaultValue ? "  (default)" : ""
    print("  \(path)\(key)\(setting.typeName) = \(setting.valueDescription)\(marker)")
  }
  print()
}

func printStore(_ title: String) {
  print(title)
  for key in backend.keys {
    print("  \(key) = \(backend.value(forKey: key).map { "\($0)" } ?? "")")
  }
  print()
}

print("HostAppDemo: an app and the PlayerKit library on one backend (\(backend.name))")
print()
printSettings("AppSettings (no key prefix):", app.allSettings)
printSettings(
  "PlayerKitSettings (key prefix \(PlayerKitSettings.keyPrefix)):", playerKit.allSettings)

print("Both declare volume, under two keys:")
app.volume = 0.3
playerKit.volume = 1.0
print("  app.volume = \(app.volume) (key \(app.$volume.key))")
print("  playerKit.volume = \(playerKit.volume) (key \(playerKit.$volume.key))")
print("  \(player.play("Intro"))")
print("  \(player.play("Theme song"))")
print()

printStore("The store holds both models' keys:")

let library = backend.scoped(to: PlayerKitSettings.keyPrefix)
print(
  "PlayerKit's keys, through a view scoped to its prefix: \(library.keys.joined(separator: ", "))")
print()

playerKit.resetAll()
printStore("After playerKit.resetAll(): the app's keys are untouched")

playerKit.volume = 0.9
app.resetAll()
printStore("After app.resetAll(): PlayerKit's keys are untouched")
