import Foundation
import TypedDefaults

/// The calls ``EtcdSource`` makes to etcd's v3 JSON gateway (`/v3/auth/authenticate`,
/// `/v3/kv/range`, `/v3/watch`), at one endpoint, over ``HTTPConnection``.
///
/// Keys and values are base64 in the gateway's JSON, and 64-bit integers are strings. Every
/// response is bounded by the source's response size limit and decoded by Foundation's
/// `JSONDecoder` into the few fields used; anything else in the response is ignored.
///
/// Thread-safety: a value type; each call opens its own connection.
struct EtcdGateway: Sendable {
  /// An endpoint, such as `http://10.0.0.5:2379`.
  var endpoint: URL
  /// Seconds to connect and for each wait for the server.
  var timeout: Double
  /// The largest response (or streamed message) accepted, in bytes.
  var maximumResponseSize: Int

  /// What a call can fail with.
  enum Failure: Error, Sendable {
    /// The endpoint couldn't be reached or broke off: try another, later.
    case unavailable(String)
    /// The server refused the credentials (wrong user or password).
    case authenticationFailed(String)
    /// The token is missing, invalid or expired: authenticate again.
    case tokenRejected(String)
    /// The revision to watch from was compacted away: read the whole prefix again.
    case compacted(revision: Int64)
    /// The server's revision is below the one to watch from: its data was replaced (restored
    /// from a backup, or a new cluster on the same address), so the history known is not its:
    /// read the whole prefix again.
    case historyReplaced(revision: Int64)
    /// The server answered something else than the gateway's JSON, or too much of it.
    case badResponse(String)
    /// A watch message was larger than the limit: a watcher that fell behind gets its catch-up
    /// in one message (etcd batches up to 1,000 revisions): read the whole prefix instead.
    case messageTooLarge(String)
    /// The caller's cancellation test ended the call.
    case cancelled

    var reason: String {
      switch self {
      case .unavailable(let reason), .authenticationFailed(let reason), .tokenRejected(let reason),
        .badResponse(let reason), .messageTooLarge(let reason):
        reason
      case .compacted(let revision): "The history before revision \(revision) was compacted"
      case .historyReplaced(let revision):
        "The server is at revision \(revision), before the one last read: its data was replaced"
      case .cancelled: "Cancelled"
      }
    }
  }

  /// A key and its value, decoded from base64.
  struct KeyValue: Sendable {
    var key: [UInt8]
    var value: [UInt8]
    var modRevision: Int64
  }

  /// What one watch message reported.
  struct WatchMessage: Sendable {
    var revision: Int64
    var created = false
    /// Each event: the key, its new value (`nil`: deleted), and the revision it was made at.
    var events: [(key: [UInt8], value: [UInt8]?, revision: Int64)] = []
  }

  /// The largest revision believed: 2^62.
  ///
  /// A cluster making a million writes a second reaches it in 146,000 years. A server's number
  /// is untrusted input; bounded so, a revision can be added to or subtracted from without
  /// overflow anywhere.
  static let largestRevision: Int64 = 1 << 62

  /// A revision the gateway sent (a decimal string), `nil` when absent, or a failure when it
  /// isn't a number from 0 to ``largestRevision``.
  private func revision(_ text: String?, in what: String) throws(Failure) -> Int64? {
    guard let text else { return nil }
    guard let number = Int64(text), (0...Self.largestRevision).contains(number) else {
      throw .badResponse(
        "\(EtcdSource.shown(endpoint)) sent \(what) with an impossible revision (not a number "
          + "from 0 to 2^62)")
    }
    return number
  }

  private var origin: (host: String, port: Int)? {
    guard let host = endpoint.host, !host.isEmpty else { return nil }
    return (host, endpoint.port ?? 2379)
  }

  private func connection(isCancelled: @escaping () -> Bool) throws(Failure) -> HTTPConnection {
    guard endpoint.scheme?.lowercased() == "http", let origin else {
      throw .unavailable(
        "'\(EtcdSource.shown(endpoint))' is not an http:// endpoint with a host (TLS endpoints "
          + "are not supported yet: see the \"Fleet configuration\" article)")
    }
    do {
      return try HTTPConnection(
        host: origin.host, port: origin.port, timeout: timeout,
        maximumBodySize: maximumResponseSize, isCancelled: isCancelled)
    } catch {
      throw error.wasCancelled ? .cancelled : .unavailable(error.reason)
    }
  }

