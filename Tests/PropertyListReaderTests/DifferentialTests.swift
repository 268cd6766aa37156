import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// Every file of the shared corpus, and a few crafted files, through three readers, compared
/// with a checked-in table.
///
/// The files are those of the shared corpus (`../shared/fixtures/plists/valid/` and `invalid/`)
/// and the few crafted files of `Fixtures/differential-inputs/` the corpus lacks (sets, which
/// crash Foundation); the table is `Fixtures/differential-expectations.json`. The readers:
///
/// - ours: ``PropertyListFile/decode(_:path:)``, in this process (it must never crash);
/// - Foundation: `PropertyListSerialization`, in a child process (`SettingsProbe
///   foundation-decode FILE`), since CoreFoundation can crash; OK, FAIL, CRASH(signal) or
///   TIMEOUT (after ``DifferentialTable/timeout`` seconds);
/// - Python's plistlib: recorded offline in `Fixtures/plistlib-differential.json` by
///   `Fixtures/make_plistlib_differential.py`, so that CI needs no Python.
///
/// A reader agrees with ours when both refuse the file or both read equal values. For every
/// disagreement the table says why ours is right (`whyFoundation`, `whyPlistlib`).
///
/// After changing a reader, regenerate the table (a reason is kept while both outcomes it was
/// written for stay the same; new or changed disagreements get `"TODO"`, which fails the test
/// until someone writes the reason) and the figure in
/// `Docs/Reliability.md`:
///
/// ```
/// TYPEDDEFAULTS_WRITE_DIFFERENTIAL=1 TYPEDDEFAULTS_WRITE_RELIABILITY=1 \
///   swift test --filter DifferentialTests
/// ```
@Suite(
  .enabled(
    if: TestPaths.hasSharedFixtures,
    """
    The shared plist fixtures (../shared/fixtures/plists/SOURCES.json, beside the project) are \
    absent: skipping the differential table over them
    """
  )
)
struct DifferentialTests {
  @Test("Ours, Foundation and plistlib read the corpus as the checked-in table says")
  func tableMatchesExpectations() throws {
    let table = try DifferentialTable.shared.get()
    let expectationsURL = TestPaths.ownFixtures.appendingPathComponent(
      "differential-expectations.json")
    var expected = try? DifferentialTable.Expectations.load(from: expectationsURL)

    if ProcessInfo.processInfo.environment["TYPEDDEFAULTS_WRITE_DIFFERENTIAL"] == "1" {
      let written = table.expectations(keepingReasonsFrom: expected)
      try written.write(to: expectationsURL)
      expected = written
    }
    let expectations = try #require(
      expected,
      """
      Cannot read \(expectationsURL.path); generate it with \
      TYPEDDEFAULTS_WRITE_DIFFERENTIAL=1 swift test --filter DifferentialTests
      """)

