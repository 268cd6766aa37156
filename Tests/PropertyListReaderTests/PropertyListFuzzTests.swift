import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// A seeded mutation fuzzer over the library's own readers (``BinaryPropertyListReader`` and
/// ``XMLPropertyListReader``).
///
/// Seeds are the binary and XML files of `../shared/fixtures/plists/valid/` up to
/// ``Fuzzer/largestFixtureSeed`` bytes (when the shared folder is present) and small generated
/// property lists of every kind, in both formats. Each input is a seed with one to three
/// mutations, or a generated hostile document, chosen by a SplitMix64 generator from
/// ``Fuzzer/defaultSeed``, so every run tries the same inputs. Every input must end in a value
/// or a ``SettingsError`` with code ``SettingsError/Code/corruptFile``; a value read must be
/// written as binary (unless ``PropertyListFile/encode(_:format:path:)`` refuses it as not
/// representable) and read back equal.
///
/// A failing input is written to a temporary file named in the failure, with its seed and
/// iteration; a crash is reported the same way, on standard error, by a signal handler. Replay one
/// with `TYPEDDEFAULTS_FUZZ_REPLAY=<file> swift test --filter PropertyListFuzzTests`.
///
/// Environment: `TYPEDDEFAULTS_FUZZ_ITERATIONS` (default 20,000), `TYPEDDEFAULTS_FUZZ_SEED`,
/// `TYPEDDEFAULTS_FUZZ_REPLAY`, and `TYPEDDEFAULTS_WRITE_RELIABILITY=1` to write the run's
/// figures to `Docs/Reliability.md`.
@Suite struct PropertyListFuzzTests {
  @Test("Mutated and hostile property lists end in a value or corruptFile, and values round-trip")
  func mutatedInputsEndCleanly() throws {
    let environment = ProcessInfo.processInfo.environment
    if let replay = environment["TYPEDDEFAULTS_FUZZ_REPLAY"] {
      let data = try Data(contentsOf: URL(fileURLWithPath: replay))
      for format in [PropertyListFile.Format.binary, .xml] {
        if let problem = Fuzzer.check(data, format: format, salvaging: false).problem {
          Issue.record("\(replay) as \(format): \(problem)")
        }
      }
      return
    }
    let iterations = environment["TYPEDDEFAULTS_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 20_000
    let seed = environment["TYPEDDEFAULTS_FUZZ_SEED"].flatMap { UInt64($0) } ?? Fuzzer.defaultSeed
    var fuzzer = Fuzzer(seed: seed)
    #expect(fuzzer.seeds.count >= 30, "only \(fuzzer.seeds.count) seeds")

    let report = fuzzer.run(iterations: iterations)
    for failure in report.failures {
      Issue.record(Comment(rawValue: failure))
    }
    #expect(report.inputs == iterations)
    #expect(report.values + report.refusals == report.inputs)
    // The mix exercises both outcomes and both readers.
    for format in [PropertyListFile.Format.binary, .xml] {
      #expect(report.valuesByFormat[format, default: 0] > 0, "no \(format) input was read")
      #expect(report.refusalsByFormat[format, default: 0] > 0, "no \(format) input was refused")
    }
    print(report.summary)
    if report.failures.isEmpty {
      ReliabilityReport.publish("fuzz", markdown: report.markdown, deterministic: false)
    }
  }

  @Test("Entity declarations are refused, never expanded, and nesting stops at the limit")
  func hostileDocumentsAreRefused() throws {
    var random = SplitMix64(seed: Fuzzer.defaultSeed)
    var seen: Set<String> = []
    for _ in 0..<400 {
      let (data, description) = Hostile.document(&random)
      seen.insert(String(description.prefix(while: { !$0.isNumber })))
      let format = PropertyListFile.Format.detect(data)
      let outcome = Fuzzer.check(data, format: format, salvaging: false)
      #expect(outcome.problem == nil, "\(description): \(outcome.problem ?? "")")
      let deep = description.split(separator: " ").compactMap { Int($0) }.first ?? 0
      let refused =
        description.contains("entity") || description.contains("laughs")
        || description.contains("declaring") || description.contains("sharing") || deep > 512
        || description.contains("unclosed")
      if refused {
        #expect(outcome.value == nil, "\(description): read as \(outcome.value.map(brief) ?? "")")
      } else {
        #expect(outcome.value != nil, "\(description): refused")
      }
    }
    #expect(seen.count >= 6, "\(seen)")
  }

  @Test("The generator is deterministic: one seed, one sequence of inputs")
  func generatorIsDeterministic() {
    let first = Fuzzer(seed: 7)
    let second = Fuzzer(seed: 7)
    for iteration in 0..<200 {
      #expect(first.input(iteration).data == second.input(iteration).data, "iteration \(iteration)")
    }
    var random = SplitMix64(seed: 0)
    // SplitMix64's reference outputs for seed 0.
    #expect(random.next() == 0xE220_A839_7B1D_CDAF)
    #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
  }
}

// MARK: - The fuzzer

struct Fuzzer {
  static let defaultSeed: UInt64 = 0x7479_7065_6444_6566  // "typedDef"
  /// Larger fixtures make each input slower without finding more; they are left out as seeds.
  static let largestFixtureSeed = 8 * 1024

