import Dispatch
import Foundation
import Synchronization
import TypedDefaults
@_spi(Testing) import TypedDefaultsLayers

/// Each figure of the table: our operation and its raw baseline, measured in one run.
struct Figures {
  let effort: Effort

  // MARK: - Per-call figures

  /// A `@Setting` Int read with no observer, against a read of a locked dictionary: the `Int` of
  /// the per-type scalar read figures on `InMemoryBackend` (`scalarReads(on:)`), target 0.25.
  func settingIntReadInMemory() -> Figure {
    let settings = BenchSettings(backend: InMemoryBackend(["count": 42, "name": "x"]))
    let baseline = Mutex<[String: Int]>(["count": 42, "name": 0])
    let (ours, raw) = compareCountReads(settings, baseline)
    return Figure(
      name: "@Setting Int read, InMemoryBackend", ours: ours, baseline: raw, target: 0.25,
      unit: "ns")
  }

  func settingIntWriteInMemory() -> Figure {
    let settings = BenchSettings(backend: InMemoryBackend(["count": 42, "name": "x"]))
    let baseline = Mutex<[String: Int]>(["count": 42, "name": 0])
    let (ours, raw) = compare(
      repeats: effort.repeats, iterations: effort.iterations,
      ours: { iterations in
        for index in 0..<iterations { settings.count = index }
      },
      baseline: { iterations in
        for index in 0..<iterations { baseline.withLock { $0["count"] = index } }
      })
    return Figure(
      name: "@Setting Int write, InMemoryBackend", ours: ours, baseline: raw, target: 1.5,
      unit: "ns")
  }

