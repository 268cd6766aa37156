// A helper the tests launch as a separate process, to check what one process writes and another
// reads. Not part of the library.
//
//   SettingsProbe userdefaults <suite> set <key> <kind>:<value>    (no explicit synchronize)
//     (<suite> `-standard`: `UserDefaultsBackend.standard`, in every userdefaults and raw mode)
//   SettingsProbe userdefaults <suite> get <key>
//   SettingsProbe layered <data.plist path> set <key> <kind>:<value>  (then saves)
//   SettingsProbe layered <data.plist path> get <key>
//   SettingsProbe <backend> <location> dump
//   SettingsProbe layered <data.plist path> set-nosave <key> <kind>:<value>  (saved at exit)
//   SettingsProbe layered <data.plist path> write-keys <prefix> <count>  (a save per key)
//   SettingsProbe layered <data.plist path> increment <key> <count>  (update(forKey:) count times)
//   SettingsProbe <backend> <location> setting-increment <key> <count>  (an `Int` setting's
//     `update { $0 += 1 }` count times)
//   SettingsProbe layered <data.plist path> rewrite-in-place [idle µs]  (rewrites the file
//     non-atomically until killed, pausing 2 ms half-way and idle µs (10 ms) between rewrites;
//     prints "started" first)
//   SettingsProbe foundation-decode <file>  (PropertyListSerialization's reading of the file; see
//     FoundationDecode.swift)
//   SettingsProbe layered <data.plist path> save-loop  (saves state 0, 1, 2… until killed,
//     printing "saved N" after each; state N is counter = N and payload = "N" repeated 500 times)
//   SettingsProbe layered <data.plist path> save-each <key> <kind>:<value>…  (see WatchModes.swift)
//   SettingsProbe <backend> <location> migrate-count go  (see MigrationModes.swift)
//   SettingsProbe conformance -standard  (see ConformanceModes.swift)
//   SettingsProbe programmer-error duplicate-key|unattached  (see ProgrammerErrorModes.swift)
//   SettingsProbe legit-binding <case>  (see LegitBindingModes.swift)
//   SettingsProbe refuse-real-writes <real folder> <temporary folder>  (see RealStoreGuardModes.swift)
//   SettingsProbe first-hour <scenario> …  (see FirstHourModes.swift)
//   SettingsProbe etcd-watch <endpoint> <prefix> <data.plist path> <record file>  (see
//     EtcdWatchModes.swift)
//   SettingsProbe terminate <data.plist path> <key> <kind>:<value> [handled]  (see
//     TerminationModes.swift)
//
// <kind> is string, int, real or bool. `get` prints the value's description, or `nil`. `dump`
// writes every value the backend stores to standard output as a binary property list, for the
// tests to compare exactly.

import Foundation
import TypedDefaults
import TypedDefaultsLayers

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("SettingsProbe: \(message)\n".utf8))
  exit(2)
}

func parse(_ text: String) -> PropertyListValue {
  guard let colon = text.firstIndex(of: ":") else { fail("value '\(text)' needs a kind: prefix") }
  let kind = text[..<colon]
  let body = String(text[text.index(after: colon)...])
  switch kind {
  case "string": return .string(body)
  case "int":
    guard let value = Int64(body) else { fail("not an int: \(body)") }
    return .integer(.init(value))
  case "real":
    guard let value = Double(body) else { fail("not a real: \(body)") }
    return .real(value)
  case "bool": return .bool(body == "true")
  default: fail("unknown kind '\(kind)'")
  }
}

let arguments = Array(CommandLine.arguments.dropFirst())
runConformanceMode(arguments)  // see ConformanceModes.swift
if runProgrammerErrorMode(arguments) { exit(0) }  // see ProgrammerErrorModes.swift
if runLegitBindingMode(arguments) { exit(0) }  // see LegitBindingModes.swift
if runRealStoreGuardMode(arguments) { exit(0) }  // see RealStoreGuardModes.swift
if runFirstHourMode(arguments) { exit(0) }  // see FirstHourModes.swift
if runEtcdWatchMode(arguments) { exit(0) }  // see EtcdWatchModes.swift
if runTerminationMode(arguments) { exit(0) }  // see TerminationModes.swift
if arguments.first == "foundation-decode" {
  guard arguments.count == 2 else { fail("usage: SettingsProbe foundation-decode <file>") }
  FoundationDecode.run(arguments[1])
}
guard arguments.count >= 3 else {
  fail("usage: SettingsProbe <backend> <location> <set|get|dump> [key] [value]")
}
let (kind, location, command) = (arguments[0], arguments[1], arguments[2])
let key = arguments.count > 3 ? arguments[3] : ""