  private var pathPrefix: String {
    let path = endpoint.path
    return path.hasSuffix("/") ? String(path.dropLast()) : path
  }

  /// Posts `body` to `path` and returns the decoded response, mapping the gateway's errors.
  private func call<Response: Decodable>(
    _ path: String, body: [String: Any], token: String?, as type: Response.Type,
    isCancelled: @escaping () -> Bool
  ) throws(Failure) -> Response {
    let connection = try connection(isCancelled: isCancelled)
    defer { connection.close() }
    connection.deadline = Date().addingTimeInterval(timeout * 3)
    guard let json = try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
    else { throw .badResponse("Cannot encode the request to \(path)") }
    let (status, data) = try Self.mapped { () throws(HTTPConnection.Failure) in
      let head = try connection.post(
        pathPrefix + path, body: json, headers: token.map { ["Authorization": $0] } ?? [:])
      return (head.status, try connection.readBody())
    }
    if status != 200 {
      throw Self.failure(status: status, body: data, at: EtcdSource.shown(endpoint))
    }
    do {
      return try JSONDecoder().decode(Response.self, from: data)
    } catch {
      // Never quoted: a proxy may echo the request, and with it the password.
      throw .badResponse(
        "\(EtcdSource.shown(endpoint)) answered \(path) with JSON the gateway doesn't send "
          + "(\(data.count) bytes, not shown)")
    }
  }

  /// The failure a non-200 answer means, from the gateway's error JSON
  /// (`{"error": "etcdserver: …", "code": 16}` or `{"error": {"message": …}}`).
  ///
  /// The server's words choose the failure but are never quoted in it: a server or proxy that
  /// echoes the request would put the password (sent to `/v3/auth/authenticate`) in an error,
  /// and errors end up in diagnostics, logs and the tool's warnings. What is shown is what this
  /// client concluded, the HTTP status, and the gateway's numeric gRPC code when it sent one.
  static func failure(status: Int, body: Data, at origin: String) -> Failure {
    let decoded = try? JSONDecoder().decode(ErrorBody.self, from: body)
    let lowered = (decoded?.text ?? String(decoding: body.prefix(4096), as: UTF8.self))
      .lowercased()
    if lowered.contains("authentication failed") {
      return .authenticationFailed("\(origin) refused the user name or password")
    }
    if lowered.contains("invalid auth token") || lowered.contains("user name is empty")
      || lowered.contains("token") && lowered.contains("expired")
    {
      return .tokenRejected("\(origin) refused the authentication token")
    }
    if lowered.contains("permission denied") {
      return .authenticationFailed("\(origin) refused access to the prefix (permission denied)")
    }
    if lowered.contains("compacted") {
      return .compacted(revision: 0)
    }
    let code = decoded?.code.map { ", gRPC code \($0)" } ?? ""
    return .unavailable(
      "\(origin) answered HTTP \(status)\(code) (an error of \(body.count) bytes, not shown: it "
        + "could echo the request)")
  }

  // MARK: - Calls

  /// Authenticates, returning the token to send with later calls.
  func authenticate(
    user: String, password: String, isCancelled: @escaping () -> Bool
  ) throws(Failure) -> String {
    let response = try call(
      "/v3/auth/authenticate", body: ["name": user, "password": password], token: nil,
      as: AuthenticateResponse.self, isCancelled: isCancelled)
    guard let token = response.token, !token.isEmpty else {
      throw .badResponse(
        "\(EtcdSource.shown(endpoint)) answered the authentication without a token")
    }
    return token
  }

  /// The most keys asked for in one page of a read.
  static let pageSize = 1000

  /// The most bytes of keys and values (decoded) a whole read, all its pages, may hold: one and a
  /// half times the response limit (12 MiB by default), so that they fit the last known good
  /// file, read back with a bound of 16 MiB (``PropertyListFile/defaultMaximumSize``).
  var wholeReadLimit: Int {
    // Saturating: the limit is the app's option, which may be as large as `Int` goes.
    let (sum, overflow) = maximumResponseSize.addingReportingOverflow(maximumResponseSize / 2)
    return overflow ? Int.max : sum
  }

  /// The most pages a read may take (ten million keys at full pages): a server answering one
  /// tiny key per page can't keep a read going for long.
  static let maximumPages = 10_000