    // The whole table, file by file.
    #expect(
      Set(expectations.files.keys) == Set(table.rows.keys),
      "The table and the corpus list different files")
    for (name, row) in table.rows.sorted(by: { $0.key < $1.key }) {
      guard let want = expectations.files[name] else { continue }
      var got = row.expectation(keepingReasonsFrom: want)
      if DifferentialTable.underSanitizer, want.foundation.hasPrefix("CRASH"),
        got.foundation.hasPrefix("CRASH") || got.foundation == "PROBE-ERROR"
      {
        // The sanitizer in an instrumented child takes over its crash (see `underSanitizer`).
        got.foundation = want.foundation
        got.whyFoundation = want.whyFoundation
      }
      #expect(
        got == want,
        """
        \(name): expected \(want.summary), found \(got.summary) \
        (\(row.detail)); regenerate with TYPEDDEFAULTS_WRITE_DIFFERENTIAL=1 if a reader changed
        """)
    }
    // Every disagreement explains itself.
    for (name, entry) in expectations.files.sorted(by: { $0.key < $1.key }) {
      for (reader, why) in [("Foundation", entry.whyFoundation), ("plistlib", entry.whyPlistlib)] {
        #expect(why != "TODO", "\(name): say why ours is right where \(reader) disagrees")
        #expect(why?.isEmpty != true, "\(name): an empty reason for \(reader)")
      }
      #expect((entry.whyFoundation == nil) == entry.foundationAgrees, "\(name): whyFoundation")
      #expect((entry.whyPlistlib == nil) == entry.plistlibAgrees, "\(name): whyPlistlib")
    }

    ReliabilityReport.publish(
      "differential", markdown: expectations.rendering(), deterministic: true)
  }

  @Test("Every file that crashes Foundation or makes it hang is refused by ours as corrupt")
  func foundationCrashesAreRefused() throws {
    let table = try DifferentialTable.shared.get()
    for (name, row) in table.rows.sorted(by: { $0.key < $1.key })
    where row.foundation.isCrashOrTimeout || row.foundation.outcome == "PROBE-ERROR" {
      #expect(row.ours.outcome == "FAIL(corruptFile)", "\(name): Foundation \(row.foundation)")
    }
    // The probe itself works: it reads what Foundation reads, and sees a crash as one.
    let readable = table.rows.values.filter { $0.foundation.outcome.hasPrefix("OK") }
    #expect(readable.count >= 60, "Foundation read only \(readable.count) files")
    if !DifferentialTable.underSanitizer {
      #expect(table.rows["own/set_root.plist"]?.foundation.outcome == "CRASH(SIGSEGV)")
    }
  }
}

// MARK: - The table

/// The three readers' outcomes on every corpus file.
struct DifferentialTable: Sendable {
  /// How long Foundation may take over one file.
  static let timeout: TimeInterval = 10

  /// One reader's result on one file.
  struct Reading: Sendable, CustomStringConvertible {
    /// `OK(kind)`, `FAIL`, `FAIL(code)` (ours: the ``SettingsError/Code``), `CRASH(SIGNAME)` or
    /// `TIMEOUT`.
    var outcome: String
    /// The value, when read.
    var value: Tagged?
    /// Why it failed, for messages only.
    var reason: String = ""

    var isCrashOrTimeout: Bool { outcome.hasPrefix("CRASH") || outcome == "TIMEOUT" }
    var description: String { reason.isEmpty ? outcome : "\(outcome): \(reason)" }
  }

  struct Row: Sendable {
    var ours: Reading
    var foundation: Reading
    var plistlib: Reading

    var foundationAgrees: Bool { Self.agree(ours, foundation, dateTolerance: 0) }
    /// plistlib keeps dates to the microsecond.
    var plistlibAgrees: Bool { Self.agree(ours, plistlib, dateTolerance: 0.001) }

    static func agree(_ lhs: Reading, _ rhs: Reading, dateTolerance: Double) -> Bool {
      switch (lhs.value, rhs.value) {
      case (let left?, let right?): left.same(as: right, dateTolerance: dateTolerance)
      case (nil, nil): lhs.outcome.hasPrefix("FAIL") && rhs.outcome.hasPrefix("FAIL")
      default: false
      }
    }

    var detail: String {
      "ours \(ours); Foundation \(foundation); plistlib \(plistlib)"
    }

    func expectation(keepingReasonsFrom old: Expectations.Entry?) -> Expectations.Entry {
      let foundationAgrees = foundationAgrees
      let plistlibAgrees = plistlibAgrees
      return Expectations.Entry(
        ours: ours.outcome, foundation: foundation.outcome, plistlib: plistlib.outcome,
        foundationAgrees: foundationAgrees, plistlibAgrees: plistlibAgrees,
        whyFoundation: foundationAgrees
          ? nil
          : Self.reason(
            old?.whyFoundation, if: old.map { ($0.ours, $0.foundation) },
            is: (ours.outcome, foundation.outcome)),
        whyPlistlib: plistlibAgrees
          ? nil
          : Self.reason(
            old?.whyPlistlib, if: old.map { ($0.ours, $0.plistlib) },
            is: (ours.outcome, plistlib.outcome)))
    }

