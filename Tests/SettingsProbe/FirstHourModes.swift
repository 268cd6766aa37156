// Modes of SettingsProbe for the first-hour scenarios (FirstHourTests):
//
//   SettingsProbe first-hour standard-mixed  (a setting on `UserDefaultsBackend.standard` and
//     raw `UserDefaults.standard` calls in one process: prints what the setting reads after each)
//   SettingsProbe first-hour standard-stored -volume <real>  (registered defaults, from the model
//     and from raw `UserDefaults.register`, and a launch argument: prints, per setting, what it
//     reads and whether it counts as stored, then a changed-only export's keys)
//   SettingsProbe first-hour app <identifier> get <key>  (the LayeredPlistStore an app keeps in
//     `StandardLocation.data` for the identifier: prints what a read returns, or `nil`)
//   SettingsProbe first-hour argument-over-stored -volume <real>  (stores volume = 0.5, then
//     prints what the setting reads, and what a changed-only export and a snapshot hold)
//   SettingsProbe first-hour standard-hundred  (100 threads write one setting on the standard
//     domain: prints how many events an observer got, how many distinct, and whether the last is
//     the final value)
//   SettingsProbe first-hour getting-started  (the Getting Started article's code on a suite,
//     printing what it shows)
//   SettingsProbe first-hour write-schema  (`writeSchema()` of a model on
//     `UserDefaultsBackend.standard`, before anything was saved: prints "written")

import Foundation
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsSchema

private struct FirstHourCounter: SettingsGroup {
  @Setting var count = 0
}

private struct FirstHourLaunches: SettingsGroup {
  @Setting(help: "Launches so far.") var launchCount = 0
}

private struct FirstHourPlayer: SettingsGroup {
  @Setting var volume = 0.8
  @Setting var flag = false
  @Setting var speed = 1.0
}

private enum FirstHourQuality: String, SettingValue { case auto, high, low }

private struct FirstHourTourSettings: SettingsGroup {
  @Setting var allowsCellularPlayback = false
  @Setting("volume", default: 0.8) var volume: Double
  @Setting var quality = FirstHourQuality.auto
  @Setting var recentSearches: [String] = []
  @Setting var lastPlayed: Date?
}

/// Collects integers from any thread.
private final class FirstHourSeen: @unchecked Sendable {
  // @unchecked Sendable: `collected` is only accessed while `lock` is held.
  private let lock = NSLock()
  private var collected: [Int] = []
  var values: [Int] { lock.withLock { collected } }
  func append(_ value: Int) { lock.withLock { collected.append(value) } }
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
  case "argument-over-stored":
    // Launched with `-volume <real>` while the domain stores volume = 0.5.
    let player = FirstHourPlayer(backend: UserDefaultsBackend.standard)
    try? player.$volume.set(0.5)
    let exported = player.exportedValues(options: SettingsExportOptions(omitsDefaultValues: true))
    lines.append("reads \(player.volume) stored \(player.$volume.hasStoredValue)")
    lines.append("exports \(exported.sorted { $0.key < $1.key })")
    lines.append("snapshot \(player.snapshot()["volume"].map { "\($0)" } ?? "nil")")
  case "standard-hundred":
    // 100 threads each write a distinct value to one setting on the standard domain.
    let counter = FirstHourCounter(backend: UserDefaultsBackend.standard)
    let seen = FirstHourSeen()
    let token = counter.$count.observe { seen.append($0) }
    DispatchQueue.concurrentPerform(iterations: 100) { counter.count = $0 + 1 }
    token.cancel()
    let values = seen.values
    lines.append(
      "events \(values.count) distinct \(Set(values).count) last-is-final "
        + "\(values.last == counter.count)")
  case "write-schema":
    do {
      try FirstHourLaunches(backend: UserDefaultsBackend.standard).writeSchema()
      lines.append("written")
    } catch {
      fail("\(error)")
    }
  case "getting-started":
    // The Getting Started article's code, in order, on a suite.
    let settings = FirstHourTourSettings(
      backend: UserDefaultsBackend(suiteName: "com.example.tour"))
    settings.volume = 0.5
    settings.recentSearches.append("jazz")
    settings.lastPlayed = Date(timeIntervalSince1970: 0)
    settings.lastPlayed = nil
    lines.append("key \(settings.$volume.key) default \(settings.$volume.defaultValue)")
    lines.append("stored \(settings.$volume.hasStoredValue)")
    for setting in settings.allSettings { lines.append("\(setting)") }
    lines.append("snapshot \(settings.snapshot().sorted { $0.key < $1.key })")
    settings.$volume.reset()
    lines.append("after reset \(settings.volume) stored \(settings.$volume.hasStoredValue)")
    settings.registerDefaults()
    settings.resetAll()
    lines.append("after resetAll \(settings.recentSearches) \(settings.quality)")
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
