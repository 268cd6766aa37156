import Foundation
import Testing
import TypedDefaults
import TypedDefaultsEtcd
import TypedDefaultsLayers
import TypedDefaultsTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A TCP server on a loopback port that answers every connection with one hostile behaviour: the
/// answers a broken proxy, a wrong service on the port, or an attacker gives an etcd client.
private final class HostileServer: Sendable {
  /// What the server does with a connection, given its descriptor and what the client sent
  /// first (its request's head, and its body when it came with it); the connection is closed
  /// after unless `holdsOpen`.
  let behaviour: @Sendable (Int32, String) -> Void
  let holdsOpen: Bool
  let port: Int
  private let listener: Int32
  private let stopped = Locked(false)
  private let held = Locked<[Int32]>([])

  convenience init(
    holdsOpen: Bool = false, _ behaviour: @escaping @Sendable (Int32) -> Void
  ) throws {
    try self.init(holdsOpen: holdsOpen, answering: { descriptor, _ in behaviour(descriptor) })
  }

  init(
    holdsOpen: Bool = false, answering behaviour: @escaping @Sendable (Int32, String) -> Void
  ) throws {
    self.behaviour = behaviour
    self.holdsOpen = holdsOpen
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let listening = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && listen(descriptor, 16) == 0
          && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard listening else { throw SettingsError(.fleetUnavailable, reason: "cannot listen") }
    listener = descriptor
    port = Int(UInt16(bigEndian: address.sin_port))
    let thread = Thread { [self] in acceptLoop() }
    thread.start()
  }

  var endpoint: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// Accepts until stopped, then closes the listener: only this thread uses it, so its number
  /// can't be reused by another test's socket while this loop still polls it.
  private func acceptLoop() {
    defer { close(listener) }
    while !stopped.withLock({ $0 }) {
      var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
      guard poll(&entry, 1, 50) > 0 else { continue }
      let connection = accept(listener, nil, nil)
      guard connection >= 0 else { continue }
      let request = Self.receiveRequest(on: connection)
      behaviour(connection, request)
      if holdsOpen {
        held.withLock { held in
          // Only while the client holds its end: a source that reconnects for the whole of a
          // slow test would otherwise pile up a descriptor per connection in this process.
          held.removeAll { descriptor in
            guard Self.clientHasClosed(descriptor) else { return false }
            close(descriptor)
            return true
          }
          held.append(connection)
        }
      } else {
        close(connection)
      }
    }
  }

  /// Stops accepting and closes the connections held open; call it once the test is done.
  func stop() {
    stopped.withLock { $0 = true }
    let connections = held.withLock { held in
      defer { held = [] }
      return held
    }
    for descriptor in connections { close(descriptor) }
  }

  /// Whether the client closed its end of `descriptor` (or reset it): readable at once with
  /// nothing to read.
  private static func clientHasClosed(_ descriptor: Int32) -> Bool {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, 0) > 0 else { return false }
    var byte: UInt8 = 0
    let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
    return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
  }

  /// Reads what the client sent (its request), waiting at most a second for it, so that closing
  /// the connection afterwards ends it cleanly rather than resetting it.
  @discardableResult
  static func receiveRequest(on descriptor: Int32) -> String {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, 1000) > 0 else { return "" }
    var buffer = [UInt8](repeating: 0, count: 65536)
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
  }

  /// Sends text on a connection, ignoring failures (never raising `SIGPIPE` once the client
  /// has gone).
  @discardableResult
  static func send(_ text: String, on descriptor: Int32) -> Bool {
    let bytes = Array(text.utf8)
    #if canImport(Darwin)
      let sent = bytes.withUnsafeBytes { Darwin.send(descriptor, $0.baseAddress, $0.count, 0) }
    #else
      let sent = bytes.withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
    #endif
    return sent == bytes.count
  }
}

/// The etcd source against servers that misbehave, with no etcd needed.
///
/// Issue #20: "an oversized or hostile response is bounded; no crash, no hang". Each ends in a
/// `fleetUnavailable` error naming the endpoint and the cause, within the source's timeouts,
/// and the layer keeps its values. Runs without etcd.
@Suite struct EtcdHostileServerTests {
  private static let prefix = "/config/app/"