  struct Seed {
    var name: String
    var data: Data
    var format: PropertyListFile.Format
  }

  struct Input {
    var data: Data
    var format: PropertyListFile.Format
    var salvaging: Bool
    var description: String
  }

  let seed: UInt64
  let seeds: [Seed]

  init(seed: UInt64) {
    self.seed = seed
    seeds = Self.fixtureSeeds() + Self.generatedSeeds()
  }

  // MARK: Seeds

  static func fixtureSeeds() -> [Seed] {
    guard TestPaths.hasSharedFixtures else { return [] }
    let folder = TestPaths.sharedFixtures.appendingPathComponent("valid")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.sorted().compactMap { name in
      guard let data = try? Data(contentsOf: folder.appendingPathComponent(name)),
        data.count <= largestFixtureSeed
      else { return nil }
      let format = PropertyListFile.Format.detect(data)
      guard format != .openStep, name.hasSuffix(".json.plist") == false else { return nil }
      return Seed(name: name, data: data, format: format)
    }
  }

  /// Small values of every kind, each written as binary and as XML.
  static func generatedSeeds() -> [Seed] {
    let date = Date(timeIntervalSinceReferenceDate: 786_000_000)
    let scalars: [(String, PropertyListValue)] = [
      ("ascii", .string("hello")),
      ("unicode", .string("Mässig 🎬 日本")),
      ("empty-string", .string("")),
      ("int-min", .integer(.init(Int64.min))),
      ("int-max", .integer(.init(Int64.max))),
      ("uint-max", .integer(.init(UInt64.max))),
      ("small-int", .integer(.init(Int64(42)))),
      ("real", .real(1.5)),
      ("real-tiny", .real(.leastNonzeroMagnitude)),
      ("real-inf", .real(-.infinity)),
      ("true", .bool(true)),
      ("false", .bool(false)),
      ("date", .date(date)),
      ("data", .data(Data([0, 1, 2, 0xFF, 0xFE]))),
      ("empty-data", .data(Data())),
    ]
    let shared: PropertyListValue = .array([.string("shared"), .integer(.init(Int64(1)))])
    let containers: [(String, PropertyListValue)] = [
      ("empty-array", .array([])),
      ("empty-dict", .dictionary([:])),
      ("array", .array(scalars.map(\.1))),
      ("dict", .dictionary(Dictionary(uniqueKeysWithValues: scalars))),
      (
        "nested",
        .dictionary([
          "a": .array([.dictionary(["b": .array([.string("c"), shared])]), shared]),
          "long": .string(String(repeating: "x", count: 300)),
          "many": .array((0..<40).map { .integer(.init(Int64($0 * 1000))) }),
        ])
      ),
      ("uid-like", .dictionary(["CF$UID": .integer(.init(Int64(7)))])),
    ]
    var seeds: [Seed] = []
    for (name, value) in scalars + containers {
      for format in [PropertyListFile.Format.binary, .xml] {
        // Foundation's binary writer orders dictionaries by hash, which changes between runs.
        let data =
          format == .binary
          ? SeedEncoder.binary(value) : try? PropertyListFile.encode(value, format: format)
        guard let data else { continue }
        seeds.append(Seed(name: "\(name).\(format)", data: data, format: format))
      }
    }
    return seeds
  }

