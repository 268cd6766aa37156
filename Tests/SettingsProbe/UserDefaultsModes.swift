// Modes of SettingsProbe for the UserDefaultsBackend tests (see main.swift for the others):
//
//   SettingsProbe userdefaults <suite> ud-write-keys <prefix> <count>  (sets <prefix>.<i> = i and
//     calls synchronize() after each)
//   SettingsProbe userdefaults <suite> ud-increment <key> <count>  (update(forKey:) count times)
//   SettingsProbe userdefaults <suite> ud-count-launch <key>  (prints the key's integer, 0 if
//     none, and stores it plus one, leaving the save to the exit handler)
//   SettingsProbe userdefaults <suite> ud-stored go -volume <real>  (prints what a `volume`
//     setting reads, whether it is stored, and a changed-only export's keys)
//   SettingsProbe userdefaults <suite> ud-script go  (runs commands read from standard input,
//     one a line: set <key> <kind>:<value>, save, synchronize, get <key>; answers a line each)
//   SettingsProbe userdefaults <suite> ud-corelibs-sync go  (writes one…three, calls corelibs'
//     synchronize() itself, prints "xml" if that rewrote the file as XML, writes four, saves)
//   SettingsProbe userdefaults <suite> ud-save-states <first>  (prints "ready", then imports
//     state first, first + 1… with setValues until killed, printing "saved N" after each)
//   SettingsProbe userdefaults <suite> ud-import-loop <count>  (prints "ready", then imports
//     generation 1, 2…: keys import.0 ..< count all = the generation, printing "imported G")
//   SettingsProbe userdefaults <suite> ud-save-race <writes>  (four threads write race.a…d = 1…
//     <writes> (sets, an import with a save at once every third, a removal before every tenth)
//     while a fifth saves, synchronizes and reloads in a loop; then saves and prints each key's
//     value and every event an observer saw go back, one a line; see SavesRacingWritesTests)
//   SettingsProbe raw <suite> raw-set <key> <kind>:<value>  (plain UserDefaults: set, then
//     synchronize(), as a program not using this library does; no backend in the process)
//   SettingsProbe raw <suite> raw-get <key>  (plain UserDefaults: prints the value or nil)

import Foundation
import TypedDefaults

/// Runs a `raw` mode, which must run before any backend exists in the process; returns whether
/// the arguments named one.
func runRawUserDefaultsMode(_ arguments: [String]) -> Bool {
  guard arguments.count >= 4, arguments[0] == "raw",
    let defaults = arguments[1] == "-standard" ? .standard : UserDefaults(suiteName: arguments[1])
  else { return false }
  switch arguments[2] {
  case "raw-set":
    guard arguments.count == 5 else { fail("raw-set needs a key and a value") }
    switch parse(arguments[4]) {
    case .string(let text): defaults.set(text, forKey: arguments[3])
    case .integer(let integer):
      defaults.set(integer.int64Value.map(Int.init) ?? 0, forKey: arguments[3])
    case .real(let real): defaults.set(real, forKey: arguments[3])
    case .bool(let bool): defaults.set(bool, forKey: arguments[3])
    default: fail("raw-set takes a scalar")
    }
    guard defaults.synchronize() else { fail("synchronize() failed") }
  case "raw-get":
    print(defaults.object(forKey: arguments[3]).map { "\($0)" } ?? "nil")
  default:
    fail("unknown raw command '\(arguments[2])'")
  }
  return true
}