    /// A reason written for a disagreement still holds while both outcomes are the ones it was
    /// written for; after a reader changes, the disagreement needs a new look (`TODO`).
    private static func reason(
      _ reason: String?, if old: (String, String)?, is new: (String, String)
    ) -> String {
      guard let reason, let old, old == new else { return "TODO" }
      return reason
    }
  }

  /// By `valid/NAME` or `invalid/NAME`.
  var rows: [String: Row]

  func expectations(keepingReasonsFrom old: Expectations?) -> Expectations {
    Expectations(
      files: Dictionary(
        uniqueKeysWithValues: rows.map { name, row in
          (name, row.expectation(keepingReasonsFrom: old?.files[name]))
        }))
  }

  /// The table, computed once for the suite's tests.
  static let shared = Result { try compute() }

  /// Reads the corpus with all three readers (Foundation's children four at a time).
  static func compute() throws -> DifferentialTable {
    let names = try ["valid", "invalid", "own"].flatMap { folder in
      try FileManager.default.contentsOfDirectory(atPath: url(of: folder).path).map {
        "\(folder)/\($0)"
      }
    }.sorted()
    let plistlib = try PlistlibReadings.load()

    let foundation = Locked([String: Reading]())
    let lanes = 4
    let group = DispatchGroup()
    for lane in 0..<lanes {
      DispatchQueue.global().async(group: group) {
        for index in stride(from: lane, to: names.count, by: lanes) {
          let reading = foundationReading(of: url(of: names[index]))
          foundation.withLock { $0[names[index]] = reading }
        }
      }
    }
    group.wait()
    var foundationReadings = foundation.withLock { $0 }
    // Four children at once on a machine busy with other tests can run one past the time limit:
    // a time-out is read once more, alone, before it counts (no file of the corpus times out).
    for (name, reading) in foundationReadings where reading.outcome == "TIMEOUT" {
      foundationReadings[name] = foundationReading(of: url(of: name))
    }

    var rows: [String: Row] = [:]
    for name in names {
      rows[name] = Row(
        ours: try oursReading(of: url(of: name)),
        foundation: foundationReadings[name]
          ?? Reading(outcome: "PROBE-ERROR", reason: "not run"),
        plistlib: plistlib[name] ?? Reading(outcome: "MISSING", reason: "not recorded"))
    }
    return DifferentialTable(rows: rows)
  }

  /// `valid/…` and `invalid/…` are in the shared corpus; `own/…` are the crafted files of
  /// `Fixtures/differential-inputs/` (`make_differential_inputs.py`), which the corpus lacks.
  static func url(of name: String) -> URL {
    name == "own" || name.hasPrefix("own/")
      ? TestPaths.ownFixtures.appendingPathComponent("differential-inputs")
        .appendingPathComponent(String(name.dropFirst(4)))
      : TestPaths.sharedFixtures.appendingPathComponent(name)
  }

  static func oursReading(of url: URL) throws -> Reading {
    let data = try Data(contentsOf: url)
    do throws(SettingsError) {
      let value = Tagged(try PropertyListFile.decode(data, path: url.path).root)
      return Reading(outcome: "OK(\(value.kindName))", value: value)
    } catch {
      return Reading(outcome: "FAIL(\(error.code))", reason: error.reason)
    }
  }

  /// Runs `SettingsProbe foundation-decode` on one file, with its output in a temporary file (a
  /// pipe could fill and stall the child), waiting at most ``timeout`` seconds.
  ///
  /// Whether this test process runs under ThreadSanitizer (its runtime is linked in). Its
  /// children are instrumented too, and the sanitizer in a child takes over a crash of
  /// Foundation's parser and ends the process its own way, so there a crash can't be told from
  /// another failure of the probe; the table accepts either where it expects a crash.
  static let underSanitizer: Bool = {
    guard let process = dlopen(nil, RTLD_NOW) else { return false }
    return dlsym(process, "__tsan_init") != nil
  }()

