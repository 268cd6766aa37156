import Foundation
import TypedDefaults

/// The checks ``BackendConformance`` runs, one rule of the `SettingsBackend` contract each.
enum ConformanceChecks {
  typealias Check = BackendConformance.Check

  static let all: [Check] =
    [
      writtenValuesReadBackEqual, notANumberReadsBackAsNotANumber, missingKeyReadsNil,
      writingNilRemovesTheKey, removeValueRemovesTheKey, overwritingReplacesTheValueAndItsKind,
      dictionaryRepresentationListsExactlyTheStoredKeys, concurrentWritersLoseNothing,
      setValuesStoresEveryValue, everySettingTypeRoundTrips, aSettingWriteReachesObserversOnce,
      racingSettingWritesEachReachObserversOnceInOrder, everyValueReadsTheSameAfterAReload,
    ] + SettingUpdateChecks.all + AbilityChecks.all

  static let writtenValuesReadBackEqual = Check(
    name: "writtenValuesReadBackEqual", needsReload: false
  ) {
    context in
    let backend = context.backend
    for (key, value) in ConformanceSamples.values { try backend.setValue(value, forKey: key) }
    for (key, value) in ConformanceSamples.values.sorted(by: { $0.key < $1.key }) {
      let read = backend.value(forKey: key)
      context.expect(read == value, "'\(key)' read back \(describe(read)), not \(describe(value))")
    }
  }

  static let notANumberReadsBackAsNotANumber = Check(
    name: "notANumberReadsBackAsNotANumber", needsReload: false
  ) { context in
    try context.backend.setValue(.real(.nan), forKey: "nan")
    let read = context.backend.value(forKey: "nan")
    context.expect(read?.doubleValue?.isNaN == true, "NaN read back as \(describe(read))")
  }

  static let missingKeyReadsNil = Check(name: "missingKeyReadsNil", needsReload: false) { context in
    let read = context.backend.value(forKey: "never.written")
    context.expect(read == nil, "a key never written read \(describe(read))")
  }

  static let writingNilRemovesTheKey = Check(name: "writingNilRemovesTheKey", needsReload: false) {
    context in
    let backend = context.backend
    try backend.setValue("x", forKey: "k")
    try backend.setValue(nil, forKey: "k")
    context.expect(
      backend.value(forKey: "k") == nil, "after writing nil, the key still reads a value")
    context.expect(
      backend.dictionaryRepresentation()["k"] == nil,
      "after writing nil, dictionaryRepresentation() still lists the key")
    // Removing a missing key is not an error.
    try backend.setValue(nil, forKey: "k")
    backend.removeValue(forKey: "never.written")
  }

  static let removeValueRemovesTheKey = Check(name: "removeValueRemovesTheKey", needsReload: false)
  {
    context in
    let backend = context.backend
    try backend.setValue(5, forKey: "k")
    backend.removeValue(forKey: "k")
    context.expect(
      backend.value(forKey: "k") == nil, "after removeValue, the key still reads a value")
    context.expect(!backend.keys.contains("k"), "after removeValue, keys still lists the key")
  }

  static let overwritingReplacesTheValueAndItsKind = Check(
    name: "overwritingReplacesTheValueAndItsKind", needsReload: false
  ) { context in
    let backend = context.backend
    try backend.setValue(1, forKey: "k")
    try backend.setValue("one", forKey: "k")
    context.expect(backend.value(forKey: "k") == "one", "an integer overwritten by a string")
    try backend.setValue(["one": 1], forKey: "k")
    context.expect(backend.value(forKey: "k") == ["one": 1], "a string overwritten by a dictionary")
  }

  static let dictionaryRepresentationListsExactlyTheStoredKeys = Check(
    name: "dictionaryRepresentationListsExactlyTheStoredKeys", needsReload: false
  ) { context in
    let backend = context.backend
    context.expect(
      backend.dictionaryRepresentation().isEmpty,
      "a new backend's dictionaryRepresentation() is not empty")
    try backend.setValue(1, forKey: "a")
    try backend.setValue("b", forKey: "b")
    try backend.setValue([true], forKey: "c")
    // Empty values are values: a listing that drops them loses keys for every caller that
    // copies or migrates the backend through it.
    try backend.setValue("", forKey: "d")
    try backend.setValue([], forKey: "e")
    try backend.setValue([:], forKey: "f")
    backend.removeValue(forKey: "b")
    let listed = backend.dictionaryRepresentation()
    context.expect(
      listed == ["a": 1, "c": [true], "d": "", "e": [], "f": [:]],
      "dictionaryRepresentation() is \(describe(.dictionary(listed)))")
    context.expect(backend.keys == ["a", "c", "d", "e", "f"], "keys is \(backend.keys)")
  }