  private func source(_ server: HostileServer, timeout: Double = 0.5) -> EtcdSource {
    var options = EtcdSource.Options()
    options.timeout = timeout
    options.maximumResponseSize = 64 * 1024
    return EtcdSource(endpoints: [server.endpoint], prefix: Self.prefix, options: options)
  }

  /// Reads the source and returns the reason it couldn't reach the server, and how long the read
  /// took in seconds.
  private func failedRead(_ source: EtcdSource) throws -> (reason: String, seconds: Double) {
    let start = Date()
    let contents = try source.read()
    let seconds = Date().timeIntervalSince(start)
    #expect(contents.values.isEmpty)
    let problem = try #require(source.lastError)
    #expect(problem.code == .fleetUnavailable)
    #expect(problem.path == source.endpoints[0].absoluteString)
    return (problem.reason, seconds)
  }

  @Test func aConnectionClosedBeforeAnyAnswerIsAFailureNotACrash() throws {
    let server = try HostileServer { _ in }
    defer { server.stop() }
    let (reason, _) = try failedRead(source(server))
    #expect(reason.contains("closed the connection before it answered"), "\(reason)")
  }

  @Test func aServerThatNeverAnswersIsGivenUpOnAfterTheTimeout() throws {
    let server = try HostileServer(holdsOpen: true) { _ in }
    defer { server.stop() }
    let (reason, seconds) = try failedRead(source(server, timeout: 0.3))
    #expect(reason.contains("did not answer within 0.3 s"), "\(reason)")
    #expect(seconds < 5)
  }

  @Test func aServerThatIsntHTTPIsRefused() throws {
    let server = try HostileServer { HostileServer.send("SSH-2.0-OpenSSH_9.6\r\n\r\n", on: $0) }
    defer { server.stop() }
    let (reason, _) = try failedRead(source(server))
    #expect(reason.contains("did not answer in HTTP/1.1"), "\(reason)")
  }

  @Test func anAnnouncedBodyAboveTheLimitIsNotRead() throws {
    let server = try HostileServer {
      HostileServer.send("HTTP/1.1 200 OK\r\nContent-Length: 999999999999\r\n\r\n", on: $0)
    }
    defer { server.stop() }
    let (reason, _) = try failedRead(source(server))
    #expect(reason.contains("above the limit of 65536 bytes"), "\(reason)")
  }

  @Test func anEndlessChunkedBodyStopsAtTheLimit() throws {
    let server = try HostileServer(holdsOpen: true) { descriptor in
      HostileServer.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", on: descriptor)
      let chunk = "4000\r\n" + String(repeating: "[", count: 0x4000) + "\r\n"
      for _ in 0..<8 { HostileServer.send(chunk, on: descriptor) }
    }
    defer { server.stop() }
    let (reason, _) = try failedRead(source(server))
    #expect(reason.contains("larger than the limit of 65536 bytes"), "\(reason)")
  }

  @Test func anEndlessHeadIsRefused() throws {
    let server = try HostileServer(holdsOpen: true) { descriptor in
      HostileServer.send("HTTP/1.1 200 OK\r\n", on: descriptor)
      for _ in 0..<100 {
        HostileServer.send(
          "X-Padding: " + String(repeating: "a", count: 1000) + "\r\n", on: descriptor)
      }
    }
    defer { server.stop() }
    let (reason, _) = try failedRead(source(server))
    #expect(reason.contains("response head larger than 64 KiB"), "\(reason)")
  }

  @Test func anAnswerThatIsntTheGatewaysJSONIsRefused() throws {
    let body = #"{"header": {"revision": 12}, "kvs": "surprise"}"#
    let server = try HostileServer {
      HostileServer.send(
        "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)", on: $0)
    }
    defer { server.stop() }
    let source = source(server)
    _ = try source.read()
    let problem = try #require(source.lastError)
    #expect(problem.reason.contains("JSON the gateway doesn't send"), "\(problem.reason)")
  }

  @Test func aDripOfBytesCantHoldAReadLongerThanThreeTimesTheTimeout() throws {
    // The drip runs on the server's thread, which owns the connection, until the client goes.
    let server = try HostileServer { descriptor in
      HostileServer.send("HTTP/1.1 200 OK\r\nContent-Length: 60000\r\n\r\n", on: descriptor)
      for _ in 0..<200 {
        guard HostileServer.send("{", on: descriptor) else { return }
        usleep(20_000)
      }
    }
    defer { server.stop() }
    let (reason, seconds) = try failedRead(source(server, timeout: 0.3))
    #expect(reason.contains("did not finish its answer in time"), "\(reason)")
    #expect(seconds < 3)
  }

