import Foundation
import Synchronization
import TypedDefaults
import TypedDefaultsLayers

/// An enum stored as its `Int` raw value: a scalar of the per-type read figures.
enum BenchLevel: Int, SettingValue {
  case low, medium, high
}

/// An enum stored as its `String` raw value: one of the other types of the per-type read figures.
enum BenchQuality: String, SettingValue {
  case auto, high, low
}

/// One setting's reads in the per-type read figures: the type's name, its key, and a loop of
/// reads.
struct TypedRead {
  /// The setting's type, as the figure names it.
  var type: String
  /// The setting's key.
  var key: String
  /// Reads the setting `iterations` times.
  var loop: (_ iterations: Int) -> Void
}

/// The scalars of the per-type read figures: a model of `Bool`, `Int`, `Double` and an enum over
/// `Int`.
final class ScalarSettings: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting (see SettingsModel).
  @Setting var flag = false
  @Setting var count = 0
  @Setting var ratio = 0.5
  @Setting var level = BenchLevel.low

  /// What the backends of the figures store, none of it the default.
  static let stored: [String: PropertyListValue] = [
    "flag": true, "count": 42, "ratio": 0.25, "level": 2,
  ]

  /// One loop per setting, each summing what it reads so that no read can be left out.
  var reads: [TypedRead] {
    [
      TypedRead(type: "Bool", key: "flag") { iterations in
        var sum = 0
        for _ in 0..<iterations where self.flag { sum &+= 1 }
        consume(sum)
      },
      TypedRead(type: "Int", key: "count") { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= self.count }
        consume(sum)
      },
      TypedRead(type: "Double", key: "ratio") { iterations in
        var sum = 0.0
        for _ in 0..<iterations { sum += self.ratio }
        consume(sum)
      },
      TypedRead(type: "enum over Int", key: "level") { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= self.level.rawValue }
        consume(sum)
      },
    ]
  }
}

/// The other types of the per-type read figures: a model of `String`, `Date`, `Data`,
/// `[String]` and an enum over `String`.
final class OtherValueSettings: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting (see SettingsModel).
  @Setting var name = ""
  @Setting var date = Date(timeIntervalSinceReferenceDate: 0)
  @Setting var blob = Data()
  @Setting var tags: [String] = []
  @Setting var quality = BenchQuality.auto

  /// What the backends of the figures store, none of it the default.
  static let stored: [String: PropertyListValue] = [
    "name": "player one",
    "date": .date(Date(timeIntervalSinceReferenceDate: 800_000_000)),
    "blob": .data(Data((0..<16).map { UInt8($0) })),
    "tags": ["jazz", "piano"],
    "quality": "high",
  ]

  /// One loop per setting, each summing what it reads so that no read can be left out.
  var reads: [TypedRead] {
    [
      TypedRead(type: "String", key: "name") { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= self.name.utf8.count }
        consume(sum)
      },
      TypedRead(type: "Date", key: "date") { iterations in
        var sum = 0.0
        for _ in 0..<iterations { sum += self.date.timeIntervalSinceReferenceDate }
        consume(sum)
      },
      TypedRead(type: "Data", key: "blob") { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= self.blob.count }
        consume(sum)
      },
      TypedRead(type: "[String]", key: "tags") { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= self.tags.count }
        consume(sum)
      },
      TypedRead(type: "enum over String", key: "quality") { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= self.quality.rawValue.utf8.count }
        consume(sum)
      },
    ]
  }
}

/// The backends of the per-type read figures.
enum ReadBackend: String {
  case memory
  case layered
  case userDefaults
  /// `UserDefaultsBackend(…, writtenOnlyThroughLibrary: true)`: reads through cells.
  case promisedUserDefaults

  /// How a figure names the backend and where its value is.
  var description: String {
    switch self {
    case .memory: "InMemoryBackend"
    case .layered: "LayeredPlistStore, value in data.plist"
    case .userDefaults: "UserDefaultsBackend, named suite (baseline: locked dictionary)"
    case .promisedUserDefaults: "UserDefaultsBackend, written only through the library"
    }
  }
}