  static func foundationReading(of url: URL) -> Reading {
    let output = FileManager.default.temporaryDirectory
      .appendingPathComponent("TypedDefaultsTests-differential-\(UUID().uuidString).txt")
    defer { try? FileManager.default.removeItem(at: output) }
    guard FileManager.default.createFile(atPath: output.path, contents: nil),
      let handle = try? FileHandle(forWritingTo: output)
    else { return Reading(outcome: "PROBE-ERROR", reason: "cannot create \(output.path)") }
    defer { try? handle.close() }

    // Under ThreadSanitizer the child's own sanitizer would catch the crash, or report on
    // Foundation's threads, and exit with status 66; let the signal kill it instead and keep the
    // exit status Foundation's, so the outcome is the same in every build.
    var environment = ProcessInfo.processInfo.environment
    let passSignals =
      "handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigill=0:handle_sigfpe=0:exitcode=0:report_signal_unsafe=0"
    environment["TSAN_OPTIONS"] = [environment["TSAN_OPTIONS"], passSignals]
      .compactMap { $0 }.joined(separator: ":")
    // posix_spawn and waitpid rather than Foundation's Process, whose termination monitor can
    // miss a child's exit when many are started at once (seen under ThreadSanitizer: a child
    // left a zombie and waitUntilExit never returned).
    let executable = TestPaths.productsDirectory.appendingPathComponent("SettingsProbe").path
    let outcome = ChildProcess.run(
      executable, ["foundation-decode", url.path], environment: environment,
      standardOutput: handle.fileDescriptor, timeout: timeout)
    switch outcome {
    case .notStarted(let reason):
      return Reading(outcome: "PROBE-ERROR", reason: "cannot launch SettingsProbe: \(reason)")
    case .timedOut:
      return Reading(outcome: "TIMEOUT", reason: "still running after \(Int(timeout)) s")
    case .signalled(let signal):
      return Reading(outcome: "CRASH(\(signalName(signal)))")
    case .exited(let status) where status != 0:
      let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
      return Reading(outcome: "PROBE-ERROR", reason: "exit status \(status): \(text)")
    case .exited:
      break
    }
    let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    let line = text.trimmingCharacters(in: .newlines)
    if line.hasPrefix("FAIL: ") {
      return Reading(outcome: "FAIL", reason: String(line.dropFirst(6)))
    }
    guard line.hasPrefix("OK "),
      let value = try? JSONDecoder().decode(Tagged.self, from: Data(line.dropFirst(3).utf8))
    else {
      return Reading(outcome: "PROBE-ERROR", reason: "unreadable output: \(line.prefix(200))")
    }
    return Reading(outcome: "OK(\(value.kindName))", value: value)
  }

  static func signalName(_ signal: Int32) -> String {
    switch signal {
    case SIGSEGV: "SIGSEGV"
    case SIGBUS: "SIGBUS"
    case SIGABRT: "SIGABRT"
    case SIGILL: "SIGILL"
    case SIGTRAP: "SIGTRAP"
    case SIGFPE: "SIGFPE"
    case SIGKILL: "SIGKILL"
    default: "signal \(signal)"
    }
  }
}

/// `Fixtures/plistlib-differential.json`.
private enum PlistlibReadings {
  struct File: Decodable {
    var python: String
    var files: [String: Entry]
  }

  struct Entry: Decodable {
    var outcome: String
    var value: Tagged?
    var error: String?
  }

  static func load() throws -> [String: DifferentialTable.Reading] {
    let url = TestPaths.ownFixtures.appendingPathComponent("plistlib-differential.json")
    let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
    return file.files.mapValues { entry in
      if entry.outcome == "OK", let value = entry.value {
        DifferentialTable.Reading(outcome: "OK(\(value.kindName))", value: value)
      } else {
        DifferentialTable.Reading(outcome: "FAIL", reason: entry.error ?? "")
      }
    }
  }
}

// MARK: - The checked-in expectations