  /// Reads every key in `[key, rangeEnd)`, at the store's current revision, in pages.
  ///
  /// The first page (at most ``pageSize`` keys) fixes the revision; the next pages are read at
  /// that revision, each from the key after the last one read, so the pages are one snapshot.
  /// A page whose answer is above the response limit is asked again with half as many keys (a
  /// prefix of large values), down to one key. The keys and values read, all pages together, are
  /// bounded by ``wholeReadLimit``, the pages by ``maximumPages``, and each
  /// page must move forward, so a server can't make the read endless.
  ///
  /// - Returns: The keys and values, and the revision they were read at.
  func range(
    key: [UInt8], rangeEnd: [UInt8], token: String?, isCancelled: @escaping () -> Bool
  ) throws(Failure) -> (values: [KeyValue], revision: Int64) {
    let origin = EtcdSource.shown(endpoint)
    var values: [KeyValue] = []
    var snapshot: Int64?
    var start = key
    var limit = Self.pageSize
    var total = 0
    var pages = 0
    var restarted = false
    while true {
      pages += 1
      guard pages <= Self.maximumPages else {
        throw .badResponse("\(origin) answered a read in more than \(Self.maximumPages) pages")
      }
      var body: [String: Any] = [
        "key": Data(start).base64EncodedString(),
        "range_end": Data(rangeEnd).base64EncodedString(), "limit": limit,
      ]
      if let snapshot { body["revision"] = String(snapshot) }
      let response: RangeResponse
      do {
        response = try call(
          "/v3/kv/range", body: body, token: token, as: RangeResponse.self,
          isCancelled: isCancelled)
      } catch .messageTooLarge where limit > 1 {
        limit /= 2
        continue
      } catch .compacted where snapshot != nil && !restarted {
        // The snapshot's revision was compacted between two pages: read again, once, at the
        // revision of now.
        restarted = true
        (values, snapshot, start, total) = ([], nil, key, 0)
        continue
      }
      guard let revision = try revision(response.header?.revision, in: "a read") else {
        throw .badResponse("\(origin) answered the read without a revision")
      }
      let page = try entries(of: response)
      if let last = values.last?.key, let first = page.first?.key,
        !last.lexicographicallyPrecedes(first)
      {
        throw .badResponse("\(origin) answered a page of a read that doesn't follow the last")
      }
      let (sum, overflow) = total.addingReportingOverflow(
        page.reduce(0) { $0 + $1.key.count + $1.value.count })
      total = sum
      let readLimit = wholeReadLimit
      guard !overflow, total <= readLimit else {
        throw .badResponse(
          "\(origin) holds more than \(readLimit) bytes under the prefix, above the limit of a "
            + "read")
      }
      values += page
      snapshot = snapshot ?? revision
      guard response.more == true else { break }
      guard let last = page.last?.key else {
        throw .badResponse("\(origin) announced more keys in a read but sent none")
      }
      start = last + [0]
    }
    return (values, snapshot ?? 0)
  }

  /// The keys and values of one answer to a read.
  private func entries(of response: RangeResponse) throws(Failure) -> [KeyValue] {
    var values: [KeyValue] = []
    for entry in response.kvs ?? [] {
      guard let key = entry.key.flatMap({ Data(base64Encoded: $0) }) else {
        throw .badResponse("\(EtcdSource.shown(endpoint)) sent a key that isn't base64")
      }
      guard let value = Data(base64Encoded: entry.value ?? "") else {
        throw .badResponse("\(EtcdSource.shown(endpoint)) sent a value that isn't base64")
      }
      values.append(
        KeyValue(
          key: Array(key), value: Array(value),
          modRevision: try revision(entry.mod_revision, in: "a key") ?? 0))
    }
    return values
  }

  /// Puts a value at `key`, or deletes the key when `value` is `nil`.
  ///
  /// - Returns: The revision of the change.
  func write(
    key: [UInt8], value: [UInt8]?, token: String?, isCancelled: @escaping () -> Bool
  ) throws(Failure) -> Int64 {
    let body: [String: Any] =
      value.map {
        ["key": Data(key).base64EncodedString(), "value": Data($0).base64EncodedString()]
      }
      ?? ["key": Data(key).base64EncodedString()]
    let response = try call(
      value == nil ? "/v3/kv/deleterange" : "/v3/kv/put", body: body, token: token,
      as: RangeResponse.self, isCancelled: isCancelled)
    return try revision(response.header?.revision, in: "a write") ?? 0
  }

