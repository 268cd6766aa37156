import Foundation
import TypedDefaults

/// The checks of the abilities a backend may adopt (``UpdatingBackend``,
/// ``MultiKeyUpdatingBackend``, ``SavingBackend``, ``ReloadingBackend``, ``WatchingBackend``): each
/// runs its rules when the backend under test adopts the protocol, and passes without running
/// when it doesn't.
enum AbilityChecks {
  typealias Check = BackendConformance.Check

  static let all: [Check] = [
    updateChangesOneKeyAllOrNothing, concurrentUpdatesLoseNoIncrement, anUpdateReachesObserversOnce,
    updateValuesAppliesAllOrNothing, concurrentUpdateValuesEachTakeOneStep,
    aMigrationStepRunsAsOneUpdateValuesAndReachesObserversOnce, saveLeavesNothingUnsaved,
    reloadKeepsWhatWasWrittenSavedOrNot, watchingStartsAndStopsOnce,
  ]

  /// The error the checks' transforms throw.
  static let refusal = SettingsError(
    .valueNotRepresentable, key: "k", reason: "refused by the check")

  /// `update(forKey:_:)`: a missing key's transform gets `nil`; the result is stored and
  /// returned; `nil` removes the key; a transform that throws changes nothing and its error
  /// comes back.
  static let updateChangesOneKeyAllOrNothing = Check(
    name: "updateChangesOneKeyAllOrNothing", needsReload: false
  ) { context in
    guard let backend = context.backend as? any UpdatingBackend else { return }
    var given: [PropertyListValue?] = []
    let stored = try backend.update(forKey: "k") { current throws(SettingsError) in
      given.append(current)
      return 1
    }
    context.expect(given == [nil], "update's transform got \(given) for a missing key, not [nil]")
    context.expect(stored == 1, "update returned \(describe(stored)), not the value stored, 1")
    context.expect(
      backend.value(forKey: "k") == 1,
      "after update, 'k' reads \(describe(backend.value(forKey: "k")))")
    given = []
    try backend.update(forKey: "k") { current throws(SettingsError) in
      given.append(current)
      return .integer(.init(Int64((current?.intValue ?? 0) + 1)))
    }
    context.expect(given == [1], "update's transform got \(given), not the current value [1]")
    context.expect(
      backend.value(forKey: "k") == 2,
      "after adding one, 'k' reads \(describe(backend.value(forKey: "k")))")
    do {
      try backend.update(forKey: "k") { _ throws(SettingsError) in throw refusal }
      context.fail("update whose transform throws did not throw")
    } catch {
      context.expect(
        (error as? SettingsError) == refusal, "update rethrew \(error), not its transform's error")
    }
    context.expect(
      backend.value(forKey: "k") == 2,
      "after an update whose transform threw, 'k' reads \(describe(backend.value(forKey: "k"))), not 2"
    )
    let removed = try backend.update(forKey: "k") { _ throws(SettingsError) in nil }
    context.expect(removed == nil, "update returning nil returned \(describe(removed))")
    context.expect(backend.value(forKey: "k") == nil, "update returning nil left 'k' a value")
    context.expect(
      backend.dictionaryRepresentation()["k"] == nil,
      "update returning nil left 'k' in dictionaryRepresentation()")
  }

  /// 8 tasks each adding one to a counter 10 times with `update(forKey:_:)`, while plain writes
  /// of other keys go on: the counter ends 80 higher.
  static let concurrentUpdatesLoseNoIncrement = Check(
    name: "concurrentUpdatesLoseNoIncrement", needsReload: false
  ) { context in
    guard let backend = context.backend as? any UpdatingBackend else { return }
    let tasks = 8
    let increments = 10
    try backend.setValue(0, forKey: "counter")
    await race(tasks: tasks, times: increments) { task, index in
      _ = try? backend.update(forKey: "counter") { current throws(SettingsError) in
        .integer(.init(Int64((current?.intValue ?? 0) + 1)))
      }
      try? backend.setValue(.integer(.init(Int64(index))), forKey: "other.\(task)")
    }
    let counter = backend.value(forKey: "counter")
    context.expect(
      counter == .integer(.init(Int64(tasks * increments))),
      "\(tasks * increments) racing updates left the counter at \(describe(counter))")
  }

  /// An update made through the library (a `ScopedBackend` view's `update(forKey:_:)`) reaches
  /// the key's observers once, with the value stored; an update that stores the value the key
  /// holds reaches none.
  static let anUpdateReachesObserversOnce = Check(
    name: "anUpdateReachesObserversOnce", needsReload: false
  ) { context in
    guard context.backend is any UpdatingBackend else { return }
    let seen = SeenChanges()
    let token = context.backend.observe(key: "k") { seen.append($0) }
    let view = context.backend.scoped(to: "")
    try view.update(forKey: "k") { _ throws(SettingsError) in 5 }
    try view.update(forKey: "k") { current throws(SettingsError) in current }  // unchanged
    try view.update(forKey: "k") { _ throws(SettingsError) in nil }
    withExtendedLifetime(token) {}
    let values = seen.changes.map(\.newValue)
    context.expect(
      values == [5, nil], "an observer of 'k' saw \(values.map(describe)) for updates, not [5, nil]"
    )
  }

