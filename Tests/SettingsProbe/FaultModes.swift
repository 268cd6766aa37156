// Modes of SettingsProbe for LayeredPlistStoreFaultTests (see main.swift for the others):
//
//   SettingsProbe layered <data.plist path> save-states <first>  (prints "ready" once the store
//     is open, then saves state first, first + 1… until killed, printing "saved N" after each
//     save returns; state N is counter = N and payload = "N " repeated 500 times)
//   SettingsProbe layered <data.plist path> flip <file A> <file B>  (for each line "<µs>" read
//     from standard input: replaces data.plist atomically, without the store's lock, with A's
//     bytes and prints "A", waits µs, replaces it with B's bytes and prints "B")

import Foundation
import TypedDefaults
import TypedDefaultsLayers

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

/// `flip <A> <B>`: another program replacing the file under the store, ignoring its lock.
func flip(_ path: String, _ arguments: [String]) throws {
  guard arguments.count == 5 else { fail("flip needs two files") }
  let (first, second) = (
    try Data(contentsOf: URL(fileURLWithPath: arguments[3])),
    try Data(contentsOf: URL(fileURLWithPath: arguments[4]))
  )
  let scratch = URL(fileURLWithPath: path + ".flip-next")
  func replace(with bytes: Data, saying name: String) throws {
    try bytes.write(to: scratch)
    guard rename(scratch.path, path) == 0 else { fail("cannot rename over \(path)") }
    FileHandle.standardOutput.write(Data("\(name)\n".utf8))
  }
  while let line = readLine() {
    guard let pause = UInt32(line) else { fail("not a duration: \(line)") }
    try replace(with: first, saying: "A")
    usleep(pause)
    try replace(with: second, saying: "B")
  }
}
