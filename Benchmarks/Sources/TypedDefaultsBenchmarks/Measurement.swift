import Dispatch

/// How much work each measurement does.
struct Effort: Sendable {
  /// Timed repeats of each measurement; the median is reported.
  var repeats: Int
  /// Operations per repeat for the cheap, per-call figures.
  var iterations: Int
  /// Repeats for the file figures, which take milliseconds each.
  var fileRepeats: Int
  /// Decodes per repeat of the decode-throughput figures (tens of milliseconds each).
  var decodes: Int
  /// The keys of the UserDefaults save and import figures: CoreFoundation's cost of writing
  /// many keys before a save grows faster than their number (10,000 keys take seconds).
  var userDefaultsKeys: Int

  static let full = Effort(
    repeats: 15, iterations: 200_000, fileRepeats: 9, decodes: 100, userDefaultsKeys: 10_000)
  /// The quick run's: under 30 seconds in all on a 2-core machine.
  static let quick = Effort(
    repeats: 5, iterations: 20_000, fileRepeats: 3, decodes: 2, userDefaultsKeys: 1_000)
}

/// One reported figure.
struct Figure: Sendable {
  var name: String
  /// Our time in nanoseconds per operation, or for a figure with no baseline, its value in the
  /// target's unit.
  var ours: Double
  /// The baseline's time, in nanoseconds per operation, measured in the same run.
  var baseline: Double?
  /// The target the ratio must meet (lower is better), if there is one.
  var target: Double?
  /// The unit of `ours` when there is no baseline.
  var unit: String

  /// Ours over the baseline, or for a figure with no baseline, the figure itself.
  var ratio: Double { baseline.map { ours / $0 } ?? ours }

  /// Whether the ratio meets the target: `nil` with no target, or when the figure couldn't be
  /// measured on this platform.
  var meetsTarget: Bool? { isAvailable ? target.map { ratio <= $0 } : nil }

  /// Whether the figure was measured: `false` for one this platform can't measure (printed as
  /// "n/a").
  var isAvailable: Bool { !ours.isNaN }

  /// A figure this platform can't measure (allocations, except on Linux), printed as "n/a".
  static func unavailable(name: String, target: Double?, unit: String) -> Figure {
    Figure(name: name, ours: .nan, baseline: nil, target: target, unit: unit)
  }
}

/// Keeps a value alive so the optimizer can't remove the work that produced it.
@inline(never)
func consume<T>(_ value: T) {
  withUnsafePointer(to: value) { pointer in
    if UInt(bitPattern: pointer) == 1 { print("unreachable") }
  }
}

/// The median of `repeats` runs of `body`, each doing `iterations` operations, in nanoseconds per
/// operation.
///
/// One untimed run first warms caches and lazily initialized state.
func nanosecondsPerOperation(
  repeats: Int,
  iterations: Int,
  _ body: (_ iterations: Int) throws -> Void
) rethrows -> Double {
  try body(max(1, iterations / 10))
  var samples: [Double] = []
  for _ in 0..<repeats {
    let start = DispatchTime.now().uptimeNanoseconds
    try body(iterations)
    let end = DispatchTime.now().uptimeNanoseconds
    samples.append(Double(end - start) / Double(iterations))
  }
  return median(samples)
}

/// A count as the figures' names write it, with a comma every three digits: `10,000`.
func keyCount(_ count: Int) -> String {
  let digits = String(count)
  var text = ""
  for (index, digit) in digits.enumerated() {
    if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
    text.append(digit)
  }
  return text
}

func median(_ samples: [Double]) -> Double {
  let sorted = samples.sorted()
  return sorted.count % 2 == 1
    ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Measures ours and the baseline alternately, repeat by repeat, so that drifts in the machine's
/// speed affect both alike; returns both medians.
func compare(
  repeats: Int,
  iterations: Int,
  ours: (_ iterations: Int) throws -> Void,
  baseline: (_ iterations: Int) throws -> Void
) rethrows -> (ours: Double, baseline: Double) {
  try ours(max(1, iterations / 10))
  try baseline(max(1, iterations / 10))
  var oursSamples: [Double] = []
  var baselineSamples: [Double] = []
  for _ in 0..<repeats {
    oursSamples.append(try timed(iterations, ours))
    baselineSamples.append(try timed(iterations, baseline))
  }
  return (median(oursSamples), median(baselineSamples))
}

/// Nanoseconds per operation of one run of `body`.
func timed(_ iterations: Int, _ body: (_ iterations: Int) throws -> Void) rethrows -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  try body(iterations)
  return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations)
}

/// A latency's median and 99th percentile, as two figures with no baseline.
///
/// - Parameters:
///   - samples: The latencies measured, in `unit`.
///   - name: What was measured; the figures are named `<name>, median` and `<name>, p99`.
///   - unit: The samples' unit ("ns" by default).
/// - Returns: Two figures in `unit`, `<name>, median` and `<name>, p99`, with no baseline.
func percentiles(_ samples: [Double], name: String, unit: String = "ns") -> [Figure] {
  let p99 = percentile99(samples)
  return [
    Figure(name: "\(name), median", ours: median(samples), baseline: nil, target: nil, unit: unit),
    Figure(name: "\(name), p99", ours: p99, baseline: nil, target: nil, unit: unit),
  ]
}

/// The 99th percentile of `samples` (not empty).
func percentile99(_ samples: [Double]) -> Double {
  let sorted = samples.sorted()
  return sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
}