  /// `updateValues(_:)`: the transform gets every stored value; what it leaves is stored and
  /// what it returned comes back; a transform that throws changes nothing.
  static let updateValuesAppliesAllOrNothing = Check(
    name: "updateValuesAppliesAllOrNothing", needsReload: false
  ) { context in
    guard let backend = context.backend as? any MultiKeyUpdatingBackend else { return }
    let start: [String: PropertyListValue] = ["a": 1, "b": "two", "c": [3]]
    try backend.setValues(start)
    do {
      try backend.updateValues { values throws(SettingsError) -> Void in
        values["a"] = 10
        values["b"] = nil
        values["d"] = true
        throw refusal
      }
      context.fail("updateValues whose transform throws did not throw")
    } catch {
      context.expect(
        (error as? SettingsError) == refusal,
        "updateValues rethrew \(error), not its transform's error")
    }
    let afterFailure = backend.dictionaryRepresentation()
    context.expect(
      afterFailure == start,
      "after an updateValues whose transform threw, the backend holds \(describe(.dictionary(afterFailure)))"
    )
    var given: [String: PropertyListValue] = [:]
    let result = try backend.updateValues { values throws(SettingsError) -> String in
      given = values
      values["a"] = 10
      values["b"] = nil
      values["d"] = true
      return "done"
    }
    context.expect(
      given == start,
      "updateValues' transform got \(describe(.dictionary(given))), not every stored value")
    context.expect(
      result == "done", "updateValues returned \(result), not what its transform returned")
    let after = backend.dictionaryRepresentation()
    context.expect(
      after == ["a": 10, "c": [3], "d": true],
      "after updateValues, the backend holds \(describe(.dictionary(after)))")
    context.expect(
      backend.value(forKey: "b") == nil, "a key updateValues removed still reads a value")
  }

  /// 8 tasks each moving one unit from one key to another 10 times with `updateValues(_:)`,
  /// counting the moves in a third: nothing is lost or made (each update sees the last one's
  /// result).
  static let concurrentUpdateValuesEachTakeOneStep = Check(
    name: "concurrentUpdateValuesEachTakeOneStep", needsReload: false
  ) { context in
    guard let backend = context.backend as? any MultiKeyUpdatingBackend else { return }
    let tasks = 8
    let moves = 10
    try backend.setValues(["from": .integer(.init(Int64(tasks * moves))), "to": 0, "moves": 0])
    await race(tasks: tasks, times: moves) { _, _ in
      _ = try? backend.updateValues { values throws(SettingsError) in
        for (key, step) in [("from", -1), ("to", 1), ("moves", 1)] {
          values[key] = .integer(.init(Int64((values[key]?.intValue ?? 0) + step)))
        }
      }
    }
    let values = backend.dictionaryRepresentation()
    let expected: [String: PropertyListValue] = [
      "from": 0, "to": .integer(.init(Int64(tasks * moves))),
      "moves": .integer(.init(Int64(tasks * moves))),
    ]
    context.expect(
      values == expected,
      "\(tasks * moves) racing updateValues left \(describe(.dictionary(values))), not \(describe(.dictionary(expected)))"
    )
  }

  /// A migration step renaming a key runs as one `updateValues(_:)`: applied once, recorded with
  /// its version, and reaching each changed key's observers once; running the migrations again
  /// changes nothing.
  static let aMigrationStepRunsAsOneUpdateValuesAndReachesObserversOnce = Check(
    name: "aMigrationStepRunsAsOneUpdateValuesAndReachesObserversOnce", needsReload: false
  ) { context in
    guard context.backend is any MultiKeyUpdatingBackend else { return }
    let backend = context.backend
    try backend.setValue("kept", forKey: "old")
    let migrations = SettingsMigrations(
      versionKey: "conformance.schemaVersion", steps: [.renameKey("old", to: "new")])
    let seen = SeenChanges()
    let token = backend.observe(keys: ["old", "new"]) { seen.append($0) }
    let first = try migrations.run(on: backend)
    let second = try migrations.run(on: backend)
    withExtendedLifetime(token) {}
    context.expect(
      first.appliedSteps == 1 && first.version == 1 && second.appliedSteps == 0,
      "the migrations applied \(first.appliedSteps) then \(second.appliedSteps) steps, not 1 then 0"
    )
    let values = backend.dictionaryRepresentation()
    context.expect(
      values == ["new": "kept", "conformance.schemaVersion": 1],
      "after the migration, the backend holds \(describe(.dictionary(values)))")
    let changes = seen.changes.sorted { $0.key < $1.key }
    context.expect(
      changes == [
        SettingsChange(key: "new", newValue: "kept"), SettingsChange(key: "old", newValue: nil),
      ],
      "observers of 'old' and 'new' saw \(changes), not one change each")
  }

