import Foundation
import Testing
import TypedDefaultsTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Issue #34's "Done when" run: three watching processes through 1,000 puts and a changing
/// cluster end on its final content, never mixing two histories.
///
/// Each process is a SettingsProbe `etcd-watch` (a store whose fleet layer is an `EtcdSource`);
/// around them the test compacts, kills etcd, pauses them with SIGSTOP while the cluster changes
/// (a partition, as a process sees it), and twice wipes and rebuilds the cluster (a new data
/// folder: a new history, at a lower and then at a higher revision than the one before). Each
/// process records every change of what it sees; the test then checks every line of every
/// record: a `connected` line holds exactly the cluster's content at the revision it names, no
/// line holds keys of two histories, no line goes back to a replaced history, and every process
/// ends on the cluster's final content, connected, without an error.
@Suite(.requiresEtcd, .tags(.fault)) struct EtcdFleetChaosProcessTests {
  private static let prefix = "/config/com.example.chaos/"

  /// Why the run could not go on: a probe that didn't start, watchers that didn't catch up.
  private struct ChaosFailure: Error, CustomStringConvertible {
    let description: String
  }

  /// One line of a watcher's record (see Tests/SettingsProbe/EtcdWatchModes.swift).
  private struct Observation: Equatable, CustomStringConvertible {
    /// `connected`, `offline` or `notStarted`.
    var status: String
    /// The status's revision (`connected`), else the source's.
    var revision: Int64
    /// The fleet layer's values, by setting key.
    var layer: [String: String]
    /// The store's values (what the app reads), by key.
    var store: [String: String]
    /// Whether the source's `lastError` was set.
    var failed: Bool
    /// The line as recorded.
    var line: String

    /// Parses `line`; `nil` when it isn't a record line.
    init?(_ line: String) {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard fields.count == 5, let revision = Int64(fields[1]) else { return nil }
      func values(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for pair in text.split(separator: ",") {
          let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
          values[parts[0]] = parts.count == 2 ? parts[1] : ""
        }
        return values
      }
      status = fields[0]
      self.revision = revision
      layer = values(fields[2])
      store = values(fields[3])
      failed = fields[4] == "error"
      self.line = line
    }

    /// The line, its fields separated by " | ".
    var description: String { line.replacingOccurrences(of: "\t", with: " | ") }
  }

  /// A running SettingsProbe `etcd-watch` process and what it has recorded so far.
  private final class Watcher {
    /// The name its files and the test's messages use.
    let name: String
    /// The probe's process id.
    let pid: pid_t
    /// The record, read as it grows.
    private let record: FileHandle
    /// What was read of a line not finished yet.
    private var pending = Data()
    /// The record's lines so far.
    private(set) var observations: [Observation] = []
    /// Lines that weren't record lines.
    private(set) var malformed: [String] = []

    /// Starts the probe watching `prefix` at `endpoint`, its files in `directory`.
    init(_ name: String, endpoint: URL, prefix: String, in directory: TemporaryDirectory) throws {
      self.name = name
      let recordFile = directory.file("\(name).record")
      try Data().write(to: recordFile)
      record = try FileHandle(forReadingFrom: recordFile)
      let probe = TestPaths.productsDirectory.appendingPathComponent("SettingsProbe").path
      let arguments = [
        probe, "etcd-watch", endpoint.absoluteString, prefix,
        directory.file("\(name).plist").path, recordFile.path,
      ]
      let errors = directory.file("\(name).stderr").path
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      defer { posix_spawn_file_actions_destroy(&actions) }
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
      posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
      let environment = ProcessInfo.processInfo.environment.merging(
        ["SWIFT_BACKTRACE": "enable=no"]) { $1 }
      let argv = arguments.map { strdup($0) } + [nil]
      let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
      defer { for pointer in argv + envp { free(pointer) } }
      var child: pid_t = 0
      let spawned = posix_spawn(&child, probe, &actions, nil, argv, envp)
      guard spawned == 0 else {
        throw ChaosFailure(
          description: "SettingsProbe did not start: \(String(cString: strerror(spawned)))")
      }
      pid = child
    }

    /// Reads what the probe appended since the last call.
    func poll() {
      pending.append(record.availableData)
      while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
        pending.removeSubrange(pending.startIndex...newline)
        if let observation = Observation(line) {
          observations.append(observation)
        } else {
          malformed.append(line)
        }
      }
    }

    /// Pauses (`SIGSTOP`) or resumes (`SIGCONT`) the probe: a partition, as the process sees it.
    func send(_ signal: Int32) {
      kill(pid, signal)
    }

    /// Kills the probe and reaps it.
    func end() {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      _ = waitpid(pid, &status, 0)
      try? record.close()
    }
  }

  /// The content of one history of the cluster (a data folder) at each of its revisions.
  private struct History {
    /// The prefix of its keys' names (`h1` for `h1-0` … `h1-7`).
    let name: String
    /// Its newest revision.
    var revision: Int64
    /// Its content at ``revision``, by setting key.
    var current: [String: String] = [:]
    /// Its content at each revision.
    var byRevision: [Int64: [String: String]]

    /// An empty history whose first revision is `revision`.
    init(_ name: String, startingAt revision: Int64) {
      self.name = name
      self.revision = revision
      byRevision = [revision: [:]]
    }
  }

  /// The watchers' records checked, line by line, against `histories` (in the order the cluster
  /// had them): the problems found.
  private func problems(in watchers: [Watcher], _ histories: [History]) -> [String] {
    var found: [String] = []
    func history(of values: [String: String]) -> Int?? {
      let indices = Set(
        values.keys.map { key in histories.firstIndex { key.hasPrefix("\($0.name)-") } })
      if indices.isEmpty { return .some(nil) }  // empty: no history told
      guard indices.count == 1, let index = indices.first! else { return nil }  // mixed, or unknown
      return .some(index)
    }
    for watcher in watchers {
      var newestLayer = 0
      var newestStore = 0
      var lastConnected: (history: Int, revision: Int64)?
      for (number, observation) in watcher.observations.enumerated() {
        let at = "\(watcher.name), line \(number + 1): \(observation)"
        guard let layerHistory = history(of: observation.layer) else {
          found.append("\(at): the layer holds keys of two histories, or unknown keys")
          continue
        }
        guard let storeHistory = history(of: observation.store) else {
          found.append("\(at): the store holds keys of two histories, or unknown keys")
          continue
        }
        if let layerHistory {
          if layerHistory < newestLayer {
            found.append("\(at): the layer went back to a replaced history")
          }
          newestLayer = max(newestLayer, layerHistory)
        }
        if let storeHistory {
          if storeHistory < newestStore {
            found.append("\(at): the store went back to a replaced history")
          }
          newestStore = max(newestStore, storeHistory)
        }
        guard observation.status == "connected" else { continue }
        // Connected at revision R: the layer is exactly a history's content at R (an empty layer
        // is any history's first revision: the newest one it can be, not one already replaced).
        let candidates = layerHistory.map { [$0] } ?? Array(histories.indices.reversed())
        let matching = candidates.filter {
          $0 >= newestLayer && histories[$0].byRevision[observation.revision] == observation.layer
        }
        guard let index = matching.first else {
          found.append("\(at): connected at a revision whose content the layer doesn't hold")
          continue
        }
        if let last = lastConnected, last.history == index, observation.revision < last.revision {
          found.append("\(at): connected at a revision below an earlier one of the same history")
        }
        lastConnected = (index, observation.revision)
      }
      found += watcher.malformed.map { "\(watcher.name): a malformed record line: \($0)" }
    }
    return found
  }

  @Test func threeWatchingProcessesThroughKillsWipesCompactionsAndPartitionsEndOnTheFinalContent()
    throws
  {
    let server = try EtcdServer()
    let directory = try TemporaryDirectory()
    let watchers = try (0..<3).map {
      try Watcher("watcher\($0)", endpoint: server.endpoint, prefix: Self.prefix, in: directory)
    }
    defer { for watcher in watchers { watcher.end() } }
    var histories = [History("h1", startingAt: try server.revision())]
    var puts = 0

    /// Puts the next value of the current history (keys `<history>-0` … `-7`).
    func put(_ count: Int) throws {
      for _ in 0..<count {
        puts += 1
        var history = histories[histories.count - 1]
        let key = "\(history.name)-\(puts % 8)"
        try server.put(Self.prefix + key, "\(puts)")
        history.revision += 1
        history.current[key] = "\(puts)"
        history.byRevision[history.revision] = history.current
        histories[histories.count - 1] = history
      }
    }
    /// Waits (polling every 5 ms, at most 20 s) until every watcher's last line is connected at
    /// the current history's revision with its content, in the layer and in the store.
    func waitForAll(_ what: String) throws {
      let history = histories[histories.count - 1]
      let deadline = Date().addingTimeInterval(20)
      var last: [String] = []
      while Date() < deadline {
        for watcher in watchers { watcher.poll() }
        last = watchers.map { "\($0.name): \($0.observations.last?.description ?? "nothing")" }
        let caughtUp = watchers.allSatisfy { watcher in
          guard let seen = watcher.observations.last else { return false }
          return seen.status == "connected" && seen.revision == history.revision
            && seen.layer == history.current && seen.store == history.current && !seen.failed
        }
        if caughtUp { return }
        usleep(5000)
      }
      throw ChaosFailure(
        description:
          "\(what): not every watcher reached revision \(history.revision) of \(history.name) in "
          + "20 s; their last lines:\n" + last.joined(separator: "\n")
          + "\nWhat their records show so far: \(problems(in: watchers, histories).prefix(5))")
    }
    /// Kills etcd, gives it a new data folder, and starts it again: a new history.
    func rebuild(_ name: String) throws {
      server.kill()
      try FileManager.default.removeItem(at: server.dataDirectory)
      try server.restart()
      histories.append(History(name, startingAt: try server.revision()))
    }

    try waitForAll("the first connection")
    // History 1: compactions, a partition across a compaction, a kill -9 with the data kept.
    try put(150)
    try server.compact(toRevision: try server.revision())
    try put(100)
    watchers[0].send(SIGSTOP)
    try put(150)
    try server.compact(toRevision: try server.revision())
    watchers[0].send(SIGCONT)
    server.kill()
    try server.restart()
    try put(100)
    try waitForAll("history 1")
    // History 2, at a lower revision: two watchers partitioned through the wipe, one watching.
    watchers[0].send(SIGSTOP)
    watchers[1].send(SIGSTOP)
    try rebuild("h2")
    try put(100)
    watchers[0].send(SIGCONT)
    watchers[1].send(SIGCONT)
    try waitForAll("history 2")
    // History 3, at a higher revision than history 2's: all three partitioned through the wipe;
    // then a partition across a kill -9 and a compaction.
    for watcher in watchers { watcher.send(SIGSTOP) }
    try rebuild("h3")
    try put(200)
    for watcher in watchers { watcher.send(SIGCONT) }
    try put(100)
    watchers[2].send(SIGSTOP)
    server.kill()
    try server.restart()
    try server.compact(toRevision: try server.revision())
    try put(100)
    watchers[2].send(SIGCONT)
    try waitForAll("history 3")

    #expect(puts == 1000)
    #expect(histories.map(\.revision) == [501, 101, 401])
    #expect(try server.revision() == 401)
    let found = problems(in: watchers, histories)
    #expect(found.isEmpty, "\(found.count) problems; the first: \(found.prefix(10))")
    for watcher in watchers {
      // Each saw every history's final content (the waits), and ends on the last one's.
      let last = try #require(watcher.observations.last)
      #expect(last.status == "connected" && last.revision == 401 && !last.failed, "\(last)")
      #expect(last.layer == histories[2].current && last.store == histories[2].current)
      // Its standard error holds the library's diagnostics only (the offline moments): no
      // failure of the probe, no crash, no sanitizer report.
      let errors = try String(
        contentsOf: directory.file("\(watcher.name).stderr"), encoding: .utf8)
      let foreign = errors.split(separator: "\n").filter { !$0.hasPrefix("TypedDefaults: ") }
      #expect(foreign.isEmpty, "\(watcher.name): \(foreign.prefix(5))")
    }
  }
}