  static let concurrentWritersLoseNothing = Check(
    name: "concurrentWritersLoseNothing", needsReload: false
  ) { context in
    let backend = context.backend
    let writers = 8
    await withTaskGroup(of: Void.self) { group in
      for writer in 0..<writers {
        group.addTask {
          for index in 0..<200 {
            try? backend.setValue(
              .integer(.init(Int64(index))), forKey: "w\(writer).k\(index % 20)")
            try? backend.setValue(.integer(.init(Int64(writer))), forKey: "shared")
            _ = backend.value(forKey: "w\((writer + 1) % writers).k\(index % 20)")
            _ = backend.dictionaryRepresentation().count
          }
        }
      }
    }
    for writer in 0..<writers {
      for slot in 0..<20 {
        // The last write to each slot was index 180 + slot.
        let read = backend.value(forKey: "w\(writer).k\(slot)")
        context.expect(
          read == .integer(.init(Int64(180 + slot))),
          "w\(writer).k\(slot) reads \(describe(read)) after concurrent writes, not \(180 + slot)")
      }
    }
    let shared = backend.value(forKey: "shared")?.intValue
    context.expect(shared.map((0..<writers).contains) == true, "'shared' reads \(shared as Any)")
    let count = backend.dictionaryRepresentation().count
    context.expect(
      count == writers * 20 + 1, "\(count) keys after concurrent writes, not \(writers * 20 + 1)")
  }

  static let setValuesStoresEveryValue = Check(
    name: "setValuesStoresEveryValue", needsReload: false
  ) {
    context in
    let backend = context.backend
    let values: [String: PropertyListValue] = ["a": 1, "b": "two", "c": [3.0], "d": ["e": false]]
    try backend.setValues(values)
    context.expect(
      backend.dictionaryRepresentation() == values, "setValues(_:) did not store every value")
  }

  static let everySettingTypeRoundTrips = Check(
    name: "everySettingTypeRoundTrips", needsReload: false
  ) {
    context in
    let settings = EveryTypeSettings(backend: context.backend)
    settings.assign(.extremes)
    context.expect(
      settings.values == .extremes, "a model of every setting type did not read back what it wrote")
    context.expect(
      EveryTypeSettings(backend: context.backend).values == .extremes,
      "a second model on the same backend did not read what the first wrote")
    settings.assign(.edges)
    context.expect(
      settings.values == .edges,
      "a model of every setting type did not read back empty and minimal values")
    settings.resetAll()
    context.expect(
      settings.values == .defaults, "after resetAll(), the model does not read its defaults")
  }

  static let aSettingWriteReachesObserversOnce = Check(
    name: "aSettingWriteReachesObserversOnce", needsReload: false
  ) { context in
    let settings = EveryTypeSettings(backend: context.backend)
    let seen = Seen()
    let token = settings.$int.observe { seen.append($0) }
    settings.int = 7
    settings.int = 7  // the value it holds: no event
    settings.$int.reset()
    withExtendedLifetime(token) {}
    context.expect(seen.values == [7, 0], "an observer of 'int' saw \(seen.values), not [7, 0]")
  }

  /// 8 tasks writing distinct values to one setting at once: every write delivers one event,
  /// each writer's events come in the order it wrote, and the last event is the value a read
  /// returns after them (never an older one).
  static let racingSettingWritesEachReachObserversOnceInOrder = Check(
    name: "racingSettingWritesEachReachObserversOnceInOrder", needsReload: false
  ) { context in
    let settings = EveryTypeSettings(backend: context.backend)
    let seen = Seen()
    let token = settings.$int.observe { seen.append($0) }
    let writers = 8
    let writes = 25
    await withTaskGroup(of: Void.self) { group in
      for writer in 0..<writers {
        group.addTask {
          for index in 1...writes { settings.int = writer * 1_000 + index }
        }
      }
    }
    withExtendedLifetime(token) {}
    let values = seen.values
    context.expect(
      values.count == writers * writes,
      "\(writers * writes) racing writes delivered \(values.count) events")
    context.expect(
      Set(values).count == values.count, "an observer saw a write's value more than once")
    for writer in 0..<writers {
      let own = values.filter { $0 / 1_000 == writer }
      context.expect(
        own == Array(1...writes).map { writer * 1_000 + $0 },
        "writer \(writer)'s events came as \(own.map { $0 % 1_000 }), not in the order it wrote")
    }
    context.expect(
      values.last == settings.int,
      "the last event carried \(values.last as Any), but the setting reads \(settings.int)")
  }

  static let everyValueReadsTheSameAfterAReload = Check(
    name: "everyValueReadsTheSameAfterAReload", needsReload: true
  ) { context in
    let backend = context.backend
    for (key, value) in ConformanceSamples.values { try backend.setValue(value, forKey: key) }
    EveryTypeSettings(backend: backend).assign(.extremes)
    let before = backend.dictionaryRepresentation()
    let reloaded = try context.reload()
    let after = reloaded.dictionaryRepresentation()
    for key in Set(before.keys).union(after.keys).sorted() where before[key] != after[key] {
      context.fail(
        "'\(key)' read \(describe(before[key])) before the reload and \(describe(after[key])) after it"
      )
    }
    context.expect(
      EveryTypeSettings(backend: reloaded).values == .extremes,
      "a model of every setting type reads differently after the reload")
  }

  /// A value for a message, cut short: never print a huge value.
  static func describe(_ value: PropertyListValue?) -> String {
    guard let value else { return "nil" }
    let text = "\(value)"
    return text.count > 120 ? String(text.prefix(117)) + "..." : text
  }
}

/// Values an observer saw, collected from any thread.
final class Seen: Sendable {
  private let lock = NSLock()
  // nonisolated(unsafe): only touched under `lock`.
  nonisolated(unsafe) private var collected: [Int] = []

  var values: [Int] { lock.withLock { collected } }

  func append(_ value: Int) { lock.withLock { collected.append(value) } }
}