extension DifferentialTable {
  /// `Fixtures/differential-expectations.json`.
  struct Expectations: Codable, Sendable, Equatable {
    struct Entry: Codable, Sendable, Equatable {
      var ours: String
      var foundation: String
      var plistlib: String
      var foundationAgrees: Bool
      var plistlibAgrees: Bool
      /// Why ours is right where Foundation disagrees; `nil` when it agrees.
      var whyFoundation: String?
      /// Why ours is right where plistlib disagrees; `nil` when it agrees.
      var whyPlistlib: String?

      var summary: String {
        "ours \(ours), Foundation \(foundation) (\(foundationAgrees ? "agrees" : "disagrees")), "
          + "plistlib \(plistlib) (\(plistlibAgrees ? "agrees" : "disagrees"))"
      }
    }

    var files: [String: Entry]

    static func load(from url: URL) throws -> Expectations {
      try JSONDecoder().decode(Expectations.self, from: Data(contentsOf: url))
    }

    func write(to url: URL) throws {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      var data = try encoder.encode(self)
      data.append(0x0A)
      try data.write(to: url, options: .atomic)
    }

    /// The Markdown for `Docs/Reliability.md`: counts per reader pair, then every disagreement.
    func rendering() -> String {
      let sorted = files.sorted { $0.key < $1.key }
      let valid = sorted.filter { $0.key.hasPrefix("valid/") }.count
      let own = sorted.filter { $0.key.hasPrefix("own/") }.count
      func counts(_ agrees: (Entry) -> Bool) -> (Int, Int) {
        let agreeing = sorted.filter { agrees($0.value) }.count
        return (agreeing, sorted.count - agreeing)
      }
      let foundation = counts(\.foundationAgrees)
      let plistlib = counts(\.plistlibAgrees)
      let oursRead = sorted.filter { $0.value.ours.hasPrefix("OK") }.count
      let crashes = sorted.filter {
        $0.value.foundation.hasPrefix("CRASH") || $0.value.foundation == "TIMEOUT"
      }.count
      var lines = [
        "\(sorted.count) files (\(valid) valid and \(sorted.count - valid - own) invalid from the "
          + "shared corpus, \(own) crafted in `Fixtures/differential-inputs/`); ours reads "
          + "\(oursRead) and refuses \(sorted.count - oursRead) with a typed error. Foundation "
          + "crashes or hangs on \(crashes).",
        "",
        "| Ours compared with | Agree | Disagree |",
        "|---|---:|---:|",
        "| Foundation (`PropertyListSerialization`, child process) | \(foundation.0) "
          + "| \(foundation.1) |",
        "| Python plistlib (recorded) | \(plistlib.0) | \(plistlib.1) |",
        "",
        "| File | Ours | Other reader | Why ours is right |",
        "|---|---|---|---|",
      ]
      for (name, entry) in sorted {
        if let why = entry.whyFoundation {
          lines.append(
            "| `\(name)` | \(entry.ours) | Foundation \(entry.foundation) | \(cell(why)) |")
        }
        if let why = entry.whyPlistlib {
          lines.append("| `\(name)` | \(entry.ours) | plistlib \(entry.plistlib) | \(cell(why)) |")
        }
      }
      return lines.joined(separator: "\n")
    }