  /// `save()`: afterwards nothing is unsaved, every value reads as before, and a save with nothing
  /// unsaved succeeds; given `reload`, the next launch reads every value.
  static let saveLeavesNothingUnsaved = Check(name: "saveLeavesNothingUnsaved", needsReload: false)
  {
    context in
    guard let backend = context.backend as? any SavingBackend,
      (backend as? ScopedBackend)?.supportsSaving ?? true
    else { return }
    let values: [String: PropertyListValue] = ["a": 1, "b": "two", "c": [3.5], "d": ["e": false]]
    try backend.setValues(values)
    try backend.save()
    context.expect(!backend.hasUnsavedChanges, "after save(), hasUnsavedChanges is true")
    try backend.save()
    context.expect(
      backend.dictionaryRepresentation() == values,
      "after save(), the backend holds \(describe(.dictionary(backend.dictionaryRepresentation())))"
    )
    if context.canReload {
      let next = try context.reload().dictionaryRepresentation()
      context.expect(
        next == values, "after save(), the next launch reads \(describe(.dictionary(next)))")
    }
  }

  /// `reload()`: what was saved and what was written since both read as written, and the
  /// observers of keys whose value didn't change hear nothing.
  static let reloadKeepsWhatWasWrittenSavedOrNot = Check(
    name: "reloadKeepsWhatWasWrittenSavedOrNot", needsReload: false
  ) { context in
    guard let backend = context.backend as? any ReloadingBackend,
      (backend as? ScopedBackend)?.supportsReloading ?? true
    else { return }
    try backend.setValue("saved", forKey: "saved")
    try (backend as? any SavingBackend)?.save()
    try backend.setValue("unsaved", forKey: "unsaved")
    let seen = SeenChanges()
    let token = backend.observe(keys: ["saved", "unsaved"]) { seen.append($0) }
    try backend.reload()
    try backend.reload()
    withExtendedLifetime(token) {}
    let values = backend.dictionaryRepresentation()
    context.expect(
      values == ["saved": "saved", "unsaved": "unsaved"],
      "after reload(), the backend holds \(describe(.dictionary(values)))")
    context.expect(
      seen.changes.isEmpty, "reload() reported \(seen.changes) for keys whose value didn't change")
  }

  /// `startWatching()` and `stopWatching()`: starting twice is starting once, stopping ends the
  /// watch (`isWatching` is `false`), stopping twice is harmless; while watching, a write
  /// reaches an observer once.
  static let watchingStartsAndStopsOnce = Check(
    name: "watchingStartsAndStopsOnce", needsReload: false
  ) { context in
    guard let backend = context.backend as? any WatchingBackend else { return }
    defer { backend.stopWatching() }
    backend.stopWatching()
    context.expect(!backend.isWatching, "after stopWatching(), isWatching is true")
    backend.startWatching()
    let watching = backend.isWatching
    backend.startWatching()
    context.expect(
      backend.isWatching == watching, "a second startWatching() changed isWatching to \(!watching)")
    let settings = EveryTypeSettings(backend: backend)
    let seen = Seen()
    let token = settings.$int.observe { seen.append($0) }
    settings.int = 7
    withExtendedLifetime(token) {}
    context.expect(
      seen.values == [7], "while watching, an observer of 'int' saw \(seen.values), not [7]")
    backend.stopWatching()
    context.expect(!backend.isWatching, "after stopWatching(), isWatching is true")
    backend.stopWatching()
    context.expect(!backend.isWatching, "after a second stopWatching(), isWatching is true")
  }

  /// Runs `body(task, index)` `times` times in each of `tasks` tasks running at once.
  static func race(
    tasks: Int, times: Int, _ body: @escaping @Sendable (_ task: Int, _ index: Int) -> Void
  ) async {
    await withTaskGroup(of: Void.self) { group in
      for task in 0..<tasks {
        group.addTask { for index in 0..<times { body(task, index) } }
      }
    }
  }

  static func describe(_ value: PropertyListValue?) -> String {
    ConformanceChecks.describe(value)
  }
}

/// Changes an observer saw, collected from any thread.
final class SeenChanges: Sendable {
  private let lock = NSLock()
  // nonisolated(unsafe): only touched under `lock`.
  nonisolated(unsafe) private var collected: [SettingsChange] = []

  var changes: [SettingsChange] { lock.withLock { collected } }

  func append(_ change: SettingsChange) { lock.withLock { collected.append(change) } }
}
