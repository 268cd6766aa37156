import Dispatch
import Foundation
import Synchronization
import TypedDefaults
import TypedDefaultsEtcd
import TypedDefaultsLayers

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A measurement that can't run on this machine (a server that isn't installed): the run prints
/// `<identifier>: skipped (<reason>)` and goes on.
struct FigureSkipped: Error {
  var reason: String
}

// MARK: - Change latency

/// From a put on etcd to the change event in 1, 3 and 10 watching processes: median and 99th
/// percentile over every process and put, against a raw `/v3/watch` stream in the same number of
/// processes, measured in the same run on the same etcd.
///
/// Each watching process is this executable run as a child: `fleet-watch-ours` opens a
/// `LayeredPlistStore` whose `EtcdSource` watches ``prefix`` and observes ``key``;
/// `fleet-watch-raw` opens the gateway's watch stream on a socket itself and decodes each JSON
/// message. Both print `<value> <uptime ns>` when they learn of a put, on the monotonic clock all
/// processes share (`DispatchTime`). The parent puts `k` = 1, 2, 3… on one kept-alive
/// connection, the same for both, timestamping each put just before its request is sent, and
/// puts the next only once every child reported the last; the first ``warmUpPuts`` of each run
/// (the watches connecting) aren't counted.
///
/// The etcd's data folder is on `/dev/shm` where there is one, so that the server's commit (an
/// `fsync` of its log), which both sides wait for alike, adds as little as it can to both; the
/// children's own folders (`data.plist`, the last known good file) are in the temporary
/// directory, as an app's are on disk.
///
/// Puts come back to back, so the figure includes what a watching process does after an event
/// before it reads the next: `EtcdSource` saves its last known good file (an `fsync`) on its
/// watch thread after each watch message, and the next change waits for that save. Without a
/// last known good file, ours was measured within 20 % of the raw watch at p50 (one full run:
/// ratios 1.07, 1.02 and 1.18 for 1, 3 and 10 processes).
enum FleetLatency {
  static let oursTask = "fleet-watch-ours"
  static let rawTask = "fleet-watch-raw"
  /// The prefix the children watch.
  static let prefix = "/bench/"
  /// The key the parent puts, under ``prefix``.
  static let key = "k"
  /// Puts at the start of each run that aren't counted.
  static let warmUpPuts = 3

  enum Kind: String {
    case ours, raw

    var task: String { self == .ours ? FleetLatency.oursTask : FleetLatency.rawTask }
  }

  /// Measures `puts` puts for each number of watching processes.
  static func measure(puts: Int) throws -> [Figure] {
    let etcd = try BenchEtcd()
    defer { etcd.stop() }
    let folder = try ScratchFolder()
    defer { folder.remove() }
    var nextValue = 1
    var figures: [Figure] = []
    for watchers in [1, 3, 10] {
      let raw = try run(
        .raw, watchers: watchers, puts: puts, endpoint: etcd.endpoint, folder: folder,
        nextValue: &nextValue)
      let ours = try run(
        .ours, watchers: watchers, puts: puts, endpoint: etcd.endpoint, folder: folder,
        nextValue: &nextValue)
      let processes = watchers == 1 ? "1 watching process" : "\(watchers) watching processes"
      let detail = "(EtcdSource store vs raw /v3/watch, \(puts) puts)"
      figures.append(
        Figure(
          name: "put → event, \(processes), p50 \(detail)", ours: median(ours),
          baseline: median(raw), target: nil, unit: "µs"))
      figures.append(
        Figure(
          name: "put → event, \(processes), p99 \(detail)", ours: percentile99(ours),
          baseline: percentile99(raw), target: nil, unit: "µs"))
    }
    return figures
  }

  static func percentile99(_ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
  }

