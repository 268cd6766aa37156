import Foundation
import Testing
@_spi(Testing) import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

#if canImport(Observation)
  import Observation
#endif

/// Changes from outside the process (issue #11): `FileWatcher`, and a `LayeredPlistStore` with
/// `Options.watchesFiles` taking in what other processes save.
@Suite struct FileWatchTests {
  func probe(_ arguments: [String]) throws {
    let run = try runProduct("SettingsProbe", arguments)
    #expect(run.status == 0, "\(arguments): \(run.standardError)")
  }

  func watchingStore(_ file: URL, delivered: URL? = nil) throws -> LayeredPlistStore {
    try LayeredPlistStore(
      persistentFile: file, deliveredFile: delivered,
      options: .init(savesAtExit: false, watchesFiles: true))
  }

  // MARK: - Another process

  @Test func aWatchingStoreSeesAnotherProcessesSavesAndEndsOnTheLast() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try watchingStore(file)
    #expect(store.isWatching)
    let received = Received<SettingsChange>()
    let token = store.observeAllKeys { received.append($0) }
    defer { token.cancel() }

    try probe(["layered", file.path, "save-each", "k", "int:1", "int:2", "int:3"])
    await eventually("the store sees k = 3") {
      store.value(forKey: "k") == 3 && received.last?.newValue == 3
    }
    // Only k changed; values never went backwards.
    #expect(received.all.allSatisfy { $0.key == "k" })
    let values = received.all.compactMap { $0.newValue?.intValue }
    #expect(values == values.sorted())
    #expect(store.saveCount == 0)
  }

  #if canImport(Observation)
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test func trackingASettingCallsOnChangeOnceWhenAnotherProcessSavesIt() async throws {
      let directory = try TemporaryDirectory()
      let file = directory.file("data.plist")
      let store = try watchingStore(file)
      let settings = ObservedSettings(backend: store)
      let calls = Received<Int>()
      let seen = withObservationTracking {
        settings.volume
      } onChange: {
        calls.append(settings.volume)
      }
      #expect(seen == 1)
      try probe(["layered", file.path, "save-each", "volume", "int:5", "int:6"])
      // The store's value and the call are waited for together: the call comes from the
      // store's observers, after the value is stored (under ThreadSanitizer, a while after).
      await eventually("the store sees volume = 6 and onChange is called") {
        store.value(forKey: "volume") == 6 && calls.count >= 1
      }
      // Called once (tracking ends at its first change), after the new value is stored.
      #expect(calls.count == 1)
      #expect([5, 6].contains(calls.last ?? 0))
    }
  #endif

  @Test func aStoreNotWatchingSeesNothingUntilReload() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    #expect(!store.isWatching)
    try probe(["layered", file.path, "save-each", "k", "int:1"])
    #expect(store.value(forKey: "k") == nil)
    try store.reload()
    #expect(store.value(forKey: "k") == 1)
  }

  @Test func unsavedChangesOfThisProcessWinOverAWatchedSave() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try watchingStore(file)
    try store.setValue("mine", forKey: "k")
    try probe(["layered", file.path, "save-each", "k", "string:theirs"])
    try probe(["layered", file.path, "save-each", "other", "int:7"])
    await eventually("the store sees other = 7") { store.value(forKey: "other") == 7 }
    #expect(store.value(forKey: "k") == "mine")
  }

  @Test func garbageWrittenIntoAWatchedFileIsMovedAsideAndTheFileRewrittenFromTheStoresValues()
    async throws
  {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try watchingStore(file)
    try store.setValues(["k": 1, "s": "kept"])
    try store.save()
    let garbage = Data("garbage from an editor".utf8)
    try garbage.write(to: file)
    await eventually("the corrupt file is found and data.plist written again") {
      store.recoveredProblems.count == 1
        && (try? PropertyListFile(url: file).readDictionary()) == ["k": 1, "s": "kept"]
    }
    #expect(store.dictionaryRepresentation() == ["k": 1, "s": "kept"])
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    let aside = try #require(names.first { $0.hasPrefix("data.plist.corrupt-") })
    #expect(try Data(contentsOf: directory.file(aside)) == garbage)
  }

  // MARK: - Folders that come and go (H34)

  @Test func aWatchedFolderRemovedAndRecreatedIsWatchedAgain() async throws {
    let directory = try TemporaryDirectory()
    let folder = directory.file("store")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("data.plist")
    let store = try watchingStore(file)
    try probe(["layered", file.path, "save-each", "k", "int:1"])
    await eventually("the store sees k = 1") { store.value(forKey: "k") == 1 }

    try FileManager.default.removeItem(at: folder)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try probe(["layered", file.path, "save-each", "k", "int:2"])
    await eventually("the store sees k = 2 in the recreated folder") {
      store.value(forKey: "k") == 2
    }
    try probe(["layered", file.path, "save-each", "k", "int:3"])
    await eventually("the store sees k = 3 in the recreated folder") {
      store.value(forKey: "k") == 3
    }
  }

  @Test func aWatchOnAMissingFolderReportsOnceDoesNotHangAndPicksUpTheFolderWhenCreated()
    async throws
  {
    // H34: the folder (and file) don't exist when the watch starts; another process creates
    // them later.
    let directory = try TemporaryDirectory()
    let folder = directory.file("later/store")
    let file = folder.appendingPathComponent("data.plist")
    let reports = Received<SettingsDiagnostic>()
    let store = try SettingsDiagnostics.withHandler({ reports.append($0) }) {
      try watchingStore(file)
    }
    let watchers = store.watchers.withLock { $0 }
    #expect(watchers.count == 1)
    #expect(watchers.allSatisfy { !$0.isArmed && $0.isRetrying })

    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try probe(["layered", file.path, "save-each", "k", "int:1"])
    await eventually("the store sees k = 1 once the folder exists") {
      store.value(forKey: "k") == 1
    }
    await eventually("the watch is armed") { watchers.allSatisfy { $0.isArmed } }
    let failures = reports.all.filter { $0.kind == .watchFailed }
    #expect(failures.count == 1)
    #expect(failures.first?.message.contains("the folder doesn't exist") == true)
  }

  @Test func aFileWatcherOnAMissingFolderReportsAtOnceAndStopsRetryingWhenStopped() async {
    let directory = try? TemporaryDirectory()
    let folder = directory?.file("missing") ?? URL(fileURLWithPath: "/nonexistent-\(UUID())")
    let events = Received<FileWatcher.Event>()
    let watcher = FileWatcher(folder: folder, names: ["a.plist"]) { events.append($0) }
    // The report is delivered before the initializer returns: nothing waits for the folder.
    #expect(events.all.count == 1)
    if case .armingFailed(let reason) = events.all.first {
      #expect(reason.contains(folder.path))
    } else {
      Issue.record("expected an arming failure, got \(events.all)")
    }
    #expect(watcher.isRetrying)
    watcher.stop()
    #expect(!watcher.isRetrying && !watcher.isArmed)
  }

  @Test(.enabled(if: getuid() != 0, "root may watch a folder of mode 000"))
  func aWatchOnAnUnreadableFolderReportsOnceAndStopsRetryingWhenStopped() async throws {
    // H34: an inaccessible path must not crash, nor hang, nor retry for ever once stopped.
    let directory = try TemporaryDirectory()
    let folder = directory.file("locked")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: folder.path)
    defer {
      try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
    }
    let events = Received<FileWatcher.Event>()
    let watcher = FileWatcher(folder: folder, names: ["a.plist"]) { events.append($0) }
    #expect(!watcher.isArmed && watcher.isRetrying)
    #expect(events.count == 1)
    watcher.stop()
    #expect(!watcher.isRetrying)
  }

  @Test func aFileWatcherReportsOnlyItsNamesAndCoalescesABurst() async throws {
    let directory = try TemporaryDirectory()
    try Data("0".utf8).write(to: directory.file("a.plist"))
    let events = Received<FileWatcher.Event>()
    let window = 0.2
    let watcher = FileWatcher(
      folder: directory.url, names: ["a.plist"], coalescingInterval: window
    ) { events.append($0) }
    defer { watcher.stop() }
    #expect(watcher.isArmed)
    // The report every arming makes.
    await eventually("the first report") { events.count == 1 }
    // Changes no writer finishes (a chmod, as an editor makes after its save) are coalesced.
    let clock = ContinuousClock()
    let started = clock.now
    for index in 0..<20 {
      try FileManager.default.setAttributes(
        [.posixPermissions: index.isMultiple(of: 2) ? 0o600 : 0o644],
        ofItemAtPath: directory.file("a.plist").path)
      try Data("\(index)".utf8).write(to: directory.file("other.plist"))
    }
    let elapsed = clock.now - started
    await eventually("a report of a.plist") { events.count >= 2 }
    #expect(events.all.allSatisfy { $0 == .changed(["a.plist"]) })
    // Twenty changes are far fewer reports: one a window at most while they last, and one for
    // the window still open when they end (a loaded machine can stretch them over many).
    let windows = Int((elapsed / .seconds(window)).rounded(.up))
    #expect(events.count - 1 <= windows + 1, "\(elapsed) for 20 changes")
  }

  /// A file a writer finished (renamed into place, or closed after writing) is reported with no
  /// coalescing window, together with the changes waiting for theirs: with a window of an hour,
  /// the chmod of `b.plist` is reported only because the save of `a.plist` came after it.
  @Test func aFinishedSaveIsReportedAtOnceWithTheChangesWaitingForTheWindow() async throws {
    let directory = try TemporaryDirectory()
    try Data("0".utf8).write(to: directory.file("b.plist"))
    let events = Received<FileWatcher.Event>()
    let watcher = FileWatcher(
      folder: directory.url, names: ["a.plist", "b.plist"], coalescingInterval: 3600
    ) { events.append($0) }
    defer { watcher.stop() }
    /// Whether an event after the first `after` names `name`.
    func reported(_ name: String, after: Int) -> Bool {
      events.all.dropFirst(after).contains {
        $0 == .changed([name]) || $0 == .changed(["a.plist", "b.plist"])
      }
    }
    // Even the report every arming makes waits for the window, until a finished save.
    try Data("1".utf8).write(to: directory.file("a.plist"), options: .atomic)
    await eventually("the first report, with a.plist") { reported("a.plist", after: 0) }
    let before = events.count
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o600], ofItemAtPath: directory.file("b.plist").path)
    try Data("2".utf8).write(to: directory.file("a.plist"), options: .atomic)
    await eventually("the chmod of b.plist reported with the save of a.plist") {
      events.all.dropFirst(before).contains { $0 == .changed(["a.plist", "b.plist"]) }
    }
    // In place (open, write, close) is finished too.
    let count = events.count
    try Data("3".utf8).write(to: directory.file("a.plist"))
    await eventually("a report of the in-place write") { reported("a.plist", after: count) }
  }

  /// An editor's save in several steps (vim's: the old file renamed to a backup, the new one
  /// written in place, its mode set, the backup removed) and an atomic save followed by a chmod
  /// each give one event per changed key, and none for a key that kept its value.
  @Test func anEditorsSaveInSeveralStepsGivesOneEventPerChangedKey() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try PropertyListFile(url: file).write(.dictionary(["a": 1, "same": 1]))
    let store = try watchingStore(file)
    let received = Received<SettingsChange>()
    let token = store.observeAllKeys { received.append($0) }
    defer { token.cancel() }
    let backup = directory.file("data.plist~")
    let manager = FileManager.default

    try manager.moveItem(at: file, to: backup)
    try PropertyListFile(url: directory.file("new.plist")).write(
      .dictionary(["a": 2, "same": 1]))
    try manager.copyItem(at: directory.file("new.plist"), to: file)
    try manager.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
    try manager.removeItem(at: backup)
    await eventually("the store sees a = 2") {
      received.last == SettingsChange(key: "a", newValue: 2)
    }

    try PropertyListFile(url: directory.file("next.plist")).write(
      .dictionary(["a": 3, "same": 1]))
    #expect(rename(directory.file("next.plist").path, file.path) == 0)
    try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    await eventually("the store sees a = 3") {
      received.last == SettingsChange(key: "a", newValue: 3)
    }
    // Another finished save afterwards: had the chmod given an event, it would come before it.
    try PropertyListFile(url: file).write(.dictionary(["a": 4, "same": 1]))
    await eventually("the store sees a = 4") {
      received.last == SettingsChange(key: "a", newValue: 4)
    }
    #expect(
      received.all
        == [2, 3, 4].map { SettingsChange(key: "a", newValue: .integer(.init(Int64($0)))) })
  }

  @Test func aWatcherThatCannotArmNamesTheLimitAndFallsBackToPolling() async throws {
    // H34: inotify_init1 failing with EMFILE (the per-user limit of inotify instances).
    let directory = try TemporaryDirectory()
    let events = Received<FileWatcher.Event>()
    let watcher = FileWatcher(
      folder: directory.url, names: ["a.plist"], simulatedArmingError: EMFILE
    ) { events.append($0) }
    defer { watcher.stop() }
    #expect(!watcher.isArmed && watcher.isRetrying)
    #expect(events.count == 1)
    guard case .armingFailed(let reason)? = events.all.first else {
      Issue.record("expected an arming failure, got \(events.all)")
      return
    }
    #if os(Linux)
      #expect(reason.contains("fs.inotify.max_user_instances"))
    #endif
    try Data("1".utf8).write(to: directory.file("a.plist"), options: .atomic)
    await eventually("polling reports a.plist") {
      events.all.contains(.changed(["a.plist"]))
    }
    // Reported once, however many attempts failed.
    #expect(events.all.filter { $0 != .changed(["a.plist"]) }.count == 1)
  }

  @Test func aWatcherHoldsOneDescriptorAcrossReArmingAndClosesItWhenStopped() async throws {
    let directory = try TemporaryDirectory()
    let folder = directory.file("watched")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let watcher = FileWatcher(folder: folder, names: ["a.plist"]) { _ in }
    #expect(watcher.openWatches.withLock { $0 } == 1)
    try FileManager.default.removeItem(at: folder)
    await eventually("the watch is disarmed") { !watcher.isArmed }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    await eventually("the watch is armed again, holding one descriptor") {
      watcher.isArmed && watcher.openWatches.withLock { $0 } == 1
    }
    watcher.stop()
    await eventually("the descriptor is closed") {
      watcher.openWatches.withLock { $0 } == 0
    }
  }

  /// A read after a change that failed was reported and dropped.
  @Test func aFailedReloadIsReportedOnceAndTriedAgainUntilItSucceeds() async {
    let attempts = Locked(0)
    let reports = Received<SettingsError>()
    let failure = SettingsError(.fileNotReadable, path: "/x", reason: "Too many open files")
    let reloading = RetriedReload(
      reload: { () throws(SettingsError) in
        if attempts.withLock({ attempts in
          attempts += 1
          return attempts <= 3
        }) {
          throw failure
        }
      },
      report: { reports.append($0) })
    reloading.run()
    await eventually("the fourth attempt") { attempts.withLock { $0 } == 4 }
    #expect(reports.all == [failure])
    // Stopped, a failing read isn't tried again.
    attempts.withLock { $0 = 0 }
    reloading.stop()
    reloading.run()
    #expect(attempts.withLock { $0 } == 0)
  }

  #if os(Linux)
    @Test func twoHundredWatchersInOneProcessShareOneInotifyInstance() async throws {
      // H34: a user has 128 inotify instances by default; one per watcher would run out.
      let directory = try TemporaryDirectory()
      let reports = Received<Int>()
      var watchers: [FileWatcher] = []
      for index in 0..<200 {
        let folder = directory.file("f\(index)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        watchers.append(
          FileWatcher(folder: folder, names: ["data.plist"]) { _ in reports.append(index) })
      }
      defer { for watcher in watchers { watcher.stop() } }
      #expect(watchers.allSatisfy { $0.isArmed })
      let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
      let inotify = descriptors.filter {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)"))
          == "anon_inode:inotify"
      }
      #expect(inotify.count == 1)
      // Each reports once after arming, and 150 again after its file is written (once at the
      // rename, and maybe once more for the mode Foundation sets after it).
      await eventually("every watcher's first report") { reports.count == 200 }
      try Data("1".utf8).write(to: directory.file("f150/data.plist"), options: .atomic)
      await eventually("watcher 150 reports its file") {
        reports.all.filter { $0 == 150 }.count >= 2
      }
      #expect(reports.all.filter { $0 != 150 }.count == 199)
    }

    /// A reload after a change that ran out of descriptors was reported and dropped.
    ///
    /// 1,000 watching stores under a limit of 1,024 descriptors (each store holds its file's
    /// version open): some stores never saw the change. The child process sets its limit to the
    /// descriptors it has, so that every reload fails, then raises it again.
    @Test func aReloadOutOfDescriptorsIsReportedAndRetriedUntilTheChangeIsSeen() async {
      let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
        // Made before the handler, which the first temporary folder replaces.
        let directory = try TemporaryDirectory()
        let reports = watchFailures()
        let count = 40
        let stores = try watchingStores(count, in: directory)
        // No descriptor can be opened: the limit is the lowest free descriptor number.
        var lowestFree: Int32 = 0
        while fcntl(lowestFree, F_GETFD) != -1 { lowestFree += 1 }
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let original = limit.rlim_cur
        limit.rlim_cur = rlim_t(lowestFree)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        // Another process's saves, by rename, which needs no descriptor.
        for index in 0..<count {
          let folder = directory.file("app\(index)").path
          rename(folder + "/next.plist", folder + "/data.plist")
        }
        poll(seconds: 20) { reports.withLock { $0.count } >= count }
        let seenAtLimit = stores.filter { $0.value(forKey: "v") == 2 }.count
        limit.rlim_cur = original
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        poll(seconds: 20) { stores.allSatisfy { $0.value(forKey: "v") == 2 } }
        let messages = reports.withLock { $0.map(\.message) }
        let cause =
          ": Too many open files; the store keeps the values it has and reads the file again, "
          + "every second at most, until it can"
        let named = messages.allSatisfy { $0.hasSuffix(cause) }
        say("reported: \(messages.count), naming the cause: \(named)")
        say("seen at the limit: \(seenAtLimit)")
        say("seen: \(stores.filter { $0.value(forKey: "v") == 2 }.count) of \(count)")
      }
      #expect(
        String(decoding: result?.standardOutputContent ?? [], as: UTF8.self) == """
          reported: 40, naming the cause: true
          seen at the limit: 0
          seen: 40 of 40

          """)
    }

    /// Watching stores with 24 descriptors to spare beside them each see another process's
    /// save or report why not yet (issue 34, item 9: 1,000 stores under a limit of 1,024 open
    /// files, and 35-85 of them stopped seeing changes, silently).
    ///
    /// Each store holds one descriptor, its file's version (`FileVersion`); the watches share
    /// the process's one inotify descriptor. Reloads racing for the few descriptors left fail,
    /// are reported (`watchFailed`, naming the store) and tried again until they succeed.
    /// 200 stores by default, which cost the rest of the suite little; the issue's 1,000 with
    /// `TYPEDDEFAULTS_WATCHED_STORES=1000`. Measured on this 2-core machine at 1,000: alone, every
    /// store saw the change after 17-20 s, with 400-750 reports; beside the rest of the suite,
    /// not every store had within 120 s, and the storm made a timing test of the coalescing
    /// window fail.
    @Test func watchingStoresAtTheDescriptorLimitEachSeeAChangeOrSayWhy() async {
      let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
        // The room of a process with 24 descriptors open beside its stores (1,000 under a limit
        // of 1,024), whatever this child inherited (other children's pipes, in a parallel run).
        let directory = try TemporaryDirectory()
        let reports = watchFailures()
        // Those open now, the one listing them aside; not the lowest free number: inherited
        // descriptors can sit above a gap.
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count - 1
        let environment = ProcessInfo.processInfo.environment
        let count = environment["TYPEDDEFAULTS_WATCHED_STORES"].flatMap { Int($0) } ?? 200
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = rlim_t(open + count + 24)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        // A throw out of an exit test stops the child with SIGILL, saying nothing: say it.
        let stores: [LayeredPlistStore]
        do { stores = try watchingStores(count, in: directory) } catch {
          say("opening the stores failed: \(error)")
          return
        }
        say("watching: \(stores.filter(\.isWatching).count) of \(count)")
        for index in 0..<count {
          let folder = directory.file("app\(index)").path
          rename(folder + "/next.plist", folder + "/data.plist")
        }
        let seen = { stores.filter { $0.value(forKey: "v") == 2 }.map(\.name) }
        poll(seconds: 60) { seen().count == count }
        // A store that hasn't seen the change yet has said why, and is trying again.
        let failures = reports.withLock { $0 }
        let reported = Set(failures.map(\.backend))
        let unaccounted = Set(stores.map(\.name)).subtracting(seen()).subtracting(reported)
        say("neither seen nor reported: \(unaccounted.count)")
        let cause =
          ": Too many open files; the store keeps the values it has and reads the file again, "
          + "every second at most, until it can"
        say("every report names the cause: \(failures.allSatisfy { $0.message.hasSuffix(cause) })")
        FileHandle.standardError.write(
          Data("seen: \(seen().count), reports: \(failures.count)\n".utf8))
      }
      let count = ProcessInfo.processInfo.environment["TYPEDDEFAULTS_WATCHED_STORES"] ?? "200"
      #expect(
        String(decoding: result?.standardOutputContent ?? [], as: UTF8.self) == """
          watching: \(count) of \(count)
          neither seen nor reported: 0
          every report names the cause: true

          """)
    }
  #endif

  // MARK: - Delivered and bundled layers

  @Test func aDeliveredFileReplacedOnDiskIsReadAgainAndOnlyChangedKeysAreReported() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let delivered = directory.file("JF-info.plist")
    try PropertyListFile(url: delivered).write(
      .dictionary(["url": "https://a.example", "same": 1, "shadowed": "delivered"]))
    try PropertyListFile(url: file).write(.dictionary(["shadowed": "persistent"]))
    let store = try watchingStore(file, delivered: delivered)
    let received = Received<SettingsChange>()
    let token = store.observeAllKeys { received.append($0) }
    defer { token.cancel() }

    try PropertyListFile(url: delivered).write(
      .dictionary(["url": "https://b.example", "same": 1, "shadowed": "new delivered"]))
    await eventually("the store sees the new url") {
      store.value(forKey: "url") == "https://b.example"
    }
    #expect(store.layer(forKey: "url") == .delivered)
    #expect(store.value(forKey: "shadowed") == "persistent")
    #expect(store.dictionaryRepresentation(of: .delivered)["shadowed"] == "new delivered")
    // Only the key whose effective value changed.
    #expect(received.all.map(\.key) == ["url"])

    try FileManager.default.removeItem(at: delivered)
    await eventually("the delivered layer is empty") { store.value(forKey: "url") == nil }
    #expect(store.value(forKey: "same") == nil)
  }

  @Test func stopWatchingStopsTheWatches() throws {
    let directory = try TemporaryDirectory()
    let store = try watchingStore(directory.file("data.plist"))
    let watchers = store.watchers.withLock { $0 }
    #expect(watchers.allSatisfy { $0.isArmed })
    store.stopWatching()
    #expect(!store.isWatching)
    #expect(watchers.allSatisfy { !$0.isArmed && !$0.isRetrying })
    store.startWatching()
    #expect(store.isWatching)
    store.stopWatching()
  }

  // MARK: - UserDefaultsBackend on Linux

  #if !canImport(Darwin)
    @Test func aWatchingUserDefaultsBackendSeesAnotherProcessesSavesAsTheyHappen() async throws {
      let suite = TemporarySuite()
      let backend = suite.backend
      backend.startWatching()
      defer { backend.stopWatching() }
      #expect(backend.isWatching)
      let received = Received<SettingsChange>()
      let token = backend.observeAllKeys { received.append($0) }
      defer { token.cancel() }

      // Another process's backend saves w.0, w.1, w.2, one save each.
      try probe(["userdefaults", suite.name, "ud-write-keys", "w", "3"])
      await eventually("the backend sees w.2 = 2") {
        backend.value(forKey: "w.2") == 2 && received.all.contains { $0.key == "w.2" }
      }
      #expect(backend.value(forKey: "w.0") == 0)
      #expect(Set(received.all.map(\.key)) == ["w.0", "w.1", "w.2"])
      // One event per key: each key changed once.
      #expect(received.all.count == 3)
      #expect(!backend.hasUnsavedChanges)
    }

    @Test func aWatchingUserDefaultsBackendSeesAPlainUserDefaultsProgramsSynchronize() async throws
    {
      let suite = TemporarySuite()
      let backend = suite.backend
      backend.startWatching()
      defer { backend.stopWatching() }
      let received = Received<SettingsChange>()
      let token = backend.observe(key: "com.example.flag") { received.append($0) }
      defer { token.cancel() }

      // corelibs rewrites the file in place at synchronize(): seen as well as an atomic save.
      try probe(["raw", suite.name, "raw-set", "com.example.flag", "bool:true"])
      await eventually("the observer gets com.example.flag = true") {
        received.last?.newValue == true
      }
      #expect(received.all == [SettingsChange(key: "com.example.flag", newValue: true)])
    }

    @Test func aUserDefaultsBackendNotWatchingSeesAnotherProcessesSavesOnlyAtReload() throws {
      let suite = TemporarySuite()
      let backend = suite.backend
      #expect(!backend.isWatching)
      let received = Received<SettingsChange>()
      let token = backend.observe(key: "w.0") { received.append($0) }
      defer { token.cancel() }
      try probe(["userdefaults", suite.name, "ud-write-keys", "w", "1"])
      #expect(backend.value(forKey: "w.0") == nil)
      #expect(received.all.isEmpty)
      try backend.reload()
      #expect(received.all == [SettingsChange(key: "w.0", newValue: 0)])
    }

    @Test func stopWatchingAUserDefaultsBackendStopsItsWatch() throws {
      let suite = TemporarySuite()
      let backend = suite.backend
      backend.startWatching()
      guard case .file(let watcher, _)? = backend.watch.withLock({ $0 }) else {
        Issue.record("expected a watch of the suite's file")
        return
      }
      #expect(watcher.isArmed)
      backend.startWatching()
      guard case .file(let second, _)? = backend.watch.withLock({ $0 }) else {
        Issue.record("expected a watch of the suite's file")
        return
      }
      #expect(second === watcher)
      backend.stopWatching()
      #expect(!backend.isWatching)
      #expect(!watcher.isArmed && !watcher.isRetrying)
    }
  #endif
}

