// Measures TypedDefaults against raw baselines measured in the same run, and prints one line per
// figure: ours, the baseline, and the ratio (lower is better) with its target.
//
//   swift run -c release --package-path Benchmarks TypedDefaultsBenchmarks [--quick]
//     [--json PATH] [--filter TEXT]
//
// --quick runs in about 10 seconds (for CI, which checks it runs, not the timings); the full run
// takes about 3.5 minutes. Absolute times on shared machines are noisy; the ratios are what to
// track. Results are recorded in Docs/Performance.md.

import Foundation
import TypedDefaults

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == ChildProcesses.flag, arguments.count == 3 {
  try ChildProcesses.run(task: arguments[1], argument: arguments[2])
  exit(0)
}

var quick = false
var jsonPath: String?
var filter: String?
var remaining = arguments[...]
while let argument = remaining.popFirst() {
  switch argument {
  case "--quick": quick = true
  case "--json": jsonPath = remaining.popFirst()
  case "--filter": filter = remaining.popFirst()
  case "--help", "-h":
    print("usage: TypedDefaultsBenchmarks [--quick] [--json PATH] [--filter TEXT]")
    exit(0)
  default:
    FileHandle.standardError.write(
      Data("TypedDefaultsBenchmarks: unknown argument '\(argument)'\n".utf8))
    exit(2)
  }
}

// Diagnostics from the library would interleave with the table; none are expected.
SettingsDiagnostics.handler = { diagnostic in
  FileHandle.standardError.write(Data("benchmark diagnostic: \(diagnostic)\n".utf8))
}

let effort = quick ? Effort.quick : Effort.full
let figures = Figures(effort: effort)
/// A measurement of one figure, as a measurement of several.
func one(_ measure: @escaping () throws -> Figure?) -> () throws -> [Figure]? {
  { try measure().map { [$0] } }
}

let measurements: [(String, () throws -> [Figure]?)] = [
  ("read-memory", one(figures.settingIntReadInMemory)),
  ("read-scalar-memory", { try figures.scalarReads(on: .memory) }),
  ("read-scalar-layered", { try figures.scalarReads(on: .layered) }),
  ("read-scalar-userdefaults", { try figures.scalarReads(on: .userDefaults) }),
  ("read-scalar-promised-userdefaults", { try figures.scalarReads(on: .promisedUserDefaults) }),
  ("read-other-memory", { try figures.otherReads(on: .memory) }),
  ("read-other-layered", { try figures.otherReads(on: .layered) }),
  ("read-other-userdefaults", { try figures.otherReads(on: .userDefaults) }),
  ("read-other-promised-userdefaults", { try figures.otherReads(on: .promisedUserDefaults) }),
  ("read-contended", figures.contendedReads),
  ("allocations-check", one(figures.allocationCounterCheck)),
  ("allocations-memory", { try figures.allocationsPerReadAndWrite(on: .memory) }),
  ("allocations-layered", { try figures.allocationsPerReadAndWrite(on: .layered) }),
  ("read-tracked-memory", one(figures.settingIntReadTrackedInMemory)),
  ("write-memory", one(figures.settingIntWriteInMemory)),
  ("write-memory-100-observers", one { figures.settingIntWriteInMemory(observing: 100) }),
  ("write-memory-1-observer", one { figures.settingIntWriteInMemory(observing: 1) }),
  (
    "write-memory-observed-key",
    one { figures.settingIntWriteInMemory(observing: 1, ofTheKey: true) }
  ),
  ("latency-memory-callback", figures.callbackLatencyInMemory),
  ("latency-memory-stream", figures.streamLatencyInMemory),
  ("delivery-memory-stream", one(figures.streamDeliveryInMemory)),
  ("latency-cross-process", { try CrossProcessLatency.measure(saves: quick ? 25 : 100) }),
  ("read-userdefaults", { [try figures.settingIntReadUserDefaults(writtenByBackend: true)] }),
  ("read-userdefaults-raw", { [try figures.settingIntReadUserDefaults(writtenByBackend: false)] }),
  ("write-userdefaults", one(figures.settingStringWriteUserDefaults)),
  ("save-userdefaults", one(figures.userDefaultsSaveAfterOneChange)),
  ("read-layered", one(figures.layeredReadFromLowestLayer)),
  ("read-layered-8-layers", one(figures.layeredReadFromLowestOfEightLayers)),
  ("open-with-sources", one(figures.openWithSources)),
  ("read-codable", one(figures.codableRead)),
  ("save-xml", one { try figures.save(format: .xml) }),
  ("save-binary", one { try figures.save(format: .binary) }),
  ("open-xml", one { try figures.open(format: .xml) }),
  ("open-binary", one { try figures.open(format: .binary) }),
  ("decode-xml", one { try figures.decodeThroughput(format: .xml) }),
  ("decode-binary", one { try figures.decodeThroughput(format: .binary) }),
  ("autosave", one(figures.debouncedAutosave)),
  ("discovery", one(figures.discovery)),
  ("model-creation", one(figures.modelCreation)),
  ("model-first-creation", one(figures.firstModelCreation)),
  ("group-creation", one(figures.groupCreation)),
  ("settings-storage-only", one(figures.settingsStorageOnly)),
  ("group-all-settings", one(figures.groupAllSettings)),
  ("read-scoped-memory", one { try figures.scopedRead(on: "InMemoryBackend") }),
  ("read-scoped-userdefaults", one { try figures.scopedRead(on: "UserDefaultsBackend") }),
  ("memory", one { try ChildProcesses.peakMemory(repeats: quick ? 1 : 3) }),
  (
    "import-userdefaults",
    one {
      try ChildProcesses.userDefaultsImport(keys: effort.userDefaultsKeys, repeats: quick ? 1 : 3)
    }
  ),
  ("import-model-layered", one(figures.importTenThousandKeys)),
  ("fleet-latency", { try FleetLatency.measure(puts: quick ? 20 : 200) }),
  ("fleet-read", figures.fleetReads),
  ("fleet-offline-start", one(figures.fleetOfflineStart)),
]

