import Foundation
import Testing
import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A real etcd server for the tests of the fleet configuration (the etcd layer source): one
/// member on loopback, on ports of its own, with a temporary data folder, started with
/// `posix_spawn` (see ``ChildProcess`` for why not Foundation's `Process`) and talked to through
/// etcd's v3 JSON gateway (`/v3/kv/...`, `/v3/auth/...`).
///
/// Suites that need it are skipped where etcd isn't installed:
/// `@Suite(.enabled(if: EtcdServer.isAvailable, EtcdServer.unavailableComment))`, or
/// `@Suite(.requiresEtcd)`; CI sets `TYPEDDEFAULTS_REQUIRE_ETCD=1` so that a missing etcd fails
/// a test instead (see `EtcdServerTests`).
///
/// The client helpers (``put(_:_:)``, ``get(_:)``, ``revision()`` …) are synchronous: each one
/// blocks its thread until the gateway answers, at most ``requestTimeout`` seconds. After
/// ``enableAuthentication(rootPassword:)`` they authenticate as `root`, and authenticate again
/// once when etcd answers that the token is invalid (an expired token, a restarted server).
///
/// The helpers speak HTTP/1.1 over a plain loopback socket, one connection per request, not
/// corelibs `URLSession`: every error answer of etcd's gateway carries an HTTP trailer, on which
/// `URLSession` on Linux kills the whole process (see ``post(path:json:authorization:)``). A
/// helper called while the server is killed or stopped throws a ``RequestFailure`` (connection
/// refused).
///
/// Thread safety: every member may be called from any thread; starting, stopping and killing
/// the process are serialized by a lock (a helper call running beside them fails or succeeds
/// as the server happens to be up).
///
/// The process is killed and the temporary folder (some 120 MB: etcd preallocates its WAL)
/// removed when the value is deinitialized; a watchdog process does both if the test process
/// dies first.
package final class EtcdServer: Sendable {
  // MARK: Finding etcd

  /// The etcd binary to run: `$TYPEDDEFAULTS_ETCD` if it is set and not empty (used as given,
  /// even when no file is there, so that a wrong setting fails the tests instead of skipping
  /// them), else the first `etcd` on `$PATH`, else `/usr/bin/etcd` if it is executable; `nil`
  /// when there is none.
  ///
  /// Reads the environment and the file system on every call; safe from any thread.
  package static var executable: String? {
    let environment = ProcessInfo.processInfo.environment
    if let chosen = environment["TYPEDDEFAULTS_ETCD"], !chosen.isEmpty { return chosen }
    for folder in (environment["PATH"] ?? "").split(separator: ":") where folder.hasPrefix("/") {
      let candidate = "\(folder)/etcd"
      if isExecutableFile(candidate) { return candidate }
    }
    return isExecutableFile("/usr/bin/etcd") ? "/usr/bin/etcd" : nil
  }

  /// Why the etcd tests are skipped where ``executable`` is `nil`, and how to get etcd.
  package static let unavailableReason =
    "etcd is not installed, so the tests that run a real etcd server are skipped: install it "
    + "with `apt-get install etcd-server` (Debian, Ubuntu), or set TYPEDDEFAULTS_ETCD to the "
    + "path of an etcd binary (3.4 or later). .ci/run installs it."

  /// ``unavailableReason`` as a Swift Testing comment, for
  /// `.enabled(if: EtcdServer.isAvailable, EtcdServer.unavailableComment)` (Swift Testing's
  /// condition traits take a `Comment`, which a `String` value doesn't convert to).
  package static var unavailableComment: Comment { Comment(rawValue: unavailableReason) }

  /// Whether an etcd binary was found (``executable`` isn't `nil`).
  ///
  /// A suite's `.enabled(if:)` condition. Safe from any thread.
  package static var isAvailable: Bool { executable != nil }

  /// The longest a client helper waits for the gateway's answer, in seconds.
  package static let requestTimeout: TimeInterval = 5

  /// The longest ``init(authTokenTTL:)`` and ``restart()`` wait for `/health` to report the
  /// server healthy, in seconds, per start.
  package static let healthTimeout: TimeInterval = 15

  // MARK: The server

  /// The client URL, `http://127.0.0.1:<client port>`: where a client (the etcd layer source
  /// under test) connects.
  package let endpoint: URL

  /// The loopback port etcd serves clients (and the JSON gateway) on.
  package let clientPort: UInt16

  /// The loopback port etcd listens on for peers (no peer ever joins).
  package let peerPort: UInt16

  /// etcd's data folder (`--data-dir`), kept across ``kill()`` and ``restart()``.
  package let dataDirectory: URL

  /// The file etcd's standard output and error go to, across restarts, with a line of this
  /// harness before each start; its last lines are in a start failure's message.
  package let logFile: URL

  /// The temporary folder holding ``dataDirectory`` and ``logFile``, removed at deinit.
  private let folder: URL
  private let executablePath: String
  private let authTokenTTL: Int?
  /// The running process, `nil` once killed or stopped.
  ///
  /// Held while starting or stopping.
  private let process: Locked<RunningProcess?>
  private let credentials = Locked(Credentials())

  /// The root password once authentication is enabled, and the token the helpers send.
  private struct Credentials: Sendable {
    var rootPassword: String?
    var token: String?
  }

  /// The running etcd process's id, or `nil` between ``kill()`` or ``stop()`` and ``restart()``.
  ///
  /// Safe from any thread; waits while a start or stop is under way.
  package var processID: pid_t? { process.withLock { $0?.pid } }

  /// Starts etcd on two free loopback ports with a fresh temporary data folder, and waits until
  /// `/health` reports it healthy.
  ///
  /// A start that fails (a port taken between its choice and etcd's bind, a server not healthy
  /// within ``healthTimeout`` seconds) is tried again with new ports, three starts in all.
  /// Blocks the calling thread meanwhile (about a second when all goes well).
  ///
  /// - Parameter authTokenTTL: etcd's `--auth-token-ttl`, in seconds: how long a simple auth
  ///   token lives unused; `nil` keeps etcd's default (300 s).
  /// - Throws: ``StartFailure`` when etcd isn't installed, or didn't become healthy in three
  ///   starts; its message names each start's failure and ends with the last lines of the log.
  package init(authTokenTTL: Int? = nil) throws {
    guard let executable = Self.executable else { throw StartFailure(Self.unavailableReason) }
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("TypedDefaultsEtcd-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let dataDirectory = folder.appendingPathComponent("data", isDirectory: true)
    let logFile = folder.appendingPathComponent("etcd.log")
    var failures: [String] = []
    var started: (process: RunningProcess, ports: Ports)?
    for attempt in 1...3 {
      let ports: Ports
      do {
        ports = try Self.reserveFreePorts()
      } catch {
        failures.append("start \(attempt): \(error)")
        continue
      }
      // A failed start may have written its member (with the old peer URL) into the folder.
      try? FileManager.default.removeItem(at: dataDirectory)
      let arguments = Self.arguments(
        ports: ports, dataDirectory: dataDirectory, authTokenTTL: authTokenTTL)
      let deadline = Date(timeIntervalSinceNow: Self.healthTimeout)
      switch Self.launch(executable, arguments, port: ports.client, log: logFile, until: deadline)
      {
      case .success(let process):
        started = (process, ports)
      case .failure(let failure):
        Self.releasePorts(ports)
        failures.append(
          "start \(attempt) (client port \(ports.client), peer port \(ports.peer)): \(failure)")
      }
      if started != nil { break }
    }
    guard let started else {
      let tail = Self.tail(of: logFile)
      try? FileManager.default.removeItem(at: folder)
      throw StartFailure(
        "etcd (\(executable)) did not become healthy: " + failures.joined(separator: "; ")
          + "\nLast lines of its log:\n\(tail)")
    }
    self.executablePath = executable
    self.authTokenTTL = authTokenTTL
    self.folder = folder
    self.dataDirectory = dataDirectory
    self.logFile = logFile
    self.clientPort = started.ports.client
    self.peerPort = started.ports.peer
    self.endpoint = URL(string: "http://127.0.0.1:\(started.ports.client)")!
    self.process = Locked(started.process)
  }

  deinit {
    process.withLock { process in
      process?.end(politely: false)
      process = nil
    }
    Self.releasePorts(Ports(client: clientPort, peer: peerPort))
    try? FileManager.default.removeItem(at: folder)
  }

  /// Kills etcd with SIGKILL and reaps it: no chance to flush or close anything, as in a crash.
  ///
  /// Does nothing when it isn't running. Blocks until the process is gone. Safe from any
  /// thread.
  package func kill() {
    process.withLock { process in
      process?.end(politely: false)
      process = nil
    }
  }

  /// Stops etcd the polite way, with SIGTERM, and reaps it.
  ///
  /// Sends SIGKILL if it is still running after 10 seconds. Does nothing when it isn't running.
  /// Blocks until the process is gone. Safe from any thread.
  package func stop() {
    process.withLock { process in
      process?.end(politely: true)
      process = nil
    }
  }

  /// Starts etcd again on the same ports with the same data folder, and waits until `/health`
  /// reports it healthy; stops it first (``stop()``) if it is running.
  ///
  /// A start that fails (a port not free yet) is tried again, for at most ``healthTimeout``
  /// seconds in all. Blocks the calling thread meanwhile. The auth token the helpers hold
  /// usually survives (etcd 3.4 replays the authentications from its log); when it doesn't, the
  /// next helper call authenticates again.
  ///
  /// - Throws: ``StartFailure`` when etcd didn't become healthy in time; its message ends with
  ///   the last lines of the log.
  package func restart() throws {
    stop()
    try process.withLock { (process: inout RunningProcess?) throws(StartFailure) in
      let arguments = Self.arguments(
        ports: Ports(client: clientPort, peer: peerPort), dataDirectory: dataDirectory,
        authTokenTTL: authTokenTTL)
      let deadline = Date(timeIntervalSinceNow: Self.healthTimeout)
      var failures: [String] = []
      repeat {
        switch Self.launch(
          executablePath, arguments, port: clientPort, log: logFile, until: deadline)
        {
        case .success(let started):
          process = started
          return
        case .failure(let failure):
          failures.append("\(failure)")
          usleep(100_000)  // a port in TIME_WAIT, or still held by the process just killed
        }
      } while Date() < deadline
      throw StartFailure(
        "etcd (\(executablePath)) did not become healthy again on ports \(clientPort) and "
          + "\(peerPort): " + failures.joined(separator: "; ")
          + "\nLast lines of its log:\n\(Self.tail(of: logFile))")
    }
  }

  // MARK: Client helpers

  /// Sets `key` to `value` (both UTF-8): one put, one new revision.
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - value: Its new value.
  /// - Throws: ``RequestFailure`` when the gateway refuses or doesn't answer within
  ///   ``requestTimeout`` seconds.
  package func put(_ key: String, _ value: String) throws {
    try put(key, data: Data(value.utf8))
  }

  /// Sets `key` to the bytes `data`: one put, one new revision.
  ///
  /// - Parameters:
  ///   - key: The key (UTF-8).
  ///   - data: Its new value, any bytes.
  /// - Throws: ``RequestFailure`` when the gateway refuses or doesn't answer within
  ///   ``requestTimeout`` seconds.
  package func put(_ key: String, data: Data) throws {
    try request(
      "/v3/kv/put",
      ["key": Self.base64(key), "value": data.base64EncodedString()])
  }

  /// Deletes `key` (a new revision when it existed).
  ///
  /// - Parameter key: The key (UTF-8).
  /// - Throws: ``RequestFailure`` when the gateway refuses or doesn't answer within
  ///   ``requestTimeout`` seconds.
  package func delete(_ key: String) throws {
    try request("/v3/kv/deleterange", ["key": Self.base64(key)])
  }

  /// The value of `key`, decoded as UTF-8 (invalid bytes replaced), or `nil` when it has none.
  ///
  /// - Parameter key: The key (UTF-8).
  /// - Returns: Its value at the current revision, or `nil`.
  /// - Throws: ``RequestFailure`` when the gateway refuses or doesn't answer within
  ///   ``requestTimeout`` seconds.
  package func get(_ key: String) throws -> String? {
    try getData(key).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The bytes of `key`'s value, or `nil` when it has none.
  ///
  /// - Parameter key: The key (UTF-8).
  /// - Returns: Its value at the current revision, or `nil`.
  /// - Throws: ``RequestFailure`` when the gateway refuses, doesn't answer within
  ///   ``requestTimeout`` seconds, or answers a value that isn't base64.
  package func getData(_ key: String) throws -> Data? {
    let path = "/v3/kv/range"
    let response = try request(path, ["key": Self.base64(key)])
    guard let kvs = response["kvs"] as? [[String: Any]], let first = kvs.first else { return nil }
    // A value of zero bytes is left out of the JSON (proto3 omits empty fields).
    guard let encoded = first["value"] as? String else { return Data() }
    guard let bytes = Data(base64Encoded: encoded) else {
      throw RequestFailure(path: path, status: 200, message: "a value not in base64: \(encoded)")
    }
    return bytes
  }

  /// The store's current revision, from the header of a range request's answer: 1 in a new
  /// store, one more after each put, delete or transaction that changed a key.
  ///
  /// - Returns: The current revision.
  /// - Throws: ``RequestFailure`` when the gateway refuses or doesn't answer within
  ///   ``requestTimeout`` seconds, or answers no revision.
  @discardableResult
  package func revision() throws -> Int64 {
    let path = "/v3/kv/range"
    let response = try request(path, ["key": Self.base64("\u{0}"), "count_only": true])
    guard let header = response["header"] as? [String: Any],
      let revision = Self.int64(header["revision"])
    else {
      throw RequestFailure(path: path, status: 200, message: "no header.revision in the answer")
    }
    return revision
  }

  /// Compacts the store's history up to `revision`, physically (`"physical": true`: the call
  /// returns once the old revisions are removed from the backend): a watch or read from before
  /// `revision` then fails with "required revision has been compacted".
  ///
  /// - Parameter revision: The revision to compact to, at most ``revision()``.
  /// - Throws: ``RequestFailure``: etcd refuses a revision already compacted ("etcdserver: mvcc:
  ///   required revision has been compacted") or a future one ("… is a future revision"), both
  ///   with HTTP 400 and gRPC code 11.
  package func compact(toRevision revision: Int64) throws {
    try request("/v3/kv/compaction", ["revision": String(revision), "physical": true])
  }

  /// Turns etcd's authentication on, with a user `root`; the helpers then authenticate as it.
  ///
  /// Adds the role `root`, the user `root` with `rootPassword`, grants the one the other (etcd
  /// enables auth only with a user `root` holding the role `root`), and enables auth. Safe from
  /// any thread.
  ///
  /// - Parameter rootPassword: The password of the user `root`.
  /// - Throws: ``RequestFailure`` when a step is refused (authentication already enabled:
  ///   "etcdserver: role name already exists") or not answered within ``requestTimeout``
  ///   seconds.
  package func enableAuthentication(rootPassword: String) throws {
    try request("/v3/auth/role/add", ["name": "root"])
    try request("/v3/auth/user/add", ["name": "root", "password": rootPassword])
    try request("/v3/auth/user/grant", ["user": "root", "role": "root"])
    try request("/v3/auth/enable", [:])
    let token = try authenticate(name: "root", password: rootPassword)
    credentials.withLock { $0 = Credentials(rootPassword: rootPassword, token: token) }
  }

  /// What a user added by ``addUser(name:password:readPrefix:permission:)`` may do with the
  /// keys under its prefix (etcd's `permType`).
  package enum Permission: String, Sendable {
    /// Read (range, watch) only.
    case read = "READ"
    /// Write (put, delete) only.
    case write = "WRITE"
    /// Read and write.
    case readWrite = "READWRITE"
  }

  /// Adds a user `name` with `password`, and a role also named `name` that is granted
  /// `permission` on every key starting with `readPrefix`, given to the user: a non-root client
  /// for the tests (a source that may read its prefix and nothing else).
  ///
  /// Works with authentication on (the helpers are `root` then) or off.
  ///
  /// - Parameters:
  ///   - name: The user's name, and its role's.
  ///   - password: The user's password.
  ///   - readPrefix: The keys the role covers: `[readPrefix, readPrefix with its last byte + 1)`;
  ///     the empty prefix covers every key.
  ///   - permission: What the role may do there; reading only unless told.
  /// - Throws: ``RequestFailure`` when a step is refused (a user or role of that name already
  ///   exists: "etcdserver: user name already exists", HTTP 412) or not answered within
  ///   ``requestTimeout`` seconds.
  package func addUser(
    name: String, password: String, readPrefix: String, permission: Permission = .read
  ) throws {
    let key = Data(readPrefix.utf8)
    try request("/v3/auth/role/add", ["name": name])
    try request(
      "/v3/auth/role/grant",
      [
        "name": name,
        "perm": [
          "permType": permission.rawValue,
          "key": key.isEmpty ? Self.base64("\u{0}") : key.base64EncodedString(),
          "range_end": Self.prefixEnd(key).base64EncodedString(),
        ],
      ])
    try request("/v3/auth/user/add", ["name": name, "password": password])
    try request("/v3/auth/user/grant", ["user": name, "role": name])
  }

  /// Authenticates `name` with `password` (`/v3/auth/authenticate`), returning the token a
  /// client sends as its `Authorization` header.
  ///
  /// - Parameters:
  ///   - name: The user's name.
  ///   - password: Its password.
  /// - Returns: A simple token (`<random>.<index>`), valid for `--auth-token-ttl` seconds
  ///   unused.
  /// - Throws: ``RequestFailure``: a wrong name or password is "etcdserver: authentication
  ///   failed, invalid user ID or password" (HTTP 400, code 3); authentication off is
  ///   "etcdserver: authentication is not enabled" (HTTP 412, code 9).
  package func authenticate(name: String, password: String) throws -> String {
    let path = "/v3/auth/authenticate"
    let (status, body) = try post(
      path: path, json: ["name": name, "password": password], authorization: nil)
    guard status == 200 else { throw RequestFailure(path: path, status: status, body: body) }
    guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
      let token = object["token"] as? String
    else {
      throw RequestFailure(path: path, status: status, message: "no token in the answer")
    }
    return token
  }

  // MARK: Errors

  /// etcd didn't start, or didn't become healthy in time.
  package struct StartFailure: Error, CustomStringConvertible {
    /// What went wrong, with the last lines of etcd's log when it ran.
    package let description: String

    init(_ description: String) { self.description = description }
  }

  /// A gateway request that failed: refused by etcd, or not answered.
  package struct RequestFailure: Error, CustomStringConvertible {
    /// The gateway path requested, such as `/v3/kv/put`.
    package let path: String
    /// The HTTP status of etcd's answer, or `nil` when there was none (connection refused,
    /// timed out).
    package let status: Int?
    /// etcd's message, such as "etcdserver: invalid auth token" (the answer's `error`).
    ///
    /// The body itself when it isn't JSON (a 404 is "Not Found"), or why there was no answer.
    package let message: String
    /// The gRPC status code of etcd's answer (`code`: 3 invalid argument, 7 permission denied,
    /// 9 failed precondition, 11 out of range, 16 unauthenticated), when it gave one.
    package let code: Int?

    /// The request, the status and code, and the message, on one line.
    package var description: String {
      let answer = status.map { "HTTP \($0)" } ?? "no answer"
      let grpc = code.map { ", code \($0)" } ?? ""
      return "etcd gateway \(path): \(answer)\(grpc): \(message)"
    }

    init(path: String, status: Int?, message: String, code: Int? = nil) {
      self.path = path
      self.status = status
      self.message = message
      self.code = code
    }

    /// The failure an error answer describes: `{"error": …, "message": …, "code": …}`.
    init(path: String, status: Int, body: Data) {
      let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
      let message =
        object?["error"] as? String ?? object?["message"] as? String
        ?? String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
      self.init(path: path, status: status, message: message, code: object?["code"] as? Int)
    }
  }

  // MARK: Requests

  /// Posts `json` to the gateway's `path` and returns the answer's JSON object: any v3 request
  /// the other helpers don't cover (a transaction, a lease, `/v3/auth/user/changepw` …).
  ///
  /// Without `token`, it is sent as the other helpers are: as `root` once authentication is
  /// enabled, authenticating again once when etcd answers that the token is invalid or missing.
  /// With `token`, it is sent with that token only (a non-root user's, from
  /// ``authenticate(name:password:)``), never again; with the empty token, with no token at all
  /// (etcd refuses it with "etcdserver: user name is empty" once authentication is on).
  ///
  /// - Parameters:
  ///   - path: The gateway path, such as `/v3/kv/txn`.
  ///   - json: The request body; keys and values in base64, as the gateway takes them.
  ///   - token: The token to send as `Authorization`, `""` for none, or `nil` for the
  ///     helpers' own.
  /// - Returns: The answer's JSON object (int64 fields are strings in it).
  /// - Throws: ``RequestFailure`` when the gateway refuses (any status but 200), answers what
  ///   isn't a JSON object, or doesn't answer within ``requestTimeout`` seconds.
  @discardableResult
  package func request(
    _ path: String, _ json: [String: Any], token: String? = nil
  ) throws -> [String: Any] {
    let held =
      token.map { Credentials(rootPassword: nil, token: $0) } ?? credentials.withLock { $0 }
    var (status, body) = try post(path: path, json: json, authorization: held.token)
    if status != 200, let password = held.rootPassword {
      let failure = RequestFailure(path: path, status: status, body: body)
      if failure.message.contains("invalid auth token")
        || failure.message.contains("user name is empty")
      {
        let fresh = try authenticate(name: "root", password: password)
        credentials.withLock { $0.token = fresh }
        (status, body) = try post(path: path, json: json, authorization: fresh)
      }
    }
    guard status == 200 else { throw RequestFailure(path: path, status: status, body: body) }
    guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
      throw RequestFailure(
        path: path, status: status,
        message: "an answer that isn't a JSON object: \(String(decoding: body, as: UTF8.self))")
    }
    return object
  }

  /// The one function that speaks HTTP to the gateway for the helpers: POSTs `json` to `path`,
  /// synchronously, within ``requestTimeout`` seconds, and returns the answer's status and body,
  /// whatever the status.
  ///
  /// Over a plain loopback socket (``exchange(_:port:timeout:)``), not corelibs `URLSession`:
  /// every error etcd's gateway answers (a wrong password, an invalid token, a compacted
  /// revision …) comes chunked with an HTTP trailer (`Grpc-Trailer-Content-Type`), and
  /// `URLSession` on Linux (Swift 6.3) kills the process on a trailer ("Transfer completed, but
  /// there's no response", as in swift-corelibs-foundation#5285).
  private func post(
    path: String, json: [String: Any], authorization: String?
  ) throws -> (status: Int, body: Data) {
    let body = try JSONSerialization.data(withJSONObject: json)
    var head =
      "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(clientPort)\r\n"
      + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
    // No header for an empty token: etcd takes an empty header for an invalid token.
    if let authorization, !authorization.isEmpty {
      head += "Authorization: \(authorization)\r\n"
    }
    let request = Array((head + "\r\n").utf8) + body
    switch Self.exchange(request, port: clientPort, timeout: Self.requestTimeout) {
    case .success(let answer): return (answer.status, answer.body)
    case .failure(let why): throw RequestFailure(path: path, status: nil, message: why.reason)
    }
  }

  /// Why an HTTP exchange got no answer.
  private struct NoAnswer: Error {
    var reason: String
  }

  /// Sends `request` (a whole HTTP/1.1 request, with `Connection: close`) to 127.0.0.1 `port`
  /// and reads the answer until the server closes the connection, within `timeout` seconds;
  /// returns its status and body (a chunked body decoded, its trailers dropped).
  private static func exchange(
    _ request: [UInt8], port: UInt16, timeout: TimeInterval
  ) -> Result<(status: Int, body: Data), NoAnswer> {
    let deadline = Date(timeIntervalSinceNow: timeout)
    #if canImport(Glibc)
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { return .failure(NoAnswer(reason: "socket: \(errorText())")) }
    defer { close(descriptor) }
    var sendTimeout = timeval(tv_sec: Int(timeout.rounded(.up)), tv_usec: 0)
    setsockopt(
      descriptor, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
    #if canImport(Darwin)
      var one: Int32 = 1
      setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
      let noSignal: Int32 = 0
    #else
      let noSignal = Int32(MSG_NOSIGNAL)
    #endif
    var address = loopbackAddress(port: port)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { return .failure(NoAnswer(reason: "connect: \(errorText())")) }
    var offset = 0
    while offset < request.count {
      let sent = request.withUnsafeBytes {
        send(descriptor, $0.baseAddress! + offset, $0.count - offset, noSignal)
      }
      if sent > 0 {
        offset += sent
      } else if sent < 0, errno == EINTR {
        continue
      } else {
        return .failure(NoAnswer(reason: "send: \(errorText())"))
      }
    }
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while true {
      let remaining = deadline.timeIntervalSinceNow
      guard remaining > 0 else {
        return .failure(NoAnswer(reason: "no whole answer within \(timeout) s"))
      }
      var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let polled = poll(&ready, 1, Int32((remaining * 1000).rounded(.up)))
      if polled < 0, errno == EINTR { continue }
      guard polled > 0 else { continue }  // timed out: the deadline check above ends it
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count > 0 {
        answer += buffer[0..<count]
      } else if count == 0 {
        break  // the server closed the connection: the answer is whole
      } else if errno != EINTR {
        return .failure(NoAnswer(reason: "recv: \(errorText())"))
      }
    }
    return parseAnswer(answer)
  }

  /// The status and body of the HTTP/1.1 answer `bytes` (`Content-Length`, chunked, or up to
  /// the connection's end).
  private static func parseAnswer(_ bytes: [UInt8]) -> Result<(status: Int, body: Data), NoAnswer> {
    let separator: [UInt8] = [13, 10, 13, 10]
    guard let headEnd = firstIndex(of: separator, in: bytes, from: 0) else {
      return .failure(NoAnswer(reason: "an answer without a whole header (\(bytes.count) bytes)"))
    }
    let head = String(decoding: bytes[0..<headEnd], as: UTF8.self)
    let headLines = head.components(separatedBy: "\r\n")
    let statusWords = headLines[0].split(separator: " ")
    guard statusWords.count >= 2, statusWords[0].hasPrefix("HTTP/1."),
      let status = Int(statusWords[1])
    else {
      return .failure(NoAnswer(reason: "not an HTTP answer: \(headLines[0])"))
    }
    var fields: [String: String] = [:]
    for line in headLines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      fields[line[..<colon].lowercased()] = line[line.index(after: colon)...]
        .trimmingCharacters(in: .whitespaces)
    }
    let rest = Array(bytes[(headEnd + 4)...])
    if fields["transfer-encoding"]?.lowercased().contains("chunked") == true {
      guard let body = dechunk(rest) else {
        return .failure(NoAnswer(reason: "a chunked body cut short (\(rest.count) bytes)"))
      }
      return .success((status, body))
    }
    if let length = fields["content-length"].flatMap({ Int($0) }) {
      guard rest.count >= length else {
        return .failure(
          NoAnswer(reason: "a body cut short: \(rest.count) of \(length) bytes"))
      }
      return .success((status, Data(rest[0..<length])))
    }
    return .success((status, Data(rest)))
  }

  /// The data of the chunked body `bytes` (its chunk extensions and trailers dropped), or `nil`
  /// when it is cut short or malformed.
  private static func dechunk(_ bytes: [UInt8]) -> Data? {
    var body = Data()
    var index = 0
    while true {
      guard let lineEnd = firstIndex(of: [13, 10], in: bytes, from: index) else { return nil }
      let sizeText =
        String(decoding: bytes[index..<lineEnd], as: UTF8.self)
        .split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
      guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0
      else { return nil }
      if size == 0 { return body }  // the last chunk; trailers may follow
      let start = lineEnd + 2
      guard bytes.count >= start + size + 2 else { return nil }
      body.append(contentsOf: bytes[start..<(start + size)])
      index = start + size + 2
    }
  }

  /// The index where `pattern` first occurs in `bytes` at or after `start`.
  private static func firstIndex(of pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
    guard bytes.count >= pattern.count else { return nil }
    var index = start
    while index + pattern.count <= bytes.count {
      if bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
      index += 1
    }
    return nil
  }

  // MARK: Starting etcd

  /// A client and a peer port.
  private struct Ports: Sendable {
    var client: UInt16
    var peer: UInt16
  }

  /// A started etcd and its watchdog.
  private struct RunningProcess: Sendable {
    /// etcd's process id.
    var pid: pid_t
    /// The process that kills etcd if this process ends first, if it could be started.
    var watchdog: Watchdog?

    /// Ends the watchdog, then etcd: SIGKILL, or SIGTERM and up to 10 seconds before SIGKILL;
    /// returns once both are reaped.
    func end(politely: Bool) {
      endWatchdog()
      if politely {
        _ = signalProcess(pid, SIGTERM)
        let deadline = Date(timeIntervalSinceNow: 10)
        var status: Int32 = 0
        while Date() < deadline {
          let reaped = waitpid(pid, &status, WNOHANG)
          if reaped == pid || (reaped < 0 && errno != EINTR) { return }
          usleep(10_000)  // bounded polling of the child
        }
      }
      killAndReap(pid)
    }

    /// Kills and reaps the watchdog and closes its socket: first, so that it never kills a
    /// process id reused after etcd is reaped.
    func endWatchdog() {
      guard let watchdog else { return }
      killAndReap(watchdog.pid)
      close(watchdog.socket)
    }
  }

  /// A watchdog's process id, and this process's end of the socket it reads.
  private struct Watchdog: Sendable {
    var pid: pid_t
    var socket: Int32
  }

  /// The ports the servers of this process hold, so that two servers started at once never
  /// choose the same ones.
  private static let reservedPorts = Locked<Set<UInt16>>([])

  /// Two distinct free loopback ports no other server of this process holds, reserved for the
  /// caller: each found by binding a socket to 127.0.0.1 port 0 (both held at once, then
  /// closed).
  private static func reserveFreePorts() throws(StartFailure) -> Ports {
    for _ in 0..<20 {
      guard let first = BoundSocket(), let second = BoundSocket() else {
        throw StartFailure("no free loopback port: \(String(cString: strerror(errno)))")
      }
      let ports = Ports(client: first.port, peer: second.port)
      let reserved = reservedPorts.withLock { reserved in
        guard !reserved.contains(ports.client), !reserved.contains(ports.peer) else {
          return false
        }
        reserved.formUnion([ports.client, ports.peer])
        return true
      }
      if reserved { return ports }
    }
    throw StartFailure("no free loopback ports that no other etcd of this process holds")
  }

  /// Gives `ports` back for other servers of this process.
  private static func releasePorts(_ ports: Ports) {
    reservedPorts.withLock { $0.subtract([ports.client, ports.peer]) }
  }

  /// etcd's command line: one member named `default` on `ports`, storing in `dataDirectory`.
  private static func arguments(
    ports: Ports, dataDirectory: URL, authTokenTTL: Int?
  ) -> [String] {
    let client = "http://127.0.0.1:\(ports.client)"
    let peer = "http://127.0.0.1:\(ports.peer)"
    var arguments = [
      "--name", "default",
      "--data-dir", dataDirectory.path,
      "--listen-client-urls", client,
      "--advertise-client-urls", client,
      "--listen-peer-urls", peer,
      "--initial-advertise-peer-urls", peer,
      "--initial-cluster", "default=\(peer)",
    ]
    if let authTokenTTL { arguments += ["--auth-token-ttl", String(authTokenTTL)] }
    return arguments
  }

  /// Starts etcd and its watchdog, and polls `/health` on `port` (every 50 ms, until
  /// `deadline`) until it reports healthy; returns the process, or why not (the process then
  /// killed and reaped).
  private static func launch(
    _ executable: String, _ arguments: [String], port: UInt16, log: URL, until deadline: Date
  ) -> Result<RunningProcess, StartFailure> {
    appendLine(
      "=== EtcdServer: starting \(executable) \(arguments.joined(separator: " ")) ===", to: log)
    let pid: pid_t
    switch spawn(executable, arguments, input: nil, log: log.path) {
    case .success(let started): pid = started
    case .failure(let failure): return .failure(failure)
    }
    let process = RunningProcess(
      pid: pid, watchdog: startWatchdog(killing: pid, removing: log.deletingLastPathComponent()))
    var status: Int32 = 0
    while true {
      if waitpid(pid, &status, WNOHANG) == pid {
        process.endWatchdog()
        return .failure(StartFailure("etcd \(describe(status: status))"))
      }
      if isHealthy(port: port) {
        // Another server answering on this port while ours failed to bind it?
        if waitpid(pid, &status, WNOHANG) == pid {
          process.endWatchdog()
          return .failure(StartFailure("etcd \(describe(status: status))"))
        }
        return .success(process)
      }
      if Date() >= deadline {
        process.end(politely: false)
        return .failure(
          StartFailure("not healthy within \(Int(healthTimeout)) s (killed)"))
      }
      usleep(50_000)  // bounded polling of /health
    }
  }

  /// Starts a watchdog for `pid`: a `/bin/sh` that SIGKILLs it and removes `folder` when this
  /// process ends, however it ends (a test process that crashes would otherwise leave its etcd
  /// running for ever, and its folder of some 120 MB: etcd preallocates 64 MB WAL files).
  ///
  /// The shell reads its standard input, a socket whose other end only this process holds
  /// (close-on-exec, so no other child inherits it): the read ends when this process is gone.
  /// `nil` when it couldn't be started; etcd then runs without one.
  private static func startWatchdog(killing pid: pid_t, removing folder: URL) -> Watchdog? {
    var ends: [Int32] = [-1, -1]
    #if canImport(Glibc)
      // A socket pair rather than a pipe: made close-on-exec at once (Glibc doesn't export
      // pipe2), so a child another thread spawns meanwhile can't inherit it.
      let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
      guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { return nil }
    #else
      guard socketpair(AF_UNIX, SOCK_STREAM, 0, &ends) == 0 else { return nil }
      for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    #endif
    defer { close(ends[0]) }
    let script = "read -r line; kill -9 \"$0\" 2>/dev/null; rm -rf \"$1\""
    guard
      case .success(let watchdog) = spawn(
        "/bin/sh", ["-c", script, "\(pid)", folder.path], input: ends[0], log: nil)
    else {
      close(ends[1])
      return nil
    }
    return Watchdog(pid: watchdog, socket: ends[1])
  }

  /// Spawns `executable` with `arguments`: standard input `input` (or `/dev/null`), standard
  /// output and error appended to `log` (or `/dev/null`), every signal's handling reset to its
  /// default and none blocked, this process's environment without etcd's own `ETCD_*` settings.
  private static func spawn(
    _ executable: String, _ arguments: [String], input: Int32?, log: String?
  ) -> Result<pid_t, StartFailure> {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let input {
      posix_spawn_file_actions_adddup2(&actions, input, 0)
    } else {
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    posix_spawn_file_actions_addopen(
      &actions, 1, log ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaulted = sigset_t()
    sigfillset(&defaulted)
    var blocked = sigset_t()
    sigemptyset(&blocked)
    posix_spawnattr_setsigdefault(&attributes, &defaulted)
    posix_spawnattr_setsigmask(&attributes, &blocked)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    // An ETCD_* variable is a flag to etcd; one from the developer's shell would change the
    // server (ETCD_UNSUPPORTED_ARCH is kept: etcd needs it to run at all on some machines).
    let environment = ProcessInfo.processInfo.environment.filter {
      !$0.key.hasPrefix("ETCD_") || $0.key == "ETCD_UNSUPPORTED_ARCH"
    }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { free(pointer) }
    }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    guard spawned == 0 else {
      return .failure(
        StartFailure("could not run \(executable): \(String(cString: strerror(spawned)))"))
    }
    return .success(pid)
  }

  /// Whether `GET /health` on `port` answers `"health":"true"` within a second (etcd 3.4 writes
  /// no space after the colon; a space is accepted too).
  private static func isHealthy(port: UInt16) -> Bool {
    let request = Array(
      "GET /health HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
    guard case .success(let answer) = exchange(request, port: port, timeout: 1),
      answer.status == 200
    else { return false }
    let text = String(decoding: answer.body, as: UTF8.self)
    return text.contains(#""health":"true""#) || text.contains(#""health": "true""#)
  }

  // MARK: Small helpers

  /// Whether `path` is an executable regular file.
  private static func isExecutableFile(_ path: String) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
      && !isDirectory.boolValue && access(path, X_OK) == 0
  }

  /// `text`'s UTF-8 bytes in base64, as the gateway takes keys and values.
  private static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

  /// The end of the range of keys starting with `prefix` (etcd's `GetPrefixRangeEnd`): the
  /// prefix with its last byte below 0xFF incremented and what follows dropped; `"\0"` (every
  /// key) for the empty prefix or one of 0xFF bytes only.
  static func prefixEnd(_ prefix: Data) -> Data {
    var bytes = [UInt8](prefix)
    while let last = bytes.last {
      if last < 0xFF {
        bytes[bytes.count - 1] = last + 1
        return Data(bytes)
      }
      bytes.removeLast()
    }
    return Data([0])
  }

  /// An int64 of a gateway answer: a JSON string (as the gateway writes them) or a number.
  private static func int64(_ value: Any?) -> Int64? {
    if let text = value as? String { return Int64(text) }
    if let number = value as? NSNumber { return number.int64Value }
    return nil
  }

  /// How a reaped process ended, from its `waitpid` status.
  private static func describe(status: Int32) -> String {
    // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift doesn't import as functions.
    if status & 0x7F == 0 { return "exited with status \((status >> 8) & 0xFF)" }
    return "was killed by signal \(status & 0x7F)"
  }

  /// Appends `line` and a newline to the file at `url`, creating it.
  private static func appendLine(_ line: String, to url: URL) {
    let descriptor = open(url.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
  }

  /// The last 30 lines of the file at `url` (of its last 64 KiB), indented; a note when there
  /// is no such file.
  private static func tail(of url: URL) -> String {
    guard let handle = try? FileHandle(forReadingFrom: url) else {
      return "  (no log at \(url.path))"
    }
    defer { try? handle.close() }
    let size = (try? handle.seekToEnd()) ?? 0
    try? handle.seek(toOffset: size > 65_536 ? size - 65_536 : 0)
    let text = String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(31)
    return lines.map { "  \($0)" }.joined(separator: "\n")
  }
}

extension Trait where Self == ConditionTrait {
  /// Runs the test or suite only where etcd is installed (``EtcdServer/isAvailable``), saying
  /// why it was skipped otherwise: `@Suite(.requiresEtcd)`.
  package static var requiresEtcd: Self {
    .enabled(if: EtcdServer.isAvailable, EtcdServer.unavailableComment)
  }
}

// MARK: - Process and socket helpers

/// `strerror(errno)`.
private func errorText() -> String { String(cString: strerror(errno)) }

/// Sends `signal` to `pid` (the C `kill`, which ``EtcdServer/kill()`` hides inside the class).
private func signalProcess(_ pid: pid_t, _ signal: Int32) -> Int32 {
  kill(pid, signal)
}

/// Kills `pid` with SIGKILL and waits until it is reaped.
private func killAndReap(_ pid: pid_t) {
  _ = signalProcess(pid, SIGKILL)
  var status: Int32 = 0
  while waitpid(pid, &status, 0) < 0, errno == EINTR {}
}

/// 127.0.0.1 port `port`, for `bind` and `connect`.
private func loopbackAddress(port: UInt16) -> sockaddr_in {
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = port.bigEndian
  address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
  #if canImport(Darwin)
    address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
  #endif
  return address
}

/// A TCP socket bound to a free loopback port (port 0: the kernel chooses), closed at deinit.
final class BoundSocket {
  let descriptor: Int32
  let port: UInt16

  /// `nil` when no socket could be made or bound (`errno` says why).
  init?() {
    #if canImport(Glibc)
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { return nil }
    var address = loopbackAddress(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let found = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard found else {
      close(descriptor)
      return nil
    }
    self.descriptor = descriptor
    port = UInt16(bigEndian: address.sin_port)
  }

  deinit { close(descriptor) }
}
