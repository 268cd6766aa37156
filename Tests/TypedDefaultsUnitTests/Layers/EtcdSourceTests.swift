import Foundation
import Testing
import TypedDefaults
import TypedDefaultsEtcd
import TypedDefaultsLayers
import TypedDefaultsTestSupport
import TypedDefaultsTesting

private struct PlayerFleetSettings: SettingsGroup {
  @Setting var maxBitrate = 1000
  @Setting var greeting = "hello"
  @Setting var allowsCellular = false
}

/// The etcd layer source (issue #20) against a real `etcd` process each test starts: the read at
/// open, the watch, and what a real network does (offline start, a killed server, compacted
/// history, a member down, bad data, authentication).
@Suite(.enabled(if: EtcdServer.isAvailable, Comment(rawValue: EtcdServer.unavailableReason)))
struct EtcdSourceTests {
  private static let prefix = "/config/com.example.player/"
  /// A generous timeout: etcd's bcrypt is slow on a loaded machine.
  private static let quick = EtcdTesting.quickOptions(timeout: 5)

  private func store(
    _ source: EtcdSource, in directory: TemporaryDirectory
  ) throws -> LayeredPlistStore {
    try EtcdTesting.store(source, in: directory)
  }

  // MARK: - Reading and watching

  @Test func theStoreOpensWithEveryKeyUnderThePrefixReadAsTheDeclaredTypes() throws {
    let server = try EtcdServer()
    try server.put(Self.prefix + "maxBitrate", "8000")
    try server.put(Self.prefix + "greeting", "bonjour")
    try server.put(Self.prefix + "allowsCellular", "yes")
    try server.put("/config/com.example.other/maxBitrate", "1")  // another prefix
    let directory = try TemporaryDirectory()
    let source = EtcdSource(endpoints: [server.endpoint], prefix: Self.prefix, options: Self.quick)
    let store = try store(source, in: directory)
    let settings = PlayerFleetSettings(backend: store)
    #expect(settings.maxBitrate == 8000)
    #expect(settings.greeting == "bonjour")
    #expect(settings.allowsCellular == true)
    #expect(store.layer(forKey: "maxBitrate") == "fleet")
    #expect(try source.read().values.keys.sorted() == ["allowsCellular", "greeting", "maxBitrate"])
    guard case .connected(let endpoint, let revision) = source.status else {
      Issue.record("not connected: \(source.status)")
      return
    }
    #expect(endpoint == server.endpoint)
    #expect(try revision == server.revision())
    // The user's own value in data.plist wins over the fleet's.
    settings.maxBitrate = 320
    #expect(settings.maxBitrate == 320)
    #expect(store.layer(forKey: "maxBitrate") == .persistent)
  }