  // MARK: Inputs

  /// The input of one iteration, from a generator seeded by the run's seed and the iteration,
  /// so any iteration can be regenerated alone.
  func input(_ iteration: Int) -> Input {
    var random = SplitMix64(seed: seed ^ (UInt64(iteration) &* 0xD6E8_FEB8_6659_FD93))
    let salvaging = random.chance(20)
    if random.chance(8) {
      let (data, description) = Hostile.document(&random)
      let format: PropertyListFile.Format =
        PropertyListFile.Format.detect(data) == .binary ? .binary : .xml
      return Input(data: data, format: format, salvaging: salvaging, description: description)
    }
    let base = random.pick(seeds)
    var bytes = [UInt8](base.data)
    var applied: [String] = []
    // One mutation mostly: more inputs stay close enough to valid to reach the readers' depths.
    let count = random.chance(60) ? 1 : random.chance(75) ? 2 : 3
    for _ in 0..<count {
      applied.append(Mutations.apply(&bytes, format: base.format, &random))
    }
    return Input(
      data: Data(bytes), format: base.format, salvaging: salvaging,
      description: "\(base.name): \(applied.joined(separator: ", "))")
  }

  // MARK: Running

  struct Outcome {
    var value: PropertyListValue?
    var roundTripped = false
    var notRepresentable = false
    var problem: String?
  }

  /// Decodes one input with its format's reader and checks the outcome.
  static func check(_ data: Data, format: PropertyListFile.Format, salvaging: Bool) -> Outcome {
    let path = "<fuzz>"
    let result: PropertyListReaders.Result
    do throws(SettingsError) {
      result =
        format == .binary
        ? try BinaryPropertyListReader.read(data, path: path, salvagingEntries: salvaging)
        : try XMLPropertyListReader.read(data, path: path, salvagingEntries: salvaging)
    } catch {
      guard error.code == .corruptFile, error.path == path, !error.reason.isEmpty else {
        return Outcome(problem: "refused with \(error.code) (\(error)), not corruptFile")
      }
      return Outcome()
    }
    for entry in result.unreadableEntries where entry.code != .corruptFile || entry.key == nil {
      return Outcome(
        value: result.root,
        problem: "a salvaged entry's error is \(entry.code), key \(entry.key ?? "nil")")
    }
    if !salvaging, !result.unreadableEntries.isEmpty {
      return Outcome(value: result.root, problem: "entries left out without salvaging")
    }
    var outcome = Outcome(value: result.root)
    let encoded: Data
    do throws(SettingsError) {
      encoded = try PropertyListFile.encode(result.root, format: .binary)
    } catch {
      guard error.code == .valueNotRepresentable else {
        outcome.problem = "encoding the value read failed with \(error.code): \(error)"
        return outcome
      }
      outcome.notRepresentable = true
      return outcome
    }
    do throws(SettingsError) {
      let reread = try BinaryPropertyListReader.read(encoded, path: path).root
      if !same(reread, result.root) {
        outcome.problem =
          "the binary round trip changed the value: \(brief(result.root)) became \(brief(reread))"
      }
      outcome.roundTripped = true
    } catch {
      outcome.problem = "the value read, written as binary, is refused: \(error)"
    }
    return outcome
  }

