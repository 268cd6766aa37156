import Dispatch
import Foundation
import Synchronization
import TypedDefaults

/// Tags making distinct 100-setting model types, one per measurement of a first instance.
enum FirstInstance0 {}
enum FirstInstance1 {}
enum FirstInstance2 {}
enum FirstInstance3 {}
enum FirstInstance4 {}

/// The figures of models: creating them, listing their settings, and reading through a scoped
/// backend.
extension Figures {
  /// The first instance of a model type reflects over the type; measured once per type, on five
  /// types, and the median reported against the baseline of ``modelCreation()``, measured in
  /// the same run (reported, no target).
  func firstModelCreation() -> Figure {
    let backend = InMemoryBackend(HundredPlainProperties.storedValues)
    let makers: [() -> Void] = [
      { consume(HundredSettingsOf<FirstInstance0>(backend: backend)) },
      { consume(HundredSettingsOf<FirstInstance1>(backend: backend)) },
      { consume(HundredSettingsOf<FirstInstance2>(backend: backend)) },
      { consume(HundredSettingsOf<FirstInstance3>(backend: backend)) },
      { consume(HundredSettingsOf<FirstInstance4>(backend: backend)) },
    ]
    let samples = makers.map { make in
      let start = DispatchTime.now().uptimeNanoseconds
      make()
      return Double(DispatchTime.now().uptimeNanoseconds - start)
    }
    let values = Mutex(HundredPlainProperties.storedValues)
    let baseline = nanosecondsPerOperation(
      repeats: effort.repeats, iterations: max(10, effort.iterations / 2000)
    ) { iterations in
      for _ in 0..<iterations { consume(HundredPlainProperties(values)) }
    }
    return Figure(
      name: "creating the first 100-setting model of its type: reflection, plan and binding "
        + "(baseline: a plain class loading its 100 properties from a locked dictionary)",
      ours: median(samples), baseline: baseline, target: nil, unit: "ns")
  }

  /// Creating a 100-setting model after the first of its type, against a plain class of the
  /// same 100 properties, each loaded from a locked dictionary as it is made: target 2.
  ///
  /// Every later instance binds its settings at the offsets its type's plan recorded. The
  /// baseline is ``HundredPlainProperties``. The backend and the dictionary hold a value of the
  /// right type for each of the 100 keys.
  func modelCreation() -> Figure {
    let backend = InMemoryBackend(HundredPlainProperties.storedValues)
    let values = Mutex(HundredPlainProperties.storedValues)
    consume(HundredSettings(backend: backend))
    let (ours, baseline) = compare(
      repeats: effort.repeats, iterations: max(10, effort.iterations / 2000),
      ours: { iterations in
        for _ in 0..<iterations { consume(HundredSettings(backend: backend)) }
      },
      baseline: { iterations in
        for _ in 0..<iterations { consume(HundredPlainProperties(values)) }
      })
    return Figure(
      name: "creating a 100-setting model, after the first of its type "
        + "(baseline: a plain class loading its 100 properties from a locked dictionary)",
      ours: ours, baseline: baseline, target: 2, unit: "ns")
  }

  /// A struct of 100 settings in ten nested groups, created after the first.
  func groupCreation() -> Figure {
    let backend = InMemoryBackend()
    return microseconds(
      "creating a 100-setting struct in 10 nested groups, after the first (µs)", target: 20
    ) { consume(HundredSettingsGroup(backend: backend)) }
  }

  /// The floor under the two figures above: creating the same 100 settings with no model to
  /// bind them (each setting's own storage; its part in Swift's Observation is taken when it is
  /// attached, so it is not in this figure).
  func settingsStorageOnly() -> Figure {
    microseconds(
      "creating 100 @Setting properties alone, unbound: the floor of the figures above (µs)",
      target: nil
    ) { consume(HundredSettingsGroup()) }
  }

  /// `allSettings` of a struct group lists its settings from its type's plan on every call.
  func groupAllSettings() -> Figure {
    let group = HundredSettingsGroup(backend: InMemoryBackend())
    precondition(group.allSettings.count == 100)
    return microseconds(
      "allSettings of a 100-setting struct in 10 nested groups (µs)", target: 20,
      iterations: max(100, effort.iterations / 2000)
    ) { consume(group.allSettings) }
  }

  /// Runs `operation` once (the first instance of a type, a first listing), then measures it:
  /// the median over the effort's repeats of `iterations` runs each (by default a two-thousandth
  /// of the effort's, at least 10), in microseconds, with no baseline.
  func microseconds(
    _ name: String, target: Double?, iterations: Int? = nil, _ operation: () -> Void
  ) -> Figure {
    operation()
    let nanoseconds = nanosecondsPerOperation(
      repeats: effort.repeats, iterations: iterations ?? max(10, effort.iterations / 2000)
    ) { iterations in
      for _ in 0..<iterations { operation() }
    }
    return Figure(name: name, ours: nanoseconds / 1000, baseline: nil, target: target, unit: "µs")
  }

  /// A `@Setting` Int read through `backend.scoped(to:)` against a read of the same stored key
  /// on the backend itself (a model declaring the prefix), both measured in this run: what the
  /// view costs, apart from the longer key.
  func scopedRead(on kind: String) throws -> Figure {
    let prefix = "com.example.sdk."
    let backend: any SettingsBackend
    var cleanup: () -> Void = {}
    switch kind {
    case "UserDefaultsBackend":
      let suite = "TypedDefaultsBenchmarks.scoped.\(ProcessInfo.processInfo.processIdentifier)"
      let defaults = UserDefaultsBackend(suiteName: suite)
      cleanup = { ChildProcesses.removeSuite(defaults) }
      backend = defaults
    default:
      backend = InMemoryBackend()
    }
    defer { cleanup() }
    try backend.setValue(42, forKey: prefix + "count")
    let plain = PrefixedBenchSettings(backend: backend)
    let scoped = BenchSettings(backend: backend.scoped(to: prefix))
    precondition(scoped.count == 42 && plain.count == 42)
    let iterations = kind == "UserDefaultsBackend" ? effort.iterations / 10 : effort.iterations
    let (ours, raw) = compare(
      repeats: effort.repeats, iterations: iterations,
      ours: { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= scoped.count }
        consume(sum)
      },
      baseline: { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= plain.count }
        consume(sum)
      })
    return Figure(
      name: "@Setting Int read through a scoped view, \(kind) (baseline: the same key, unscoped)",
      ours: ours, baseline: raw, target: 1.2, unit: "ns")
  }
}

/// ``BenchSettings``' `count` under the prefix the scoped-read figure's view adds.
struct PrefixedBenchSettings: SettingsGroup {
  static let keyPrefix = "com.example.sdk."
  @Setting var count = 0
}