if runRawUserDefaultsMode(arguments) { exit(0) }  // see UserDefaultsModes.swift
if runWatchMode(arguments) { exit(0) }  // see WatchModes.swift

do {
  let backend: any SettingsBackend
  switch kind {
  case "userdefaults":
    backend = location == "-standard" ? .standard : UserDefaultsBackend(suiteName: location)
  case "layered":
    backend = try LayeredPlistStore(persistentFile: URL(fileURLWithPath: location))
  default:
    fail("unknown backend '\(kind)'")
  }
  if try runMigrationMode(command, backend) { exit(0) }  // see MigrationModes.swift
  switch command {
  case "set-nosave":
    guard arguments.count == 5 else { fail("set-nosave needs a value") }
    try backend.setValue(parse(arguments[4]), forKey: key)
  case "write-keys":
    guard let store = backend as? LayeredPlistStore, arguments.count == 5,
      let count = Int(arguments[4])
    else { fail("write-keys needs a layered store, a prefix and a count") }
    for index in 0..<count {
      try store.setValue(.integer(.init(Int64(index))), forKey: "\(key).\(index)")
      try store.save()
    }
  case "increment":
    guard let store = backend as? LayeredPlistStore, arguments.count == 5,
      let count = Int(arguments[4])
    else { fail("increment needs a layered store, a key and a count") }
    for _ in 0..<count {
      try store.update(forKey: key) { .integer(.init(Int64(($0?.intValue ?? 0) + 1))) }
    }
  case "setting-increment":
    guard arguments.count == 5, let count = Int(arguments[4]) else { fail("needs a count") }
    let counter = Setting(key, default: 0, backend: backend)
    for _ in 0..<count { try counter.update { $0 += 1 } }
  case "rewrite-in-place":
    // Rewrites the file in place forever, as programs that don't write atomically do: truncate,
    // write half, pause, write the rest. Readers can see it empty or half-written.
    let bytes = try Data(contentsOf: URL(fileURLWithPath: location))
    let idle = arguments.count > 3 ? UInt32(arguments[3]) ?? 10_000 : 10_000
    FileHandle.standardOutput.write(Data("started\n".utf8))
    while true {
      let descriptor = open(location, O_WRONLY | O_TRUNC)
      guard descriptor >= 0 else { fail("cannot open \(location)") }
      bytes.withUnsafeBytes { buffer in
        let half = buffer.count / 2
        _ = write(descriptor, buffer.baseAddress, half)
        usleep(2000)
        _ = write(descriptor, buffer.baseAddress! + half, buffer.count - half)
      }
      close(descriptor)
      if idle > 0 { usleep(idle) }
    }
  case "save-states":  // see FaultModes.swift
    try saveStates(backend, arguments)
  case "flip":
    try flip(location, arguments)
  case "save-loop":
    guard let store = backend as? LayeredPlistStore else { fail("save-loop needs a layered store") }
    var counter: Int64 = 0
    while true {
      try store.setValue(.integer(.init(counter)), forKey: "counter")
      try store.setValue(.string(String(repeating: "\(counter) ", count: 500)), forKey: "payload")
      try store.save()
      FileHandle.standardOutput.write(Data("saved \(counter)\n".utf8))
      counter += 1
    }
  case "set":
    guard arguments.count == 5 else { fail("set needs a value") }
    try backend.setValue(parse(arguments[4]), forKey: key)
    if let store = backend as? LayeredPlistStore { try store.save() }
  case "get":
    print(backend.value(forKey: key).map(String.init(describing:)) ?? "nil")
  case "dump":
    let scratch = FileManager.default.temporaryDirectory
      .appendingPathComponent("SettingsProbe-\(UUID().uuidString).plist")
    defer { try? FileManager.default.removeItem(at: scratch) }
    try PropertyListFile(url: scratch).write(
      .dictionary(backend.dictionaryRepresentation()), format: .binary)
    FileHandle.standardOutput.write(try Data(contentsOf: scratch))
  default:
    guard try runUserDefaultsMode(command, backend, arguments) else {  // UserDefaultsModes.swift
      fail("unknown command '\(command)'")
    }
  }
} catch {
  fail("\(error)")
}