  /// One run: starts `watchers` children of a kind, puts `warmUpPuts + puts` values, and returns
  /// the latencies of the counted puts in every child, in microseconds.
  private static func run(
    _ kind: Kind, watchers: Int, puts: Int, endpoint: URL, folder: ScratchFolder,
    nextValue: inout Int
  ) throws -> [Double] {
    let events = WatcherEvents(children: watchers)
    var inputs: [(process: Process, input: Pipe)] = []
    defer { end(inputs) }
    for index in 0..<watchers {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        .resolvingSymlinksInPath()
      var argument = endpoint.absoluteString
      if kind == .ours {
        let own = folder.file("\(kind)-\(watchers)-\(index)")
        try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
        argument += " " + own.path
      }
      process.arguments = [ChildProcesses.flag, kind.task, argument]
      let input = Pipe()
      let output = Pipe()
      process.standardInput = input
      process.standardOutput = output
      try process.run()
      inputs.append((process, input))
      events.collect(output.fileHandleForReading, child: index)
    }
    try events.wait(seconds: 60, for: "\(watchers) \(kind) watching processes to start") {
      $0.ready == watchers
    }
    let connection = try RawHTTP(endpoint: endpoint, timeout: 10)
    defer { connection.disconnect() }
    var samples: [Double] = []
    for round in 0..<(warmUpPuts + puts) {
      let value = nextValue
      nextValue += 1
      let sent = try connection.put(key: prefix + key, value: String(value))
      try events.wait(seconds: 10, for: "the event of put \(value) in every \(kind) process") {
        $0.allSaw(value)
      }
      guard round >= warmUpPuts else { continue }
      for time in events.times(of: value) {
        samples.append(Double(Int64(bitPattern: time &- sent)) / 1_000)
      }
    }
    let (repeated, unexpected) = events.state.withLock { ($0.repeated, $0.unexpected) }
    if repeated > 0 || !unexpected.isEmpty {
      FileHandle.standardError.write(
        Data(
          ("fleet-latency (\(kind), \(watchers) processes): \(repeated) repeated events, "
            + "unexpected lines: \(unexpected.prefix(5))\n").utf8))
    }
    return samples
  }

  /// Closes the children's standard input, which ends them, and waits for them (killing any
  /// that hasn't ended within 5 seconds).
  private static func end(_ children: [(process: Process, input: Pipe)]) {
    for child in children { try? child.input.fileHandleForWriting.close() }
    let deadline = Date().addingTimeInterval(5)
    for child in children {
      while child.process.isRunning, Date() < deadline { usleep(5_000) }
      if child.process.isRunning { kill(child.process.processIdentifier, SIGKILL) }
      child.process.waitUntilExit()
    }
  }

  // MARK: Children

