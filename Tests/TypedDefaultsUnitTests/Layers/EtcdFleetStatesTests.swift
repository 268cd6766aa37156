import Foundation
import Testing
import TypedDefaults
import TypedDefaultsEtcd
import TypedDefaultsLayers
import TypedDefaultsTestSupport

/// The fleet source's states against a real etcd (issue #34; Docs/Design.md, "Fleet source
/// states"): a cluster rebuilt while the app was away replaces the layer whole, at a higher or a
/// lower revision; `refresh()` applies what the server has now; a watcher whose catch-up is above
/// the message limit catches up by a paged full read; the last known good file is current once
/// the watch stops.
@Suite(.requiresEtcd) struct EtcdFleetStatesTests {
  private static let prefix = "/config/com.example.states/"
  private static let quick = EtcdTesting.quickOptions(timeout: 5)

  /// The layer's values as text, by setting key.
  private func texts(_ source: EtcdSource) throws -> [String: String] {
    try source.read().values.mapValues { value -> String in
      if case .string(let text) = value { return text }
      return "\(value)"
    }
  }

  /// Puts `counter` = 1…50 (revision 51), watches until the source holds `counter=50`, stops the
  /// watch (the app is away: a partition), then wipes and restarts the member: a new history.
  private func followedThenWiped(
    _ server: EtcdServer, _ source: EtcdSource, in directory: TemporaryDirectory
  ) async throws -> LayeredPlistStore {
    for value in 1...50 { try server.put(Self.prefix + "counter", "\(value)") }
    let store = try EtcdTesting.store(source, in: directory)
    store.startWatching()
    await eventually("the source follows the counter") {
      (try? texts(source)) == ["counter": "50"] && source.revision == 51
    }
    store.stopWatching()
    server.kill()
    try FileManager.default.removeItem(at: server.dataDirectory)
    try server.restart()
    return store
  }

  @Test func aClusterRebuiltAtAHigherRevisionReplacesTheLayerWhole() async throws {
    let server = try EtcdServer()
    let directory = try TemporaryDirectory()
    let source = EtcdSource(endpoints: [server.endpoint], prefix: Self.prefix, options: Self.quick)
    let store = try await followedThenWiped(server, source, in: directory)
    // The new cluster's history passes the old revision: resuming from 52 would mix them.
    var expected: [String: String] = [:]
    for index in 1...60 {
      try server.put(Self.prefix + "k\(index)", "\(index)")
      expected["k\(index)"] = "\(index)"
    }
    let revision = try server.revision()
    #expect(revision == 61)
    store.startWatching()
    defer { store.stopWatching() }
    await eventually("the layer is the new cluster's") { source.revision == revision }
    #expect(try texts(source) == expected)
    #expect(source.status == .connected(endpoint: server.endpoint, revision: revision))
    #expect(source.lastError == nil)
    try server.put(Self.prefix + "k1", "one")
    await eventually("the watch follows the new cluster") { (try? texts(source))?["k1"] == "one" }
  }

  @Test func aClusterRebuiltAtALowerRevisionReplacesTheLayerWhole() async throws {
    let server = try EtcdServer()
    let directory = try TemporaryDirectory()
    let source = EtcdSource(endpoints: [server.endpoint], prefix: Self.prefix, options: Self.quick)
    let store = try await followedThenWiped(server, source, in: directory)
    for index in 1...5 { try server.put(Self.prefix + "k\(index)", "\(index)") }
    store.startWatching()
    defer { store.stopWatching() }
    await eventually("the layer is the new cluster's") { source.revision == 6 }
    #expect(try texts(source) == ["k1": "1", "k2": "2", "k3": "3", "k4": "4", "k5": "5"])
    #expect(source.status == .connected(endpoint: server.endpoint, revision: 6))
  }