  /// etcd was not a `standardLayers` parameter (issue 37, item 7): the fleet layer goes below
  /// `data.plist` and above what shipped (a ConfigMap, the delivered file).
  @Test func anEtcdSourceIsStandardLayersFleetBelowTheUsersFileAboveWhatShipped() throws {
    let server = try EtcdServer()
    try server.put(Self.prefix + "maxBitrate", "8000")
    try server.put(Self.prefix + "greeting", "bonjour")
    let directory = try TemporaryDirectory()
    let configMap = directory.file("configmap")
    try FileManager.default.createDirectory(at: configMap, withIntermediateDirectories: false)
    try Data("hallo".utf8).write(to: configMap.appending(path: "greeting"))
    try Data("2000".utf8).write(to: configMap.appending(path: "maxBitrate"))
    let delivered = directory.file("JF-info.plist")
    try PropertyListFile(url: delivered).write(["maxBitrate": 1000])
    let source = EtcdSource(endpoints: [server.endpoint], prefix: Self.prefix, options: Self.quick)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: LayeredPlistStore.standardLayers(
        fleet: source, directories: [DirectorySource(directory: configMap, layer: "config")],
        deliveredFile: delivered),
      options: .init(savesAtExit: false))
    #expect(store.layers == [.runtime, .persistent, "fleet", "config", .delivered])
    let settings = PlayerFleetSettings(backend: store)
    #expect(settings.maxBitrate == 8000)
    #expect(settings.greeting == "bonjour")
    settings.maxBitrate = 320
    #expect(store.layer(forKey: "maxBitrate") == .persistent)
  }

  @Test func aPutAndADeleteOnTheServerEachGiveOneEventForTheKey() async throws {
    let server = try EtcdServer()
    try server.put(Self.prefix + "maxBitrate", "8000")
    try server.put(Self.prefix + "greeting", "bonjour")
    let directory = try TemporaryDirectory()
    let source = EtcdSource(endpoints: [server.endpoint], prefix: Self.prefix, options: Self.quick)
    let store = try store(source, in: directory)
    let settings = PlayerFleetSettings(backend: store)
    let received = Received<SettingsChange>()
    let token = store.observeAllKeys { received.append($0) }
    defer { token.cancel() }
    store.startWatching()
    defer { store.stopWatching() }

    try server.put(Self.prefix + "maxBitrate", "9000")
    await eventually("the put arrives") { settings.maxBitrate == 9000 && received.count == 1 }
    try server.put(Self.prefix + "maxBitrate", "9000")  // the same value: no event
    try server.delete(Self.prefix + "greeting")
    await eventually("the delete arrives") { settings.greeting == "hello" && received.count == 2 }
    try server.put("/config/com.example.other/greeting", "hola")  // not under the prefix
    try server.put(Self.prefix + "allowsCellular", "true")
    await eventually("the last put arrives") { settings.allowsCellular && received.count == 3 }
    #expect(received.all.map(\.key) == ["maxBitrate", "greeting", "allowsCellular"])
    // Text read as the declared types.
    #expect(received.all.map(\.newValue) == [.integer(9000), nil, .bool(true)])
    #expect(try source.revision == server.revision())
  }

  // MARK: - Offline

  @Test func anAppLaunchedOfflineStartsWithTheFleetsLastValuesAndCatchesUp() async throws {
    let server = try EtcdServer()
    try server.put(Self.prefix + "maxBitrate", "8000")
    try server.put(Self.prefix + "greeting", "bonjour")
    let directory = try TemporaryDirectory()
    let cacheFile = directory.file("fleet.plist")
    do {
      let source = EtcdSource(
        endpoints: [server.endpoint], prefix: Self.prefix, lastKnownGoodFile: cacheFile,
        options: Self.quick)
      _ = try store(source, in: directory)
      #expect(source.lastError == nil)
    }
    // Kept for the owner only, atomically (no temporary file left beside it).
    let attributes = try FileManager.default.attributesOfItem(atPath: cacheFile.path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    // The engine's lock file, as beside data.plist, and no temporary file.
    #expect(
      files.filter { $0.hasPrefix("fleet") }.sorted() == ["fleet.plist", "fleet.plist.lock"],
      "\(files)")

    server.kill()
    let source = EtcdSource(
      endpoints: [server.endpoint], prefix: Self.prefix, lastKnownGoodFile: cacheFile,
      options: Self.quick)
    let store = try store(source, in: directory)
    let settings = PlayerFleetSettings(backend: store)
    #expect(settings.maxBitrate == 8000)
    #expect(settings.greeting == "bonjour")
    guard case .offline(let savedAt?) = source.status else {
      Issue.record("not offline with a file: \(source.status)")
      return
    }
    #expect(savedAt <= Date())
    #expect(source.lastError?.code == .fleetUnavailable)
    #expect(source.lastError?.path == server.endpoint.absoluteString)
    let problems = try source.read().problems
    #expect(problems.map(\.code) == [.fleetUnavailable])
    #expect(problems.first?.reason.contains("last known good values") == true)
    let explained = store.explain("maxBitrate").description
    #expect(
      explained.contains(
        "fleet       8000   <- wins   (offline: the last known good values, saved "), "\(explained)"
    )

    // The server returns with a change: the watch catches up.
    try server.restart()
    try server.put(Self.prefix + "maxBitrate", "9000")
    store.startWatching()
    defer { store.stopWatching() }
    await eventually("the source catches up") { settings.maxBitrate == 9000 }
    await eventually("the source is connected") {
      if case .connected = source.status { return source.lastError == nil }
      return false
    }
  }

  @Test func anAppLaunchedOfflineWithNoFileOpensWithAnEmptyLayerAndSaysWhy() throws {
    let endpoint = URL(string: "http://127.0.0.1:\(try EtcdServer.unusedPort())")!
    let directory = try TemporaryDirectory()
    let source = EtcdSource(endpoints: [endpoint], prefix: Self.prefix, options: Self.quick)
    let store = try store(source, in: directory)
    #expect(PlayerFleetSettings(backend: store).maxBitrate == 1000)
    #expect(source.status == .offline(lastKnownGoodSavedAt: nil))
    let problem = try #require(try source.read().problems.first)
    #expect(problem.code == .fleetUnavailable)
    #expect(problem.path == endpoint.absoluteString)
    #expect(problem.reason.contains("the layer is empty"))
  }

  // MARK: - A real network

  @Test func aServerKilledAndRestartedMidWatchLosesNoChange() async throws {
    let server = try EtcdServer()
    try server.put(Self.prefix + "maxBitrate", "1")
    let directory = try TemporaryDirectory()
    var options = Self.quick
    options.reconnectDelay = 0.3...0.6  // puts made right after the restart precede the reconnect
    let source = EtcdSource(endpoints: [server.endpoint], prefix: Self.prefix, options: options)
    let store = try store(source, in: directory)
    let settings = PlayerFleetSettings(backend: store)
    let received = Received<SettingsChange>()
    let token = store.observeAllKeys { received.append($0) }
    defer { token.cancel() }
    store.startWatching()
    defer { store.stopWatching() }
    try server.put(Self.prefix + "maxBitrate", "2")
    await eventually("the watch works") { settings.maxBitrate == 2 }

    for round in 1...3 {
      server.kill()
      await eventually("the source sees the server gone") {
        if case .offline = source.status { return true }
        return false
      }
      try server.restart()
      // Made while the source is away: it must get each of them.
      try server.put(Self.prefix + "maxBitrate", "\(10 * round)")
      try server.put(Self.prefix + "greeting", "round \(round)")
      // The events too: a read can see a value before its observers have run.
      await eventually("round \(round) arrives") {
        settings.maxBitrate == 10 * round && settings.greeting == "round \(round)"
          && received.count == 1 + 2 * round
      }
    }
    // Each key's values in write order, every one of them, each once (two keys changed while
    // the source was away arrive in one read of the layer, in no promised order between them).
    func values(of key: String) -> [String] {
      received.all.filter { $0.key == key }.map { $0.newValue.map { "\($0)" } ?? "nil" }
    }
    #expect(values(of: "maxBitrate") == ["2", "10", "20", "30"])
    #expect(values(of: "greeting") == (1...3).map { #""round \#($0)""# })
    #expect(received.count == 7)
    #expect(try source.revision == server.revision())
  }

  @Test func aCompactedRevisionReadsThePrefixAgainAndReportsExactlyTheKeysThatChanged() async throws
  {
    let server = try EtcdServer()
    for key in ["maxBitrate", "greeting", "allowsCellular"] {
      try server.put(Self.prefix + key, key == "maxBitrate" ? "1" : "x")
    }
    let directory = try TemporaryDirectory()
    let source = EtcdSource(endpoints: [server.endpoint], prefix: Self.prefix, options: Self.quick)
    let store = try store(source, in: directory)
    let received = Received<SettingsChange>()
    let token = store.observeAllKeys { received.append($0) }
    defer { token.cancel() }
    let before = source.revision

    // While the source doesn't watch: one key changed, one changed and changed back, one
    // removed, one added; then the history is compacted past the source's revision.
    try server.put(Self.prefix + "maxBitrate", "2")
    try server.put(Self.prefix + "greeting", "y")
    try server.put(Self.prefix + "greeting", "x")
    try server.delete(Self.prefix + "allowsCellular")
    try server.put(Self.prefix + "added", "new")
    try server.compact(toRevision: try server.revision())
    #expect(before < (try server.revision()))

    store.startWatching()
    defer { store.stopWatching() }
    await eventually("the source reads the prefix again") {
      store.value(forKey: "maxBitrate") == "2" && store.value(forKey: "added") == "new"
        && store.value(forKey: "allowsCellular") == nil && received.count >= 3
    }
    #expect(received.all.map(\.key).sorted() == ["added", "allowsCellular", "maxBitrate"])
    #expect(try source.revision == server.revision())
  }

  @Test func withAMemberDownTheSourceUsesTheNextEndpoint() async throws {
    let server = try EtcdServer()
    try server.put(Self.prefix + "maxBitrate", "8000")
    let down = URL(string: "http://127.0.0.1:\(try EtcdServer.unusedPort())")!
    let directory = try TemporaryDirectory()
    let source = EtcdSource(
      endpoints: [down, server.endpoint], prefix: Self.prefix, options: Self.quick)
    let store = try store(source, in: directory)
    let settings = PlayerFleetSettings(backend: store)
    #expect(settings.maxBitrate == 8000)
    #expect(try source.status == .connected(endpoint: server.endpoint, revision: server.revision()))
    #expect(source.lastError == nil)
    // The watch goes to the member that answers, too.
    store.startWatching()
    defer { store.stopWatching() }
    try server.put(Self.prefix + "maxBitrate", "9000")
    await eventually("the put arrives") { settings.maxBitrate == 9000 }
  }

  // MARK: - Bad data

  @Test func aValueThatDoesntValidateIsPassedOverAndBadBytesKeepTheLastGoodValue() async throws {
    let server = try EtcdServer()
    try server.put(Self.prefix + "maxBitrate", "8000")
    let directory = try TemporaryDirectory()
    let source = EtcdSource(endpoints: [server.endpoint], prefix: Self.prefix, options: Self.quick)
    let store = try store(source, in: directory)
    let settings = PlayerFleetSettings(backend: store)
    store.startWatching()
    defer { store.stopWatching() }

    // Text the declared type can't read: passed over by the store, as at a start (no layer
    // below holds the key: the default).
    try server.put(Self.prefix + "maxBitrate", "loud")
    try server.put(Self.prefix + "greeting", "after the bad one")
    await eventually("the next put arrives") { settings.greeting == "after the bad one" }
    #expect(settings.maxBitrate == 1000)
    // Bytes that are neither text nor a property list: the source keeps the last good value.
    try server.put(Self.prefix + "maxBitrate", "8500")
    await eventually("a good value arrives") { settings.maxBitrate == 8500 }
    try server.put(Self.prefix + "maxBitrate", data: Data([0xFF, 0xFE, 0x00, 0x81]))
    await eventually("the bad bytes are reported") {
      (try? source.read().problems.map(\.code)) == [.layerValueUnreadable]
    }
    #expect(settings.maxBitrate == 8500)
    #expect(try source.read().problems.first?.key == "maxBitrate")
    // A property list gives a typed value; a good value clears the problem.
    try server.put(
      Self.prefix + "maxBitrate",
      data: try PropertyListFile.encode(.integer(9000), format: .binary))
    await eventually("the property list arrives") { settings.maxBitrate == 9000 }
    #expect(try source.read().problems == [])
  }

  @Test func aResponseAboveTheLimitIsRefusedAndTheLayerKeepsItsValues() throws {
    let server = try EtcdServer()
    try server.put(Self.prefix + "greeting", String(repeating: "x", count: 4096))
    let directory = try TemporaryDirectory()
    var options = Self.quick
    options.maximumResponseSize = 1024
    let source = EtcdSource(endpoints: [server.endpoint], prefix: Self.prefix, options: options)
    let store = try store(source, in: directory)
    #expect(PlayerFleetSettings(backend: store).greeting == "hello")
    let problem = try #require(source.lastError)
    #expect(problem.code == .fleetUnavailable)
    #expect(problem.reason.contains("limit of 1024 bytes"))
  }

  // MARK: - Authentication

  @Test func aWrongPasswordIsATypedErrorNamingTheEndpointAndNeverThePassword() async throws {
    let server = try EtcdServer()
    try server.put(Self.prefix + "maxBitrate", "8000")
    try server.enableAuthentication(rootPassword: "correct horse")
    let directory = try TemporaryDirectory()
    let source = EtcdSource(
      endpoints: [server.endpoint], prefix: Self.prefix,
      credentials: .init(user: "root", password: "wrong-battery-staple"), options: Self.quick)
    let store = try store(source, in: directory)
    #expect(PlayerFleetSettings(backend: store).maxBitrate == 1000)
    do {
      try await source.refresh()
      Issue.record("refresh() succeeded with a wrong password")
    } catch {
      #expect(error.code == .fleetAuthenticationFailed)
      #expect(error.path == server.endpoint.absoluteString)
      #expect(!"\(error)".contains("wrong-battery-staple"))
    }
    var dumped = ""
    dump(source, to: &dumped)
    for shown in [
      "\(source)", dumped, "\(source.lastError.map { "\($0)" } ?? "")",
      "\(try source.read())", "\(EtcdSource.Credentials(user: "u", password: "pw-xyz"))",
    ] {
      #expect(!shown.contains("wrong-battery-staple") && !shown.contains("pw-xyz"), "\(shown)")
    }
    // Without credentials, the cluster's refusal says what to do.
    let anonymous = EtcdSource(
      endpoints: [server.endpoint], prefix: Self.prefix, options: Self.quick)
    await #expect(throws: SettingsError.self) { try await anonymous.refresh() }
    #expect(anonymous.lastError?.code == .fleetAuthenticationFailed)
    #expect(anonymous.lastError?.reason.contains("give the source credentials") == true)
  }

  @Test func aTokenTheServerNoLongerAcceptsIsRenewed() async throws {
    let server = try EtcdServer()
    try server.put(Self.prefix + "maxBitrate", "8000")
    try server.enableAuthentication(rootPassword: "correct horse")
    let directory = try TemporaryDirectory()
    let source = EtcdSource(
      endpoints: [server.endpoint], prefix: Self.prefix,
      credentials: .init(user: "root", password: "correct horse"), options: Self.quick)
    let store = try store(source, in: directory)
    let settings = PlayerFleetSettings(backend: store)
    #expect(settings.maxBitrate == 8000)
    store.startWatching()
    defer { store.stopWatching() }
    try server.put(Self.prefix + "maxBitrate", "8100")
    await eventually("the watch works with the token") { settings.maxBitrate == 8100 }
    // Changing the user's password (even to the same one) invalidates its tokens: the next
    // request is refused with "invalid auth token", and the source authenticates again.
    try server.request("/v3/auth/user/changepw", ["name": "root", "password": "correct horse"])
    try server.put(Self.prefix + "maxBitrate", "8200")
    try await source.refresh()
    #expect(source.lastError == nil)
    #expect(settings.maxBitrate == 8200)
    // A member restarted keeps serving the watch: it resumes, with the token or a new one.
    server.kill()
    try server.restart()
    try server.put(Self.prefix + "maxBitrate", "8300")
    await eventually("the watch resumes") { settings.maxBitrate == 8300 }
  }

  // MARK: - The layer source contract

  @Test(arguments: LayerSourceConformance.checks)
  func theEtcdSourcePassesTheConformanceSuite(_ check: LayerSourceConformance.Check) async throws {
    let server = try EtcdServer()
    let counter = Locked(0)
    await check.run(
      makeSource: { values in
        let prefix = "/conformance/\(counter.withLock { $0 += 1; return $0 })/"
        try server.replace(prefix: prefix, with: try Self.encoded(values, under: prefix))
        return EtcdSource(endpoints: [server.endpoint], prefix: prefix, options: Self.quick)
      },
      change: { source, values in
        try server.replace(
          prefix: source.prefix, with: try Self.encoded(values, under: source.prefix))
      })
  }

  /// Values as etcd keys and binary property lists, which the source reads back exactly.
  private static func encoded(
    _ values: [String: PropertyListValue], under prefix: String
  ) throws -> [String: Data] {
    try Dictionary(
      uniqueKeysWithValues: values.map { key, value in
        (prefix + key, try PropertyListFile.encode(value, format: .binary))
      })
  }
}