  @Test func aValueThatIsntBase64MakesTheWholeAnswerRejected() throws {
    func encoded(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
    let good = #"{"key": "\#(encoded(Self.prefix + "a"))", "value": "\#(encoded("1"))"}"#
    let notBase64 = #"{"key": "\#(encoded(Self.prefix + "b"))", "value": "%%%"}"#
    let body = #"{"header": {"revision": "7"}, "kvs": [\#(good), \#(notBase64)]}"#
    let server = try HostileServer {
      HostileServer.send(
        "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)", on: $0)
    }
    defer { server.stop() }
    let source = source(server)
    _ = try source.read()
    // A value that isn't base64 makes the whole answer suspect: nothing of it is applied.
    #expect(source.lastError?.reason.contains("isn't base64") == true)
    #expect(try source.read().values.isEmpty)
  }

  @Test func anHTTPSEndpointIsReportedAsNotSupported() throws {
    let source = EtcdSource(
      endpoints: [URL(string: "https://user:hunter2@127.0.0.1:1/")!], prefix: Self.prefix)
    _ = try source.read()
    let problem = try #require(source.lastError)
    #expect(problem.code == .fleetUnavailable)
    #expect(problem.reason.contains("TLS endpoints are not supported yet"))
    #expect(!"\(problem) \(source)".contains("hunter2"))
  }
}

/// A fake etcd gateway on loopback: answers `/v3/kv/range` (and `/v3/auth/authenticate`) with
/// `range`'s answer (a body for an HTTP 200, or a whole response) and `/v3/watch` with `watch`,
/// each given the request's text and how many requests of its path came before; counts the
/// requests by path.
private final class FakeGateway: Sendable {
  private let server: HostileServer
  private let counts = Locked<[String: Int]>([:])
  private let requests = Locked<[String]>([])

  init(
    range: @escaping @Sendable (_ request: String, _ earlier: Int) -> String,
    watch: @escaping @Sendable (_ descriptor: Int32, _ request: String, _ earlier: Int) -> Void
  ) throws {
    let counts = self.counts
    let requests = self.requests
    server = try HostileServer(holdsOpen: true) { descriptor, request in
      let path = request.split(separator: " ", maxSplits: 2).dropFirst().first.map(String.init)
      let earlier = counts.withLock { counts in
        defer { counts[path ?? "", default: 0] += 1 }
        return counts[path ?? "", default: 0]
      }
      requests.withLock { $0.append(request) }
      if path == "/v3/watch" {
        watch(descriptor, request, earlier)
      } else {
        let answer = range(request, earlier)
        HostileServer.send(
          answer.hasPrefix("HTTP/1.1") ? answer : FakeGateway.answer(answer), on: descriptor)
      }
    }
  }

  var endpoint: URL { server.endpoint }
  func stop() { server.stop() }

  /// How many requests of `path` came.
  func count(_ path: String) -> Int { counts.withLock { $0[path, default: 0] } }
  /// Every request's text, in order.
  var allRequests: [String] { requests.withLock { $0 } }

  /// An HTTP 200 answer with `body`.
  static func answer(_ body: String, status: String = "200 OK") -> String {
    "HTTP/1.1 \(status)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
  }

  /// The head of a streamed (chunked) answer.
  static let streamHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"

  /// `text` as one chunk.
  static func chunk(_ text: String) -> String {
    String(text.utf8.count, radix: 16) + "\r\n" + text + "\r\n"
  }

  static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

  /// A range answer at `revision` holding `values` (keys under `prefix`).
  static func rangeBody(revision: String, _ values: [String: String], prefix: String) -> String {
    let kvs = values.sorted { $0.key < $1.key }.map {
      #"{"key": "\#(base64(prefix + $0.key))", "value": "\#(base64($0.value))", "#
        + #""mod_revision": "\#(revision)"}"#
    }
    return #"{"header": {"revision": "\#(revision)"}, "kvs": [\#(kvs.joined(separator: ", "))]}"#
  }