  @Test func refreshAfterARebuildToALowerRevisionAppliesTheNewContent() async throws {
    let server = try EtcdServer()
    for value in 1...20 { try server.put(Self.prefix + "counter", "\(value)") }
    let source = EtcdSource(endpoints: [server.endpoint], prefix: Self.prefix, options: Self.quick)
    #expect(try texts(source) == ["counter": "20"])
    server.kill()
    try FileManager.default.removeItem(at: server.dataDirectory)
    try server.restart()
    try server.put(Self.prefix + "fresh", "yes")
    try await source.refresh()
    #expect(try texts(source) == ["fresh": "yes"])
    #expect(source.revision == 2)
    #expect(source.status == .connected(endpoint: server.endpoint, revision: 2))
  }

  @Test func stopWatchingLeavesTheLastKnownGoodFileCurrent() async throws {
    let server = try EtcdServer()
    try server.put(Self.prefix + "counter", "0")
    let directory = try TemporaryDirectory()
    let file = directory.file("fleet.plist")
    let source = EtcdSource(
      endpoints: [server.endpoint], prefix: Self.prefix, lastKnownGoodFile: file,
      options: Self.quick)
    let store = try EtcdTesting.store(source, in: directory)
    for value in 1...3 {
      store.startWatching()
      try server.put(Self.prefix + "counter", "\(value)")
      await eventually("the change is applied") { (try? texts(source))?["counter"] == "\(value)" }
      // At once: the save it scheduled (100 ms later) is made before stopWatching returns.
      store.stopWatching()
      let offline = EtcdSource(
        endpoints: [URL(string: "http://127.0.0.1:\(try EtcdServer.unusedPort())")!],
        prefix: Self.prefix, lastKnownGoodFile: file, options: Self.quick)
      #expect(try texts(offline) == ["counter": "\(value)"])
    }
  }

  /// The `counter` value the last known good `file` holds, if any.
  private func savedCounter(in file: URL) -> PropertyListValue? {
    guard
      case .dictionary(let values)? = (try? PropertyListFile(url: file).readDictionary())??[
        "values"]
    else { return nil }
    return values["counter"]
  }

  @Test func stopWatchingWaitsForALastKnownGoodSaveAlreadyUnderWay() async throws {
    // stopWatching returned at once when the save of the last change had taken its snapshot
    // but not yet written it (nothing was left "needed" or "scheduled"), so an app that stopped
    // then could find the file a change behind. Each round stops the watch while the change's
    // save is under way (its temporary file is in the folder) when the polling catches it.
    let server = try EtcdServer()
    let directory = try TemporaryDirectory()
    let file = directory.file("fleet.plist")
    let source = EtcdSource(
      endpoints: [server.endpoint], prefix: Self.prefix, lastKnownGoodFile: file,
      options: Self.quick)
    let store = try EtcdTesting.store(source, in: directory)
    for value in 1...20 {
      store.startWatching()
      try server.put(Self.prefix + "counter", "\(value)")
      await eventually("the change is applied") { (try? texts(source))?["counter"] == "\(value)" }
      // Until the change's save is under way (its temporary file) or done (the file holds it).
      let deadline = Date().addingTimeInterval(5)
      while Date() < deadline,
        savedCounter(in: file) != .string("\(value)")
      {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        if names.contains(where: { $0.hasPrefix(".fleet.plist.") && $0.hasSuffix(".tmp") }) {
          break
        }
      }
      store.stopWatching()
      let offline = EtcdSource(
        endpoints: [URL(string: "http://127.0.0.1:\(try EtcdServer.unusedPort())")!],
        prefix: Self.prefix, lastKnownGoodFile: file, options: Self.quick)
      #expect(try texts(offline) == ["counter": "\(value)"], "round \(value)")
    }
  }

