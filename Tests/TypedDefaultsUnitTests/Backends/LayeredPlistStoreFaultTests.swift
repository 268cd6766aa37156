import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the layered store promises when things go wrong around `data.plist`: a process killed in
/// the middle of a save, several processes writing at once, and the faults a real disk and a real
/// user produce (read-only, missing or replaced folders, planted links, a full disk).
///
/// The figures the process tests measure (kills, where they landed, keys lost) are printed as
/// `RELIABILITY <name>: <text>` lines, kept in ``figures()``, and published to Docs/Reliability.md
/// (see ``ReliabilityReport``).
@Suite(.tags(.fault)) struct LayeredPlistStoreFaultTests {
  // MARK: - Figures

  /// The figures measured so far in this run, by name.
  static func figures() -> [String: String] {
    recordedFigures.withLock { $0 }
  }

  private static let recordedFigures = Locked<[String: String]>([:])

  /// Records a figure, prints it as one `RELIABILITY <name>: <text>` line, and publishes it to
  /// its section of Docs/Reliability.md (written only with `TYPEDDEFAULTS_WRITE_RELIABILITY=1`).
  private static func report(_ name: String, _ text: String) {
    recordedFigures.withLock { $0[name] = text }
    print("RELIABILITY \(name): \(text)")
    ReliabilityReport.publish(name, markdown: text + ".", deterministic: false)
  }

  // MARK: - Helpers

  /// A small, seeded generator (SplitMix64), so a run's kill timings can be replayed.
  struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var mixed = state
      mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
      mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
      return mixed ^ (mixed >> 31)
    }
  }

  /// State `counter` as `SettingsProbe … save-states` saves it (see Tests/SettingsProbe).
  static func savedState(_ counter: Int64) -> [String: PropertyListValue] {
    [
      "counter": .integer(.init(counter)),
      "payload": .string(String(repeating: "\(counter) ", count: 500)),
    ]
  }

  /// Options for the stores the tests open themselves: nothing saved behind the test's back.
  private static let quiet = LayeredPlistStore.Options(savesAtExit: false)

  private static func probe(_ arguments: [String]) -> Process {
    let process = Process()
    process.executableURL = TestPaths.productsDirectory.appendingPathComponent("SettingsProbe")
    process.arguments = arguments
    return process
  }

  /// The temporary files a save makes (`.data.plist.<pid>.<random>.tmp`) left in `folder`.
  private static func temporaryFiles(in folder: URL) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".tmp") }.sorted()
  }

  /// Whether something (a file, a folder, a link, even a dangling one) is at `url`.
  private static func exists(_ url: URL) -> Bool {
    var info = stat()
    return lstat(url.path, &info) == 0
  }

  private static func isSymbolicLink(_ url: URL) -> Bool {
    var info = stat()
    return lstat(url.path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
  }

  /// A save that must fail: a `SettingsError` of code `fileNotWritable` whose message names
  /// `path`, with the changes kept in memory.
  @discardableResult
  private static func expectSaveFails(
    _ store: LayeredPlistStore,
    naming path: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> SettingsError? {
    let error = #expect(throws: SettingsError.self, sourceLocation: sourceLocation) {
      try store.save()
    }
    #expect(
      error?.code == .fileNotWritable, "\(String(describing: error))",
      sourceLocation: sourceLocation)
    #expect(
      error?.description.contains(path) == true, "\(String(describing: error)) names \(path)",
      sourceLocation: sourceLocation)
    #expect(store.hasUnsavedChanges, sourceLocation: sourceLocation)
    return error
  }

  /// Runs a command, for the few system tools the faults need (`chattr`, `mount`, `umount`).
  @discardableResult
  private static func system(_ arguments: [String]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return false }
    let processEnding = process.waitForExit()
    return !processEnding.signalled && processEnding.status == 0
  }

  /// The pid of a process that has exited and been reaped.
  private static func deadProcessIdentifier() throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["true"]
    try process.run()
    _ = process.waitForExit()
    return process.processIdentifier
  }

  // MARK: - Fault environment

  /// How a folder is made read-only here: permissions for an ordinary user; for root, whom
  /// permissions don't stop, the immutable attribute (`chattr +i`) where the file system has
  /// it, else a tmpfs mounted on the folder and remounted read-only.
  enum ReadOnlyFolders {
    enum Method { case permissions, immutable, readOnlyMount }

    /// The method that works here, or `nil` if none does.
    static let method: Method? = {
      guard geteuid() == 0 else { return .permissions }
      #if os(Linux)
        guard let probe = try? TemporaryDirectory() else { return nil }
        defer { withExtendedLifetime(probe) {} }
        if system(["chattr", "+i", probe.url.path]) {
          let blocked = !FileManager.default.createFile(
            atPath: probe.file("x").path, contents: Data())
          _ = system(["chattr", "-i", probe.url.path])
          if blocked { return .immutable }
        }
        let folder = probe.file("mounted")
        guard
          (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false))
            != nil,
          SmallDisk.mount(folder)
        else { return nil }
        defer { SmallDisk.unmount(folder) }
        let remounted = system(["mount", "-o", "remount,ro", folder.path])
        let blocked = !FileManager.default.createFile(
          atPath: folder.appendingPathComponent("x").path, contents: Data())
        return remounted && blocked ? .readOnlyMount : nil
      #else
        return nil
      #endif
    }()

    /// Creates `folder`, on its own tmpfs if that is how it will be made read-only; the returned
    /// closure undoes it.
    static func create(_ folder: URL) throws -> () -> Void {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
      guard method == .readOnlyMount else { return {} }
      try #require(SmallDisk.mount(folder), "mount a tmpfs on \(folder.path)")
      return { SmallDisk.unmount(folder) }
    }

    static func makeReadOnly(_ folder: URL) throws {
      switch method {
      case .permissions?:
        try FileManager.default.setAttributes(
          [.posixPermissions: 0o500], ofItemAtPath: folder.path)
      case .immutable?:
        try #require(system(["chattr", "+i", folder.path]), "chattr +i \(folder.path)")
      case .readOnlyMount?:
        try #require(
          system(["mount", "-o", "remount,ro", folder.path]), "remount \(folder.path) read-only")
      case nil:
        Issue.record("no way to make a folder read-only here")
      }
    }

    static func makeWritable(_ folder: URL) {
      switch method {
      case .permissions?:
        try? FileManager.default.setAttributes(
          [.posixPermissions: 0o700], ofItemAtPath: folder.path)
      case .immutable?:
        _ = system(["chattr", "-i", folder.path])
      case .readOnlyMount?:
        _ = system(["mount", "-o", "remount,rw", folder.path])
      case nil:
        break
      }
    }
  }

  /// A small tmpfs, to fill: Linux only, and only with permission to mount (root).
  enum SmallDisk {
    static let available: Bool = {
      #if os(Linux)
        guard geteuid() == 0, let probe = try? TemporaryDirectory() else { return false }
        defer { withExtendedLifetime(probe) {} }
        guard mount(probe.url) else { return false }
        unmount(probe.url)
        return true
      #else
        return false
      #endif
    }()

    static func mount(_ folder: URL) -> Bool {
      system(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", folder.path])
    }

    static func unmount(_ folder: URL) {
      if !system(["umount", folder.path]) { _ = system(["umount", "-l", folder.path]) }
    }

    /// Writes `file` until the disk is full, down to the last byte.
    static func fill(_ file: URL) throws {
      let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
      try #require(descriptor >= 0, "open \(file.path)")
      defer { close(descriptor) }
      let chunk = [UInt8](repeating: 0x55, count: 4096)
      for size in [4096, 512, 1] {
        var guardRail = 0
        while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, size) }) == size {
          guardRail += 1
          try #require(guardRail < 100_000, "the small disk never filled")
        }
      }
      #expect(errno == ENOSPC, "filling stopped with \(String(cString: strerror(errno)))")
    }
  }

  // MARK: - 1. SIGKILL during saves

  /// Kills a process saving successive states with SIGKILL at random moments, at least 100
  /// times: after every kill the file parses and holds one complete state, the last one the
  /// process reported saved or the one after it; and a store opened afterwards leaves no
  /// temporary file in the folder.
  @Test func aProcessKilledAtRandomMomentsWhileSavingLeavesOneCompleteState() throws {
    let environment = ProcessInfo.processInfo.environment
    let rounds = max(100, environment["TYPEDDEFAULTS_FAULT_ROUNDS"].flatMap { Int($0) } ?? 100)
    let seed = environment["TYPEDDEFAULTS_FAULT_SEED"].flatMap { UInt64($0) } ?? 20_261_201
    var random = SeededGenerator(state: seed)
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let file = directory.file("data.plist")
    do {
      let first = try LayeredPlistStore(persistentFile: file, options: Self.quiet)
      try first.setValues(Self.savedState(0))
      try first.save()
    }

    var onDisk: Int64 = 0
    var seenTemporary: Set<String> = []
    var roundsWithLeftovers = 0
    var firstLeftovers: String?
    var (kills, midWrite, afterRename, betweenSaves, saves) = (0, 0, 0, 0, 0)
    let clock = ContinuousClock()
    let start = clock.now
    for round in 0..<rounds {
      let process = Self.probe(["layered", file.path, "save-states", "\(onDisk + 1)"])
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
      // Most kills land inside a save (a save takes a few milliseconds, mostly fsync); some
      // before the first one, some after a few.
      let delay = UInt32.random(in: 0...12_000, using: &random)
      if delay > 0 { usleep(delay) }
      kill(process.processIdentifier, SIGKILL)
      let processEnding = process.waitForExit()
      buffer.append(reader.readDataToEndOfFile())
      try reader.close()
      let lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n")
      try #require(
        lines.first == "ready", "round \(round): the probe did not start: \(lines.prefix(3))")
      try #require(
        processEnding.signalled && processEnding.status == SIGKILL,
        "round \(round): the probe ended by itself (status \(processEnding.status))")
      kills += 1
      let reported = lines.dropFirst().compactMap {
        $0.split(separator: " ").last.flatMap { Int64($0) }
      }
      saves += reported.count
      let lastComplete = reported.last ?? onDisk

      // The temporary file this kill left, if any (earlier ones are counted in their round).
      let leftBehind = Self.temporaryFiles(in: directory.url).filter { !seenTemporary.contains($0) }
      seenTemporary.formUnion(leftBehind)
      let saved = try #require(try PropertyListFile(url: file).readDictionary(), "round \(round)")
      let counter = try #require(saved["counter"]?.intValue, "round \(round): \(saved.keys)")
      #expect(
        counter == lastComplete || counter == lastComplete + 1,
        "round \(round): state \(counter) on disk, \(lastComplete) last reported saved")
      #expect(saved == Self.savedState(Int64(counter)), "round \(round): state \(counter)")
      if !leftBehind.isEmpty {
        midWrite += 1
      } else if counter == lastComplete + 1 {
        afterRename += 1
      } else {
        betweenSaves += 1
      }
      #expect(leftBehind.count <= 1, "round \(round): \(leftBehind)")

      // A store opening the file clears what the killed process left.
      let reopened = try LayeredPlistStore(persistentFile: file, options: Self.quiet)
      #expect(reopened.dictionaryRepresentation() == saved, "round \(round)")
      let remaining = Self.temporaryFiles(in: directory.url)
      if !remaining.isEmpty {
        roundsWithLeftovers += 1
        firstLeftovers = firstLeftovers ?? "round \(round): \(remaining)"
      }
      onDisk = Int64(counter)
    }
    let elapsed = clock.now - start
    #expect(
      roundsWithLeftovers == 0,
      "left after opening a store in \(roundsWithLeftovers) rounds, first \(firstLeftovers ?? "-")")
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    #expect(names.filter { !$0.hasSuffix(".tmp") }.sorted() == ["data.plist", "data.plist.lock"])
    #expect(kills == rounds)

    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    Self.report(
      "sigkill.kills",
      "\(kills) SIGKILLs during \(saves) completed saves in \(String(format: "%.1f", seconds)) s "
        + "(seed \(seed)); the file parsed and held one complete state after every kill")
    Self.report(
      "sigkill.landed",
      "\(midWrite) before the rename (temporary file half-written or being flushed), "
        + "\(afterRename) after the rename (new state on disk, save not yet returned), "
        + "\(betweenSaves) before the temporary file existed (between saves, or while locking and "
        + "merging: old state on disk)")
    Self.report(
      "sigkill.leftovers",
      "\(midWrite) kills left a temporary file; \(roundsWithLeftovers) rounds still had one "
        + "after a store opened the folder")
  }

  // MARK: - 2. Concurrent writers

  @Test(arguments: [2, 4, 8])
  func processesWritingDisjointKeysAtOnceLoseNone(_ count: Int) throws {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let file = directory.file("data.plist")
    let keysEach = 50
    let processes = (0..<count).map { index in
      Self.probe(["layered", file.path, "write-keys", "p\(index)", "\(keysEach)"])
    }
    for process in processes { try process.run() }
    for (index, process) in processes.enumerated() {
      let processEnding = process.waitForExit()
      #expect(processEnding.status == 0, "writer \(index)")
    }
    let saved = try #require(try PropertyListFile(url: file).readDictionary())
    var expected: [String: PropertyListValue] = [:]
    for index in 0..<count {
      for key in 0..<keysEach { expected["p\(index).\(key)"] = .integer(.init(Int64(key))) }
    }
    let lost = expected.keys.filter { saved[$0] != expected[$0] }.count
    #expect(lost == 0)
    #expect(saved == expected)
    #expect(Self.temporaryFiles(in: directory.url).isEmpty)
    Self.report(
      "writers.\(count)",
      "\(count) processes × \(keysEach) keys, a save per key: \(lost) of \(count * keysEach) "
        + "keys lost")
  }

  @Test func fourProcessesIncrementingOneKeyLoseNoIncrement() throws {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let file = directory.file("data.plist")
    let (count, increments) = (4, 25)
    let processes = (0..<count).map { _ in
      Self.probe(["layered", file.path, "increment", "count", "\(increments)"])
    }
    for process in processes { try process.run() }
    for process in processes {
      let processEnding = process.waitForExit()
      #expect(processEnding.status == 0)
    }
    let saved = try #require(try PropertyListFile(url: file).readDictionary())
    #expect(saved == ["count": .integer(.init(Int64(count * increments)))])
    let total = saved["count"]?.intValue ?? 0
    Self.report(
      "increments",
      "\(count) processes × \(increments) update(forKey:) increments: \(total) of "
        + "\(count * increments) counted, \(count * increments - total) lost")
  }

  // MARK: - 3. Faults

  /// A store on `<folder>/data.plist` that has saved `["a": 1]` and holds the unsaved changes
  /// `a = 2`, `b = 3`; and the saved file's bytes.
  private static func storeWithUnsavedChanges(
    in folder: URL
  ) throws -> (store: LayeredPlistStore, file: URL, saved: Data) {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("data.plist")
    let store = try LayeredPlistStore(persistentFile: file, options: quiet)
    try store.setValue(1, forKey: "a")
    try store.save()
    try store.setValue(2, forKey: "a")
    try store.setValue(3, forKey: "b")
    return (store, file, try Data(contentsOf: file))
  }

  @Test(
    .enabled(
      if: ReadOnlyFolders.method != nil,
      "root ignores permissions, chattr +i does not work here, nor does a read-only mount"))
  func aReadOnlyFolderFailsTheSaveAndKeepsTheOldFile() throws {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let folder = directory.file("settings")
    let remove = try ReadOnlyFolders.create(folder)
    defer { remove() }
    let (store, file, saved) = try Self.storeWithUnsavedChanges(in: folder)
    try ReadOnlyFolders.makeReadOnly(folder)
    var readOnly = true
    defer { if readOnly { ReadOnlyFolders.makeWritable(folder) } }

    Self.expectSaveFails(store, naming: file.path)
    #expect(try Data(contentsOf: file) == saved)
    #expect(Self.temporaryFiles(in: folder).isEmpty)

    ReadOnlyFolders.makeWritable(folder)
    readOnly = false
    try store.save()
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": 2, "b": 3])
    #expect(!store.hasUnsavedChanges)
  }

  @Test func aMissingFolderFailsTheSaveAndASaveAfterItIsBackSucceeds() throws {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let folder = directory.file("settings")
    let (store, file, saved) = try Self.storeWithUnsavedChanges(in: folder)
    let away = directory.file("away")
    try FileManager.default.moveItem(at: folder, to: away)

    let error = Self.expectSaveFails(store, naming: file.path)
    #expect(error?.reason == "The folder '\(folder.path)' does not exist")
    #expect(!Self.exists(folder))
    #expect(try Data(contentsOf: away.appendingPathComponent("data.plist")) == saved)

    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
    try store.save()
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": 2, "b": 3])
    #expect(!store.hasUnsavedChanges)
    #expect(try Data(contentsOf: away.appendingPathComponent("data.plist")) == saved)
  }

  @Test func aFolderReplacedByAFileIsNeitherWrittenNorReplaced() throws {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let folder = directory.file("settings")
    let (store, file, saved) = try Self.storeWithUnsavedChanges(in: folder)
    let away = directory.file("away")
    try FileManager.default.moveItem(at: folder, to: away)
    let blocker = Data("not a folder".utf8)
    try blocker.write(to: folder)

    let error = Self.expectSaveFails(store, naming: file.path)
    #expect(error?.reason == "'\(folder.path)' is not a folder")
    #expect(try Data(contentsOf: folder) == blocker)
    #expect(try Data(contentsOf: away.appendingPathComponent("data.plist")) == saved)

    try FileManager.default.removeItem(at: folder)
    try FileManager.default.moveItem(at: away, to: folder)
    try store.save()
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": 2, "b": 3])
    #expect(!store.hasUnsavedChanges)
  }

  @Test func aFolderReplacedByAnotherFolderGetsTheSaveAndTheOldOneIsLeftAlone() throws {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let folder = directory.file("settings")
    let (store, file, saved) = try Self.storeWithUnsavedChanges(in: folder)
    let away = directory.file("away")
    try FileManager.default.moveItem(at: folder, to: away)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)

    try store.save()
    #expect(!store.hasUnsavedChanges)
    // The new folder had no file: the save writes this process's changes there.
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": 2, "b": 3])
    #expect(try Data(contentsOf: away.appendingPathComponent("data.plist")) == saved)
    #expect(Self.temporaryFiles(in: folder).isEmpty)
    #expect(Self.temporaryFiles(in: away).isEmpty)
  }

  @Test func linksPlantedAtTemporaryNamesAreNeverFollowed() throws {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let folder = directory.file("settings")
    let outside = directory.file("outside")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
    let victim = outside.appendingPathComponent("victim")
    let victimBytes = Data("someone else's file".utf8)
    try victimBytes.write(to: victim)
    let pid = ProcessInfo.processInfo.processIdentifier
    let dead = try Self.deadProcessIdentifier()
    // The names a careless writer would use, and a stale temporary file of a dead process.
    let planted = [
      ".data.plist.tmp", "data.plist.tmp", "data.plist~", "data.plist.new",
      ".data.plist.\(pid).tmp", ".data.plist.\(pid).0.tmp", ".data.plist.\(dead).7.tmp",
    ]
    for (index, name) in planted.enumerated() {
      // Every other link points at a file that doesn't exist yet: it must not be created.
      let destination = index.isMultiple(of: 2) ? victim.path : outside.path + "/new-\(index)"
      try FileManager.default.createSymbolicLink(
        atPath: folder.appendingPathComponent(name).path, withDestinationPath: destination)
    }
    let file = folder.appendingPathComponent("data.plist")
    let store = try LayeredPlistStore(persistentFile: file, options: Self.quiet)
    for index in 0..<3 {
      try store.setValue(.integer(.init(Int64(index))), forKey: "a")
      try store.save()
    }
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": 2])
    #expect(!Self.isSymbolicLink(file))
    #expect(try Data(contentsOf: victim) == victimBytes)
    #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["victim"])
    for name in planted.dropLast() {
      #expect(Self.isSymbolicLink(folder.appendingPathComponent(name)), "\(name)")
    }
  }

  @Test func staleTemporaryFilesOfDeadProcessesAreRemovedWhenAStoreOpensAndBySaves() throws {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let file = directory.file("data.plist")
    try PropertyListFile(url: file).write(["a": 1])
    let dead = try Self.deadProcessIdentifier()
    let victim = directory.file("victim")
    try Data("kept".utf8).write(to: victim)
    for random in [1, 4_294_967_295] {
      try Data("half a plist".utf8).write(to: directory.file(".data.plist.\(dead).\(random).tmp"))
    }
    // A link in a stale temporary file's place: removed, never followed.
    try FileManager.default.createSymbolicLink(
      atPath: directory.file(".data.plist.\(dead).2.tmp").path, withDestinationPath: victim.path)
    // A live process's (pid 1's) temporary file may be a save in progress: left alone.
    let live = directory.file(".data.plist.1.3.tmp")
    try Data("in progress".utf8).write(to: live)
    try Data("not ours".utf8).write(to: directory.file("notes.tmp.txt"))

    let store = try LayeredPlistStore(persistentFile: file, options: Self.quiet)
    #expect(Self.temporaryFiles(in: directory.url) == [".data.plist.1.3.tmp"])
    #expect(try Data(contentsOf: victim) == Data("kept".utf8))
    #expect(try Data(contentsOf: directory.file("notes.tmp.txt")) == Data("not ours".utf8))
    #expect(store.value(forKey: "a") == 1)

    // Saves remove them too, at most once a minute: one left since, and the minute passed.
    try Data("half a plist".utf8).write(to: directory.file(".data.plist.\(dead).5.tmp"))
    try store.setValue(2, forKey: "a")
    try store.save()
    #expect(Self.temporaryFiles(in: directory.url).count == 2)  // within the minute: kept
    store.persisted.lastTemporaryFileCleanup.withLock {
      $0 = DispatchTime.now().uptimeNanoseconds &- 61_000_000_000
    }
    try store.setValue(3, forKey: "a")
    try store.save()
    #expect(Self.temporaryFiles(in: directory.url) == [".data.plist.1.3.tmp"])
    #expect(try Data(contentsOf: live) == Data("in progress".utf8))
  }

  @Test func aLockFileThatIsALinkIsNeverFollowed() throws {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let outside = directory.file("outside")
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
    let folder = directory.file("settings")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
    let file = folder.appendingPathComponent("data.plist")
    try PropertyListFile(url: file).write(["a": 1])
    let bytes = try Data(contentsOf: file)
    let lock = folder.appendingPathComponent("data.plist.lock")
    let target = outside.appendingPathComponent("planted.lock")
    try FileManager.default.createSymbolicLink(atPath: lock.path, withDestinationPath: target.path)

    do {
      let store = try LayeredPlistStore(persistentFile: file, options: Self.quiet)
      try store.setValue(2, forKey: "a")
      let error = #expect(throws: SettingsError.self) { try store.save() }
      #expect(error?.code == .fileNotWritable)
      #expect(error?.description.contains(lock.path) == true, "\(String(describing: error))")
      #expect(store.hasUnsavedChanges)
    } catch {
      // Refusing to open is as good, provided the error names the lock.
      #expect(error.code == .fileNotWritable)
      #expect(error.description.contains(lock.path), "\(error)")
    }
    #expect(!Self.exists(target))
    #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
    #expect(Self.isSymbolicLink(lock))
    #expect(try Data(contentsOf: file) == bytes)
  }

  @Test func aCorruptFileReachedThroughALinkIsNeverRenamedOrRecreated() throws {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let real = directory.file("real.plist")
    let link = directory.file("data.plist")
    let corrupt = Data("<?xml version=\"1.0\"?><plist><dict><key>a</key>".utf8)
    try corrupt.write(to: real)
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.plist")

    let (store, diagnostics) = try collectingDiagnostics {
      try LayeredPlistStore(persistentFile: link, options: Self.quiet)
    }
    #expect(diagnostics.map(\.kind) == [.corruptFile])
    try store.setValue(2, forKey: "a")
    Self.expectSaveFails(store, naming: link.path)
    #expect(try Data(contentsOf: real) == corrupt)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real.plist")
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    #expect(!names.contains { $0.contains("corrupt") }, "\(names)")
    #expect(Self.temporaryFiles(in: directory.url).isEmpty)

    // The user removes the broken file: the save creates it where the link points.
    try FileManager.default.removeItem(at: real)
    try store.save()
    #expect(try PropertyListFile(url: real).readDictionary() == ["a": 2])
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real.plist")
  }

  /// The names a corrupt `data.plist` is moved aside to at `date`: `data.plist.corrupt-<stamp>`
  /// and the same with `-2`, `-3` and so on.
  private static func asideNames(at date: Date, counters: ClosedRange<Int>) -> [String] {
    let stamp = date.formatted(
      Date.ISO8601FormatStyle(
        dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted,
        timeZone: .gmt))
    return counters.map { "data.plist.corrupt-\(stamp)" + ($0 == 1 ? "" : "-\($0)") }
  }

  @Test func aCorruptFileThatCannotBeMovedAsideIsNeverWrittenOver() throws {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let file = directory.file("data.plist")
    let corrupt = Data("bplist00garbage".utf8)
    try corrupt.write(to: file)
    // Every name it could be moved aside to in the next 20 seconds is taken, by dangling links
    // (which a check with stat would miss); the store tries far fewer than 200 names.
    let now = Date()
    let planted = (0..<20).flatMap {
      Self.asideNames(at: now + Double($0), counters: 1...200).map(directory.file)
    }
    for link in planted {
      try FileManager.default.createSymbolicLink(
        atPath: link.path, withDestinationPath: "planted-target")
    }

    let (store, diagnostics) = try collectingDiagnostics {
      try LayeredPlistStore(persistentFile: file, options: Self.quiet)
    }
    #expect(diagnostics.map(\.kind) == [.corruptFile])
    #expect(store.recoveredProblems.map(\.code) == [.corruptFile])
    #expect(try Data(contentsOf: file) == corrupt)
    try store.setValue("fresh", forKey: "a")
    Self.expectSaveFails(store, naming: file.path)
    #expect(try Data(contentsOf: file) == corrupt)
    #expect(!Self.exists(directory.file("planted-target")))
    #expect(planted.allSatisfy(Self.isSymbolicLink))
    #expect(Self.temporaryFiles(in: directory.url).isEmpty)

    // The obstacle gone, the save moves the corrupt file aside and goes ahead.
    for link in planted { try FileManager.default.removeItem(at: link) }
    let (_, saveDiagnostics) = try collectingDiagnostics { try store.save() }
    #expect(saveDiagnostics.map(\.kind) == [.corruptFile])
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": "fresh"])
    #expect(!store.hasUnsavedChanges)
    let asides = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
      .filter { $0.hasPrefix("data.plist.corrupt-") }
    #expect(asides.count == 1)
    #expect(try asides.map { try Data(contentsOf: directory.file($0)) } == [corrupt])
  }

  @Test func aCorruptFileWhoseAsideNameWouldBeTooLongIsMovedAsideUnderAShorterOne() throws {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    // 231 bytes: `<name>.corrupt-<stamp>` would not fit in 255, a temporary file's name
    // (`.<name>.<pid>.<random>.tmp`) still does.
    let name = String(repeating: "x", count: 231 - 6) + ".plist"
    let file = directory.file(name)
    let corrupt = Data("bplist00garbage".utf8)
    try corrupt.write(to: file)

    let (store, diagnostics) = try collectingDiagnostics {
      try LayeredPlistStore(persistentFile: file, options: Self.quiet)
    }
    #expect(diagnostics.map(\.kind) == [.corruptFile])
    #expect(store.recoveredProblems.map(\.code) == [.corruptFile])
    let asides = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
      .filter { $0.contains(".corrupt-") }
    #expect(asides.count == 1)
    #expect(asides.allSatisfy { $0.utf8.count <= 255 && name.hasPrefix($0.prefix(200)) })
    #expect(try asides.map { try Data(contentsOf: directory.file($0)) } == [corrupt])
    try store.setValue("fresh", forKey: "a")
    try store.save()
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": "fresh"])
  }

  @Test(
    .enabled(
      if: SmallDisk.available,
      "mounting a small tmpfs to fill needs Linux and permission to mount (root)"))
  func aFullDiskFailsTheSaveLeavingTheOldFileAndNoTemporaryFile() throws {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let disk = directory.file("disk")
    try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: false)
    try #require(SmallDisk.mount(disk), "mount -t tmpfs -o size=64k tmpfs \(disk.path)")
    defer { SmallDisk.unmount(disk) }

    let file = disk.appendingPathComponent("data.plist")
    let store = try LayeredPlistStore(persistentFile: file, options: Self.quiet)
    try store.setValue("small", forKey: "a")
    try store.save()
    let saved = try Data(contentsOf: file)
    let filler = disk.appendingPathComponent("filler")
    try SmallDisk.fill(filler)

    let big = PropertyListValue.string(String(repeating: "x", count: 16_000))
    try store.setValue(big, forKey: "big")
    Self.expectSaveFails(store, naming: file.path)
    #expect(try Data(contentsOf: file) == saved)
    #expect(Self.temporaryFiles(in: disk).isEmpty)

    try FileManager.default.removeItem(at: filler)
    try store.save()
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": "small", "big": big])
    #expect(!store.hasUnsavedChanges)
    #expect(Self.temporaryFiles(in: disk).isEmpty)
  }

  /// Another program replaces `data.plist`, ignoring the lock, with a corrupt file and about
  /// 150 ms later with a valid one, while a store opens it: judging takes four reads 50 ms apart,
  /// so the store judges the file corrupt about when it is replaced.
  ///
  /// Whatever the timing, a store moves aside only the corrupt file it judged, never the valid one
  /// that replaced it.
  @Test func onlyTheCorruptFileThatWasJudgedIsMovedAside() throws {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let file = directory.file("data.plist")
    let corrupt = Data("bplist00garbage".utf8)
    let valid: [String: PropertyListValue] = ["state": "valid"]
    let (corruptFile, validFile) = (directory.file("corrupt.bytes"), directory.file("valid.bytes"))
    try corrupt.write(to: corruptFile)
    try PropertyListFile(url: validFile).write(.dictionary(valid), format: .binary)
    try PropertyListFile(url: file).write(.dictionary(valid), format: .binary)

    let flipper = Self.probe(["layered", file.path, "flip", corruptFile.path, validFile.path])
    let (input, output) = (Pipe(), Pipe())
    flipper.standardInput = input
    flipper.standardOutput = output
    try flipper.run()
    defer {
      kill(flipper.processIdentifier, SIGKILL)
      _ = flipper.waitForExit()
    }
    /// Reads the flipper's next line, blocking until it comes.
    var pending = Data()
    func nextLine() -> String? {
      while true {
        if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
          defer { pending.removeSubrange(...end) }
          return String(decoding: pending[..<end], as: UTF8.self)
        }
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { return nil }
        pending.append(chunk)
      }
    }

    var random = SeededGenerator(state: 0x0C0F_FEE5)
    let trials = 12
    var (judged, loaded, unreadable) = (0, 0, 0)
    for trial in 0..<trials {
      let pause = Int.random(in: 140_000...165_000, using: &random)
      try input.fileHandleForWriting.write(contentsOf: Data("\(pause)\n".utf8))
      try #require(nextLine() == "A", "trial \(trial): the flipper did not replace the file")
      do {
        let (store, _) = try collectingDiagnostics {
          try LayeredPlistStore(persistentFile: file, options: Self.quiet)
        }
        if store.recoveredProblems.isEmpty {
          loaded += 1
          // The valid file, or none: a corrupt one moved aside before the valid one came.
          let contents = store.dictionaryRepresentation()
          #expect(contents == valid || contents.isEmpty, "trial \(trial): \(contents)")
        } else {
          judged += 1
        }
      } catch {
        // A file that kept changing is not judged at all.
        unreadable += 1
        #expect((error as? SettingsError)?.code == .fileNotReadable, "trial \(trial): \(error)")
      }
      try #require(nextLine() == "B", "trial \(trial): the flipper did not finish")
    }
    try input.fileHandleForWriting.close()
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    let asides = names.filter { $0.hasPrefix("data.plist.corrupt-") }
    for aside in asides {
      #expect(
        try Data(contentsOf: directory.file(aside)) == corrupt, "\(aside): not the corrupt file")
    }
    #expect(asides.count <= judged)
    Self.report(
      "corrupt.identity",
      "\(trials) opens of a file replaced while being judged corrupt: \(judged) judged it corrupt, "
        + "\(loaded) read the valid file, \(unreadable) found it changing; \(asides.count) moved "
        + "aside, every one the corrupt file judged")
  }

  // MARK: - Processes this one can't see, and kills in the middle of a move aside

  /// A save in progress in another PID namespace (a sidecar container sharing the folder): the
  /// saver holds the file lock and has written its temporary file, whose pid means nothing here.
  ///
  /// `openSecond` opens another store on the file meanwhile; the temporary file must survive it,
  /// and the saver's rename succeed.
  private static func saveInAnotherNamespace(
    of file: URL, writing values: [String: PropertyListValue], openSecond: () throws -> Void
  ) throws -> Bool {
    let invisible = try Self.deadProcessIdentifier()
    let temporary =
      file.deletingLastPathComponent().appendingPathComponent(
        AtomicFile.temporaryPrefix(for: file) + "\(invisible).42.tmp")
    let bytes = try PropertyListFile.encode(.dictionary(values), format: .binary)
    var opened: (any Error)?
    let renamed = try AtomicFile.withLock(on: file) { () throws(SettingsError) -> Bool in
      // Not locked itself: the store's lock alone must keep it.
      guard (try? bytes.write(to: temporary)) != nil else { return false }
      do { try openSecond() } catch { opened = error }
      return rename(temporary.path, file.path) == 0
    }
    if let opened { throw opened }
    return renamed
  }

  @Test func aLiveTemporaryFileOfASaverInAnotherPIDNamespaceSurvivesAStoreOpening() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try PropertyListFile(url: file).write(["a": 1], format: .binary)
    let renamed = try Self.saveInAnotherNamespace(of: file, writing: ["a": 2]) {
      let second = try LayeredPlistStore(persistentFile: file, options: Self.quiet)
      #expect(second.value(forKey: "a") == 1)
    }
    #expect(renamed)
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": 2])
    #expect(Self.temporaryFiles(in: directory.url) == [])
  }

  @Test func aLiveTemporaryFileOfASaverInAnotherPIDNamespaceSurvivesASuiteOpening() throws {
    let suite = "TypedDefaultsTests.namespace.\(UUID().uuidString)"
    let file = UserDefaultsBackend.fileURL(ofDomain: suite)
    defer {
      for path in [file.path, file.path + ".lock"] {
        try? FileManager.default.removeItem(atPath: path)
      }
    }
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try PropertyListFile(url: file).write(["a": 1], format: .binary)
    let renamed = try Self.saveInAnotherNamespace(of: file, writing: ["a": 2]) {
      let backend = UserDefaultsBackend(suiteName: suite)
      #expect(backend.value(forKey: "a") == 1)
    }
    #expect(renamed)
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": 2])
  }

  @Test func aLockedTemporaryFileOfAProcessNotVisibleHereSurvivesAStoreOpeningWithoutTheLock()
    throws
  {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try PropertyListFile(url: file).write(["a": 1], format: .binary)
    // A write in progress that holds its temporary file locked, as every write does, but not
    // the store's lock (a program writing the file with `PropertyListFile`, or through another
    // path to it), in another PID namespace.
    let name = ".data.plist.\(try Self.deadProcessIdentifier()).9.tmp"
    try Data("in progress".utf8).write(to: directory.file(name))
    let descriptor = open(directory.file(name).path, O_WRONLY)
    #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
    _ = try LayeredPlistStore(persistentFile: file, options: Self.quiet)
    #expect(Self.temporaryFiles(in: directory.url) == [name])
    // Killed: its lock goes with it, and the next open removes the file.
    close(descriptor)
    _ = try LayeredPlistStore(persistentFile: file, options: Self.quiet)
    #expect(Self.temporaryFiles(in: directory.url) == [])
  }

  /// Leaves `bytes` as a process killed in the middle of moving `data.plist` aside leaves them:
  /// under the private name, hidden.
  private static func leaveHiddenAside(
    _ bytes: Data, in directory: TemporaryDirectory
  ) throws
    -> String
  {
    let name =
      CorruptFiles.holdingPrefix(for: directory.file("data.plist"))
      + "\(try deadProcessIdentifier())-77.tmp"
    try bytes.write(to: directory.file(name))
    return name
  }

  @Test func aCorruptFileLeftHiddenByAKillDuringItsMoveAsideIsMovedAsideAndReportedAtTheNextOpen()
    throws
  {
    let directory = try TemporaryDirectory()
    let garbage = Data("not a property list <<<".utf8)
    let hidden = try Self.leaveHiddenAside(garbage, in: directory)
    let (store, diagnostics) = try collectingDiagnostics {
      try LayeredPlistStore(persistentFile: directory.file("data.plist"), options: Self.quiet)
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    let asides = names.filter { $0.hasPrefix("data.plist.corrupt-") }
    #expect(!names.contains(hidden))
    #expect(!names.contains("data.plist"))
    #expect(asides.count == 1)
    #expect(try asides.first.map { try Data(contentsOf: directory.file($0)) } == garbage)
    #expect(store.recoveredProblems.map(\.code) == [.corruptFile])
    #expect(diagnostics.map(\.kind) == [.corruptFile])
    #expect(store.dictionaryRepresentation() == [:])
  }

  @Test func aCorruptFileLeftHiddenByAKillBesideANewerFileIsKeptAsideAndReported() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let garbage = Data("not a property list <<<".utf8)
    let hidden = try Self.leaveHiddenAside(garbage, in: directory)
    // Another process saved since the kill.
    try PropertyListFile(url: file).write(["a": 1], format: .binary)
    let (store, diagnostics) = try collectingDiagnostics {
      try LayeredPlistStore(persistentFile: file, options: Self.quiet)
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    let asides = names.filter { $0.hasPrefix("data.plist.corrupt-") }
    #expect(!names.contains(hidden))
    #expect(asides.count == 1)
    #expect(try asides.first.map { try Data(contentsOf: directory.file($0)) } == garbage)
    #expect(store.value(forKey: "a") == 1)
    #expect(store.recoveredProblems.count == 1)
    #expect(store.recoveredProblems.first?.reason.contains("'\(hidden)'") == true)
    #expect(diagnostics.count == 1)
    #expect(diagnostics.first?.message.contains(asides[0]) == true)
    #expect(diagnostics.first?.message.contains("left as it is") == true)
  }

  @Test func aGoodFileCaughtByAKillDuringAMoveAsideIsPutBackAtTheNextOpen() throws {
    let directory = try TemporaryDirectory()
    let good = try PropertyListFile.encode(["a": 7], format: .binary)
    let hidden = try Self.leaveHiddenAside(good, in: directory)
    let (store, diagnostics) = try collectingDiagnostics {
      try LayeredPlistStore(persistentFile: directory.file("data.plist"), options: Self.quiet)
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    #expect(!names.contains(hidden))
    #expect(names.filter { $0.contains(".corrupt-") } == [])
    #expect(try Data(contentsOf: directory.file("data.plist")) == good)
    #expect(store.value(forKey: "a") == 7)
    #expect(store.recoveredProblems == [])
    #expect(diagnostics.isEmpty)
  }

  @Test func aHiddenLeftoverIsLeftAloneWhileAnotherProcessHoldsTheLock() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let hidden = try Self.leaveHiddenAside(Data("garbage".utf8), in: directory)
    // A process moving a file aside holds the lock all along: its private file is live.
    try AtomicFile.withLock(on: file) { () throws(SettingsError) in
      _ = try LayeredPlistStore(persistentFile: file, options: Self.quiet)
    }
    #expect(FileManager.default.fileExists(atPath: directory.file(hidden).path))
  }

  // MARK: - Format

  @Test func aNewFileIsBinaryUnlessXMLIsAskedForAndAnExistingFileKeepsItsFormat() throws {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    func prefix(_ url: URL) throws -> String {
      String(decoding: try Data(contentsOf: url).prefix(8), as: UTF8.self)
    }
    let binary = directory.file("binary.plist")
    let store = try LayeredPlistStore(persistentFile: binary, options: Self.quiet)
    try store.setValue(1, forKey: "a")
    try store.save()
    #expect(try prefix(binary) == "bplist00")

    let xml = directory.file("xml.plist")
    let xmlStore = try LayeredPlistStore(
      persistentFile: xml, options: .init(format: .xml, savesAtExit: false))
    try xmlStore.setValue(1, forKey: "a")
    try xmlStore.save()
    #expect(try prefix(xml) == "<?xml ve")

    // Existing files, opened with the default options, keep their format.
    for (url, expected) in [(xml, "<?xml ve"), (binary, "bplist00")] {
      let reopened = try LayeredPlistStore(persistentFile: url, options: Self.quiet)
      try reopened.setValue(2, forKey: "a")
      try reopened.save()
      #expect(try prefix(url) == expected, "\(url.lastPathComponent)")
      #expect(try PropertyListFile(url: url).readDictionary() == ["a": 2])
    }
  }
}
