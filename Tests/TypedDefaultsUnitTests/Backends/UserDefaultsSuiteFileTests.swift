import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsSchema
import TypedDefaultsTestSupport
import TypedDefaultsTesting

@testable import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What `UserDefaultsBackend` promises on Linux, where it saves the suite file itself: kills in
/// the middle of saves and imports, several writing processes, many threads, files corelibs wrote
/// or left broken, and sharing the suite with raw `UserDefaults` in the same process.
@Suite(.tags(.durability)) struct UserDefaultsSuiteFileTests {
  #if !canImport(Darwin)
    /// A fresh config folder and suite name for child processes: a named suite, or the
    /// standard defaults (`UserDefaultsBackend.standard`, whose file is the process's name).
    struct Place {
      let directory: TemporaryDirectory
      let suite: String
      var environment: [String: String] { ["XDG_CONFIG_HOME": directory.url.path] }
      var file: URL {
        directory.file(suite == "-standard" ? "SettingsProbe.plist" : "\(suite).plist")
      }

      init(standard: Bool = false) throws {
        directory = try TemporaryDirectory()
        suite = standard ? "-standard" : "TypedDefaultsTests.durability"
      }

      func probe(_ arguments: [String]) -> Process {
        let process = Process()
        process.executableURL = TestPaths.productsDirectory.appendingPathComponent("SettingsProbe")
        process.arguments = ["userdefaults", suite] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        return process
      }

      /// Runs `count` probes with `arguments` at once and waits for each to succeed.
      func runAtOnce(_ count: Int, _ arguments: [String]) throws {
        let processes = (0..<count).map { _ in probe(arguments) }
        for process in processes { try process.run() }
        for process in processes {
          let processEnding = process.waitForExit()
          #expect(processEnding.status == 0)
        }
      }

      func saved() throws -> [String: PropertyListValue] {
        try PropertyListFile(url: file).readDictionary() ?? [:]
      }
    }

    /// Starts `process`, waits for its "ready" line, kills it after `delay` µs, and returns the
    /// lines it printed.
    static func killed(_ process: Process, after delay: UInt32) throws -> [Substring] {
      let output = Pipe()
      process.standardOutput = output
      try process.run()
      let reader = output.fileHandleForReading
      var buffer = Data()
      while !buffer.starts(with: Data("ready\n".utf8)) {
        let chunk = reader.availableData
        if chunk.isEmpty { break }
        buffer.append(chunk)
      }
      if delay > 0 { usleep(delay) }
      kill(process.processIdentifier, SIGKILL)
      _ = process.waitForExit()
      buffer.append(reader.readDataToEndOfFile())
      try reader.close()
      return String(decoding: buffer, as: UTF8.self).split(separator: "\n")
    }

    /// Every durability check runs on a named suite and on the standard defaults.
    static let domains = [false, true]

    @Test(arguments: domains)
    func aProcessKilledAtRandomMomentsWhileSavingLeavesACompleteSavedState(
      standard: Bool
    ) throws {
      let environment = ProcessInfo.processInfo.environment
      let rounds = max(100, environment["TYPEDDEFAULTS_FAULT_ROUNDS"].flatMap { Int($0) } ?? 100)
      var random = LayeredPlistStoreFaultTests.SeededGenerator(state: 20_261_202)
      let place = try Place(standard: standard)
      var onDisk: Int64 = 0
      for round in 0..<rounds {
        let lines = try Self.killed(
          place.probe(["ud-save-states", "\(onDisk + 1)"]),
          after: UInt32.random(in: 0...12_000, using: &random))
        try #require(lines.first == "ready", "round \(round): \(lines.prefix(3))")
        let reported = lines.dropFirst().compactMap {
          $0.split(separator: " ").last.flatMap { Int64($0) }
        }
        let lastComplete = reported.last ?? onDisk
        let saved = try place.saved()
        // Killed before the very first save: no file yet.
        if saved.isEmpty, onDisk == 0, reported.isEmpty { continue }
        let counter = try #require(saved["counter"]?.intValue, "round \(round): \(saved.keys)")
        #expect(
          counter == lastComplete || counter == lastComplete + 1,
          "round \(round): state \(counter) on disk, \(lastComplete) last reported saved")
        #expect(saved == LayeredPlistStoreFaultTests.savedState(Int64(counter)), "round \(round)")
        onDisk = Int64(counter)
      }
    }

    @Test(arguments: domains)
    func anImportKilledMidwayLeavesTheStateBeforeOrAfterIt(standard: Bool) throws {
      let place = try Place(standard: standard)
      var random = LayeredPlistStoreFaultTests.SeededGenerator(state: 7)
      for round in 0..<12 {
        let lines = try Self.killed(
          place.probe(["ud-import-loop", "2000"]),
          after: UInt32.random(in: 0...60_000, using: &random))
        let saved = try place.saved()
        let generations = Set(saved.values.compactMap(\.intValue))
        #expect(generations.count <= 1, "round \(round): a partial import: \(generations.sorted())")
        if let generation = generations.first {
          #expect(saved.count == 2000, "round \(round)")
          let reported = lines.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
          #expect(generation >= (reported.last ?? 0), "round \(round)")
        }
      }
    }

    @Test(arguments: [2, 4, 8], domains)
    func processesWritingDisjointKeysToOneSuiteLoseNone(_ count: Int, standard: Bool) throws {
      let place = try Place(standard: standard)
      let keysEach = 40
      let processes = (0..<count).map { place.probe(["ud-write-keys", "p\($0)", "\(keysEach)"]) }
      for process in processes { try process.run() }
      for process in processes {
        let processEnding = process.waitForExit()
        #expect(processEnding.status == 0)
      }
      var expected: [String: PropertyListValue] = [:]
      for index in 0..<count {
        for key in 0..<keysEach { expected["p\(index).\(key)"] = .integer(.init(Int64(key))) }
      }
      #expect(try place.saved() == expected)
    }

    @Test(arguments: domains)
    func fourProcessesIncrementingOneKeyCountExactly(standard: Bool) throws {
      let place = try Place(standard: standard)
      try place.runAtOnce(4, ["ud-increment", "count", "25"])
      #expect(try place.saved() == ["count": 100])
    }

    /// `setting.update { $0 += 1 }` in two processes at once: the suite file's lock is held from
    /// the read to the save, so none of the 2,000 increments is lost.
    @Test(arguments: domains)
    func aSettingUpdateCountsExactlyAcrossTwoProcesses(standard: Bool) throws {
      let place = try Place(standard: standard)
      try place.runAtOnce(2, ["setting-increment", "count", "1000"])
      #expect(try place.saved() == ["count": 2000])
    }

    /// The standard defaults were never saved on Linux: the exit's take-in compared the
    /// backend's writes with the wrong copy of the domain (corelibs' one under the process name,
    /// always empty) and took every write for a removal by other code.
    @Test func standardDomainWritesSurviveARelaunch() throws {
      let place = try Place(standard: true)
      var counts: [String] = []
      for _ in 0..<3 {
        let run = try runProduct(
          "SettingsProbe", ["userdefaults", "-standard", "ud-count-launch", "launches"],
          environment: place.environment)
        #expect(run.status == 0, "\(run.standardError)")
        counts.append(run.standardOutput)
      }
      #expect(counts == ["0\n", "1\n", "2\n"])
      #expect(try place.saved() == ["launches": 3])
      // And plain UserDefaults.standard in a new process reads it.
      let raw = try runProduct(
        "SettingsProbe", ["raw", "-standard", "raw-get", "launches"],
        environment: place.environment)
      #expect(raw.standardOutput == "3\n")
    }

    /// In a fresh home `~/.config` doesn't exist yet: every save failed "the folder does not
    /// exist", and the values were lost at exit.
    ///
    /// Corelibs creates the folder, owner-only.
    @Test(arguments: domains)
    func aSuiteSavesInAFreshHomeWithNoConfigFolder(standard: Bool) throws {
      let home = try TemporaryDirectory()
      // An empty XDG_CONFIG_HOME is not absolute: corelibs and the backend use $HOME/.config.
      let environment = ["HOME": home.url.path, "XDG_CONFIG_HOME": ""]
      let suite = standard ? "-standard" : "TypedDefaultsTests.freshHome"
      let write = try runProduct(
        "SettingsProbe", ["userdefaults", suite, "set", "k", "int:5"], environment: environment)
      #expect(write.status == 0, "\(write.standardError)")
      #expect(write.standardError.isEmpty)
      let folder = home.url.appendingPathComponent(".config")
      let name = standard ? "SettingsProbe.plist" : "\(suite).plist"
      #expect(
        try PropertyListFile(url: folder.appendingPathComponent(name)).readDictionary()
          == ["k": 5])
      let attributes = try FileManager.default.attributesOfItem(atPath: folder.path)
      #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
      let read = try runProduct(
        "SettingsProbe", ["raw", suite, "raw-get", "k"], environment: environment)
      #expect(read.standardOutput == "5\n")
    }

    /// The conformance suite on `UserDefaultsBackend.standard`, which is process-wide: run in a
    /// child process with its own XDG_CONFIG_HOME (see Tests/SettingsProbe/ConformanceModes).
    @Test func theStandardDomainMeetsTheBackendContract() throws {
      let place = try Place(standard: true)
      let run = try runProduct(
        "SettingsProbe", ["conformance", "-standard"], environment: place.environment)
      #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
      #expect(run.standardOutput == "passed \(BackendConformance.checks.count) checks\n")
    }

    /// A probe process driven line by line (`ud-script`): a process that stays open on the
    /// suite while others save it.
    final class Script {
      let process: Process
      let input = Pipe()
      let output = Pipe()
      private var buffer = Data()

      init(_ place: Place) throws {
        process = place.probe(["ud-script", "go"])
        process.standardInput = input
        process.standardOutput = output
        try process.run()
      }

      /// Sends one command and returns the line it answers.
      @discardableResult
      func send(_ command: String) throws -> String {
        try input.fileHandleForWriting.write(contentsOf: Data("\(command)\n".utf8))
        while !buffer.contains(UInt8(ascii: "\n")) {
          let chunk = output.fileHandleForReading.availableData
          if chunk.isEmpty { return "<no answer>" }
          buffer.append(chunk)
        }
        let end = try #require(buffer.firstIndex(of: UInt8(ascii: "\n")))
        let line = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeSubrange(...end)
        return line
      }

      /// Closes its input, so that it returns from `main` (a normal exit), and waits for it.
      func exit() throws -> Int32 {
        try input.fileHandleForWriting.close()
        let processEnding = process.waitForExit()
        return processEnding.status
      }
    }

    /// corelibs keeps the copy of the suite it loaded first and never refreshes it; the take-in
    /// of raw `UserDefaults` writes took that stale copy for this process's writes and saved
    /// `k = 1` over the newer `k = 2`, at exit or at `synchronize()`.
    @Test(arguments: ["exit", "synchronize"])
    func aNormalExitOrSynchronizeNeverWritesBackAnotherProcesssOldValue(_ ending: String) throws {
      let place = try Place()
      let b = try Script(place)
      let first = try runProduct(
        "SettingsProbe", ["userdefaults", place.suite, "set", "k", "int:1"],
        environment: place.environment)
      #expect(first.status == 0, "\(first.standardError)")
      #expect(try b.send("set b int:7") == "ok")
      #expect(try b.send("save") == "ok")
      let second = try runProduct(
        "SettingsProbe", ["userdefaults", place.suite, "set", "k", "int:2"],
        environment: place.environment)
      #expect(second.status == 0, "\(second.standardError)")
      #expect(try b.send("save") == "ok")
      #expect(try b.send("get k") == "2")
      if ending == "synchronize" {
        #expect(try b.send("synchronize") == "ok")
        #expect(try b.send("get k") == "2")
      }
      #expect(try b.exit() == 0)
      #expect(try place.saved() == ["k": 2, "b": 7])
    }

    @Test func aSuiteFileWrittenByCorelibsIsReadMergedAndSavedBinary() throws {
      let place = try Place()
      let raw = try runProduct(
        "SettingsProbe", ["raw", place.suite, "raw-set", "fromCorelibs", "string:xml"],
        environment: place.environment)
      #expect(raw.status == 0, "\(raw.standardError)")
      #expect(try Data(contentsOf: place.file).starts(with: Data("<?xml".utf8)))
      let write = try runProduct(
        "SettingsProbe", ["userdefaults", place.suite, "set", "fromBackend", "int:3"],
        environment: place.environment)
      #expect(write.status == 0, "\(write.standardError)")
      #expect(try Data(contentsOf: place.file).starts(with: Data("bplist00".utf8)))
      #expect(try place.saved() == ["fromCorelibs": "xml", "fromBackend": 3])
      // And corelibs reads the binary file back.
      let read = try runProduct(
        "SettingsProbe", ["raw", place.suite, "raw-get", "fromBackend"],
        environment: place.environment)
      #expect(read.standardOutput == "3\n")
    }
  #endif
}