  /// Prints a line at once: the parent reads it through a pipe.
  private static func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
  }

  /// Runs in the child `fleet-watch-ours <endpoint> <folder>`: a store whose etcd layer watches
  /// the prefix; prints `ready`, then `<value> <uptime ns>` each time its observer of ``key``
  /// fires, until standard input ends.
  static func runOursWatcher(_ argument: String) throws {
    let parts = argument.split(separator: " ", maxSplits: 1).map(String.init)
    guard parts.count == 2, let endpoint = URL(string: parts[0]) else {
      fatalError("usage: \(oursTask) <endpoint> <folder>")
    }
    let folder = URL(fileURLWithPath: parts[1])
    let fleet = EtcdSource(
      endpoints: [endpoint], prefix: prefix,
      lastKnownGoodFile: folder.appendingPathComponent("fleet.plist"))
    let store = try LayeredPlistStore(
      persistentFile: folder.appendingPathComponent("data.plist"),
      layers: [.runtime, .persistent, .source(fleet)], options: .init(savesAtExit: false))
    let token = store.observe(key: key) { change in
      let now = DispatchTime.now().uptimeNanoseconds
      let text = change.newValue.map { $0.stringValue ?? "\($0)" } ?? "nil"
      emit("\(text) \(now)")
    }
    store.startWatching()
    emit("ready")
    while readLine() != nil {}
    token.cancel()
    store.stopWatching()
  }

  /// Runs in the child `fleet-watch-raw <endpoint>`: a plain watch of the prefix on a socket;
  /// prints `ready` once the watch is created, then `<value> <uptime ns>` for each put of ``key``
  /// it decodes, until standard input ends.
  static func runRawWatcher(_ argument: String) throws {
    guard let endpoint = URL(string: argument) else {
      fatalError("usage: \(rawTask) <endpoint>")
    }
    let stdinWatch = Thread {
      while readLine() != nil {}
      exit(0)
    }
    stdinWatch.start()
    let connection = try RawHTTP(endpoint: endpoint, timeout: nil)
    let start = Data(prefix.utf8).base64EncodedString()
    let end = Data(rangeEnd(of: prefix)).base64EncodedString()
    let watched = Data((prefix + key).utf8).base64EncodedString()
    let head = try connection.post(
      "/v3/watch", body: #"{"create_request":{"key":"\#(start)","range_end":"\#(end)"}}"#)
    guard head.status == 200 else {
      fatalError("the watch was refused: HTTP \(head.status)")
    }
    var pending: [UInt8] = []
    while let piece = try connection.nextBodyPiece(of: head) {
      pending += piece
      while let newline = pending.firstIndex(of: 10) {
        let line = Data(pending[..<newline])
        pending.removeSubrange(...newline)
        guard
          let message = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
          let result = message["result"] as? [String: Any]
        else { continue }
        if result["created"] as? Bool == true { emit("ready") }
        for case let event as [String: Any] in result["events"] as? [Any] ?? [] {
          guard event["type"] as? String != "DELETE",
            let kv = event["kv"] as? [String: Any], kv["key"] as? String == watched,
            let value = (kv["value"] as? String).flatMap({ Data(base64Encoded: $0) })
          else { continue }
          let now = DispatchTime.now().uptimeNanoseconds
          emit("\(String(decoding: value, as: UTF8.self)) \(now)")
        }
      }
    }
    fatalError("etcd ended the watch")
  }

  /// The end of a prefix's key range: the prefix with its last byte incremented.
  static func rangeEnd(of prefix: String) -> [UInt8] {
    var end = Array(prefix.utf8)
    while let last = end.last {
      if last < 0xFF {
        end[end.count - 1] = last + 1
        return end
      }
      end.removeLast()
    }
    return [0]
  }
}

/// What the watching children printed, collected by one reader thread per child.
final class WatcherEvents: Sendable {
  struct State: Sendable {
    /// Children that printed `ready`.
    var ready = 0
    /// Children whose output ended.
    var ended = 0
    /// Per child, the uptime at which it learned of each value.
    var times: [[Int: UInt64]]
    /// Events of a value a child had reported already (one change, two events).
    var repeated = 0
    /// Lines that are neither `ready` nor an event.
    var unexpected: [String] = []

    func allSaw(_ value: Int) -> Bool { times.allSatisfy { $0[value] != nil } }
  }

  let state: Mutex<State>
  private let arrived = DispatchSemaphore(value: 0)

  init(children: Int) {
    state = Mutex(State(times: Array(repeating: [:], count: children)))
  }

  /// Reads a child's output on a thread of its own until it ends.
  func collect(_ handle: FileHandle, child: Int) {
    let thread = Thread { [self] in
      var lines = CrossProcessLatency.LineReader(handle)
      while let line = lines.next() { record(line, child: child) }
      state.withLock { $0.ended += 1 }
      arrived.signal()
    }
    thread.start()
  }

  private func record(_ line: String, child: Int) {
    let fields = line.split(separator: " ")
    state.withLock { state in
      if line == "ready" {
        state.ready += 1
      } else if fields.count == 2, let value = Int(fields[0]), let time = UInt64(fields[1]) {
        if state.times[child][value] == nil {
          state.times[child][value] = time
        } else {
          state.repeated += 1
        }
      } else {
        state.unexpected.append(line)
      }
    }
    arrived.signal()
  }