/// Runs a `ud-` mode; returns whether `command` named one.
func runUserDefaultsMode(
  _ command: String, _ backend: any SettingsBackend, _ arguments: [String]
) throws -> Bool {
  guard command.hasPrefix("ud-") else { return false }
  guard let backend = backend as? UserDefaultsBackend, arguments.count >= 4 else {
    fail("\(command) needs a userdefaults backend and an argument")
  }
  let output = FileHandle.standardOutput
  switch command {
  case "ud-write-keys":
    guard arguments.count == 5, let count = Int(arguments[4]) else { fail("needs a count") }
    for index in 0..<count {
      try backend.setValue(.integer(.init(Int64(index))), forKey: "\(arguments[3]).\(index)")
      guard backend.synchronize() else { fail("synchronize() failed") }
    }
  case "ud-count-launch":
    // A program counting its launches, saved by the exit handler: prints the count it found.
    let count = backend.value(forKey: arguments[3])?.intValue ?? 0
    output.write(Data("\(count)\n".utf8))
    try backend.setValue(.integer(.init(Int64(count + 1))), forKey: arguments[3])
  case "ud-stored":
    // Launched with `-volume <value>` after its own arguments: what a setting reads, whether it
    // counts as stored, and what a changed-only export holds.
    struct Player: SettingsGroup { @Setting var volume = 0.8 }
    let player = Player(backend: backend)
    let exported = player.exportedValues(options: .init(omitsDefaultValues: true))
    output.write(
      Data(
        "reads \(player.volume) stored \(player.$volume.hasStoredValue) exports \(exported.keys.sorted())\n"
          .utf8))
  case "ud-script":
    // A process that lives while a test drives it, one command a line on standard input:
    // `set <key> <kind>:<value>`, `save`, `synchronize`, `get <key>`; answers a line each.
    // At the end of its input it returns from main, as a program exits normally.
    while let line = readLine() {
      let words = line.split(separator: " ").map(String.init)
      switch words.first {
      case "set" where words.count == 3: try backend.setValue(parse(words[2]), forKey: words[1])
      case "save": try backend.save()
      case "synchronize": guard backend.synchronize() else { fail("synchronize() failed") }
      case "get" where words.count == 2:
        let value = backend.value(forKey: words[1]).map(String.init(describing:)) ?? "nil"
        output.write(Data("\(value)\n".utf8))
        continue
      default: fail("unknown script command '\(line)'")
      }
      output.write(Data("ok\n".utf8))
    }
  case "ud-corelibs-sync":
    // Other code in the process calls corelibs' own synchronize(), which rewrites every changed
    // suite of the process in place, as XML; the backend's next save must lose nothing.
    try backend.setValues(["one": 1, "two": 2])
    try backend.setValue(3, forKey: "three")
    guard backend.userDefaults.synchronize() else { fail("synchronize() failed") }
    let rewritten = backend.fileURL.flatMap { try? Data(contentsOf: $0) }?
      .starts(with: Data("<?xml".utf8))
    output.write(Data((rewritten == true ? "xml\n" : "not xml\n").utf8))
    try backend.setValue(4, forKey: "four")
    try backend.save()
  case "ud-save-race":
    guard let writes = Int(arguments[3]) else { fail("needs a number of writes") }
    for line in try saveRace(backend, writes: writes) { output.write(Data("\(line)\n".utf8)) }
  case "ud-increment":
    guard arguments.count == 5, let count = Int(arguments[4]) else { fail("needs a count") }
    for _ in 0..<count {
      try backend.update(forKey: arguments[3]) {
        .integer(.init(Int64(($0?.intValue ?? 0) + 1)))
      }
    }
  case "ud-save-states":
    guard var counter = Int64(arguments[3]) else { fail("needs a first state number") }
    output.write(Data("ready\n".utf8))
    while true {
      try backend.setValues(faultState(counter))
      output.write(Data("saved \(counter)\n".utf8))
      counter += 1
    }
  case "ud-import-loop":
    guard let count = Int(arguments[3]) else { fail("needs a key count") }
    output.write(Data("ready\n".utf8))
    var generation: Int64 = 1
    while true {
      var values: [String: PropertyListValue] = [:]
      for index in 0..<count { values["import.\(index)"] = .integer(.init(generation)) }
      try backend.setValues(values)
      output.write(Data("imported \(generation)\n".utf8))
      generation += 1
    }
  default:
    fail("unknown command '\(command)'")
  }
  return true
}

/// The `ud-save-race` mode: what SavesRacingWritesTests does in process, in a process of its own.
///
/// It runs on a domain a test process can't write (the standard defaults). Returns each key's
/// value as `key value`, then a `back key earlier later` line for each event that went back, and a
/// `failed …` line for each write or save that threw.
func saveRace(_ backend: UserDefaultsBackend, writes: Int) throws -> [String] {
  let keys = ["race.a", "race.b", "race.c", "race.d"]
  let events = Locked<[String: [Int]]>([:])
  let lines = Locked<[String]>([])
  let tokens = keys.map { key in
    backend.observe(key: key) { change in
      if let value = change.newValue?.intValue {
        events.withLock { $0[key, default: []].append(value) }
      }
    }
  }
  let writersLeft = Locked(keys.count)
  let group = DispatchGroup()
  for key in keys {
    group.enter()
    Thread.detachNewThread {
      for value in 1...writes {
        do {
          if value % 10 == 0 { backend.removeValue(forKey: key) }
          let plist = PropertyListValue.integer(.init(Int64(value)))
          if value % 3 == 0 {
            try backend.setValues([key: plist])
            try backend.save()
          } else {
            try backend.setValue(plist, forKey: key)
          }
        } catch { lines.withLock { $0.append("failed \(key) \(value): \(error)") } }
      }
      writersLeft.withLock { $0 -= 1 }
      group.leave()
    }
  }
  group.enter()
  Thread.detachNewThread {
    var round = 0
    while writersLeft.withLock({ $0 }) > 0 {
      do {
        switch round % 3 {
        case 0: try backend.save()
        case 1: _ = backend.synchronize()
        default: try backend.reload()
        }
      } catch { lines.withLock { $0.append("failed save \(round): \(error)") } }
      round += 1
    }
    group.leave()
  }
  group.wait()
  try backend.save()
  for token in tokens { token.cancel() }
  var result = keys.map { "\($0) \(backend.value(forKey: $0)?.intValue.map(String.init) ?? "nil")" }
  for key in keys {
    let seen = events.withLock { $0[key] ?? [] }
    for (earlier, later) in zip(seen, seen.dropFirst()) where later <= earlier {
      result.append("back \(key) \(earlier) \(later)")
    }
  }
  return result + lines.withLock { $0 }
}

/// A value behind a lock, for `saveRace`'s threads.
private final class Locked<Value>: @unchecked Sendable {
  // @unchecked Sendable: `value` is only accessed while `lock` is held.
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return body(&value)
  }
}