  /// Watches `[key, rangeEnd)` from `startRevision`, calling `receive` with each message until
  /// the stream ends, fails, or `isCancelled` returns `true`.
  ///
  /// - Parameters:
  ///   - key: The first key of the range.
  ///   - rangeEnd: The end of the range, excluded.
  ///   - startRevision: The first revision to report.
  ///   - token: The authentication token, if any.
  ///   - checkInterval: Seconds of silence after which `check` runs (a watch of keys that don't
  ///     change is silent, and so is a frozen or unreachable member whose connection stays open).
  ///   - check: Throws if the endpoint doesn't answer another request, which ends the watch.
  ///   - isCancelled: Ends the watch when it returns `true`.
  ///   - waited: Called after each wait of ``timeout`` seconds that brought nothing.
  ///   - receive: Called with each message.
  /// - Throws: ``Failure/compacted(revision:)`` when `startRevision` was compacted away,
  ///   ``Failure/tokenRejected(_:)`` for a token refused, ``Failure/unavailable(_:)`` when the
  ///   stream breaks off or ends, ``Failure/cancelled``.
  func watch(
    key: [UInt8], rangeEnd: [UInt8], startRevision: Int64, token: String?,
    checkInterval: Double, check: () throws(Failure) -> Void,
    isCancelled: @escaping () -> Bool, waited: () -> Void = {},
    receive: (WatchMessage) -> Void
  ) throws(Failure) {
    let connection = try connection(isCancelled: isCancelled)
    defer { connection.close() }
    let origin = EtcdSource.shown(endpoint)
    let request: [String: Any] = [
      "create_request": [
        "key": Data(key).base64EncodedString(),
        "range_end": Data(rangeEnd).base64EncodedString(),
        "start_revision": String(startRevision),
      ]
    ]
    guard let json = try? JSONSerialization.data(withJSONObject: request, options: [.sortedKeys])
    else { throw .badResponse("Cannot encode the watch request") }
    // The request and the answer's head (and an error's body) are bounded as a read's whole
    // exchange is: a server dripping a head can't hold the watch; the stream then has no end.
    connection.deadline = Date().addingTimeInterval(timeout * 3)
    let head = try Self.mapped { () throws(HTTPConnection.Failure) in
      try connection.post(
        pathPrefix + "/v3/watch", body: json, headers: token.map { ["Authorization": $0] } ?? [:])
    }
    if head.status != 200 {
      let body = try Self.mapped { () throws(HTTPConnection.Failure) in try connection.readBody() }
      throw Self.failure(status: head.status, body: body, at: origin)
    }
    connection.deadline = nil
    // Blank lines don't count as signs of life: only messages end a silence.
    var silentSince = Date()
    while true {
      guard
        let line = try nextLine(
          of: connection, silentSince: &silentSince, checkInterval: checkInterval, check: check,
          waited: waited)
      else {
        throw .unavailable("\(origin) ended the watch")
      }
      if line.allSatisfy({ $0 == 32 || $0 == 13 || $0 == 9 }) { continue }
      silentSince = Date()
      let message = try message(from: line, origin: origin)
      // A watch from a revision the server hasn't reached would wait for it in silence.
      if message.created, message.revision > 0, message.revision < startRevision - 1 {
        throw .historyReplaced(revision: message.revision)
      }
      receive(message)
    }
  }

  /// The next line of a watch, waiting as long as it takes.
  ///
  /// A watch stays silent for as long as nothing changes, so a wait that times out is no
  /// failure; only the connection's end, an error or the cancellation test is. A line must
  /// arrive within three times the timeout of its first byte, as a read's whole exchange must.
  private func nextLine(
    of connection: HTTPConnection, silentSince: inout Date, checkInterval: Double,
    check: () throws(Failure) -> Void, waited: () -> Void
  ) throws(Failure) -> [UInt8]? {
    while true {
      do {
        return try connection.readLine(lineLimit: maximumResponseSize, timeLimit: timeout * 3)
      } catch {
        if error.wasCancelled { throw .cancelled }
        if error.isOversized { throw .messageTooLarge(error.reason) }
        guard error.reason.contains("did not answer") else { throw .unavailable(error.reason) }
        waited()
        if Date().timeIntervalSince(silentSince) >= checkInterval {
          try check()
          silentSince = Date()
        }
      }
    }
  }

