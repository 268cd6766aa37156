// UserDefaultsModelDemo: the UDUserDefaultsModel scenario. A video player declares its settings
// once, as typed properties of a SettingsModel subclass, and uses them through a singleton;
// every property reads and writes a UserDefaults suite under its own name.

import Foundation
import TypedDefaults
import TypedDefaultsSchema

let options = LaunchOptions.current
if let error = options.error {
  FileHandle.standardError.write(Data("UserDefaultsModelDemo: \(error)\n".utf8))
  exit(2)
}
if options.help {
  print(LaunchOptions.usage)
  exit(0)
}
if options.schema {
  // A model on a backend of its own, so that asking for the schema touches no suite.
  print(
    String(
      decoding: VideoPlayerSettings(backend: InMemoryBackend()).schema.jsonSchema(), as: UTF8.self))
  exit(0)
}

let settings = VideoPlayerSettings.shared
print("UserDefaultsModelDemo: a typed settings singleton over UserDefaults")
print("Suite: \(options.standard ? "standard" : options.suiteName)")
if let file = (settings.backend as? UserDefaultsBackend)?.fileURL {
  print("File:  \(file.path)")
}
print()

if options.reset {
  settings.resetAll()
  // No synchronize() needed: the backend writes pending changes to disk when the process exits.
  print("resetAll(): removed every setting from the suite. The next run is a first run.")
  exit(0)
}

if options.watch {
  exit(Player.run(settings, timeout: options.timeout))
}

func printAll(_ title: String) {
  print(title)
  for setting in settings.allSettings { print("  \(setting)") }
  print()
}

let searches = ["jazz", "piano", "lo-fi", "cello", "bossa nova", "drums", "ambient"]
let isFirstRun = settings.allSettings.allSatisfy { !$0.hasStoredValue }

if isFirstRun {
  printAll("FIRST RUN: nothing stored in the suite yet, so every setting shows its default:")
  settings.allowsCellularPlayback.toggle()
  settings.name = "Ada"
  settings.volume = 0.5
  settings.preferredQuality = .hd
  settings.recentSearches.append(searches[0])
  print("Changed: allowsCellularPlayback.toggle(), name = \"Ada\", volume = 0.5,")
  print("         preferredQuality = .hd, recentSearches.append(\"\(searches[0])\")")
} else {
  printAll("LATER RUN: every value below was read back from the suite, saved by an earlier run:")
  // Each launch adds a search, keeping the five most recent.
  let search = searches[settings.launchCount % searches.count]
  settings.recentSearches = Array((settings.recentSearches + [search]).suffix(5))
  print("Changed: recentSearches += \"\(search)\" (keeping the last 5)")
}
// One step no other write (another thread's, another process's on Linux) comes between.
try settings.$launchCount.update { $0 += 1 }
settings.lastPlayedAt = Date()
print("         $launchCount.update { $0 += 1 }, lastPlayedAt = Date()")
print()

let cellular = settings.allowsCellularPlayback ? "allowed" : "not allowed"
print("Typed reads: cellular playback \(cellular), volume \(settings.volume)")
printAll("Now (launch #\(settings.launchCount)):")
print("Run again to see these values come back from the suite; --reset to start over.")
