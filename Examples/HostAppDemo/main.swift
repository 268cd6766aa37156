// HostAppDemo: the host half of the library-author example. An app with settings of its own
// embeds PlayerKit, gives it the app's backend, and lists, changes and resets each model's
// settings without touching the other's. Runs on embedded data and needs no arguments.
//
//   swift run HostAppDemo                          the demo, on an in-memory store
//   swift run HostAppDemo --schema [FORMAT]        prints both models' schema, FORMAT json (the
//                                                  default), bundle (a Settings.bundle Root.plist),
//                                                  appconfig (a managed app configuration spec)
//                                                  or markdown (a reference table)
//   swift run HostAppDemo --write-schema FOLDER    saves the store in FOLDER/data.plist with the
//                                                  schema beside it, for the settings tool

import Foundation
import PlayerKit
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsSchema

/// The app's own settings: no prefix, and a `volume` of its own.
final class AppSettings: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting (see SettingsModel).
  @Setting(in: 0...1, help: "The app's own sound volume, 0 to 1.") var volume = 0.5
  @Setting(allowedValues: ["light", "dark"], help: "The app's color theme.") var theme = "light"
  @Setting(help: "The name the app greets the user by.") var userName = "Guest"
}

/// What the app's store holds at launch: saved by earlier runs, the app's keys and PlayerKit's.
let savedByEarlierRuns: [String: PropertyListValue] = [
  "theme": "dark",
  "userName": "Ann",
  "com.example.playerkit.volume": 0.6,
  "com.example.playerkit.playback.quality": "high",
]

/// The schema of the app's store: both models' settings, the app's and PlayerKit's (what
/// `--write-schema` leaves in the schema file, each model's `writeSchema()` adding its own).
func storeSchema(of app: AppSettings, _ playerKit: PlayerKitSettings) -> SettingsSchema {
  app.schema.merging(playerKit.schema)
}

/// Stops with a one-line message and exit status 1 (64 for a wrong command line).
func fail(_ message: String, status: Int32 = 1) -> Never {
  FileHandle.standardError.write(Data("HostAppDemo: \(message)\n".utf8))
  exit(status)
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "--schema"?:
  // Both models' schema, on a backend that stores nothing: making it reads no value.
  let schema = storeSchema(
    of: AppSettings(backend: InMemoryBackend()), PlayerKitSettings(backend: InMemoryBackend()))
  guard arguments.count <= 2 else {
    fail(
      "--schema takes one format: HostAppDemo --schema [json|bundle|appconfig|markdown]", status: 64
    )
  }
  switch arguments.dropFirst().first ?? "json" {
  case "json": print(String(decoding: schema.jsonSchema(), as: UTF8.self))
  case "bundle":
    do {
      print(String(decoding: try schema.settingsBundleData(), as: UTF8.self), terminator: "")
    } catch {
      fail("\(error)")
    }
  case "appconfig":
    print(schema.managedAppConfiguration(bundleIdentifier: "com.example.hostapp"), terminator: "")
  case "markdown": print(schema.markdownReference(), terminator: "")
  case let format:
    fail("--schema takes json, bundle, appconfig or markdown, not '\(format)'", status: 64)
  }
  exit(0)
case "--write-schema"?:
  guard let path = arguments.dropFirst().first, arguments.count == 2 else {
    fail("--write-schema needs a folder: HostAppDemo --write-schema FOLDER", status: 64)
  }
  let folder = URL(fileURLWithPath: path)
  let file = folder.appendingPathComponent("data.plist")
  do {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let store = try LayeredPlistStore(persistentFile: file)
    for (key, value) in savedByEarlierRuns { try store.setValue(value, forKey: key) }
    try store.save()
    // Each model adds its settings to the schema file beside data.plist, keeping the other's.
    try AppSettings(backend: store).writeSchema()
    try PlayerKitSettings(backend: store).writeSchema()
  } catch {
    fail("\(error)")
  }
  print("HostAppDemo: saved the app's store in \(file.path)")
  print("and its schema, both models' settings, in \(SettingsSchema.fileURL(nextTo: file).path)")
  print("The settings tool now checks writes against it and shows each setting's help:")
  print("  swift run settings read \(folder.path)")
  print(
    "  swift run settings write \(folder.path) com.example.playerkit.volume -float 1.5   # refused")
  exit(0)
case nil:
  break
case let argument?:
  fail(
    "unknown argument '\(argument)'; usage: HostAppDemo [--schema [json|bundle|appconfig|markdown] "
      + "| --write-schema FOLDER]",
    status: 64)
}

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