extension Figures {
  /// `@Setting` reads of `Bool`, `Int` (on the stores; on `InMemoryBackend` the `Int` read is
  /// `settingIntReadInMemory`'s figure), `Double` and an enum over `Int`, with no observer,
  /// each against the read of an Int from a locked `[String: Int]`: target 0.25.
  ///
  /// - Parameter kind: The backend holding the values.
  /// - Returns: One figure per type.
  /// - Throws: When the store's folder or files can't be made.
  func scalarReads(on kind: ReadBackend) throws -> [Figure] {
    try typedReads(on: kind, stored: ScalarSettings.stored, target: 0.25) { backend in
      let settings = ScalarSettings(backend: backend)
      precondition(settings.flag && settings.count == 42 && settings.level == .high)
      return settings.reads.filter { kind != .memory || $0.key != "count" }
    }
  }

  /// `@Setting` reads of `String`, `Date`, `Data`, `[String]` and an enum over `String`, with no
  /// observer, each against the read of an Int from a locked `[String: Int]`: target 0.7.
  ///
  /// - Parameter kind: The backend holding the values.
  /// - Returns: One figure per type.
  /// - Throws: When the store's folder or files can't be made.
  func otherReads(on kind: ReadBackend) throws -> [Figure] {
    try typedReads(on: kind, stored: OtherValueSettings.stored, target: 0.7) { backend in
      let settings = OtherValueSettings(backend: backend)
      precondition(settings.tags == ["jazz", "piano"] && settings.quality == .high)
      return settings.reads
    }
  }

  /// Makes a backend of `kind` holding `stored`, and measures each of the reads `model` returns
  /// on it against the read of `"count"` from a locked two-key dictionary (the baseline of
  /// `settingIntReadInMemory`).
  private func typedReads(
    on kind: ReadBackend,
    stored: [String: PropertyListValue],
    target: Double,
    model: (any SettingsBackend) -> [TypedRead]
  ) throws -> [Figure] {
    let backend: any SettingsBackend
    var cleanup: () -> Void = {}
    defer { cleanup() }
    switch kind {
    case .memory:
      backend = InMemoryBackend(stored)
    case .layered:
      let folder = try ScratchFolder()
      cleanup = { folder.remove() }
      let file = folder.file("data.plist")
      try PropertyListFile(url: file).write(.dictionary(stored))
      let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
      for key in stored.keys { precondition(store.layer(forKey: key) == .persistent) }
      backend = store
    case .userDefaults, .promisedUserDefaults:
      let suite = "TypedDefaultsBenchmarks.typed.\(ProcessInfo.processInfo.processIdentifier)"
      let defaults = UserDefaultsBackend(
        suiteName: suite, writtenOnlyThroughLibrary: kind == .promisedUserDefaults)
      cleanup = { ChildProcesses.removeSuite(defaults) }
      try defaults.setValues(stored)
      backend = defaults
    }
    // The baseline of settingIntReadInMemory, the same for every type, so that the figures
    // compare with each other.
    let baseline = Mutex<[String: Int]>(["count": 42, "name": 0])
    // A UserDefaults read asks corelibs every time (see settingIntReadUserDefaults): microseconds.
    let iterations = kind == .userDefaults ? effort.iterations / 10 : effort.iterations
    return model(backend).map { read in
      let (ours, raw) = compareReads(read.loop, key: "count", in: baseline, iterations: iterations)
      return Figure(
        name: "@Setting \(read.type) read, \(kind.description)", ours: ours, baseline: raw,
        target: target, unit: "ns")
    }
  }

  /// Times `loop` against reading `key` from a locked dictionary, alternately.
  func compareReads(
    _ loop: (_ iterations: Int) -> Void,
    key: String,
    in baseline: borrowing Mutex<[String: Int]>,
    iterations: Int? = nil
  ) -> (ours: Double, baseline: Double) {
    compare(
      repeats: effort.repeats, iterations: iterations ?? effort.iterations,
      ours: loop,
      baseline: { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= baseline.withLock { $0[key] ?? 0 } }
        consume(sum)
      })
  }
}