/// Threads, broken files and raw `UserDefaults` in the same process (Linux).
@Suite(.tags(.durability)) struct UserDefaultsSharingTests {
  #if !canImport(Darwin)
    /// Reads a suite file as the backend does, waiting out an in-place rewrite: any test calling
    /// `UserDefaults.synchronize()` makes corelibs rewrite every suite this process changed.
    static func saved(_ url: URL) throws -> [String: PropertyListValue]? {
      try CorruptFiles.readDictionary(PropertyListFile(url: url), retryInterval: 0.05)
    }

    @Test func eightThreadsReadBackEveryValueTheyJustWrote() async throws {
      let suite = TemporarySuite()
      let backend = suite.backend
      let misses = await withTaskGroup(of: Int.self) { group in
        for thread in 0..<8 {
          group.addTask {
            var misses = 0
            for index in 0..<20_000 {
              try? backend.setValue(.integer(.init(Int64(index))), forKey: "thread.\(thread)")
              if backend.value(forKey: "thread.\(thread)") != .integer(.init(Int64(index))) {
                misses += 1
              }
            }
            return misses
          }
        }
        return await group.reduce(0, +)
      }
      #expect(misses == 0)
    }

    @Test func aZeroByteSuiteFileIsAnEmptySuiteLeftInPlace() throws {
      let suite = "TypedDefaultsTests.zero.\(UUID().uuidString)"
      let file = UserDefaultsBackend.fileURL(ofDomain: suite)
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data().write(to: file)
      defer { try? FileManager.default.removeItem(at: file) }
      let (backend, diagnostics) = collectingDiagnostics { UserDefaultsBackend(suiteName: suite) }
      #expect(diagnostics.isEmpty)
      #expect(backend.dictionaryRepresentation().isEmpty)
      #expect(try Data(contentsOf: file).isEmpty)
    }

    @Test func aTruncatedSuiteFileIsMovedAsideWithItsReadableEntriesSalvaged() throws {
      let suite = "TypedDefaultsTests.truncated.\(UUID().uuidString)"
      let file = UserDefaultsBackend.fileURL(ofDomain: suite)
      let folder = file.deletingLastPathComponent()
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      defer { removeFiles(ofSuite: suite) }
      // What corelibs leaves when killed mid-rewrite: the start of its XML file.
      let whole = xmlPropertyList(
        "<dict><key>kept</key><string>yes</string><key>lost</key><string>abcdef</string></dict>")
      let truncated = whole.prefix(whole.count - 40)
      try truncated.write(to: file)
      let (backend, diagnostics) = collectingDiagnostics { UserDefaultsBackend(suiteName: suite) }
      #expect(diagnostics.map(\.kind) == [.corruptFile])
      #expect(diagnostics.first?.message.contains("moved it to '\(file.path).corrupt-") == true)
      let aside = try #require(
        try FileManager.default.contentsOfDirectory(atPath: folder.path)
          .first { $0.hasPrefix("\(suite).plist.corrupt-") })
      #expect(try Data(contentsOf: folder.appendingPathComponent(aside)) == truncated)
      withExtendedLifetime(backend) {}
    }

    @Test func aCorruptSuiteFileFoundByAReloadIsReplacedAtOnceByTheValuesTheBackendHad() throws {
      let suite = "TypedDefaultsTests.reloadRepair.\(UUID().uuidString)"
      let file = UserDefaultsBackend.fileURL(ofDomain: suite)
      defer { removeFiles(ofSuite: suite) }
      let backend = UserDefaultsBackend(suiteName: suite, flushDelay: 3_600)
      try backend.setValue("kept", forKey: "saved")
      try backend.save()
      try backend.setValue(2, forKey: "unsaved")
      try Data("garbage written by an editor".utf8).write(to: file)
      let (_, diagnostics) = try collectingDiagnostics { try backend.reload() }
      #expect(diagnostics.map(\.kind) == [.corruptFile])
      // The file holds the values as last saved at once; the unsaved change stays unsaved.
      #expect(try PropertyListFile(url: file).readDictionary() == ["saved": "kept"])
      #expect(backend.hasUnsavedChanges)
      #expect(backend.dictionaryRepresentation() == ["saved": "kept", "unsaved": 2])
      try backend.save()
      #expect(try PropertyListFile(url: file).readDictionary() == ["saved": "kept", "unsaved": 2])
    }

    /// A corrupt suite file found by a reload or a save is reported once the suite's save lock
    /// is released: a diagnostics handler that saves the same suite used to deadlock. (Should it
    /// come back, this test fails after 10 s, and the test process then hangs at exit, where the
    /// suite's save at exit waits for the lock the stuck thread holds.)
    @Test func aDiagnosticsHandlerThatSavesTheSuiteOnACorruptFileDoesNotDeadlock() throws {
      let suite = "TypedDefaultsTests.handlerSaves.\(UUID().uuidString)"
      let file = UserDefaultsBackend.fileURL(ofDomain: suite)
      defer { removeFiles(ofSuite: suite) }
      let backend = UserDefaultsBackend(suiteName: suite)
      try backend.setValue("here", forKey: "kept")
      try backend.save()
      // Another program replaces the file with a broken one.
      let broken = xmlPropertyList("<dict><key>other</key><string>abcdef</string></dict>")
      try broken.prefix(broken.count - 30).write(to: file)
      let kinds = Locked<[SettingsDiagnostic.Kind]>([])
      let finished = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        SettingsDiagnostics.withHandler({ diagnostic in
          kinds.withLock { $0.append(diagnostic.kind) }
          if diagnostic.kind == .corruptFile { try? backend.save() }
        }) {
          try? backend.reload()
        }
        finished.signal()
      }
      #expect(finished.wait(timeout: .now() + 10) == .success, "reload() never returned")
      #expect(kinds.withLock { $0 }.contains(.corruptFile))
      #expect(backend.value(forKey: "kept") == "here")
    }

    @Test func aWriteIsReadByRawUserDefaultsAtOnce() throws {
      let suite = TemporarySuite()
      try suite.backend.setValue("through the backend", forKey: "a")
      let raw = try #require(UserDefaults(suiteName: suite.name))
      #expect(raw.string(forKey: "a") == "through the backend")
    }

    /// Raw `UserDefaults` writes and removals in the same process were seen only after
    /// `reload()` or `synchronize()` for a key the backend held; on Apple platforms the same
    /// code sees them at once, and now on Linux too, by every read, `hasStoredValue` included.
    @Test func rawUserDefaultsWritesAndRemovalsInTheSameProcessAreSeenAtOnce() async throws {
      let suite = TemporarySuite()
      let backend = suite.backend
      let raw = try #require(UserDefaults(suiteName: suite.name))
      struct Counter: SettingsGroup { @Setting var count = 0 }
      let counter = Counter(backend: backend)
      let received = Received<SettingsChange>()
      let token = backend.observeAllKeys { received.append($0) }
      defer { token.cancel() }

      counter.count = 2
      raw.removeObject(forKey: "count")
      #expect(counter.count == 0)
      #expect(!counter.$count.hasStoredValue)
      raw.set(5, forKey: "count")
      #expect(counter.count == 5)
      raw.set("raw new", forKey: "b")
      #expect(backend.value(forKey: "b") == "raw new")
      #expect(backend.dictionaryRepresentation() == ["count": 5, "b": "raw new"])
      // Taken in as this process's changes: saved like any write, and observed.
      #expect(backend.hasUnsavedChanges)
      try backend.save()
      #expect(try Self.saved(suite.fileURL) == ["count": 5, "b": "raw new"])
      _ = await eventually("the raw changes are observed") {
        received.all.contains(SettingsChange(key: "count", newValue: 5))
          && received.all.contains(SettingsChange(key: "b", newValue: "raw new"))
      }
    }

    @Test func anotherProcesssSaveReachesThisProcesssObserversWhenTheBackendTakesItIn() throws {
      let suite = TemporarySuite()
      try suite.backend.setValues(["kept": 1, "changed": 1])
      try suite.backend.save()
      let received = Received<SettingsChange>()
      let token = suite.backend.observeAllKeys { received.append($0) }
      defer { token.cancel() }
      let run = try runProduct(
        "SettingsProbe", ["userdefaults", suite.name, "set", "changed", "int:2"])
      #expect(run.status == 0, "\(run.standardError)")
      try suite.backend.reload()
      #expect(received.all == [SettingsChange(key: "changed", newValue: 2)])
      #expect(suite.backend.value(forKey: "changed") == 2)
    }

    @Test func corelibsRewritingTheFileInPlaceLosesNoneOfTheBackendsKeys() throws {
      // In a child process: corelibs' synchronize() rewrites every changed suite of its process
      // in place, which would disturb the other tests' suites here.
      let suite = TemporarySuite()
      let run = try runProduct(
        "SettingsProbe", ["userdefaults", suite.name, "ud-corelibs-sync", "go"])
      #expect(run.status == 0, "\(run.standardError)")
      #expect(run.standardOutput == "xml\n")
      #expect(
        try Self.saved(suite.fileURL)
          == ["one": 1, "two": 2, "three": 3, "four": 4])
    }

    /// A 10 MB non-ASCII string (20 MB as UTF-16 in a binary file) used to be accepted, after
    /// which every save of the suite threw `fileTooLarge`, for ever.
    ///
    /// The suite file follows the layered store's rule now: refused when written, naming the key.
    @Test func aValueNoSaveCouldWriteIsRefusedWhenSetAndLaterChangesOfTheSuiteStillSave() throws {
      let suite = TemporarySuite()
      let huge = String(repeating: "é", count: 10_000_000)
      let error = #expect(throws: SettingsError.self) {
        try suite.backend.setValue(.string(huge), forKey: "huge")
      }
      #expect(error?.code == .fileTooLarge)
      #expect(error?.key == "huge")
      #expect(error?.description.contains("'huge'") == true)
      let wasStored = suite.backend.value(forKey: "huge") != nil
      #expect(!wasStored)
      try suite.backend.setValue("small", forKey: "other")
      try suite.backend.save()
      #expect(try Self.saved(suite.fileURL) == ["other": "small"])
      // Through update(forKey:) too, which computes the value under the file lock.
      #expect(throws: SettingsError.self) {
        try suite.backend.update(forKey: "huge") { _ in .string(huge) }
      }
      #expect(try Self.saved(suite.fileURL) == ["other": "small"])
    }

    /// An import that would make the file too large names the key whose value does it, on the
    /// suite file and on `data.plist` alike.
    @Test func anImportTooLargeToSaveNamesTheKeyWhoseValueMakesItTooLarge() throws {
      let values: [String: PropertyListValue] = [
        "a": 1, "b": "small", "huge": .data(Data(count: 17_000_000)),
      ]
      let suite = TemporarySuite()
      let directory = try TemporaryDirectory()
      let store = try LayeredPlistStore(persistentFile: directory.file("data.plist"))
      for backend in [suite.backend, store] as [any SettingsBackend] {
        let error = #expect(throws: SettingsError.self) { try backend.setValues(values) }
        #expect(error?.code == .fileTooLarge, "\(backend.name)")
        #expect(error?.key == "huge", "\(backend.name)")
        #expect(error?.description.contains("'huge'") == true, "\(backend.name)")
        #expect(backend.dictionaryRepresentation().isEmpty, "\(backend.name)")
      }
    }

    @Test func aFractionalDateRoundTripsExactlyThroughTheBinaryFile() throws {
      let suite = TemporarySuite()
      let date = PropertyListValue.date(Date(timeIntervalSinceReferenceDate: 786_000_000.125))
      try suite.backend.setValue(date, forKey: "when")
      try suite.backend.save()
      #expect(try Self.saved(suite.fileURL)?["when"] == date)
    }
  #endif
}

#if !canImport(Darwin)
  /// Removes a test suite's file and everything beside it named after it (its lock file, files
  /// kept aside).
  private func removeFiles(ofSuite suite: String) {
    let folder = UserDefaultsBackend.fileURL(ofDomain: suite).deletingLastPathComponent()
    for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    where name.hasPrefix(suite) {
      try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
    }
  }
#endif

extension CorruptFiles {
  /// Reads a dictionary file as ``read(_:retryInterval:salvaging:)`` does, without salvaging,
  /// throwing for a file judged corrupt (a test's reader, moved here from the library, where
  /// nothing called it).
  ///
  /// - Returns: The file's dictionary, or `nil` if there is no file.
  /// - Throws: ``SettingsError/Code/corruptFile`` or ``SettingsError/Code/wrongRootType`` for a
  ///   file judged corrupt; what ``read(_:retryInterval:salvaging:)`` throws.
  static func readDictionary(
    _ file: PropertyListFile, retryInterval: Double
  ) throws(SettingsError) -> [String: PropertyListValue]? {
    switch try read(file, retryInterval: retryInterval, salvaging: false) {
    case .missing: return nil
    case .read(let entries, _, _, _): return entries
    case .corrupt(let error, _): throw error
    }
  }
}
