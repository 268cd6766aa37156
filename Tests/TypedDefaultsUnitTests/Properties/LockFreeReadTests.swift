import Foundation
import Synchronization
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// The settings the lock-free read tests read: one of each scalar kind a cell publishes in its
/// atomic words (``ScalarValueCell``).
private struct Scalars: SettingsGroup {
  @Setting var flag = false
  @Setting var count = 0
  @Setting var big: UInt64 = 0
  @Setting var ratio = 0.0
  @Setting var mode = Mode.off
  @Setting var name = ""
  @Setting var tags: [String] = []
  @Setting var when = Date(timeIntervalSinceReferenceDate: 0)

  enum Mode: Int, SettingValue { case off, on, auto }
}

/// Reads of scalar settings from a cell's atomic words, without the backend's lock: each read
/// returns exactly what a read under the lock returns, whatever path changed the value, and under
/// contention every read returns a value that was written, never a torn one, never one older than
/// a change whose completion the reader has seen.
@Suite struct LockFreeReadTests {
  /// The backends with cells: in memory, and a layered store on a scratch folder.
  static func backends(in folder: TemporaryDirectory) throws -> [(String, any SettingsBackend)] {
    let store = try LayeredPlistStore(
      persistentFile: folder.file("data.plist"), options: .init(savesAtExit: false))
    return [("InMemoryBackend", InMemoryBackend()), ("LayeredPlistStore", store)]
  }