  /// When each child learned of `value`.
  func times(of value: Int) -> [UInt64] {
    state.withLock { state in state.times.compactMap { $0[value] } }
  }

  /// Waits until `condition` holds, at most `seconds`.
  ///
  /// - Throws: When the time is up, or a child ended first.
  func wait(seconds: Double, for what: String, until condition: (State) -> Bool) throws {
    let deadline = DispatchTime.now() + seconds
    while true {
      let (met, ended) = state.withLock { (condition($0), $0.ended) }
      if met { return }
      if ended > 0 { throw benchmarkFailure("a watching process ended while waiting for \(what)") }
      guard arrived.wait(timeout: deadline) == .success else {
        throw benchmarkFailure("waited \(Int(seconds)) s for \(what)")
      }
    }
  }
}

func benchmarkFailure(_ message: String) -> any Error {
  CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: message])
}

// MARK: - Reads and offline start

extension Figures {
  /// Reads of a key the etcd layer holds, through `value(forKey:)` and through a `@Setting` of a
  /// `SettingsGroup`, against reads of a `Mutex<[String: PropertyListValue]>`.
  ///
  /// With etcd installed, the layer is filled from a live server and the store watches it (and,
  /// to show the network is not on the read path, reads are timed once more with the server
  /// stopped by `SIGSTOP`); otherwise from a last known good file, the source's only endpoint a
  /// closed port. The layer holds 101 keys, as etcd gives them: UTF-8 text. The
  /// `value(forKey:)` baseline holds the same values; the `@Setting Int` baseline holds `count`
  /// as an integer and reads it with `intValue`.
  ///
  /// A store that watches (or once watched) reads its `@Setting`s some 10 ns slower than one that
  /// never did, whatever its layers: `startWatching()` takes weak references to the store, which
  /// move its reference count to a side table, and each read presumably retains the store
  /// (a weak reference alone, without watching, does the same). Measured here as an app would
  /// run it, watching.
  func fleetReads() throws -> [Figure] {
    let folder = try ScratchFolder()
    defer { folder.remove() }
    let prefix = "/bench-read/"
    var values = Dictionary(
      uniqueKeysWithValues: (0..<100).map { ("fleet.key\($0)", PropertyListValue.string("\($0)")) })
    values["count"] = "42"
    let etcd = try BenchEtcd.isInstalled ? BenchEtcd() : nil
    defer { etcd?.stop() }
    let lastKnownGood = folder.file("fleet.plist")
    let endpoint: URL
    if let etcd {
      endpoint = etcd.endpoint
      let writer = EtcdSource(endpoints: [endpoint], prefix: prefix)
      for (key, value) in values { try writer.writeWaiting(value, forKey: key) }
    } else {
      endpoint = try closedEndpoint()
      try writeLastKnownGood(values, prefix: prefix, to: lastKnownGood)
    }
    let fleet = EtcdSource(endpoints: [endpoint], prefix: prefix, lastKnownGoodFile: lastKnownGood)
    // Offline, the store reports the fleet unreachable as it opens: expected here.
    let store = try SettingsDiagnostics.withHandler({ _ in }) {
      try LayeredPlistStore(
        persistentFile: folder.file("data.plist"),
        layers: [.runtime, .persistent, .source(fleet)], options: .init(savesAtExit: false))
    }
    let mode: String
    switch fleet.status {
    case .connected where etcd != nil:
      mode = "connected and watching"
      store.startWatching()
    case .offline(lastKnownGoodSavedAt: _?) where etcd == nil:
      mode = "offline, from its last known good file"
    default:
      throw benchmarkFailure("the etcd layer is \(fleet.status)")
    }
    defer { store.stopWatching() }
    let settings = BenchSettings(backend: store)
    guard store.layer(forKey: "count") == fleet.layer, settings.count == 42 else {
      throw benchmarkFailure("count is not read from the etcd layer: \(store.explain("count"))")
    }

    let plain = Mutex<[String: PropertyListValue]>(values)
    let (oursValue, rawValue) = compare(
      repeats: effort.repeats, iterations: effort.iterations,
      ours: { iterations in
        var found = 0
        for _ in 0..<iterations where store.value(forKey: "count") != nil { found &+= 1 }
        consume(found)
      },
      baseline: { iterations in
        var found = 0
        for _ in 0..<iterations where plain.withLock({ $0["count"] }) != nil { found &+= 1 }
        consume(found)
      })
    let typed = Mutex<[String: PropertyListValue]>(values.merging(["count": 42]) { $1 })
    let (oursSetting, rawSetting) = compare(
      repeats: effort.repeats, iterations: effort.iterations,
      ours: { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= settings.count }
        consume(sum)
      },
      baseline: { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= typed.withLock { $0["count"]?.intValue ?? 0 } }
        consume(sum)
      })

    if let etcd {
      // A server that stops answering must not slow a read: freeze it and read again.
      kill(etcd.process.processIdentifier, SIGSTOP)
      defer { kill(etcd.process.processIdentifier, SIGCONT) }
      let start = DispatchTime.now().uptimeNanoseconds
      var sum = 0
      for _ in 0..<1_000 where store.value(forKey: "count") != nil { sum &+= settings.count }
      consume(sum)
      let elapsed = DispatchTime.now().uptimeNanoseconds - start
      guard elapsed < 50_000_000 else {
        throw benchmarkFailure("2,000 reads took \(elapsed / 1_000_000) ms with etcd stopped")
      }
    }
    return [
      Figure(
        name: "LayeredPlistStore value(forKey:), a key in the etcd layer (\(mode))",
        ours: oursValue, baseline: rawValue, target: 1.5, unit: "ns"),
      Figure(
        name: "@Setting Int read through a SettingsGroup, a key in the etcd layer (\(mode))",
        ours: oursSetting, baseline: rawSetting, target: 1.5, unit: "ns"),
    ]
  }

  /// From creating a store whose `EtcdSource` reaches no endpoint (its only one a closed loopback
  /// port) and has a last known good file of 100 keys, to its first read; against opening a
  /// plain `LayeredPlistStore` on a `data.plist` of the same 100 keys and reading one.
  func fleetOfflineStart() throws -> Figure {
    let folder = try ScratchFolder()
    defer { folder.remove() }
    let prefix = "/bench-offline/"
    let all = tenThousandValues()
    let values = Dictionary(
      uniqueKeysWithValues: (0..<100).map { ("setting.\($0)", all["setting.\($0)"]!) })
    let lastKnownGood = folder.file("fleet.plist")
    try writeLastKnownGood(values, prefix: prefix, to: lastKnownGood)
    let plainFile = folder.file("plain.plist")
    try PropertyListFile(url: plainFile).write(.dictionary(values), format: .binary)
    let endpoint = try closedEndpoint()
    let oursFile = folder.file("data.plist")

    func openOffline() throws -> (EtcdSource, LayeredPlistStore) {
      let fleet = EtcdSource(
        endpoints: [endpoint], prefix: prefix, lastKnownGoodFile: lastKnownGood)
      let store = try LayeredPlistStore(
        persistentFile: oursFile, layers: [.runtime, .persistent, .source(fleet)],
        options: .init(savesAtExit: false))
      return (fleet, store)
    }
    // Each open reports the fleet unreachable (a diagnostic): expected here.
    let (ours, baseline) = try SettingsDiagnostics.withHandler({ _ in }) {
      let (fleet, store) = try openOffline()
      guard case .offline(lastKnownGoodSavedAt: _?) = fleet.status,
        store.value(forKey: "setting.7") == values["setting.7"]
      else {
        throw benchmarkFailure("the offline store didn't start from its last known good file")
      }
      return try compare(
        repeats: effort.repeats, iterations: max(40, effort.fileRepeats * 10),
        ours: { iterations in
          for _ in 0..<iterations {
            let (_, store) = try openOffline()
            guard store.value(forKey: "setting.7") != nil else {
              throw benchmarkFailure("no value")
            }
          }
        },
        baseline: { iterations in
          for _ in 0..<iterations {
            let store = try LayeredPlistStore(
              persistentFile: plainFile, options: .init(savesAtExit: false))
            guard store.value(forKey: "setting.7") != nil else {
              throw benchmarkFailure("no value")
            }
          }
        })
    }
    return Figure(
      name: "offline start: store with an EtcdSource (closed endpoint, 100-key last known good "
        + "file) created → first read (baseline: plain store on a 100-key data.plist, open → read)",
      ours: ours, baseline: baseline, target: nil, unit: "ns")
  }

  /// Writes a last known good file as `EtcdSource` keeps it: `prefix`, `revision`, `savedAt` and
  /// `values`, a binary property list.
  private func writeLastKnownGood(
    _ values: [String: PropertyListValue], prefix: String, to file: URL
  ) throws {
    try PropertyListFile(url: file).write(
      .dictionary([
        "prefix": .string(prefix), "revision": .integer(.init(Int64(1))), "savedAt": .date(Date()),
        "values": .dictionary(values),
      ]),
      format: .binary)
  }

  /// An `http://` endpoint on a loopback port nothing listens on.
  private func closedEndpoint() throws -> URL {
    URL(string: "http://127.0.0.1:\(try BenchEtcd.freePort())")!
  }
}