func formatted(_ value: Double) -> String {
  if value >= 100 { return String(format: "%.0f", value) }
  // A value that would round to 0.00 but isn't 0 (say, one allocation in 10,000 operations).
  if value > 0, value < 0.005 { return String(format: "%.1e", value) }
  return String(format: "%.2f", value)
}

/// A number for the JSON file: `null` for a figure this platform can't measure.
func jsonNumber(_ value: Double?) -> Any {
  guard let value, !value.isNaN else { return NSNull() }
  return value
}

print(
  "TypedDefaults benchmarks (\(quick ? "quick" : "full") run), ratio = ours / baseline, lower is better"
)
var results: [Figure] = []
for (identifier, measure) in measurements where filter.map({ identifier.contains($0) }) ?? true {
  let measured: [Figure]?
  do {
    measured = try measure()
  } catch let skipped as FigureSkipped {
    print("\(identifier): skipped (\(skipped.reason))")
    continue
  }
  guard let measured else {
    print("\(identifier): skipped (the shared fixture corpus is not beside the project)")
    continue
  }
  for figure in measured {
    results.append(figure)
    let verdict = figure.meetsTarget.map { $0 ? "ok" : "MISSED" } ?? ""
    let target = figure.target.map { "target ≤ \(formatted($0))" } ?? ""
    if !figure.isAvailable {
      print("\(figure.name): n/a (not measured on this platform) \(target)")
    } else if let baseline = figure.baseline {
      print(
        "\(figure.name): ours \(formatted(figure.ours)) \(figure.unit), baseline \(formatted(baseline)) \(figure.unit), "
          + "ratio \(formatted(figure.ratio)) \(target) \(verdict)")
    } else {
      print("\(figure.name): \(formatted(figure.ours)) \(figure.unit) \(target) \(verdict)")
    }
  }
}

if let jsonPath {
  let objects: [[String: Any]] = results.map { figure in
    [
      "name": figure.name,
      "ours_ns": jsonNumber(figure.ours),
      "baseline_ns": jsonNumber(figure.baseline),
      "ratio": jsonNumber(figure.ratio),
      "target": jsonNumber(figure.target),
    ]
  }
  let data = try JSONSerialization.data(
    withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])
  try data.write(to: URL(fileURLWithPath: jsonPath))
}