  /// The watch's `created` message at `revision`, with its line feed.
  static func created(revision: String) -> String {
    #"{"result": {"header": {"revision": "\#(revision)"}, "created": true}}"# + "\n"
  }

  /// A watch message putting `value` at `key` (under `prefix`) at `revision`, with its line feed.
  static func event(
    key: String, value: String, revision: String, header: String? = nil, prefix: String
  ) -> String {
    #"{"result": {"header": {"revision": "\#(header ?? revision)"}, "events": [{"kv": "#
      + #"{"key": "\#(base64(prefix + key))", "value": "\#(base64(value))", "#
      + #""mod_revision": "\#(revision)"}}]}}"#
      + "\n"
  }
}

/// Polls `condition` every 5 ms for up to `seconds`; `true` once it holds.
private func becomes(within seconds: Double, _ condition: () -> Bool) async -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if condition() { return true }
    try? await Task.sleep(nanoseconds: 5_000_000)
  }
  return condition()
}

/// The etcd source against a fake gateway that answers reads and watches with hostile numbers,
/// framing, timing and bodies (issue #34): nothing a server sends crashes or spins the process,
/// and every failure is retried with backoff and reported.
@Suite struct EtcdHostileGatewayTests {
  private static let prefix = "/config/app/"
  private static let maximum = "9223372036854775807"  // Int64.max

  private func options(
    timeout: Double = 1, delay: ClosedRange<Double> = 0.05...0.2
  ) -> EtcdSource.Options {
    var options = EtcdSource.Options()
    options.timeout = timeout
    options.maximumResponseSize = 64 * 1024
    options.reconnectDelay = delay
    return options
  }

  @Test func aReadAtRevisionInt64MaxIsRefusedNotATrap() throws {
    let gateway = try FakeGateway(
      range: { _, _ in
        FakeGateway.rangeBody(revision: Self.maximum, ["a": "1"], prefix: Self.prefix)
      },
      watch: { _, _, _ in })
    defer { gateway.stop() }
    let source = EtcdSource(
      endpoints: [gateway.endpoint], prefix: Self.prefix, options: options())
    #expect(try source.read().values.isEmpty)
    let reason = try #require(source.lastError).reason
    #expect(reason.contains("sent a read with an impossible revision"), "\(reason)")
    #expect(source.revision == 0)
  }

  @Test func aWatchEventAtRevisionInt64MaxIsRefusedAndTheLoopIsReported() async throws {
    let gateway = try FakeGateway(
      range: { _, _ in FakeGateway.rangeBody(revision: "5", ["a": "1"], prefix: Self.prefix) },
      watch: { descriptor, _, _ in
        HostileServer.send(
          FakeGateway.streamHead + FakeGateway.chunk(FakeGateway.created(revision: "5"))
            + FakeGateway.chunk(
              FakeGateway.event(
                key: "a", value: "2", revision: Self.maximum, header: "6", prefix: Self.prefix)),
          on: descriptor)
      })
    defer { gateway.stop() }
    let source = EtcdSource(
      endpoints: [gateway.endpoint], prefix: Self.prefix, options: options())
    _ = try source.read()
    source.startWatching(reportingTo: LayerSourceReporter { _ in })
    defer { source.stopWatching() }
    let reported = await becomes(within: 10) {
      source.lastError?.reason.contains("watch connections in a row failed") == true
    }
    #expect(reported, "\(source.status), \(String(describing: source.lastError))")
    let reason = source.lastError?.reason ?? ""
    #expect(reason.contains("sent a watch event with an impossible revision"), "\(reason)")
    #expect(source.status == .offline(lastKnownGoodSavedAt: nil))
    #expect(try source.read().values == ["a": .string("1")])
    #expect(source.revision == 5)
  }

  /// The watch failures a server can repeat at once, each with what `lastError` then says.
  static let watchFailures: [(stream: String, reason: String)] = [
    (FakeGateway.created(revision: "5") + "garbage\n", "isn't the gateway's JSON"),
    (
      FakeGateway.created(revision: "5")
        + #"{"result": {"header": {"revision": "5"}, "compact_revision": "3", "canceled": true}}"#
        + "\n", "was compacted"
    ),
    (FakeGateway.created(revision: "2"), "its data was replaced"),
    ("", "ended the watch"),
  ]