// MARK: - Helpers of the child processes (exit tests capture nothing)

/// Writes a line to standard output, which the parent reads.
private func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Waits, polling every 10 ms, until `condition` holds or `seconds` pass.
private func poll(seconds: Double, _ condition: () -> Bool) {
  let deadline = Date().addingTimeInterval(seconds)
  while !condition(), Date() < deadline { usleep(10_000) }
}

/// The `watchFailed` diagnostics reported from now on (after the first temporary folder is
/// made, which sets a handler of its own).
private func watchFailures() -> Locked<[SettingsDiagnostic]> {
  let reports = Locked<[SettingsDiagnostic]>([])
  SettingsDiagnostics.handler = { diagnostic in
    if diagnostic.kind == .watchFailed { reports.withLock { $0.append(diagnostic) } }
  }
  return reports
}

/// `count` watching stores, each on `app<n>/data.plist` holding `v` = 1 beside `next.plist`
/// holding `v` = 2, for another process's save by rename.
private func watchingStores(
  _ count: Int, in directory: TemporaryDirectory
) throws -> [LayeredPlistStore] {
  var stores: [LayeredPlistStore] = []
  for index in 0..<count {
    let folder = directory.file("app\(index)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try PropertyListFile(url: folder.appendingPathComponent("data.plist")).write(["v": 1])
    try PropertyListFile(url: folder.appendingPathComponent("next.plist")).write(["v": 2])
    stores.append(
      try LayeredPlistStore(
        persistentFile: folder.appendingPathComponent("data.plist"),
        options: .init(savesAtExit: false, watchesFiles: true)))
  }
  return stores
}
