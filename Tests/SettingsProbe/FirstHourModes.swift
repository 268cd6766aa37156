// Modes of SettingsProbe for the first-hour scenarios (FirstHourBreakItTests):
//
//   SettingsProbe first-hour standard-mixed  (a setting on `UserDefaultsBackend.standard` and
//     raw `UserDefaults.standard` calls in one process: prints what the setting reads after each)
//   SettingsProbe first-hour standard-stored -volume <real>  (registered defaults, from the model
//     and from raw `UserDefaults.register`, and a launch argument: prints, per setting, what it
//     reads and whether it counts as stored, then a changed-only export's keys)
//   SettingsProbe first-hour app <identifier> get <key>  (the LayeredPlistStore an app keeps in
//     `StandardLocation.data` for the identifier: prints what a read returns, or `nil`)

import Foundation
import TypedDefaults

private struct FirstHourCounter: SettingsGroup {
  @Setting var count = 0
}

private struct FirstHourPlayer: SettingsGroup {
  @Setting var volume = 0.8
  @Setting var flag = false
  @Setting var speed = 1.0
}

/// Runs a `first-hour` mode; `false` for other arguments.
func runFirstHourMode(_ arguments: [String]) -> Bool {
  guard arguments.first == "first-hour", arguments.count >= 2 else { return false }
  var lines: [String] = []
  switch arguments[1] {
  case "standard-mixed":
    let counter = FirstHourCounter(backend: UserDefaultsBackend.standard)
    counter.count = 2
    lines.append("set \(counter.count)")
    UserDefaults.standard.removeObject(forKey: "count")
    lines.append("raw remove \(counter.count) stored \(counter.$count.hasStoredValue)")
    UserDefaults.standard.set(5, forKey: "count")
    lines.append("raw set \(counter.count) stored \(counter.$count.hasStoredValue)")
    counter.count = 7
    lines.append("raw reads \(UserDefaults.standard.integer(forKey: "count"))")
  case "standard-stored":
    UserDefaults.standard.register(defaults: ["flag": true])
    let player = FirstHourPlayer(backend: UserDefaultsBackend.standard)
    lines.append("raw registration reads \(player.flag)")
    _ = player.registerDefaults()
    for setting in [player.$volume.hasStoredValue, player.$flag.hasStoredValue] {
      lines.append("stored \(setting)")
    }
    lines.append("reads \(player.volume) \(player.flag) \(player.speed)")
    let exported = player.exportedValues(options: SettingsExportOptions(omitsDefaultValues: true))
    lines.append("exports \(exported.keys.sorted())")
  case "app" where arguments.count == 5 && arguments[3] == "get":
    do {
      let folder = try StandardLocation.data.directory(for: arguments[2])
      let store = try LayeredPlistStore(persistentFile: folder.appending(path: "data.plist"))
      lines.append(store.value(forKey: arguments[4]).map(String.init(describing:)) ?? "nil")
    } catch {
      fail("\(error)")
    }
  default:
    fail("unknown first-hour mode '\(arguments[1])'")
  }
  print(lines.joined(separator: "\n"))
  return true
}
