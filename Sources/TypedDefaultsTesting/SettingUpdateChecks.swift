import Foundation
import TypedDefaults

/// The checks of a setting's typed update (`Setting.update(_:)`), which every backend must pass:
/// through the backend's own ``UpdatingBackend/update(forKey:_:)`` where it has one, through the
/// library's fallback otherwise.
enum SettingUpdateChecks {
  typealias Check = BackendConformance.Check

  static let all: [Check] = [
    racingSettingUpdatesLoseNoIncrementAndReachObserversOnce,
    aSettingUpdateStartsFromTheValueAReadReturns,
    aSettingUpdateRefusedByItsDeclarationThrowsAndStoresNothing,
    aSettingUpdateThroughAScopedViewChangesThePrefixedKey,
  ]

  /// A counter declared with a range, for the refusal check.
  struct RangedSettings: SettingsGroup {
    @Setting("ranged", in: 0...3) var ranged = 0
  }

  /// The error the checks' bodies throw.
  static let bodyError = SettingsError(
    .valueNotRepresentable, key: "int", reason: "thrown by the check's body")

  /// 8 tasks each adding one to a setting 25 times with `update`: the setting ends at 200, and
  /// an observer of it saw each of 1…200 once, in order.
  static let racingSettingUpdatesLoseNoIncrementAndReachObserversOnce = Check(
    name: "racingSettingUpdatesLoseNoIncrementAndReachObserversOnce", needsReload: false
  ) { context in
    let settings = EveryTypeSettings(backend: context.backend)
    let seen = Seen()
    let token = settings.$int.observe { seen.append($0) }
    let tasks = 8
    let increments = 25
    let failures = Seen()
    await AbilityChecks.race(tasks: tasks, times: increments) { _, _ in
      do {
        try settings.$int.update { $0 += 1 }
      } catch {
        failures.append(1)
      }
    }
    withExtendedLifetime(token) {}
    let total = tasks * increments
    context.expect(failures.values.isEmpty, "\(failures.values.count) racing updates threw")
    context.expect(
      settings.int == total, "\(total) racing updates left the setting at \(settings.int)")
    let values = seen.values
    context.expect(
      values == Array(1...total),
      "an observer saw \(values.count) events for \(total) updates (each value once, in order: "
        + "\(values == values.sorted() ? "in order" : "out of order"), "
        + "\(Set(values).count) distinct)")
  }

  /// `update` hands its body the value a read returns: the default when nothing is stored or the
  /// stored value can't be read as the setting's type, the stored value otherwise; what the body
  /// leaves is stored and what it returns comes back.
  static let aSettingUpdateStartsFromTheValueAReadReturns = Check(
    name: "aSettingUpdateStartsFromTheValueAReadReturns", needsReload: false
  ) { context in
    let backend = context.backend
    let settings = EveryTypeSettings(backend: backend)
    var given: [Int] = []
    let returned = try settings.$int.update { value in
      given.append(value)
      value = 41
      return "done"
    }
    context.expect(returned == "done", "update returned \(returned), not what its body returned")
    try settings.$int.update { value in
      given.append(value)
      value += 1
    }
    try backend.setValue("not a number", forKey: "int")
    try settings.$int.update { value in
      given.append(value)
      value += 1
    }
    context.expect(
      given == [0, 41, 0],
      "update's body got \(given), not [0 (nothing stored), 41, 0 (a string stored)]")
    context.expect(
      backend.value(forKey: "int") == 1,
      "after the updates, 'int' stores \(describe(backend.value(forKey: "int"))), not 1")
    try settings.$optional.update { value in value = nil }
    context.expect(
      backend.value(forKey: "optional") == nil, "an update leaving nil stored a value")
    try settings.$array.update { $0.append("one") }
    try settings.$array.update { $0.append("two") }
    context.expect(settings.array == ["one", "two"], "two appends read \(settings.array)")
  }

  /// An update whose body leaves a value the declaration refuses throws `valueNotAllowed`, stores
  /// nothing and reaches no observer; a body that throws gets its own error back and stores
  /// nothing.
  static let aSettingUpdateRefusedByItsDeclarationThrowsAndStoresNothing = Check(
    name: "aSettingUpdateRefusedByItsDeclarationThrowsAndStoresNothing", needsReload: false
  ) { context in
    let backend = context.backend
    let settings = RangedSettings(backend: backend)
    let seen = Seen()
    let token = settings.$ranged.observe { seen.append($0) }
    try settings.$ranged.update { $0 = 2 }
    do throws(SettingsError) {
      try settings.$ranged.update { $0 += 5 }
      context.fail("an update to 7 of a setting declared in 0...3 did not throw")
    } catch {
      context.expect(
        error.code == .valueNotAllowed && error.key == "ranged",
        "a refused update threw \(error), not valueNotAllowed naming 'ranged'")
    }
    do throws(SettingsError) {
      try settings.$ranged.update { _ throws(SettingsError) in throw bodyError }
      context.fail("an update whose body throws did not throw")
    } catch {
      context.expect(error == bodyError, "update rethrew \(error), not its body's error")
    }
    withExtendedLifetime(token) {}
    context.expect(
      backend.value(forKey: "ranged") == 2,
      "after refused updates, 'ranged' stores \(describe(backend.value(forKey: "ranged"))), not 2")
    context.expect(seen.values == [2], "an observer saw \(seen.values), not [2]")
  }

  /// A setting of a model on a `ScopedBackend` view updates the prefixed key of the backend.
  static let aSettingUpdateThroughAScopedViewChangesThePrefixedKey = Check(
    name: "aSettingUpdateThroughAScopedViewChangesThePrefixedKey", needsReload: false
  ) { context in
    let backend = context.backend
    let settings = EveryTypeSettings(backend: backend.scoped(to: "view."))
    try settings.$int.update { $0 += 1 }
    let count = try settings.$int.update { value in
      value += 1
      return value
    }
    context.expect(count == 2, "the second update's body returned \(count), not 2")
    context.expect(
      backend.value(forKey: "view.int") == 2,
      "'view.int' stores \(describe(backend.value(forKey: "view.int"))), not 2")
    context.expect(backend.value(forKey: "int") == nil, "the update wrote the unprefixed key")
  }

  static func describe(_ value: PropertyListValue?) -> String {
    ConformanceChecks.describe(value)
  }
}
