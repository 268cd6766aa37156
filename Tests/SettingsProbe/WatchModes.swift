import Foundation
import TypedDefaults
import TypedDefaultsLayers

// Modes for the file-watch tests (FileWatchTests).
//
//   SettingsProbe layered <data.plist path> save-each <key> <kind>:<value>…  (one save per value)

/// Runs the file-watch modes; returns whether `arguments` named one.
func runWatchMode(_ arguments: [String]) -> Bool {
  guard arguments.count >= 4, arguments[0] == "layered", arguments[2] == "save-each" else {
    return false
  }
  do {
    let store = try LayeredPlistStore(
      persistentFile: URL(fileURLWithPath: arguments[1]), options: .init(savesAtExit: false))
    for value in arguments.dropFirst(4) {
      try store.setValue(parse(value), forKey: arguments[3])
      try store.save()
    }
  } catch {
    fail("\(error)")
  }
  return true
}