  /// Values of every kind, written through the backend, read by settings of each scalar type:
  /// the lock-free read gives what converting the backend's value gives (a wrong kind reads the
  /// default), including values at the edges of each kind's range.
  @Test func aScalarReadWithoutTheLockIsTheValueTheBackendHolds() throws {
    let folder = try TemporaryDirectory()
    let values: [PropertyListValue?] = [
      nil, true, false, 0, -1, 1, .integer(.init(Int64.min)), .integer(.init(Int64.max)),
      .integer(.init(UInt64.max)), .integer(.init(UInt64(Int64.max) + 1)), 0.5, -0.0,
      .real(.infinity), .real(-.greatestFiniteMagnitude), 2, "on", "17", "yes", [1, 2], ["k": 1],
      .date(Date(timeIntervalSince1970: 1)), .data(Data([1])),
    ]
    for (name, backend) in try Self.backends(in: folder) {
      let settings = Scalars(backend: backend)
      for value in values {
        for key in ["flag", "count", "big", "ratio", "mode", "name"] {
          try backend.setValue(value, forKey: key)
        }
        let stored = backend.value(forKey: "count")
        #expect(stored == value, "\(name)")
        SettingsDiagnostics.withHandler({ _ in }) {
          #expect(settings.flag == stored.flatMap(Bool.init(propertyListValue:)) ?? false)
          #expect(settings.count == stored.flatMap(Int.init(propertyListValue:)) ?? 0)
          #expect(settings.big == stored.flatMap(UInt64.init(propertyListValue:)) ?? 0)
          let ratio = stored.flatMap(Double.init(propertyListValue:)) ?? 0
          #expect(
            settings.ratio.bitPattern == ratio.bitPattern, "\(name): \(String(describing: value))")
          #expect(settings.mode == stored.flatMap(Scalars.Mode.init(propertyListValue:)) ?? .off)
          #expect(settings.name == stored.flatMap(String.init(propertyListValue:)) ?? "")
        }
      }
    }
  }

  /// Every way a cell's value changes is published to its atomic words: a write through the
  /// setting, through the backend, an atomic update, a removal, a reset, a reload of `data.plist`
  /// written by someone else, and a lower layer's value showing once the key is removed above.
  @Test func everyPathThatChangesAValueIsSeenByTheLockFreeRead() throws {
    let folder = try TemporaryDirectory()
    let memory = InMemoryBackend()
    let settings = Scalars(backend: memory)
    settings.count = 1
    #expect(settings.count == 1)
    try memory.setValue(2, forKey: "count")
    #expect(settings.count == 2)
    try memory.updateValues { values in values["count"] = 3 }
    #expect(settings.count == 3)
    memory.removeValue(forKey: "count")
    #expect(settings.count == 0)
    settings.count = 4
    settings.$count.reset()
    #expect(settings.count == 0)

    let file = folder.file("data.plist")
    let bundled = folder.file("Info.plist")
    try PropertyListFile(url: bundled).write(["count": 10], format: .xml)
    let store = try LayeredPlistStore(
      persistentFile: file, bundledFile: bundled, options: .init(savesAtExit: false))
    let layered = Scalars(backend: store)
    #expect(layered.count == 10)
    layered.count = 11
    #expect(layered.count == 11)
    try store.save()
    // Another process saves data.plist; a reload takes its value in.
    try PropertyListFile(url: file).write(["count": 12], format: .xml)
    try store.reload()
    #expect(layered.count == 12)
    try store.updateValues { values in values["count"] = 13 }
    #expect(layered.count == 13)
    // Removed from data.plist, the bundled layer's value shows again.
    store.removeValue(forKey: "count")
    #expect(layered.count == 10)
  }

  /// One writer writes 1…n in order, alternating an integer `k` with the real `k + 0.5` so that
  /// each write also changes the kind, while readers read a `Double` setting: each read is a
  /// value written (an integer or a half; a kind read with another write's bits would be neither,
  /// or out of range), each reader's reads never go back, and a read begun after the reader saw
  /// the writer finish writing `k` is at least `k`.
  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  @Test(arguments: ["InMemoryBackend", "LayeredPlistStore"])
  func contendedReadsSeeOnlyValuesWrittenAndNeverAnOlderOne(_ backendName: String) throws {
    let folder = try TemporaryDirectory()
    let backend = try Self.backends(in: folder).first { $0.0 == backendName }!.1
    let settings = Scalars(backend: backend)
    let writes = 20_000
    let readers = 4
    /// The last value whose write has returned, published by the writer after each write.
    let finished = Atomic<Int>(0)
    let problems = Locked<[String]>([])
    let readsDone = Locked(0)
    let done = DispatchGroup()
    for _ in 0..<readers {
      done.enter()
      Thread {
        defer { done.leave() }
        var previous = 0.0
        var reads = 0
        var found: [String] = []
        while true {
          let seen = finished.load(ordering: .acquiring)
          let read = settings.ratio
          reads += 1
          let whole = read.rounded(.down)
          if !(read == whole || read - whole == 0.5) || read < 0 || read > Double(writes) + 0.5 {
            found.append("read \(read) (bits \(String(read.bitPattern, radix: 16))), never written")
          }
          if read < previous { found.append("read \(read) after \(previous)") }
          if read < Double(seen) {
            found.append("read \(read) after the write of \(seen) returned")
          }
          previous = read
          if seen == writes || found.count > 10 { break }
        }
        let collected = found
        problems.withLock { $0 += collected }
        readsDone.withLock { $0 += reads }
      }.start()
    }
    for k in 1...writes {
      let value: PropertyListValue =
        k.isMultiple(of: 2) ? .real(Double(k) + 0.5) : .integer(.init(Int64(k)))
      try backend.setValue(value, forKey: "ratio")
      finished.store(k, ordering: .releasing)
    }
    done.wait()
    #expect(problems.withLock { $0 } == [])
    #expect(settings.ratio == Double(writes) + 0.5)
    #expect(readsDone.withLock { $0 } >= readers)
  }

  /// A value that isn't a scalar (a string, an array, a date) is read from the conversion an
  /// earlier read left in the cell, without the lock: every way the value changes empties it, so
  /// the next read is of the new value.
  @Test func everyPathThatChangesAValueIsSeenByTheLockFreeReferenceRead() throws {
    let folder = try TemporaryDirectory()
    let memory = InMemoryBackend()
    let settings = Scalars(backend: memory)
    settings.name = "a value long enough to be stored on the heap"
    #expect(settings.name == "a value long enough to be stored on the heap")
    #expect(settings.name == "a value long enough to be stored on the heap")
    try memory.setValue("two", forKey: "name")
    #expect(settings.name == "two")
    try memory.updateValues { values in values["name"] = "three" }
    #expect(settings.name == "three")
    memory.removeValue(forKey: "name")
    #expect(settings.name == "")
    settings.tags = ["x", "y"]
    #expect(settings.tags == ["x", "y"])
    settings.$tags.reset()
    #expect(settings.tags == [])
    settings.when = Date(timeIntervalSinceReferenceDate: 5)
    #expect(settings.when == Date(timeIntervalSinceReferenceDate: 5))
    try memory.setValue(.date(Date(timeIntervalSinceReferenceDate: 6)), forKey: "when")
    #expect(settings.when == Date(timeIntervalSinceReferenceDate: 6))

    let file = folder.file("data.plist")
    let bundled = folder.file("Info.plist")
    try PropertyListFile(url: bundled).write(["name": "bundled"], format: .xml)
    let store = try LayeredPlistStore(
      persistentFile: file, bundledFile: bundled, options: .init(savesAtExit: false))
    let layered = Scalars(backend: store)
    #expect(layered.name == "bundled")
    layered.name = "saved"
    #expect(layered.name == "saved")
    try store.save()
    try PropertyListFile(url: file).write(["name": "from another process"], format: .xml)
    try store.reload()
    #expect(layered.name == "from another process")
    try store.updateValues { values in values["name"] = "updated" }
    #expect(layered.name == "updated")
    store.removeValue(forKey: "name")
    #expect(layered.name == "bundled")
  }

  /// Two settings of one key share the cell's conversion only when neither judges the value: a
  /// setting with allowed values reads its default for a value it refuses, even right after
  /// another setting of the key read that value and left its conversion in the cell.
  @Test func aSettingThatRefusesAValueNeverReadsAnotherSettingsConversionOfIt() {
    struct Plain: SettingsGroup {
      @Setting("tier") var tier = "free"
    }
    struct Judged: SettingsGroup {
      @Setting("tier", allowedValues: ["free", "pro"]) var tier = "free"
    }
    let backend = InMemoryBackend()
    let plain = Plain(backend: backend)
    let judged = Judged(backend: backend)
    try? backend.setValue("enterprise", forKey: "tier")
    SettingsDiagnostics.withHandler({ _ in }) {
      #expect(plain.tier == "enterprise")
      #expect(judged.tier == "free")
      #expect(plain.tier == "enterprise")
      #expect(judged.tier == "free")
    }
    plain.tier = "pro"
    #expect(judged.tier == "pro")
    #expect(plain.tier == "pro")
  }

  /// Eight readers of a heap string and an array, read without the lock, see only whole values
  /// written, in order.
  ///
  /// One writer writes strings and arrays 1…n in order, each on the heap, while 8 readers read the
  /// `String` and `[String]` settings without the lock: each read is a value written, whole (the
  /// string and the array agree with themselves), never one released under the reader (which
  /// ThreadSanitizer and the allocator would catch), each reader's reads never go back, and a read
  /// begun after the reader saw the writer finish writing `k` is at least `k`. The readers read
  /// without a pause for as long as the writer writes, and the writer still finishes.
  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  @Test(arguments: ["InMemoryBackend", "LayeredPlistStore"])
  func contendedReferenceReadsSeeOnlyWholeValuesWrittenAndNeverAnOlderOne(
    _ backendName: String
  )
    throws
  {
    let folder = try TemporaryDirectory()
    let backend = try Self.backends(in: folder).first { $0.0 == backendName }!.1
    let settings = Scalars(backend: backend)
    let writes = 5_000
    let readers = 8
    let finished = Atomic<Int>(0)
    let problems = Locked<[String]>([])
    let done = DispatchGroup()
    /// The number a written string holds, or `nil` if it isn't one the writer wrote.
    @Sendable func number(in name: String) -> Int? {
      let prefix = "a value long enough for the heap, number "
      guard name.hasPrefix(prefix) else { return name.isEmpty ? 0 : nil }
      return Int(name.dropFirst(prefix.count))
    }
    for reader in 0..<readers {
      done.enter()
      Thread {
        defer { done.leave() }
        var previous = 0
        var found: [String] = []
        while true {
          let seen = finished.load(ordering: .acquiring)
          let read: Int?
          if reader.isMultiple(of: 2) {
            read = number(in: settings.name)
          } else {
            let tags = settings.tags
            read = tags.isEmpty ? 0 : (tags.count == 2 && tags[0] == tags[1] ? Int(tags[0]) : nil)
          }
          guard let read else {
            found.append("a value never written")
            break
          }
          if read < previous { found.append("read \(read) after \(previous)") }
          if read < seen { found.append("read \(read) after the write of \(seen) returned") }
          previous = read
          if seen == writes || found.count > 10 { break }
        }
        let collected = found
        problems.withLock { $0 += collected }
      }.start()
    }
    for k in 1...writes {
      try backend.setValue(.string("a value long enough for the heap, number \(k)"), forKey: "name")
      try backend.setValue([.string("\(k)"), .string("\(k)")], forKey: "tags")
      finished.store(k, ordering: .releasing)
    }
    done.wait()
    #expect(problems.withLock { $0 } == [])
    #expect(number(in: settings.name) == writes)
    #expect(settings.tags == ["\(writes)", "\(writes)"])
  }
}