    private func cell(_ text: String) -> String {
      text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
  }
}

// MARK: - Values as the three readers report them

/// A value in the tagged JSON of `make_plistlib_expectations.py` (`{"s": …}`, `{"i": "n"}`,
/// `{"r": "repr"}`, `{"b": …}`, `{"d": seconds since 2001}`, `{"x": base64}`, `{"a": […]}`,
/// `{"o": {…}}`), plus the tags `make_plistlib_differential.py` uses for what plistlib returns
/// that no property list holds (`n`, `cycle`, `too_many`, `too_deep`, `key_type`).
indirect enum Tagged: Decodable, Sendable {
  case string(String)
  /// Decimal text; may exceed 64 bits.
  case integer(String)
  /// Swift's or Python's text of a double: `1.5`, `1e+16`, `inf`, `nan`.
  case real(String)
  case bool(Bool)
  case date(Double)
  /// Base64.
  case data(String)
  case array([Tagged])
  case dictionary([String: Tagged])
  /// Something no property list holds (`none`, `cycle`, …), equal to nothing.
  case other(String)

  init(_ value: PropertyListValue) {
    switch value {
    case .string(let string): self = .string(string)
    case .integer(let integer): self = .integer(integer.description)
    case .real(let real): self = .real("\(real)")
    case .bool(let bool): self = .bool(bool)
    case .date(let date): self = .date(date.timeIntervalSinceReferenceDate)
    case .data(let data): self = .data(data.base64EncodedString())
    case .array(let elements): self = .array(elements.map(Tagged.init))
    case .dictionary(let entries): self = .dictionary(entries.mapValues(Tagged.init))
    }
  }

  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Key.self)
    guard container.allKeys.count == 1, let tag = container.allKeys.first else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "Expected one kind tag"))
    }
    switch tag.stringValue {
    case "s": self = .string(try container.decode(String.self, forKey: tag))
    case "i": self = .integer(try container.decode(String.self, forKey: tag))
    case "r": self = .real(try container.decode(String.self, forKey: tag))
    case "b": self = .bool(try container.decode(Bool.self, forKey: tag))
    case "d":
      if let seconds = try? container.decode(Double.self, forKey: tag) {
        self = .date(seconds)
      } else {
        // Not finite: "inf", "-inf" or "nan" (JSON has no such numbers).
        let text = try container.decode(String.self, forKey: tag)
        guard let seconds = Self.real(text) else {
          throw DecodingError.dataCorruptedError(
            forKey: tag, in: container, debugDescription: "Not a date: \(text)")
        }
        self = .date(seconds)
      }
    case "x": self = .data(try container.decode(String.self, forKey: tag))
    case "a": self = .array(try container.decode([Tagged].self, forKey: tag))
    case "o": self = .dictionary(try container.decode([String: Tagged].self, forKey: tag))
    case "n": self = .other("none")
    case let other: self = .other(other)
    }
  }

  var kindName: String {
    switch self {
    case .string: "string"
    case .integer: "integer"
    case .real: "real"
    case .bool: "bool"
    case .date: "date"
    case .data: "data"
    case .array: "array"
    case .dictionary: "dictionary"
    case .other(let what): what
    }
  }

  /// Equal as property-list values: reals bit for bit (any NaN equals any NaN), dates within
  /// `dateTolerance` seconds, integers by value.
  func same(as other: Tagged, dateTolerance: Double) -> Bool {
    switch (self, other) {
    case (.string(let lhs), .string(let rhs)): return lhs == rhs
    case (.integer(let lhs), .integer(let rhs)): return lhs == rhs
    case (.real(let lhs), .real(let rhs)):
      guard let left = Self.real(lhs), let right = Self.real(rhs) else { return false }
      return left.bitPattern == right.bitPattern || (left.isNaN && right.isNaN)
    case (.bool(let lhs), .bool(let rhs)): return lhs == rhs
    case (.date(let lhs), .date(let rhs)):
      return lhs == rhs || abs(lhs - rhs) <= dateTolerance || (lhs.isNaN && rhs.isNaN)
    case (.data(let lhs), .data(let rhs)):
      return Data(base64Encoded: lhs) == Data(base64Encoded: rhs)
    case (.array(let lhs), .array(let rhs)):
      return lhs.count == rhs.count
        && zip(lhs, rhs).allSatisfy { $0.same(as: $1, dateTolerance: dateTolerance) }
    case (.dictionary(let lhs), .dictionary(let rhs)):
      return lhs.count == rhs.count
        && lhs.allSatisfy { key, value in
          rhs[key].map { value.same(as: $0, dateTolerance: dateTolerance) } ?? false
        }
    default: return false
    }
  }

  private static func real(_ text: String) -> Double? {
    switch text {
    case "inf", "+inf": .infinity
    case "-inf": -.infinity
    case "nan", "-nan": .nan
    default: Double(text)
    }
  }
}
