// Modes of SettingsProbe for StoreFaultTests (see main.swift for the others):
//
//   SettingsProbe layered <data.plist path> save-states <first>  (prints "ready" once the store
//     is open, then saves state first, first + 1… until killed, printing "saved N" after each
//     save returns; state N is counter = N and payload = "N " repeated 500 times)

import Foundation
import TypedDefaults

/// The contents of save state `counter`: what `save-states` writes, and what the tests expect.
func faultState(_ counter: Int64) -> [String: PropertyListValue] {
  [
    "counter": .integer(.init(counter)),
    "payload": .string(String(repeating: "\(counter) ", count: 500)),
  ]
}

/// `save-states <first>`: saves successive complete states until killed.
func saveStates(_ backend: any SettingsBackend, _ arguments: [String]) throws {
  guard let store = backend as? LayeredPlistStore, arguments.count == 4,
    var counter = Int64(arguments[3])
  else { fail("save-states needs a layered store and a first state number") }
  FileHandle.standardOutput.write(Data("ready\n".utf8))
  while true {
    try store.setValues(faultState(counter))
    try store.save()
    FileHandle.standardOutput.write(Data("saved \(counter)\n".utf8))
    counter += 1
  }
}