  @Test func aCatchUpAboveTheMessageLimitIsMadeByAPagedFullRead() async throws {
    let server = try EtcdServer()
    try server.put(Self.prefix + "before", "1")
    var options = Self.quick
    options.maximumResponseSize = 64 * 1024
    let directory = try TemporaryDirectory()
    let source = EtcdSource(endpoints: [server.endpoint], prefix: Self.prefix, options: options)
    let store = try EtcdTesting.store(source, in: directory)
    store.startWatching()
    defer { store.stopWatching() }
    await eventually("the watch runs") {
      if case .connected = source.status { return true }
      return false
    }
    // One revision of 10 values of 8 KiB: a watch message of some 110 KB, above the 64 KiB
    // limit, and a prefix that only a read in pages can hold (80 KiB of values: below the
    // whole read's 96 KiB).
    let value = String(repeating: "v", count: 8 * 1024)
    var values: [String: Data] = [:]
    var expected: [String: String] = [:]
    for index in 1...10 {
      values[Self.prefix + "big\(index)"] = Data(value.utf8)
      expected["big\(index)"] = value
    }
    try server.replace(prefix: Self.prefix, with: values)
    await eventually("the layer catches up") { source.revision == 3 }
    #expect(try texts(source) == expected)
    try server.put(Self.prefix + "after", "1")
    await eventually("the watch resumes") { (try? texts(source))?["after"] == "1" }
    #expect(source.status == .connected(endpoint: server.endpoint, revision: 4))
    #expect(source.lastError == nil)
  }

  @Test func threeWatchersThroughAKillACompactionAndARebuildEndOnTheFinalContentNeverMixed()
    async throws
  {
    let server = try EtcdServer()
    let directory = try TemporaryDirectory()
    let sources = (0..<3).map { _ in
      EtcdSource(endpoints: [server.endpoint], prefix: Self.prefix, options: Self.quick)
    }
    let stores = try sources.enumerated().map { index, source in
      try LayeredPlistStore(
        persistentFile: directory.file("data\(index).plist"),
        layers: [.runtime, .persistent, .source(source)],
        options: LayeredPlistStore.Options(savesAtExit: false))
    }
    for store in stores { store.startWatching() }
    var expected: [String: String] = [:]
    func put(_ key: String, _ value: Int) throws {
      try server.put(Self.prefix + key, "\(value)")
      expected[key] = "\(value)"
    }
    // The old history: puts, a compaction, a kill -9 and a restart with the data kept.
    for value in 1...40 { try put("old-\(value % 8)", value) }
    try server.compact(toRevision: try server.revision())
    for value in 41...60 { try put("old-\(value % 8)", value) }
    server.kill()
    try server.restart()
    for value in 61...80 { try put("old-\(value % 8)", value) }
    for source in sources {
      await eventually("every watcher holds the old history's last content") {
        (try? texts(source)) == expected
      }
    }
    // A partition while the cluster is wiped and rebuilt past the old revision.
    for store in stores { store.stopWatching() }
    server.kill()
    try FileManager.default.removeItem(at: server.dataDirectory)
    try server.restart()
    expected = [:]
    for value in 1...100 { try put("new-\(value % 8)", value) }
    #expect(try server.revision() > 81)
    for store in stores { store.startWatching() }
    defer { for store in stores { store.stopWatching() } }
    // Until each holds the new content, no watcher ever holds keys of both histories.
    let deadline = Date().addingTimeInterval(10)
    var mixed: [String] = []
    while Date() < deadline {
      let all = try sources.map { try texts($0) }
      for keys in all.map(\.keys) {
        if keys.contains(where: { $0.hasPrefix("old-") }),
          keys.contains(where: { $0.hasPrefix("new-") })
        {
          mixed.append(keys.sorted().joined(separator: ","))
        }
      }
      if all.allSatisfy({ $0 == expected }) { break }
      try await Task.sleep(nanoseconds: 2_000_000)
    }
    #expect(mixed.isEmpty, "\(mixed.prefix(3))")
    for source in sources {
      #expect(try texts(source) == expected)
      #expect(source.status == .connected(endpoint: server.endpoint, revision: 101))
    }
  }
}
