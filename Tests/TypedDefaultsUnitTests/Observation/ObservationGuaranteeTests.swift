import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsSchema
import TypedDefaultsTestSupport

@testable import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

#if canImport(Observation)
  import Observation
#endif

/// What a deadlocked probe leaves behind: kept alive for ever, so that no deinit (a token's
/// cancel waiting for the stuck callback, a suite's cleanup taking the held save lock) blocks
/// the test run.
private let leakedByDeadlocks = Locked<[any Sendable]>([])

/// Probes that try to break the observation guarantees of issue #11 (ObservingChanges.md).
///
/// Tests that fail expose a bug; the others pin a guarantee not pinned elsewhere.
@Suite(.tags(.breakIt)) struct ObservationGuaranteeTests {
  // MARK: - Helpers

  /// Runs `body` on a new thread and waits (polling every 2 ms, up to 5 s) for it to return:
  /// `false` if it is still running then (a deadlock; the thread is left blocked).
  func finishes(_ body: @escaping @Sendable () -> Void) async -> Bool {
    let done = Locked(false)
    Thread.detachNewThread {
      body()
      done.withLock { $0 = true }
    }
    for _ in 0..<2500 {
      if done.withLock({ $0 }) { return true }
      try? await Task.sleep(nanoseconds: 2_000_000)
    }
    return false
  }

  func binaryPlist(_ root: PropertyListValue) throws -> Data {
    try PropertyListFile.encode(root, format: .binary)
  }

  func watchingStore(
    _ file: URL, delivered: URL? = nil, bundled: URL? = nil,
    autosave: LayeredPlistStore.AutosavePolicy = .manual
  ) throws -> LayeredPlistStore {
    try LayeredPlistStore(
      persistentFile: file, deliveredFile: delivered, bundledFile: bundled,
      options: .init(autosave: autosave, savesAtExit: false, watchesFiles: true))
  }

  // MARK: - Phantom events for observers of every key

  /// "Writing the value a key already holds, or removing a key that has none, delivers nothing".
  @Test(arguments: BackendFactory.observable)
  func removingAnAbsentKeyDeliversNothingToAnObserverOfEveryKey(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withBackend { backend in
      let received = Received<SettingsChange>()
      let token = backend.observeAllKeys { received.append($0) }
      remove("never.written", from: backend)
      let settings = ObservedSettings(backend: backend)
      settings.$volume.reset()  // "volume" was never written either
      #expect(received.all == [], "phantom removal events: \(received.all)")
      token.cancel()
    }
  }

  /// reportChanges: "reporting a key that didn't change delivers nothing and reporting too many
  /// keys is safe".
  @Test(arguments: BackendFactory.observable)
  func reportingAnAbsentKeyDeliversNothingToAnObserverOfEveryKey(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withBackend { backend in
      let received = Received<SettingsChange>()
      let token = backend.observeAllKeys { received.append($0) }
      backend.reportChanges(forKeys: ["absent", "also.absent"])
      #expect(received.all == [], "phantom events: \(received.all)")
      token.cancel()
    }
  }

  // MARK: - Observers run under the save lock

  /// "Observers run outside every backend lock"; "A callback may read and write the backend".
  ///
  /// An observer that saves the store when a reload brings a change in deadlocks: reload()
  /// publishes while holding the store's save lock.
  @Test func anObserverSavingTheStoreFromAReloadCallbackDoesNotDeadlock() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    let saves = Received<Bool>()
    let token = store.observe(key: "k") { _ in
      saves.append((try? store.save()) != nil)
    }
    let other = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    try other.setValue(1, forKey: "k")
    try other.save()
    let finished = await finishes { _ = try? store.reload() }
    #expect(finished, "reload() with an observer calling save() did not return within 5 s")
    if finished {
      #expect(saves.all == [true])
      token.cancel()
    } else {
      leakedByDeadlocks.withLock { $0 += [token, store, other, directory] }
    }
  }

  /// The clamp, on a store that saves after every write and watches its file: another
  /// process saves k = 20; the observer writes 10 back.
  ///
  /// The write-back's save re-enters the save lock reload() holds on the watch queue: the store
  /// never saves 10.
  @Test func aClampOnAnAutosavingWatchingStoreSavesTheClampedValue() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try watchingStore(file, autosave: .afterEveryWrite)
    let clampFinished = Received<Bool>()
    let token = store.observe(key: "k") { change in
      if let value = change.newValue?.intValue, value > 10 {
        try? store.setValue(10, forKey: "k")
        clampFinished.append(true)
      }
    }
    let other = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    try other.setValue(20, forKey: "k")
    try other.save()
    let clamped = await eventually("the clamp's write-back (and its autosave) returns") {
      clampFinished.count == 1
    }
    if clamped {
      let onDisk = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
      #expect(onDisk.value(forKey: "k") == 10)
      token.cancel()
    } else {
      leakedByDeadlocks.withLock { $0 += [token, store, other, directory] }
    }
  }

  /// The same lock on UserDefaultsBackend: `update(forKey:)` tells observers while holding the
  /// suite's save lock, so an observer that calls `synchronize()` deadlocks.
  @Test func aUserDefaultsObserverSynchronizingInsideAnUpdateDoesNotDeadlock() async throws {
    let suite = TemporarySuite()
    let backend = suite.backend
    let synchronized = Received<Bool>()
    let token = backend.observe(key: "counter") { _ in
      backend.synchronize()
      synchronized.append(true)
    }
    let finished = await finishes {
      _ = try? backend.update(forKey: "counter") { _ in 1 }
    }
    #expect(finished, "update(forKey:) with an observer calling synchronize() did not return")
    if finished {
      #expect(synchronized.count == 1)
      token.cancel()
    } else {
      // Its exit handler would wait for the held save lock and hang the test process's exit.
      ExitHandlers.unregister(backend)
      leakedByDeadlocks.withLock { $0 += [token, suite, backend] }
    }
  }

  // MARK: - UserDefaultsBackend instances on one suite

  /// Issue #11: "changes made through any `UserDefaultsBackend` on the same suite in this
  /// process are seen." The article says instead that observers belong to one instance.
  @Test func aWriteThroughAnotherBackendOnTheSameSuiteIsSeen() async throws {
    let suite = TemporarySuite()
    let second = UserDefaultsBackend(suiteName: suite.name)
    second.startWatching()
    defer { second.stopWatching() }
    let received = Received<SettingsChange>()
    let token = second.observe(key: "k") { received.append($0) }
    defer { token.cancel() }
    try suite.backend.setValue(5, forKey: "k")
    suite.backend.synchronize()
    #expect(second.value(forKey: "k") == 5)
    await eventually("the second backend's observer hears k = 5 (got \(received.all))") {
      received.last == SettingsChange(key: "k", newValue: 5)
    }
  }

  /// The article: "two UserDefaultsBackends on the same suite share values but not observers".
  ///
  /// Without a watch, a write through one is not told to the other's observers.
  @Test func aWriteThroughAnotherBackendOnTheSameSuiteWithoutWatching() async throws {
    let suite = TemporarySuite()
    let second = UserDefaultsBackend(suiteName: suite.name)
    let received = Received<SettingsChange>()
    let token = second.observe(key: "k") { received.append($0) }
    defer { token.cancel() }
    try suite.backend.setValue(5, forKey: "k")
    #expect(second.value(forKey: "k") == 5)
    #expect(received.all == [SettingsChange(key: "k", newValue: 5)])
  }

  // MARK: - Files replaced on disk

  /// "Also a delivered or bundled file replaced on disk." A delivered file reached through a
  /// symbolic link that a deployment swaps (the Kubernetes ConfigMap layout: `JF-info.plist ->
  /// ..data/JF-info.plist`, `..data -> ..v1`, updated by renaming a new `..data` link over it)
  /// produces no event naming `JF-info.plist` in its folder, so the change is never seen.
  @Test func aDeliveredFileBehindASwappedSymbolicLinkIsReadAgain() async throws {
    let directory = try TemporaryDirectory()
    let config = directory.file("config")
    let manager = FileManager.default
    for version in ["..v1", "..v2"] {
      try manager.createDirectory(
        at: config.appendingPathComponent(version), withIntermediateDirectories: true)
    }
    try binaryPlist(["ServerURL": "https://v1.example"]).write(
      to: config.appendingPathComponent("..v1/JF-info.plist"))
    try binaryPlist(["ServerURL": "https://v2.example"]).write(
      to: config.appendingPathComponent("..v2/JF-info.plist"))
    try manager.createSymbolicLink(
      atPath: config.appendingPathComponent("..data").path, withDestinationPath: "..v1")
    let delivered = config.appendingPathComponent("JF-info.plist")
    try manager.createSymbolicLink(
      atPath: delivered.path, withDestinationPath: "..data/JF-info.plist")

    let store = try watchingStore(directory.file("data.plist"), delivered: delivered)
    #expect(store.value(forKey: "ServerURL") == "https://v1.example")
    let received = Received<SettingsChange>()
    let token = store.observe(key: "ServerURL") { received.append($0) }
    defer { token.cancel() }

    // First a change the watch does see (`..data` swapped, then the link itself replaced by an
    // identical one), so that the report every arming makes is behind us.
    try manager.createDirectory(
      at: config.appendingPathComponent("..v1b"), withIntermediateDirectories: true)
    try binaryPlist(["ServerURL": "https://v1b.example"]).write(
      to: config.appendingPathComponent("..v1b/JF-info.plist"))
    try manager.createSymbolicLink(
      atPath: config.appendingPathComponent("..data_tmp").path, withDestinationPath: "..v1b")
    #expect(
      rename(
        config.appendingPathComponent("..data_tmp").path,
        config.appendingPathComponent("..data").path) == 0)
    try manager.createSymbolicLink(
      atPath: config.appendingPathComponent("JF-info.tmp").path,
      withDestinationPath: "..data/JF-info.plist")
    #expect(rename(config.appendingPathComponent("JF-info.tmp").path, delivered.path) == 0)
    await eventually("the store reads the replaced link") {
      store.value(forKey: "ServerURL") == "https://v1b.example"
    }

    // The swap, as kubelet's atomic writer does it.
    try manager.createSymbolicLink(
      atPath: config.appendingPathComponent("..data_tmp").path, withDestinationPath: "..v2")
    #expect(
      rename(
        config.appendingPathComponent("..data_tmp").path,
        config.appendingPathComponent("..data").path) == 0)
    #expect(
      try PropertyListFile(url: delivered).readDictionary()?["ServerURL"] == "https://v2.example")
    await eventually("the store reads the swapped delivered file (got \(received.all))") {
      store.value(forKey: "ServerURL") == "https://v2.example"
    }
  }

  /// "A save by atomic rename … must be seen every time"; an in-place rewrite (the article: "a
  /// plain UserDefaults program's synchronize() (corelibs rewrites the file in place)") that
  /// keeps the file's size and modification time is not: the reload compares only device,
  /// inode, size and mtime, and skips the read.
  ///
  /// The mtime is put back here by hand, as a file system with 1-second timestamps (ext4 with
  /// 128-byte inodes, HFS+, FAT, many NFS servers), or `cp -p`/`rsync --inplace -t`, leaves it.
  @Test func anInPlaceRewriteKeepingSizeAndModificationTimeIsSeen() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try binaryPlist(["k": 1]).write(to: file)
    let store = try watchingStore(file)
    #expect(store.value(forKey: "k") == 1)
    var before = stat()
    #expect(stat(file.path, &before) == 0)

    let handle = try FileHandle(forWritingTo: file)
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: try binaryPlist(["k": 2]))
    var times = [before.st_atim, before.st_mtim]
    #expect(futimens(handle.fileDescriptor, &times) == 0)
    try handle.close()

    var after = stat()
    #expect(stat(file.path, &after) == 0)
    #expect(after.st_size == before.st_size && after.st_ino == before.st_ino)
    await eventually("the store sees the rewritten k = 2") { store.value(forKey: "k") == 2 }
  }

  /// Editors' and tools' saves, one after another on one watching store: vim's default (rename
  /// the original aside, write a new file), write-to-temporary + `mv` over the file, in-place
  /// truncate + write, a hard link replacing the name (`ln -f`), and the file deleted.
  ///
  /// Each is seen; an observer of `k` gets only `k`, ending on each value in turn.
  @Test func editorsSavesAreEachSeenByAWatchingStore() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try watchingStore(file)
    let received = Received<SettingsChange>()
    let token = store.observe(key: "k") { received.append($0) }
    defer { token.cancel() }
    let manager = FileManager.default

    // vim (backupcopy=auto): data.plist -> data.plist~, then a new data.plist.
    try binaryPlist(["k": 1, "other": "x"]).write(to: file)
    await eventually("k = 1 (first file)") { received.last?.newValue == 1 }
    try manager.moveItem(at: file, to: directory.file("data.plist~"))
    let vim = open(file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let data = try binaryPlist(["k": 2, "other": "x"])
    _ = data.withUnsafeBytes { write(vim, $0.baseAddress, $0.count) }
    close(vim)
    await eventually("k = 2 (vim-style save)") { received.last?.newValue == 2 }

    // A temporary file moved over the file.
    try binaryPlist(["k": 3, "other": "x"]).write(to: directory.file(".data.plist.tmp"))
    #expect(rename(directory.file(".data.plist.tmp").path, file.path) == 0)
    await eventually("k = 3 (mv over)") { received.last?.newValue == 3 }

    // Truncated and written in place (the mtime moves on).
    let handle = try FileHandle(forWritingTo: file)
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: try binaryPlist(["k": 40, "other": "x"]))
    try handle.close()
    await eventually("k = 40 (in place)") { received.last?.newValue == 40 }

    // A hard link replacing the name.
    let linked = directory.file("staged.plist")
    try binaryPlist(["k": 5, "other": "x"]).write(to: linked)
    try manager.removeItem(at: file)
    #expect(link(linked.path, file.path) == 0)
    await eventually("k = 5 (ln)") { received.last?.newValue == 5 }

    // Deleted.
    try manager.removeItem(at: file)
    await eventually("k removed") { received.all.count >= 6 && received.last?.newValue == nil }
    #expect(received.all.allSatisfy { $0.key == "k" })
    let values = received.all.map { $0.newValue?.intValue }
    #expect(values == [1, 2, 3, 40, 5, nil], "\(received.all)")
  }

  /// The store's folder moved away and another folder moved into its place (a deployment
  /// swapping directories): the new folder's file is read, and its later saves are seen.
  @Test func aFolderSwappedForAnotherIsWatchedAgain() async throws {
    let directory = try TemporaryDirectory()
    let folder = directory.file("store")
    let staged = directory.file("store.new")
    let manager = FileManager.default
    try manager.createDirectory(at: folder, withIntermediateDirectories: true)
    try manager.createDirectory(at: staged, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("data.plist")
    try binaryPlist(["k": 1]).write(to: file)
    try binaryPlist(["k": 2]).write(to: staged.appendingPathComponent("data.plist"))
    let store = try watchingStore(file)
    let received = Received<SettingsChange>()
    let token = store.observe(key: "k") { received.append($0) }
    defer { token.cancel() }

    #expect(rename(folder.path, directory.file("store.old").path) == 0)
    #expect(rename(staged.path, folder.path) == 0)
    await eventually("k = 2 from the swapped-in folder") { store.value(forKey: "k") == 2 }
    let other = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    try other.setValue(3, forKey: "k")
    try other.save()
    await eventually("k = 3 saved into the new folder") { received.last?.newValue == 3 }
    #expect(received.all.map { $0.newValue?.intValue } == [2, 3])
  }

  /// Removing data.plist on disk on a watching store delivers the lower layer's value (one event),
  /// as a removal through the store does.
  @Test func data_plistRemovedOnDiskDeliversTheBundledValue() async throws {
    let directory = try TemporaryDirectory()
    let bundled = directory.file("Info.plist")
    try binaryPlist(["k": "bundled"]).write(to: bundled)
    let file = directory.file("data.plist")
    try binaryPlist(["k": "mine"]).write(to: file)
    let store = try watchingStore(file, bundled: bundled)
    #expect(store.value(forKey: "k") == "mine")
    let received = Received<SettingsChange>()
    let token = store.observe(key: "k") { received.append($0) }
    defer { token.cancel() }
    try FileManager.default.removeItem(at: file)
    await eventually("k falls back to the bundled value") { received.count >= 1 }
    #expect(received.all == [SettingsChange(key: "k", newValue: "bundled")])
  }

  // MARK: - Keys

  /// Unusual keys saved by another store reach a watching store's observer of every key, named
  /// exactly as written, and nothing else arrives.
  @Test func unusualKeysSavedElsewhereReachAWatchingObserverOfEveryKey() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try watchingStore(file)
    let received = Received<SettingsChange>()
    let token = store.observeAllKeys { received.append($0) }
    defer { token.cancel() }
    let keys = ["com.example.flag", "@leading", "with space", "ключ", "e\u{301}", "🎛.x y"]
    let other = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    for (index, key) in keys.enumerated() {
      try other.setValue(.integer(.init(Int64(index))), forKey: key)
    }
    try other.save()
    await eventually("every key arrives (got \(received.all))") {
      received.count >= keys.count
    }
    #expect(Set(received.all.map(\.key)) == Set(keys))
    #expect(received.count == keys.count)
  }

  // MARK: - Cancellation and release

  /// Breaking out of a `for await` loop releases the iterator: its observer is unregistered and
  /// the buffered subscription freed.
  @Test(arguments: BackendFactory.observable)
  func breakingOutOfAStreamUnregistersAndFreesItsObserver(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withBackend { backend in
      weak var subscription: ChangeSubscription?
      do {
        var iterator = backend.changes(forKey: "k", initial: true).makeAsyncIterator()
        subscription = iterator.subscription
        #expect(observerCount(backend) == 1)
        _ = await iterator.next()
      }
      #expect(subscription == nil, "the released iterator's subscription is still alive")
      #expect(observerCount(backend) == 0)
      try write(1, "k", to: backend)
    }
  }

  /// A `cancel()` from another thread while the callback runs waits for it; once `cancel()`
  /// returns, a write delivers nothing, and the handler's captures are freed.
  @Test(arguments: BackendFactory.observable)
  func cancelFromAnotherThreadWaitsForTheRunningCallbackAndFreesIt(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withBackend { backend in
      final class Capture: Sendable {}
      let started = DispatchSemaphore(value: 0)
      let release = DispatchSemaphore(value: 0)
      let running = Locked(false)
      let calls = Received<PropertyListValue?>()
      weak var captured: Capture?
      var token: ObservationToken? = nil
      do {
        let capture = Capture()
        captured = capture
        token = backend.observe(key: "k") { change in
          withExtendedLifetime(capture) {}
          calls.append(change.newValue)
          running.withLock { $0 = true }
          started.signal()
          release.wait()
          running.withLock { $0 = false }
        }
      }
      let writer = Thread { try? write(1, "k", to: backend) }
      writer.start()
      started.wait()
      let cancelReturned = Locked(false)
      let cancelledWhileRunning = Locked<Bool?>(nil)
      let shared = Locked<ObservationToken?>(token)
      Thread.detachNewThread {
        let cancelling = shared.withLock { $0 }
        cancelling?.cancel()
        cancelledWhileRunning.withLock { $0 = running.withLock { $0 } }
        cancelReturned.withLock { $0 = true }
      }
      // cancel() must still be waiting while the callback runs.
      for _ in 0..<50 { try? await Task.sleep(nanoseconds: 1_000_000) }
      #expect(cancelReturned.withLock { $0 } == false)
      release.signal()
      await eventually("cancel() returns") { cancelReturned.withLock { $0 } }
      #expect(cancelledWhileRunning.withLock { $0 } == false)
      try write(2, "k", to: backend)
      #expect(calls.all == [1])
      token = nil
      shared.withLock { $0 = nil }
      #expect(captured == nil, "the released handler's captures are still alive")
      #expect(observerCount(backend) == 0)
    }
  }

  /// ObservationToken.cancel(): "The registration is removed, so the callback and what it
  /// captures are released." They are not while the token is still held (a `var token` property
  /// cancelled but not set to nil): the cancelled observer keeps its handler, so a cycle through
  /// the handler (owner -> token -> handler -> owner) is not broken by cancel().
  @Test(arguments: BackendFactory.observable)
  func cancelReleasesTheHandlersCapturesWhileTheTokenIsStillHeld(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withBackend { backend in
      final class Owner: Sendable {}
      weak var captured: Owner?
      let token: ObservationToken
      do {
        let owner = Owner()
        captured = owner
        token = backend.observe(key: "k") { _ in withExtendedLifetime(owner) {} }
      }
      #expect(captured != nil)
      token.cancel()
      #expect(observerCount(backend) == 0)
      #expect(captured == nil, "cancel() left the handler and its captures alive")
      withExtendedLifetime(token) {}
    }
  }

  // MARK: - Typed observation

  /// A wrong-typed value arrives as the default, and a second different wrong-typed value
  /// arrives as the default again; the removal after it too.
  ///
  /// Each change of the key is one call.
  @Test(arguments: BackendFactory.observable)
  func typedObserverGetsTheDefaultForEachWrongTypedValue(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let settings = ObservedSettings(backend: backend)
      let typed = Received<Int>()
      let (token, diagnostics) = collectingDiagnostics {
        let token = settings.$volume.observe { typed.append($0) }
        try? write(7, "volume", to: backend)
        try? write("loud", "volume", to: backend)
        try? write("louder", "volume", to: backend)
        remove("volume", from: backend)
        return token
      }
      #expect(typed.all == [7, 1, 1, 1])
      #expect(diagnostics.filter { $0.kind == .typeMismatch }.count == 2)
      token.cancel()
    }
  }

  // MARK: - Swift Observation

  #if canImport(Observation)
    /// Two models on one backend read in one tracking block; writing the value the key already
    /// holds calls nothing, and the next real change calls `onChange` exactly once.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test(arguments: BackendFactory.observable)
    func trackingTwoModelsOnOneKeyCallsOnChangeOnceAndNotForTheSameValue(
      _ factory: BackendFactory
    ) async throws {
      try await factory.withBackend { backend in
        let first = ObservedSettings(backend: backend)
        let second = ObservedSettings(backend: backend)
        first.volume = 3
        let calls = Received<Int>()
        _ = withObservationTracking {
          first.volume + second.volume
        } onChange: {
          calls.append(second.volume)
        }
        first.volume = 3
        second.volume = 3
        #expect(calls.all == [])
        second.volume = 4
        first.volume = 5
        #expect(calls.all == [4])
      }
    }
  #endif

  // MARK: - settings watch

  /// Issue #11: "`settings watch DOMAIN [KEY…]` … for suites, plist files and store folders".
  ///
  /// The tool refuses suites (exit 64), though on Linux `UserDefaultsBackend.startWatching()`
  /// sees other processes' saves of the suite file.
  @Test func settingsWatchWatchesAUserDefaultsSuite() async throws {
    let config = try TemporaryDirectory()
    let environment = ["XDG_CONFIG_HOME": config.url.path]
    let run = try runProduct(
      "settings", ["write", "--store", "defaults", "com.example.breakit", "Name", "Ada"],
      environment: environment)
    #expect(run.status == 0, "\(run.standardError)")
    let process = Process()
    process.executableURL = TestPaths.productsDirectory.appendingPathComponent("settings")
    process.arguments = ["watch", "--store", "defaults", "com.example.breakit"]
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let firstLine = Locked("")
    Thread.detachNewThread {
      let data = output.fileHandleForReading.availableData
      firstLine.withLock { $0 = String(decoding: data, as: UTF8.self) }
    }
    let started = await eventually("settings watch prints its first line or exits") {
      !firstLine.withLock({ $0 }).isEmpty || !process.isRunning
    }
    if process.isRunning {
      kill(process.processIdentifier, SIGTERM)
    }
    let processEnding = process.waitForExit()
    let stderr = String(
      decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(started)
    #expect(
      firstLine.withLock { $0 }.hasPrefix("watching com.example.breakit"),
      "exit status \(processEnding.status), standard error: \(stderr)")
  }

  /// "stopped with Ctrl-C (SIGINT) or SIGTERM, which exit with status 0" — also when the signal
  /// comes as soon as the first line says the watch has started: the line is printed before the
  /// signal handlers are installed, so a signal in that window kills the tool.
  @Test func settingsWatchExitsZeroOnSIGTERMRightAfterItsFirstLine() throws {
    let directory = try TemporaryDirectory()
    let store = directory.file("store")
    try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
    let executable = TestPaths.productsDirectory.appendingPathComponent("settings").path
    var outcomes: [String] = []
    for _ in 0..<20 {
      var pipeEnds: [Int32] = [0, 0]
      #expect(pipe(&pipeEnds) == 0)
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
      posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
      let arguments: [String] = [executable, "watch", store.path]
      let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
      var child: pid_t = 0
      let spawned = posix_spawn(&child, executable, &actions, nil, argv, environ)
      posix_spawn_file_actions_destroy(&actions)
      for pointer in argv { free(pointer) }
      close(pipeEnds[1])
      #expect(spawned == 0)
      // Wait (up to 10 s) for the first output, then signal at once.
      var ready = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
      #expect(poll(&ready, 1, 10_000) == 1)
      var byte: UInt8 = 0
      _ = read(pipeEnds[0], &byte, 1)
      kill(child, SIGTERM)
      var status: Int32 = 0
      var reaped = false
      for _ in 0..<1500 {  // up to 3 s
        if waitpid(child, &status, WNOHANG) == child {
          reaped = true
          break
        }
        usleep(2_000)  // bounded polling of the child
      }
      close(pipeEnds[0])
      if !reaped {
        outcomes.append("still running 3 s after SIGTERM")
        kill(child, SIGKILL)
        while waitpid(child, &status, 0) < 0, errno == EINTR {}
      } else if status & 0x7F != 0 {
        outcomes.append("killed by signal \(status & 0x7F)")
      } else if (status >> 8) & 0xFF != 0 {
        outcomes.append("exit status \((status >> 8) & 0xFF)")
      }
    }
    #expect(outcomes == [], "runs out of 20 that did not exit 0 on SIGTERM: \(outcomes)")
  }

  // MARK: - The demo

  /// The player with its suite's folder missing and the switch off (the default): it waits,
  /// plays when another process turns the switch on (creating the folder), and stops, with
  /// status 0, when it is turned off.
  @Test func thePlayerWaitsWithNoSuiteFolderThenPlaysAndStops() async throws {
    let directory = try TemporaryDirectory()
    let config = directory.file("not/yet")
    let environment = ["XDG_CONFIG_HOME": config.path]
    let suite = "TypedDefaultsTests.breakit.player"
    let player = Process()
    player.executableURL = TestPaths.productsDirectory.appendingPathComponent(
      "UserDefaultsModelDemo")
    player.arguments = ["--suite", suite, "--watch", "--timeout", "300"]
    player.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    player.standardOutput = output
    player.standardError = FileHandle.nullDevice
    let printed = Locked("")
    try player.run()
    Thread.detachNewThread {
      while true {
        let data = output.fileHandleForReading.availableData
        if data.isEmpty { break }
        printed.withLock { $0 += String(decoding: data, as: UTF8.self) }
      }
    }
    await eventually("the player waits (printed \(printed.withLock { $0 }))") {
      printed.withLock { $0 }.contains("cellular playback not allowed; waiting")
    }
    let on = try runProduct(
      "settings",
      ["write", "--store", "defaults", suite, "allowsCellularPlayback", "-bool", "true"],
      environment: environment)
    #expect(on.status == 0, "\(on.standardError)")
    await eventually("the player plays (printed \(printed.withLock { $0 }))") {
      printed.withLock { $0 }.contains("Player: playing over cellular")
    }
    let off = try runProduct(
      "settings",
      ["write", "--store", "defaults", suite, "allowsCellularPlayback", "-bool", "false"],
      environment: environment)
    #expect(off.status == 0, "\(off.standardError)")
    await eventually("the player exits") { !player.isRunning }
    let playerEnding = player.waitForExit()
    #expect(playerEnding.status == 0, "\(printed.withLock { $0 })")
  }
}