extension EtcdSource {
  /// ``write(_:forKey:)``, waited for on the calling thread.
  func writeWaiting(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    let outcome = WriteOutcome()
    Task.detached {
      do throws(SettingsError) {
        try await self.write(value, forKey: key)
      } catch {
        outcome.error.withLock { $0 = error }
      }
      outcome.done.signal()
    }
    outcome.done.wait()
    if let error = outcome.error.withLock({ $0 }) { throw error }
  }
}

private final class WriteOutcome: Sendable {
  let error = Mutex<SettingsError?>(nil)
  let done = DispatchSemaphore(value: 0)
}

// MARK: - A local etcd

/// An etcd started for the benchmark on free loopback ports, its data in a temporary folder
/// (on `/dev/shm` where there is one); `stop()` kills it and removes the folder.
final class BenchEtcd {
  /// The etcd to run: `$TYPEDDEFAULTS_ETCD` if set, else `/usr/bin/etcd` or `/usr/local/bin/etcd`.
  static var executable: String? {
    if let given = ProcessInfo.processInfo.environment["TYPEDDEFAULTS_ETCD"] {
      return FileManager.default.isExecutableFile(atPath: given) ? given : nil
    }
    return ["/usr/bin/etcd", "/usr/local/bin/etcd"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }

  static var isInstalled: Bool { executable != nil }

  let process = Process()
  let folder: URL
  let endpoint: URL

  /// Starts etcd and waits until it takes a write (at most 20 seconds).
  ///
  /// - Throws: ``FigureSkipped`` when etcd isn't installed; an error with the end of its log
  ///   when it doesn't start.
  init() throws {
    guard let executable = Self.executable else {
      throw FigureSkipped(reason: "etcd not installed: apt-get install etcd-server")
    }
    let memory = URL(fileURLWithPath: "/dev/shm")
    let base =
      FileManager.default.isWritableFile(atPath: memory.path)
      ? memory : FileManager.default.temporaryDirectory
    folder = base.appendingPathComponent(
      "TypedDefaultsBenchmarks-etcd-\(ProcessInfo.processInfo.processIdentifier)-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let client = try Self.freePort()
    let peer = try Self.freePort()
    endpoint = URL(string: "http://127.0.0.1:\(client)")!
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = [
      "--name", "bench", "--data-dir", folder.appendingPathComponent("data").path,
      "--listen-client-urls", endpoint.absoluteString,
      "--advertise-client-urls", endpoint.absoluteString,
      "--listen-peer-urls", "http://127.0.0.1:\(peer)",
      "--initial-advertise-peer-urls", "http://127.0.0.1:\(peer)",
      "--initial-cluster", "bench=http://127.0.0.1:\(peer)",
    ]
    let log = folder.appendingPathComponent("etcd.log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let handle = try FileHandle(forWritingTo: log)
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    var options = EtcdSource.Options()
    options.timeout = 1
    let probe = EtcdSource(endpoints: [endpoint], prefix: "/bench-setup/", options: options)
    let deadline = Date().addingTimeInterval(20)
    while true {
      do {
        try probe.writeWaiting("1", forKey: "ready")
        return
      } catch {
        guard Date() < deadline, process.isRunning else {
          let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
          stop()
          throw benchmarkFailure("etcd didn't start (\(error)): \(text.suffix(1_000))")
        }
        usleep(50_000)
      }
    }
  }

  func stop() {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    try? FileManager.default.removeItem(at: folder)
  }

  /// A loopback TCP port nothing listens on now.
  static func freePort() throws -> Int {
    #if canImport(Darwin)
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #else
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard bound else { throw benchmarkFailure("cannot find a free port") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}

// MARK: - A raw HTTP/1.1 client

/// Blocking HTTP/1.1 over one TCP connection to an IPv4 `http://` endpoint: the raw baseline's
/// watch, and the puts both kinds of watchers are measured on (kept alive from put to put).
final class RawHTTP {
  private var descriptor: Int32
  private let hostField: String
  /// Bytes received and not yet consumed.
  private var buffer: [UInt8] = []
  private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

  /// A response's status and headers (names lowercased).
  struct Head {
    var status: Int
    var headers: [String: String]
    var isChunked: Bool { headers["transfer-encoding"]?.lowercased() == "chunked" }
  }

  /// Connects.
  ///
  /// - Parameters:
  ///   - endpoint: `http://<IPv4 address>:<port>`.
  ///   - timeout: Seconds each send and receive may wait, or `nil` to wait as long as it takes.
  /// - Throws: When the endpoint isn't an IPv4 `http://` one, or refuses the connection.
  init(endpoint: URL, timeout: Double?) throws {
    guard let host = endpoint.host, let port = endpoint.port else {
      throw benchmarkFailure("\(endpoint) has no host and port")
    }
    hostField = "\(host):\(port)"
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
      throw benchmarkFailure("\(host) is not an IPv4 address")
    }
    #if canImport(Darwin)
      descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #else
      descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
    guard descriptor >= 0 else {
      throw benchmarkFailure("socket: \(String(cString: strerror(errno)))")
    }
    var one: Int32 = 1
    setsockopt(
      descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    #if canImport(Darwin)
      setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    #endif
    if let timeout {
      var limit = timeval()
      limit.tv_sec = .init(timeout)
      limit.tv_usec = .init((timeout - timeout.rounded(.down)) * 1_000_000)
      setsockopt(
        descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
      setsockopt(
        descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    guard connected else {
      let reason = String(cString: strerror(errno))
      disconnect()
      throw benchmarkFailure("cannot connect to \(hostField): \(reason)")
    }
  }

  deinit { disconnect() }

  func disconnect() {
    if descriptor >= 0 { close(descriptor) }
    descriptor = -1
  }

  /// The request bytes of a `POST` of a JSON body.
  private func request(_ path: String, body: String) -> [UInt8] {
    let body = Array(body.utf8)
    let head =
      "POST \(path) HTTP/1.1\r\nHost: \(hostField)\r\nContent-Type: application/json\r\n"
      + "Content-Length: \(body.count)\r\n\r\n"
    return Array(head.utf8) + body
  }

  /// Sends a `POST` and reads the response's head.
  func post(_ path: String, body: String) throws -> Head {
    try transmit(request(path, body: body))
    return try readHead()
  }

  /// Puts `value` (as UTF-8 text) at `key` and reads the answer.
  ///
  /// - Returns: The uptime in nanoseconds just before the request was sent.
  func put(key: String, value: String) throws -> UInt64 {
    let key = Data(key.utf8).base64EncodedString()
    let value = Data(value.utf8).base64EncodedString()
    let bytes = request("/v3/kv/put", body: #"{"key":"\#(key)","value":"\#(value)"}"#)
    let sent = DispatchTime.now().uptimeNanoseconds
    try transmit(bytes)
    let head = try readHead()
    var answer: [UInt8] = []
    while let piece = try nextBodyPiece(of: head) { answer += piece }
    guard head.status == 200 else {
      throw benchmarkFailure(
        "the put was refused: HTTP \(head.status) \(String(decoding: answer, as: UTF8.self))")
    }
    return sent
  }

  private func transmit(_ bytes: [UInt8]) throws {
    var sent = 0
    while sent < bytes.count {
      let count = bytes.withUnsafeBytes { raw in
        #if canImport(Darwin)
          send(descriptor, raw.baseAddress! + sent, raw.count - sent, 0)
        #else
          send(descriptor, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
        #endif
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw benchmarkFailure("cannot send to \(hostField): \(String(cString: strerror(errno)))")
      }
      sent += count
    }
  }

  private func receiveMore() throws {
    while true {
      let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count > 0 {
        buffer += chunk[..<count]
        return
      }
      if count == 0 { throw benchmarkFailure("\(hostField) closed the connection") }
      if errno == EINTR { continue }
      throw benchmarkFailure(
        "cannot receive from \(hostField): \(String(cString: strerror(errno)))")
    }
  }

  /// The bytes up to the next CRLF, consumed with it.
  private func line() throws -> [UInt8] {
    var searched = 0
    while true {
      if buffer.count >= 2 {
        for index in max(0, searched - 1)..<(buffer.count - 1)
        where buffer[index] == 13 && buffer[index + 1] == 10 {
          let line = Array(buffer[..<index])
          buffer.removeFirst(index + 2)
          return line
        }
        searched = buffer.count
      }
      try receiveMore()
    }
  }

  private func readHead() throws -> Head {
    let status = String(decoding: try line(), as: UTF8.self).split(separator: " ")
    guard status.count >= 2, status[0].hasPrefix("HTTP/1."), let code = Int(status[1]) else {
      throw benchmarkFailure("\(hostField) did not answer in HTTP/1.1")
    }
    var headers: [String: String] = [:]
    while true {
      let field = String(decoding: try line(), as: UTF8.self)
      if field.isEmpty { break }
      guard let colon = field.firstIndex(of: ":") else { continue }
      headers[field[..<colon].lowercased()] =
        field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    if !headers.keys.contains("content-length"), !Head(status: code, headers: headers).isChunked {
      throw benchmarkFailure("\(hostField) sent a body framed by neither length nor chunks")
    }
    remainingLength = Int(headers["content-length"] ?? "") ?? 0
    return Head(status: code, headers: headers)
  }

  /// Bytes left of a body framed by `Content-Length`.
  private var remainingLength = 0

  /// The next piece of the body (a chunk of a chunked one); `nil` at its end.
  func nextBodyPiece(of head: Head) throws -> [UInt8]? {
    if head.isChunked {
      let sizeLine = String(decoding: try line(), as: UTF8.self)
      guard
        let size = Int(
          sizeLine.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) ?? "",
          radix: 16)
      else { throw benchmarkFailure("\(hostField) sent a malformed chunk size '\(sizeLine)'") }
      if size == 0 {
        while !(try line()).isEmpty {}  // the trailer
        return nil
      }
      while buffer.count < size + 2 { try receiveMore() }
      let piece = Array(buffer[..<size])
      buffer.removeFirst(size + 2)
      return piece
    }
    guard remainingLength > 0 else { return nil }
    if buffer.isEmpty { try receiveMore() }
    let take = min(buffer.count, remainingLength)
    let piece = Array(buffer[..<take])
    buffer.removeFirst(take)
    remainingLength -= take
    return piece
  }
}