  struct Report {
    var inputs = 0
    var values = 0
    var refusals = 0
    var roundTrips = 0
    var notRepresentable = 0
    var valuesByFormat: [PropertyListFile.Format: Int] = [:]
    var refusalsByFormat: [PropertyListFile.Format: Int] = [:]
    var hostile = 0
    var seconds = 0.0
    var seed: UInt64 = 0
    var seedCount = 0
    var failures: [String] = []

    var rate: Int { seconds > 0 ? Int(Double(inputs) / seconds) : 0 }

    var summary: String {
      """
      PropertyListFuzzTests: \(inputs) inputs (seed \(seed), \(seedCount) seeds) in \
      \(String(format: "%.2f", seconds)) s, \(rate) inputs/s: \(values) read \
      (\(roundTrips) round-tripped, \(notRepresentable) not representable), \(refusals) refused \
      as corruptFile; \(failures.count) failures
      """
    }

    var markdown: String {
      func count(_ format: PropertyListFile.Format) -> String {
        "\(valuesByFormat[format, default: 0]) | \(refusalsByFormat[format, default: 0])"
      }
      return """
        Last run: \(inputs) inputs from seed \(seed) (\(seedCount) seeds; \(hostile) generated \
        hostile documents), \(rate) inputs/s in a debug build (\(String(format: "%.1f", seconds)) s). \
        Every input ended in a value or `corruptFile`; no crash, no other error.

        | Reader | Read | Refused (`corruptFile`) |
        |---|---:|---:|
        | Binary | \(count(.binary)) |
        | XML | \(count(.xml)) |

        Of the \(values) values read, \(roundTrips) were written as binary and read back equal; \
        \(notRepresentable) were refused by the writer as not representable.
        """
    }
  }

  mutating func run(iterations: Int) -> Report {
    var report = Report(seed: seed, seedCount: seeds.count)
    let start = Date()
    CrashReporter.install(seed: seed)
    defer { CrashReporter.uninstall() }
    for iteration in 0..<iterations {
      let input = input(iteration)
      CrashReporter.current(input.data, iteration: iteration)
      let outcome = Self.check(input.data, format: input.format, salvaging: input.salvaging)
      report.inputs += 1
      if input.description.hasPrefix("hostile") { report.hostile += 1 }
      if outcome.value != nil {
        report.values += 1
        report.valuesByFormat[input.format, default: 0] += 1
      } else {
        report.refusals += 1
        report.refusalsByFormat[input.format, default: 0] += 1
      }
      if outcome.roundTripped { report.roundTrips += 1 }
      if outcome.notRepresentable { report.notRepresentable += 1 }
      if let problem = outcome.problem, report.failures.count < 10 {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
          "TypedDefaults-fuzz-\(seed)-\(iteration).plist")
        try? input.data.write(to: file)
        report.failures.append(
          """
          Fuzz failure at iteration \(iteration) (seed \(seed)), \(input.format) reader\
          \(input.salvaging ? " salvaging" : ""), input \(input.description): \(problem). \
          Input written to \(file.path); replay with TYPEDDEFAULTS_FUZZ_REPLAY=\(file.path)
          """)
      }
    }
    report.seconds = Date().timeIntervalSince(start)
    return report
  }
}

// MARK: - Comparing

/// Equal values, except that any NaN equals any NaN.
private func same(_ lhs: PropertyListValue, _ rhs: PropertyListValue) -> Bool {
  switch (lhs, rhs) {
  case (.real(let left), .real(let right)):
    return left.bitPattern == right.bitPattern || (left.isNaN && right.isNaN)
  case (.array(let left), .array(let right)):
    return left.count == right.count && zip(left, right).allSatisfy { same($0, $1) }
  case (.dictionary(let left), .dictionary(let right)):
    return left.count == right.count
      && left.allSatisfy { key, value in right[key].map { same(value, $0) } ?? false }
  default:
    return lhs == rhs
  }
}

private func brief(_ value: PropertyListValue) -> String {
  let text = "\(value.kind) \(value)"
  return text.count > 160 ? text.prefix(160) + "…" : text
}