  /// Checks that the endpoint answers: a read that counts one key, the cheapest request.
  func check(key: [UInt8], token: String?, isCancelled: @escaping () -> Bool) throws(Failure) {
    _ = try call(
      "/v3/kv/range", body: ["key": Data(key).base64EncodedString(), "count_only": true],
      token: token, as: RangeResponse.self, isCancelled: isCancelled)
  }

  /// Runs a connection call, mapping its failure.
  private static func mapped<Result>(
    _ body: () throws(HTTPConnection.Failure) -> Result
  ) throws(Failure) -> Result {
    do {
      return try body()
    } catch {
      if error.wasCancelled { throw .cancelled }
      throw error.isOversized ? .messageTooLarge(error.reason) : .unavailable(error.reason)
    }
  }

  /// Decodes one watch message.
  private func message(from line: [UInt8], origin: String) throws(Failure) -> WatchMessage {
    guard let envelope = try? JSONDecoder().decode(WatchEnvelope.self, from: Data(line)) else {
      throw .badResponse(
        "\(origin) sent a watch message that isn't the gateway's JSON (\(line.count) bytes, not "
          + "shown)")
    }
    if let error = envelope.error {
      throw Self.failure(status: error.http_code ?? 500, body: Data(line), at: origin)
    }
    guard let result = envelope.result else { return WatchMessage(revision: 0) }
    if let compacted = try revision(result.compact_revision, in: "a watch message"),
      compacted > 0
    {
      throw .compacted(revision: compacted)
    }
    if result.canceled == true {
      let reason = result.cancel_reason ?? ""
      let failure = Self.failure(status: 500, body: Data(reason.utf8), at: origin)
      if case .unavailable = failure {
        // The reason isn't quoted, as no server text is.
        throw .unavailable("\(origin) cancelled the watch")
      }
      throw failure
    }
    var message = WatchMessage(
      revision: try revision(result.header?.revision, in: "a watch message") ?? 0,
      created: result.created == true)
    for event in result.events ?? [] {
      guard let key = event.kv?.key.flatMap({ Data(base64Encoded: $0) }) else {
        throw .badResponse("\(origin) sent a watch event without a base64 key")
      }
      let revision = try revision(event.kv?.mod_revision, in: "a watch event") ?? message.revision
      if event.type == "DELETE" {
        message.events.append((Array(key), nil, revision))
      } else {
        guard let value = Data(base64Encoded: event.kv?.value ?? "") else {
          throw .badResponse("\(origin) sent a watch event whose value isn't base64")
        }
        message.events.append((Array(key), Array(value), revision))
      }
    }
    return message
  }
}

// MARK: - The gateway's JSON

// Field names are the gateway's (snake case), so the types mirror its JSON exactly.
// swift-format-ignore: AlwaysUseLowerCamelCase
private struct ResponseHeader: Decodable {
  var revision: String?
}

private struct AuthenticateResponse: Decodable {
  var token: String?
}

// swift-format-ignore: AlwaysUseLowerCamelCase
private struct GatewayKeyValue: Decodable {
  var key: String?
  var value: String?
  var mod_revision: String?
}

private struct RangeResponse: Decodable {
  var header: ResponseHeader?
  var kvs: [GatewayKeyValue]?
  var more: Bool?
}

private struct WatchEvent: Decodable {
  var type: String?
  var kv: GatewayKeyValue?
}

// swift-format-ignore: AlwaysUseLowerCamelCase
private struct WatchResult: Decodable {
  var header: ResponseHeader?
  var created: Bool?
  var canceled: Bool?
  var compact_revision: String?
  var cancel_reason: String?
  var events: [WatchEvent]?
}

// swift-format-ignore: AlwaysUseLowerCamelCase
private struct StreamError: Decodable {
  var message: String?
  var http_code: Int?
}

private struct WatchEnvelope: Decodable {
  var result: WatchResult?
  var error: StreamError?
}

/// `{"error": "…", "message": "…", "code": 3}` (unary calls) or `{"error": {"message": …}}`
/// (streams).
private struct ErrorBody: Decodable {
  var text: String?
  /// The gRPC status code, a number: safe to show.
  var code: Int?

  enum CodingKeys: String, CodingKey { case error, message, code }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    code = try? container.decode(Int.self, forKey: .code)
    if let message = try? container.decode(String.self, forKey: .message) {
      text = message
    } else if let error = try? container.decode(String.self, forKey: .error) {
      text = error
    } else if let stream = try? container.decode(StreamError.self, forKey: .error) {
      text = stream.message
    }
  }
}