  @Test(arguments: 0..<4)
  func aServerFailingEveryWatchIsRetriedWithBackoffNotInATightLoop(failure: Int) async throws {
    let (stream, expectedReason) = Self.watchFailures[failure]
    let gateway = try FakeGateway(
      range: { _, _ in FakeGateway.rangeBody(revision: "5", ["a": "1"], prefix: Self.prefix) },
      watch: { descriptor, _, _ in
        HostileServer.send(
          FakeGateway.streamHead + (stream.isEmpty ? "" : FakeGateway.chunk(stream)) + "0\r\n\r\n",
          on: descriptor)
      })
    defer { gateway.stop() }
    let directory = try TemporaryDirectory()
    let file = directory.file("fleet.plist")
    // Each wait is 0.1 to 0.2 s: 5 to 10 connections a second at most.
    let source = EtcdSource(
      endpoints: [gateway.endpoint], prefix: Self.prefix, lastKnownGoodFile: file,
      options: options(delay: 0.2...0.2))
    _ = try source.read()
    let savedFile = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber]
    source.startWatching(reportingTo: LayerSourceReporter { _ in })
    defer { source.stopWatching() }
    let looping = await becomes(within: 10) {
      source.lastError?.reason.contains("watch connections in a row failed") == true
    }
    #expect(looping, "\(source.status)")
    let before = gateway.count("/v3/watch")
    let start = Date()
    try await Task.sleep(nanoseconds: 1_000_000_000)
    let connections = gateway.count("/v3/watch") - before
    let elapsed = Date().timeIntervalSince(start)
    #expect(
      connections <= Int(elapsed / 0.1) + 1,
      "\(connections) watch connections in \(elapsed) s with a 0.1–0.2 s backoff")
    #expect(source.condition?.hasPrefix("offline") == true, "\(source.status)")
    #expect(
      source.lastError?.reason.contains(expectedReason) == true,
      "\(String(describing: source.lastError))")
    // Each connection's full read found the same values: the file wasn't rewritten.
    let nowFile = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber]
    #expect(nowFile as? NSNumber == savedFile as? NSNumber)
  }

  @Test func aLoopingServerWhoseWatchHoldsAgainIsConnectedAgain() async throws {
    let failing = Locked(true)
    let gateway = try FakeGateway(
      range: { _, _ in FakeGateway.rangeBody(revision: "5", ["a": "1"], prefix: Self.prefix) },
      watch: { descriptor, _, _ in
        // Watches that fail at once while `failing`, then one that stays, quiet.
        let fails = failing.withLock { $0 }
        HostileServer.send(
          FakeGateway.streamHead + FakeGateway.chunk(FakeGateway.created(revision: "5"))
            + (fails ? FakeGateway.chunk("garbage\n") : ""), on: descriptor)
      })
    defer { gateway.stop() }
    let source = EtcdSource(
      endpoints: [gateway.endpoint], prefix: Self.prefix, options: options(timeout: 0.2))
    _ = try source.read()
    source.startWatching(reportingTo: LayerSourceReporter { _ in })
    defer { source.stopWatching() }
    let looping = await becomes(within: 10) {
      source.lastError?.reason.contains("watch connections in a row failed") == true
    }
    #expect(looping, "\(source.status)")
    #expect(source.condition?.hasPrefix("offline") == true, "\(source.status)")
    failing.withLock { $0 = false }
    // Held once a silent wait comes 0.2 s (the longest reconnection delay) after `created`.
    let connected = await becomes(within: 10) {
      source.status == .connected(endpoint: gateway.endpoint, revision: 5)
    }
    #expect(connected, "\(source.status)")
    #expect(source.lastError == nil)
  }

  @Test func aWatchMessageAboveTheLimitFallsBackToAFullReadAndResumesFromIt() async throws {
    let big = String(repeating: "x", count: 100 * 1024)
    let gateway = try FakeGateway(
      range: { _, earlier in
        earlier == 0
          ? FakeGateway.rangeBody(revision: "5", ["a": "1"], prefix: Self.prefix)
          : FakeGateway.rangeBody(revision: "10", ["a": "2"], prefix: Self.prefix)
      },
      watch: { descriptor, _, earlier in
        if earlier == 0 {
          // The catch-up of a watcher that fell behind: one message above the limit.
          HostileServer.send(
            FakeGateway.streamHead + FakeGateway.chunk(FakeGateway.created(revision: "9"))
              + FakeGateway.chunk(
                FakeGateway.event(key: "a", value: big, revision: "9", prefix: Self.prefix)),
            on: descriptor)
        } else {
          HostileServer.send(
            FakeGateway.streamHead + FakeGateway.chunk(FakeGateway.created(revision: "10")),
            on: descriptor)
        }
      })
    defer { gateway.stop() }
    let source = EtcdSource(
      endpoints: [gateway.endpoint], prefix: Self.prefix, options: options())
    _ = try source.read()
    source.startWatching(reportingTo: LayerSourceReporter { _ in })
    defer { source.stopWatching() }
    let caughtUp = await becomes(within: 10) { gateway.count("/v3/watch") == 2 }
    #expect(caughtUp, "\(source.status)")
    #expect(try source.read().values == ["a": .string("2")])
    #expect(source.revision == 10)
    // The store's read, the watch's read, the fallback's read; then a watch from revision 11.
    let fullReads = gateway.allRequests.filter {
      $0.hasPrefix("POST /v3/kv/range") && !$0.contains("count_only")
    }
    #expect(fullReads.count == 3)
    let lastWatch = gateway.allRequests.last { $0.contains("/v3/watch") } ?? ""
    #expect(lastWatch.contains(#""start_revision":"11""#), "\(lastWatch)")
    #expect(source.status == .connected(endpoint: gateway.endpoint, revision: 10))
  }

  @Test func aWatchLineDrippedByteByByteIsGivenUpAfterThreeTimesTheTimeout() async throws {
    let gateway = try FakeGateway(
      range: { _, _ in FakeGateway.rangeBody(revision: "5", ["a": "1"], prefix: Self.prefix) },
      watch: { descriptor, _, _ in
        HostileServer.send(
          FakeGateway.streamHead + FakeGateway.chunk(FakeGateway.created(revision: "5")),
          on: descriptor)
        // One byte every 20 ms, until the client goes: a message that never ends.
        for _ in 0..<500 {
          guard HostileServer.send(FakeGateway.chunk("{"), on: descriptor) else { return }
          usleep(20_000)
        }
      })
    defer { gateway.stop() }
    let source = EtcdSource(
      endpoints: [gateway.endpoint], prefix: Self.prefix, options: options(timeout: 0.2))
    _ = try source.read()
    source.startWatching(reportingTo: LayerSourceReporter { _ in })
    defer { source.stopWatching() }
    let reported = await becomes(within: 15) {
      source.lastError?.reason.contains("did not finish a message within 0.6 s") == true
    }
    #expect(reported, "\(source.status), \(String(describing: source.lastError))")
  }

  @Test func aLineSentInOneByteChunksIsReadInLinearTime() async throws {
    // 200 KB of text, 270 KB of base64 in 1.6 MB of chunks: the old line reader, quadratic,
    // took hours; this one a fraction of a second.
    let value = String(repeating: "v", count: 200_000)
    let line = FakeGateway.event(key: "big", value: value, revision: "6", prefix: Self.prefix)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(line.utf8.count * 6)
    for byte in line.utf8 { bytes += [49, 13, 10, byte, 13, 10] }  // "1\r\n", the byte, "\r\n"
    let stream = String(decoding: bytes, as: UTF8.self)
    let gateway = try FakeGateway(
      range: { _, _ in FakeGateway.rangeBody(revision: "5", [:], prefix: Self.prefix) },
      watch: { descriptor, _, _ in
        HostileServer.send(
          FakeGateway.streamHead + FakeGateway.chunk(FakeGateway.created(revision: "5"))
            + stream, on: descriptor)
      })
    defer { gateway.stop() }
    var options = options(timeout: 5)
    options.maximumResponseSize = 1024 * 1024
    let source = EtcdSource(endpoints: [gateway.endpoint], prefix: Self.prefix, options: options)
    _ = try source.read()
    source.startWatching(reportingTo: LayerSourceReporter { _ in })
    defer { source.stopWatching() }
    let read = await becomes(within: 10) { source.revision == 6 }
    #expect(read, "\(source.status), \(String(describing: source.lastError))")
    #expect(try source.read().values["big"] == .string(value))
  }

  @Test func aReadWhosePagesDontMoveForwardIsRefusedNotEndless() throws {
    // Every page announces more keys, and sends the same one.
    let gateway = try FakeGateway(
      range: { _, _ in
        FakeGateway.rangeBody(revision: "5", ["a": "1"], prefix: Self.prefix)
          .replacingOccurrences(of: #""kvs""#, with: #""more": true, "kvs""#)
      },
      watch: { _, _, _ in })
    defer { gateway.stop() }
    let source = EtcdSource(
      endpoints: [gateway.endpoint], prefix: Self.prefix, options: options())
    #expect(try source.read().values.isEmpty)
    let reason = try #require(source.lastError).reason
    #expect(reason.contains("answered a page of a read that doesn't follow the last"), "\(reason)")
    #expect(gateway.count("/v3/kv/range") == 2)
  }

  @Test func aNormalExitRightAfterAChangeLeavesTheLastKnownGoodFileCurrent() async throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("fleet.plist").path
    await #expect(processExitsWith: .success) { [path = path as String] in
      let gateway = try FakeGateway(
        range: { _, _ in FakeGateway.rangeBody(revision: "5", ["a": "1"], prefix: Self.prefix) },
        watch: { descriptor, _, _ in
          HostileServer.send(
            FakeGateway.streamHead + FakeGateway.chunk(FakeGateway.created(revision: "5"))
              + FakeGateway.chunk(
                FakeGateway.event(key: "a", value: "2", revision: "6", prefix: Self.prefix)),
            on: descriptor)
        })
      var options = EtcdSource.Options()
      options.timeout = 1
      let source = EtcdSource(
        endpoints: [gateway.endpoint], prefix: Self.prefix,
        lastKnownGoodFile: URL(fileURLWithPath: path), options: options)
      _ = try source.read()
      source.startWatching(reportingTo: LayerSourceReporter { _ in })
      let deadline = Date().addingTimeInterval(10)
      while source.revision != 6 {
        guard Date() < deadline else { exit(3) }
        usleep(1000)
      }
      // Within the save's 100 ms: the exit handler makes it.
      exit(0)
    }
    let offline = EtcdSource(
      endpoints: [URL(string: "http://127.0.0.1:\(try EtcdServer.unusedPort())")!],
      prefix: Self.prefix, lastKnownGoodFile: URL(fileURLWithPath: path), options: options())
    #expect(try offline.read().values == ["a": .string("2")])
  }

  @Test func aDeeplyNestedAnswerIsRefusedNotACrash() throws {
    // 60,000 nested arrays (120 KB): a recursive decoder without a depth limit overflows its
    // stack.
    let nested = String(repeating: "[", count: 60_000) + String(repeating: "]", count: 60_000)
    let server = try HostileServer {
      HostileServer.send(
        FakeGateway.answer(#"{"header": {"revision": "5"}, "kvs": "# + nested + "}"), on: $0)
    }
    defer { server.stop() }
    var options = options()
    options.maximumResponseSize = 1024 * 1024
    let source = EtcdSource(endpoints: [server.endpoint], prefix: Self.prefix, options: options)
    #expect(try source.read().values.isEmpty)
    let reason = try #require(source.lastError).reason
    #expect(reason.contains("JSON the gateway doesn't send"), "\(reason)")
  }

  @Test func aWatchWhoseHeadDripsIsGivenUpAfterThreeTimesTheTimeout() async throws {
    let gateway = try FakeGateway(
      range: { _, _ in FakeGateway.rangeBody(revision: "5", ["a": "1"], prefix: Self.prefix) },
      watch: { descriptor, _, _ in
        // One header byte every 20 ms, until the client goes: a head that never ends.
        HostileServer.send("HTTP/1.1 200 OK\r\nX-Drip: ", on: descriptor)
        for _ in 0..<500 {
          guard HostileServer.send("a", on: descriptor) else { return }
          usleep(20_000)
        }
      })
    defer { gateway.stop() }
    let source = EtcdSource(
      endpoints: [gateway.endpoint], prefix: Self.prefix, options: options(timeout: 0.2))
    _ = try source.read()
    source.startWatching(reportingTo: LayerSourceReporter { _ in })
    defer { source.stopWatching() }
    let reported = await becomes(within: 15) {
      source.lastError?.reason.contains("did not finish its answer in time") == true
    }
    #expect(reported, "\(source.status), \(String(describing: source.lastError))")
  }

  @Test func aSnapshotCompactedBetweenTwoPagesIsReadAgainAtTheRevisionOfNow() throws {
    @Sendable func page(_ revision: String, _ values: [String: String], more: Bool) -> String {
      FakeGateway.rangeBody(revision: revision, values, prefix: Self.prefix)
        .replacingOccurrences(of: #""kvs""#, with: #""more": \#(more), "kvs""#)
    }
    let gateway = try FakeGateway(
      range: { _, earlier in
        switch earlier {
        case 0: page("5", ["a": "1"], more: true)
        case 1:
          FakeGateway.answer(
            #"{"error": "etcdserver: mvcc: required revision has been compacted", "code": 11}"#,
            status: "400 Bad Request")
        case 2: page("7", ["a": "2"], more: true)
        default: page("7", ["b": "3"], more: false)
        }
      },
      watch: { _, _, _ in })
    defer { gateway.stop() }
    let source = EtcdSource(
      endpoints: [gateway.endpoint], prefix: Self.prefix, options: options())
    #expect(try source.read().values == ["a": .string("2"), "b": .string("3")])
    #expect(source.revision == 7)
    let pages = gateway.allRequests.filter { $0.hasPrefix("POST /v3/kv/range") }
    #expect(pages.count == 4)
    #expect(pages.last?.contains(#""revision":"7""#) == true, "\(pages.last ?? "")")
  }

  @Test func aReadOfMorePagesThanTheLastKnownGoodFileHoldsIsRefused() throws {
    // Pages of 20 KB that never end, each moving forward: the read stops at 1.5 × 64 KiB.
    let value = String(repeating: "v", count: 20_000)
    let gateway = try FakeGateway(
      range: { _, earlier in
        FakeGateway.rangeBody(
          revision: "5", [String(format: "k%05d", earlier): value], prefix: Self.prefix
        )
        .replacingOccurrences(of: #""kvs""#, with: #""more": true, "kvs""#)
      },
      watch: { _, _, _ in })
    defer { gateway.stop() }
    let source = EtcdSource(
      endpoints: [gateway.endpoint], prefix: Self.prefix, options: options())
    #expect(try source.read().values.isEmpty)
    let reason = try #require(source.lastError).reason
    #expect(reason.contains("holds more than 98304 bytes under the prefix"), "\(reason)")
    #expect(gateway.count("/v3/kv/range") == 5)
  }

  @Test func aChunkNotEndedByCRLFIsRefused() throws {
    let body = FakeGateway.rangeBody(revision: "5", ["a": "1"], prefix: Self.prefix)
    let server = try HostileServer { descriptor in
      HostileServer.send(
        FakeGateway.streamHead + String(body.utf8.count, radix: 16) + "\r\n" + body + "XX0\r\n\r\n",
        on: descriptor)
    }
    defer { server.stop() }
    let source = EtcdSource(endpoints: [server.endpoint], prefix: Self.prefix, options: options())
    #expect(try source.read().values.isEmpty)
    let reason = try #require(source.lastError).reason
    #expect(reason.contains("sent a chunk not ended by CRLF"), "\(reason)")
  }

  @Test(arguments: ["500 Internal Server Error", "401 Unauthorized", "200 OK"])
  func anErrorBodyEchoingTheRequestNeverShowsThePassword(status: String) throws {
    let password = "hunter2-\(UUID().uuidString)"
    let server = try HostileServer(answering: { descriptor, request in
      // A proxy that echoes what it was sent, in the gateway's error JSON or as it came.
      let echo =
        status.hasPrefix("200")
        ? "echo: " + request
        : String(
          decoding: try! JSONSerialization.data(withJSONObject: ["error": request, "code": 2]),
          as: UTF8.self)
      HostileServer.send(FakeGateway.answer(echo, status: status), on: descriptor)
    })
    defer { server.stop() }
    let source = EtcdSource(
      endpoints: [server.endpoint], prefix: Self.prefix,
      credentials: .init(user: "app", password: password), options: options())
    let problems = try source.read().problems
    let error = try #require(source.lastError)
    #expect(error.reason.contains("not shown"), "\(error.reason)")
    for shown in ["\(error)", error.reason, "\(problems)", "\(source)"] {
      #expect(!shown.contains(password), "\(shown)")
      #expect(!shown.contains("hunter2"), "\(shown)")
    }
  }
}