  /// A `@Setting` Int read on `UserDefaultsBackend` against `UserDefaults.object(forKey:)`:
  /// with `writtenByBackend`, of a key the backend wrote (the usual case); otherwise of a key
  /// only raw `UserDefaults` wrote (taken in at the first read).
  ///
  /// On Linux every read asks `object(forKey:)` too, to see raw writes in the process at once, and
  /// compares.
  func settingIntReadUserDefaults(writtenByBackend: Bool) throws -> Figure {
    let suite = "TypedDefaultsBenchmarks.read.\(ProcessInfo.processInfo.processIdentifier)"
    let backend = UserDefaultsBackend(suiteName: suite)
    defer { removeSuite(backend) }
    let defaults = backend.userDefaults
    if writtenByBackend {
      try backend.setValue(42, forKey: "count")
    } else {
      defaults.set(42, forKey: "count")
    }
    let settings = BenchSettings(backend: backend)
    let iterations = effort.iterations / 10
    let (ours, raw) = compare(
      repeats: effort.repeats, iterations: iterations,
      ours: { readCount(settings, $0) },
      baseline: { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= defaults.object(forKey: "count") as? Int ?? 0 }
        consume(sum)
      })
    return Figure(
      name: writtenByBackend
        ? "@Setting Int read, UserDefaultsBackend"
        : "@Setting Int read, UserDefaultsBackend, a key only raw UserDefaults wrote",
      ours: ours, baseline: raw, target: writtenByBackend ? 1.4 : nil, unit: "ns")
  }

  func settingStringWriteUserDefaults() -> Figure {
    let suite = "TypedDefaultsBenchmarks.write.\(ProcessInfo.processInfo.processIdentifier)"
    let backend = UserDefaultsBackend(suiteName: suite)
    defer { removeSuite(backend) }
    let defaults = backend.userDefaults
    let settings = BenchSettings(backend: backend)
    let strings = (0..<16).map { "player name \($0)" }
    let iterations = effort.iterations / 20
    let (ours, raw) = compare(
      repeats: effort.repeats, iterations: iterations,
      ours: { iterations in
        for index in 0..<iterations { settings.name = strings[index & 15] }
      },
      baseline: { iterations in
        for index in 0..<iterations { defaults.set(strings[index & 15], forKey: "name") }
      })
    return Figure(
      name: "@Setting String write, UserDefaultsBackend", ours: ours, baseline: raw, target: 1.2,
      unit: "ns")
  }

  /// Saving a 10,000-key suite after one change (`save()`), against a raw atomic write of the
  /// same dictionary as a binary property list (1,000 keys in the quick run).
  func userDefaultsSaveAfterOneChange() throws -> Figure {
    let suite = "TypedDefaultsBenchmarks.save.\(ProcessInfo.processInfo.processIdentifier)"
    let backend = UserDefaultsBackend(suiteName: suite)
    defer { removeSuite(backend) }
    let keys = effort.userDefaultsKeys
    try backend.setValues(mixedValues(count: keys))
    try backend.save()
    let folder = try ScratchFolder()
    defer { folder.remove() }
    let rawFile = folder.file("raw.plist")
    let raw = foundationObjects(backend.dictionaryRepresentation())
    var counter: Int64 = 0
    let (ours, baseline) = try compare(
      repeats: effort.fileRepeats, iterations: 1,
      ours: { _ in
        counter += 1
        try backend.setValue(.integer(.init(counter)), forKey: "setting.1")
        try backend.save()
      },
      baseline: { _ in
        let data = try PropertyListSerialization.data(
          fromPropertyList: raw, format: .binary, options: 0)
        try data.write(to: rawFile, options: .atomic)
      })
    return Figure(
      name: "save of a \(keyCount(keys))-key UserDefaults suite after one change (Linux: binary)",
      ours: ours, baseline: baseline, target: 1.2, unit: "ns")
  }

  func layeredReadFromLowestLayer() throws -> Figure {
    let folder = try ScratchFolder()
    defer { folder.remove() }
    var layers: [[String: PropertyListValue]] = []
    for layer in 0..<3 {
      layers.append(
        Dictionary(uniqueKeysWithValues: (0..<100).map { ("layer\(layer).key\($0)", .integer(1)) }))
    }
    try PropertyListFile(url: folder.file("data.plist")).write(.dictionary(layers[0]))
    try PropertyListFile(url: folder.file("JF-info.plist")).write(.dictionary(layers[1]))
    var bundled = layers[2]
    bundled["count"] = 42
    try PropertyListFile(url: folder.file("Info.plist")).write(.dictionary(bundled))
    let store = try LayeredPlistStore(
      persistentFile: folder.file("data.plist"), deliveredFile: folder.file("JF-info.plist"),
      bundledFile: folder.file("Info.plist"), options: .init(savesAtExit: false))
    for index in 0..<100 {
      try store.setValue(.integer(1), forKey: "runtime.key\(index)", in: .runtime)
    }
    precondition(store.layer(forKey: "count") == .bundled)
    let settings = BenchSettings(backend: store)
    let baseline = Mutex<[String: Int]>(
      Dictionary(uniqueKeysWithValues: (0..<400).map { ("key\($0)", $0) }).merging(["count": 42]) {
        $1
      })
    let (ours, raw) = compareCountReads(settings, baseline)
    return Figure(
      name: "LayeredPlistStore @Setting read, value only in the lowest of 4 layers", ours: ours,
      baseline: raw, target: 1.5, unit: "ns")
  }

  func codableRead() -> Figure {
    let profile = Profile(name: "Ann", age: 7, tags: ["jazz", "piano"], premium: true)
    let backend = InMemoryBackend(["count": 42])
    let settings = BenchSettings(backend: backend)
    settings.profile = profile
    let dictionary = Mutex<[String: Int]>(["count": 42, "name": 0])
    let (ours, raw) = compare(
      repeats: effort.repeats, iterations: effort.iterations,
      ours: { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= settings.profile.age }
        consume(sum)
      },
      baseline: { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= dictionary.withLock { $0["count"] ?? 0 } }
        consume(sum)
      })
    // Against the locked dictionary, as every other read: the Int read it was once measured
    // against became lock-free, a baseline a fifth of the dictionary's.
    return Figure(
      name: "Codable struct setting, repeated read (baseline: locked dictionary)", ours: ours,
      baseline: raw, target: 0.7, unit: "ns")
  }

  /// Reads `settings.count` `iterations` times.
  private func readCount(_ settings: BenchSettings, _ iterations: Int) {
    var sum = 0
    for _ in 0..<iterations { sum &+= settings.count }
    consume(sum)
  }

  /// Times reading `settings.count` against reading `"count"` from a locked dictionary.
  private func compareCountReads(
    _ settings: BenchSettings,
    _ baseline: borrowing Mutex<[String: Int]>
  ) -> (ours: Double, baseline: Double) {
    compareReads({ readCount(settings, $0) }, key: "count", in: baseline)
  }

  // MARK: - Files

  func save(format: PropertyListFile.Format) throws -> Figure {
    let folder = try ScratchFolder()
    defer { folder.remove() }
    let values = tenThousandValues()
    let store = try LayeredPlistStore(
      persistentFile: folder.file("data.plist"),
      options: .init(format: format, savesAtExit: false))
    try store.applyServerConfiguration(values)
    let raw = foundationObjects(store.dictionaryRepresentation(of: .persistent))
    let rawFile = folder.file("raw.plist")
    let nativeFormat: PropertyListSerialization.PropertyListFormat =
      format == .binary ? .binary : .xml
    var counter: Int64 = 0
    let (ours, baseline) = try compare(
      repeats: effort.fileRepeats, iterations: 1,
      ours: { _ in
        counter += 1
        try store.setValue(.integer(.init(counter)), forKey: "setting.1")
        try store.save()
      },
      baseline: { _ in
        let data = try PropertyListSerialization.data(
          fromPropertyList: raw, format: nativeFormat, options: 0)
        try data.write(to: rawFile, options: .atomic)
      })
    return Figure(
      name: "save of a 10,000-key data.plist (\(format))", ours: ours, baseline: baseline,
      target: 1.2, unit: "ns")
  }

  func open(format: PropertyListFile.Format) throws -> Figure {
    let folder = try ScratchFolder()
    defer { folder.remove() }
    let file = folder.file("data.plist")
    try PropertyListFile(url: file).write(.dictionary(tenThousandValues()), format: format)
    let (ours, baseline) = try compare(
      repeats: effort.fileRepeats, iterations: 1,
      ours: { _ in
        consume(try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false)))
      },
      baseline: { _ in
        consume(
          try PropertyListSerialization.propertyList(
            from: Data(contentsOf: file), options: [], format: nil))
      })
    return Figure(
      name: "open of a 10,000-key store (\(format))", ours: ours, baseline: baseline,
      target: format == .binary ? 0.8 : 0.9, unit: "ns")
  }

  /// Decoding the largest fixture of a format (from the shared corpus beside the project) with
  /// our reader, against `PropertyListSerialization` on the same bytes; the name gives both
  /// throughputs in MB/s.
  ///
  /// `nil` when the corpus isn't there.
  func decodeThroughput(format: PropertyListFile.Format) throws -> Figure? {
    let corpus = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("shared/fixtures/plists/valid")
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: corpus.path) else {
      return nil
    }
    var largest: (name: String, data: Data)?
    for name in names.sorted() {
      guard let data = try? Data(contentsOf: corpus.appendingPathComponent(name)),
        (try? PropertyListFile.decode(data).format) == format,
        data.count > largest?.data.count ?? 0
      else { continue }
      largest = (name, data)
    }
    guard let (name, data) = largest else { return nil }
    let iterations = effort.decodes
    let (ours, baseline) = try compare(
      repeats: effort.repeats, iterations: iterations,
      ours: { count in
        for _ in 0..<count { consume(try PropertyListFile.decode(data)) }
      },
      baseline: { count in
        for _ in 0..<count {
          consume(try PropertyListSerialization.propertyList(from: data, options: [], format: nil))
        }
      })
    func megabytesPerSecond(_ nanoseconds: Double) -> String {
      String(format: "%.1f", Double(data.count) / nanoseconds * 1e9 / 1e6)
    }
    return Figure(
      name: "decode of \(name) (\(data.count / 1024) KiB, \(format)): ours "
        + "\(megabytesPerSecond(ours)) MB/s, Foundation \(megabytesPerSecond(baseline)) MB/s",
      ours: ours, baseline: baseline, target: nil, unit: "ns")
  }

  func debouncedAutosave() throws -> Figure {
    let folder = try ScratchFolder()
    defer { folder.remove() }
    let store = try LayeredPlistStore(
      persistentFile: folder.file("data.plist"),
      options: .init(autosave: .debounced(seconds: 0.1), savesAtExit: false))
    for index in 0..<10_000 {
      try store.setValue(.integer(.init(Int64(index))), forKey: "setting.\(index)")
    }
    // Bounded wait for the debounced save: at most 10 seconds.
    for _ in 0..<1000 where store.hasUnsavedChanges { usleep(10_000) }
    return Figure(
      name: "10,000 writes with debounced autosave (file writes)", ours: Double(store.saveCount),
      baseline: nil, target: 2, unit: "file writes")
  }

  func discovery() -> Figure {
    let model = HundredSettings(backend: InMemoryBackend())
    precondition(model.allSettings.count == 100)
    return microseconds(
      "settings discovery, 100-setting model, after the first (µs)", target: 5,
      iterations: max(100, effort.iterations / 200)
    ) { consume(model.allSettings) }
  }

  private func removeSuite(_ backend: UserDefaultsBackend) {
    ChildProcesses.removeSuite(backend)
  }
}
