import Foundation
import Testing
import TypedDefaults
import TypedDefaultsEtcd
import TypedDefaultsTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A TCP server on a loopback port that answers every connection with one hostile behaviour: the
/// answers a broken proxy, a wrong service on the port, or an attacker gives an etcd client.
private final class HostileServer: Sendable {
  /// What the server does with a connection, given its descriptor; the connection is closed
  /// after unless `holdsOpen`.
  let behaviour: @Sendable (Int32) -> Void
  let holdsOpen: Bool
  let port: Int
  private let listener: Int32
  private let stopped = Locked(false)
  private let held = Locked<[Int32]>([])

  init(holdsOpen: Bool = false, _ behaviour: @escaping @Sendable (Int32) -> Void) throws {
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
      Self.receiveRequest(on: connection)
      behaviour(connection)
      if holdsOpen {
        held.withLock { $0.append(connection) }
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

  /// Reads what the client sent (its request), waiting at most a second for it, so that closing
  /// the connection afterwards ends it cleanly rather than resetting it.
  static func receiveRequest(on descriptor: Int32) {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, 1000) > 0 else { return }
    var buffer = [UInt8](repeating: 0, count: 65536)
    _ = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
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
