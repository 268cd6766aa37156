import Foundation
import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One HTTP/1.1 request and its response over a plain TCP connection: what ``EtcdSource`` speaks
/// to the etcd gateway at an `http://` endpoint.
///
/// Not `URLSession`: on Linux, corelibs' `URLSession` (Swift 6.3.1) ends the process with a fatal
/// error ("Transfer completed, but there's no response") when a server closes a connection before
/// it answered (swift-corelibs-foundation#5285), which is exactly what a killed or restarting etcd
/// member does; a settings layer must never take its app down with its server. So this type does
/// the little HTTP/1.1 the gateway needs: a `POST` with a JSON body and `Connection: close`, a
/// status line, headers, and a body framed by `Content-Length`, `chunked` transfer coding, or the
/// connection's end. Every wait is bounded (connect, send, each read) and checks a cancellation
/// test at least every 100 ms; every size is bounded (head 64 KiB, body ``maximumBodySize``).
/// Writes never raise `SIGPIPE`.
///
/// Thread-safety: not shared; each exchange is used by one thread at a time.
final class HTTPConnection {
  /// Why an exchange failed, in words naming the endpoint's host and port.
  struct Failure: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    var reason: String
    /// Whether it was the cancellation test that ended the exchange.
    var wasCancelled = false
    /// Whether the response (or a streamed message) was larger than the limit.
    var isOversized = false
    var description: String { reason }
  }

  /// A response's status and headers (names lowercased).
  struct Head: Sendable {
    var status: Int
    var headers: [String: String]
  }

  private var descriptor: Int32
  private let origin: String
  /// Bytes received: those from `bufferStart` on are not consumed yet.
  private var buffer: [UInt8] = []
  /// Where the bytes not consumed start in `buffer`.
  private var bufferStart = 0
  /// Where each receive lands, reused: a server sending a byte at a time costs no allocation
  /// per byte.
  private var receiveBuffer = [UInt8](repeating: 0, count: 16 * 1024)
  /// How far `find` has looked for its pattern in `buffer` without finding it.
  private var scanned = 0
  /// How the body is framed, once the head is read.
  private var framing = Framing.toEnd
  /// Body bytes delivered so far.
  private var bodyBytesRead = 0
  /// Whether the body has ended.
  private(set) var bodyEnded = false
  /// Largest body accepted, in bytes.
  let maximumBodySize: Int
  /// How long one wait for the server may last, in seconds.
  let timeout: Double
  /// Ends any wait early when it returns `true`.
  let isCancelled: () -> Bool
  /// When the whole exchange must have ended (a slow drip of bytes can't hold it longer);
  /// `nil` for a stream that stays open.
  var deadline: Date?

  private enum Framing {
    case length(Int)
    /// Before a chunk's size line.
    case chunkSize
    /// Inside a chunk's data, `remaining` bytes of it to come.
    case chunkData(remaining: Int)
    /// After a chunk's data, before the CRLF that must end it.
    case chunkEnd
    /// After the last (empty) chunk: trailer lines up to an empty one.
    case trailer
    case toEnd
  }

  /// Opens a TCP connection to `host:port`.
  ///
  /// - Parameters:
  ///   - host: A host name or address.
  ///   - port: The TCP port.
  ///   - timeout: Seconds the connection and each later wait may take.
  ///   - maximumBodySize: The largest response body accepted, in bytes.
  ///   - isCancelled: Checked at least every 100 ms while waiting.
  /// - Throws: ``Failure`` when the host can't be resolved or no address accepts in time.
  init(
    host: String, port: Int, timeout: Double, maximumBodySize: Int,
    isCancelled: @escaping () -> Bool = { false }
  ) throws(Failure) {
    self.origin = "\(host):\(port)"
    self.timeout = timeout
    self.maximumBodySize = maximumBodySize
    self.isCancelled = isCancelled
    self.descriptor = -1
    self.descriptor = try Self.connect(
      host: host, port: port, timeout: timeout, origin: origin, isCancelled: isCancelled)
  }

  deinit {
    if descriptor >= 0 { _ = systemClose(descriptor) }
  }

  /// Closes the connection; later calls fail.
  func close() {
    if descriptor >= 0 {
      _ = systemClose(descriptor)
      descriptor = -1
    }
  }

  // MARK: - Request

  /// Sends a `POST` of `body` to `path` and reads the response's head.
  ///
  /// - Parameters:
  ///   - path: The request target, such as `/v3/kv/range`.
  ///   - body: The request body (JSON).
  ///   - headers: Extra headers.
  /// - Returns: The status and headers; read the body with ``readBody()`` or
  ///   ``readLine(lineLimit:timeLimit:)``.
  /// - Throws: ``Failure`` when the request can't be sent or no valid head arrives in time.
  func post(_ path: String, body: Data, headers: [String: String] = [:]) throws(Failure) -> Head {
    var request = "POST \(path) HTTP/1.1\r\nHost: \(origin)\r\n"
    request += "Content-Type: application/json\r\nAccept: application/json\r\n"
    request += "Content-Length: \(body.count)\r\nConnection: close\r\n"
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
      // A header value can't carry a line break: it would smuggle another header in.
      let clean = value.filter { $0 != "\r" && $0 != "\n" }
      request += "\(name): \(clean)\r\n"
    }
    request += "\r\n"
    try send(Array(request.utf8) + Array(body))
    return try readHead()
  }

  private func send(_ bytes: [UInt8]) throws(Failure) {
    var sent = 0
    while sent < bytes.count {
      try wait(for: Int16(POLLOUT))
      let count = bytes.withUnsafeBytes { raw in
        systemSend(descriptor, raw.baseAddress! + sent, raw.count - sent)
      }
      if count < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        throw Failure(reason: "Cannot send to \(origin): \(POSIX.lastError)")
      }
      sent += count
    }
  }

  // MARK: - Response

  private func readHead() throws(Failure) -> Head {
    let limit = 64 * 1024
    var end: Int?
    while end == nil {
      end = find([13, 10, 13, 10])
      if end != nil { break }
      guard buffered < limit else {
        throw Failure(reason: "\(origin) sent a response head larger than 64 KiB")
      }
      guard try receive() else {
        throw Failure(reason: "\(origin) closed the connection before it answered")
      }
    }
    let headBytes = buffer[bufferStart..<end!]
    let text = String(decoding: headBytes, as: UTF8.self)
    consume(through: end! + 4)
    var lines = text.components(separatedBy: "\r\n")
    let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
    guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."),
      let status = Int(statusLine[1]), (100...599).contains(status)
    else {
      throw Failure(reason: "\(origin) did not answer in HTTP/1.1")
    }
    var headers: [String: String] = [:]
    for line in lines {
      guard let colon = line.firstIndex(of: ":") else { continue }
      let name = line[..<colon].lowercased()
      headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
      framing = .chunkSize
    } else if let length = headers["content-length"] {
      // The server's text isn't quoted: a message shows only what this client decided.
      guard let count = Int(length), count >= 0 else {
        throw Failure(reason: "\(origin) sent an invalid Content-Length")
      }
      guard count <= maximumBodySize else {
        throw Failure(
          reason: "\(origin) announced a response of \(count) bytes, above the limit of "
            + "\(maximumBodySize) bytes", isOversized: true)
      }
      framing = .length(count)
      bodyEnded = count == 0
    } else {
      framing = .toEnd
    }
    return Head(status: status, headers: headers)
  }

  /// Reads the whole body.
  ///
  /// - Throws: ``Failure`` when it doesn't arrive in time, is malformed, or exceeds
  ///   ``maximumBodySize``.
  func readBody() throws(Failure) -> Data {
    var body: [UInt8] = []
    while let piece = try nextBodyBytes() {
      body += piece
    }
    return Data(body)
  }

  /// Reads the body up to the next line feed, for a streamed response of one JSON text per line.
  ///
  /// Linear in the bytes received, however they are cut: each byte is looked at once for a line
  /// feed, and consumed bytes are dropped in amortized constant time. A line's time is bounded:
  /// from its first byte, the whole line must arrive within `timeLimit` seconds, so a server
  /// dripping bytes can't keep a message (and the watch's silence check) pending forever.
  ///
  /// - Parameters:
  ///   - lineLimit: The longest line accepted, in bytes.
  ///   - timeLimit: The longest a line may take from its first byte, in seconds.
  /// - Returns: The line without its line feed; `nil` once the body ended (a last line without a
  ///   line feed is returned first).
  /// - Throws: ``Failure`` when the stream fails, a line exceeds `lineLimit` or `timeLimit`, or
  ///   the wait is cancelled. A wait for the next line that times out ("did not answer") keeps
  ///   what arrived of the line for the next call.
  func readLine(lineLimit: Int, timeLimit: Double) throws(Failure) -> [UInt8]? {
    lineTimeLimit = timeLimit
    while true {
      if let newline = pendingLine[max(pendingStart, lineScanned)...].firstIndex(of: 10) {
        let line = Array(pendingLine[pendingStart..<newline])
        Self.consume(
          &pendingLine, start: &pendingStart, scanned: &lineScanned, through: newline + 1)
        lineDeadline = nil
        if pendingStart < pendingLine.count { startLineClock() }
        return line
      }
      lineScanned = pendingLine.count
      let pending = pendingLine.count - pendingStart
      guard pending <= lineLimit else {
        throw Failure(
          reason: "\(origin) sent a message larger than the limit of \(lineLimit) bytes",
          isOversized: true)
      }
      if pending > 0 { startLineClock() }
      guard let piece = try nextBodyBytes(countingTowardsLimit: false) else {
        lineDeadline = nil
        if pending == 0 { return nil }
        defer {
          pendingLine = []
          pendingStart = 0
          lineScanned = 0
        }
        return Array(pendingLine[pendingStart...])
      }
      pendingLine += piece
    }
  }
  /// What arrived of the current line, from `pendingStart` on (and, after a piece with several
  /// lines, of the next ones).
  private var pendingLine: [UInt8] = []
  /// Where the current line starts in `pendingLine`.
  private var pendingStart = 0
  /// How much of `pendingLine` is known to hold no line feed.
  private var lineScanned = 0
  /// When the line being received must be complete; `nil` while none is.
  private var lineDeadline: Date?
  /// Seconds a line may take from its first byte.
  private var lineTimeLimit: Double?

  /// Starts the current line's clock, unless it runs.
  private func startLineClock() {
    guard lineDeadline == nil, let lineTimeLimit else { return }
    lineDeadline = Date().addingTimeInterval(lineTimeLimit)
  }

  /// The next decoded bytes of the body; `nil` at its end.
  private func nextBodyBytes(countingTowardsLimit: Bool = true) throws(Failure) -> [UInt8]? {
    while !bodyEnded {
      switch framing {
      case .length(let total):
        if buffered == 0, !(try receive()) {
          throw Failure(reason: "\(origin) closed the connection in the middle of its answer")
        }
        let take = min(buffered, total - bodyBytesRead)
        let piece = Array(buffer[bufferStart..<bufferStart + take])
        consume(through: bufferStart + take)
        bodyBytesRead += take
        if bodyBytesRead == total { bodyEnded = true }
        return piece
      case .toEnd:
        if buffered == 0, !(try receive()) {
          bodyEnded = true
          return nil
        }
        let piece = Array(buffer[bufferStart...])
        consume(through: buffer.count)
        try count(piece.count, towardsLimit: countingTowardsLimit)
        return piece
      case .trailer:
        // The trailer section ends with an empty line.
        guard let end = find([13, 10]) else {
          guard buffered < 64 * 1024, try receive() else {
            throw Failure(reason: "\(origin) ended a chunked answer without its last line")
          }
          continue
        }
        if end == bufferStart { bodyEnded = true }
        consume(through: end + 2)
      case .chunkSize:
        guard let end = find([13, 10]) else {
          guard buffered < 1024 else {
            throw Failure(reason: "\(origin) sent a malformed chunk size")
          }
          guard try receive() else {
            throw Failure(reason: "\(origin) closed the connection in the middle of its answer")
          }
          continue
        }
        guard let size = Self.chunkSize(buffer[bufferStart..<end]) else {
          throw Failure(reason: "\(origin) sent a malformed chunk size")
        }
        // Bounded before any use: a size near Int.max must not overflow anything.
        guard size <= maximumBodySize else {
          throw Failure(
            reason: "\(origin) announced a chunk of \(size) bytes, above the limit of "
              + "\(maximumBodySize) bytes", isOversized: true)
        }
        consume(through: end + 2)
        framing = size == 0 ? .trailer : .chunkData(remaining: size)
      case .chunkData(let remaining):
        if buffered == 0, !(try receive()) {
          throw Failure(reason: "\(origin) closed the connection in the middle of its answer")
        }
        let take = min(buffered, remaining)
        let piece = Array(buffer[bufferStart..<bufferStart + take])
        consume(through: bufferStart + take)
        framing = take == remaining ? .chunkEnd : .chunkData(remaining: remaining - take)
        try count(piece.count, towardsLimit: countingTowardsLimit)
        return piece
      case .chunkEnd:
        // A chunk's data ends with CRLF; anything else means the framing is lost.
        while buffered < 2 {
          guard try receive() else {
            throw Failure(reason: "\(origin) closed the connection in the middle of its answer")
          }
        }
        guard buffer[bufferStart] == 13, buffer[bufferStart + 1] == 10 else {
          throw Failure(reason: "\(origin) sent a chunk not ended by CRLF")
        }
        consume(through: bufferStart + 2)
        framing = .chunkSize
      }
    }
    return nil
  }

  /// The size a chunk's size line announces, read from its bytes; `nil` when malformed.
  ///
  /// The line holds hexadecimal digits, optional spaces and an optional `;` extension. Digits
  /// past 15 (more than `Int` holds) are malformed, so the arithmetic can't overflow.
  private static func chunkSize(_ line: ArraySlice<UInt8>) -> Int? {
    var size = 0
    var digits = 0
    var index = line.startIndex
    while index < line.endIndex, line[index] == 32 || line[index] == 9 { index += 1 }
    while index < line.endIndex {
      let byte = line[index]
      let digit: Int
      switch byte {
      case 48...57: digit = Int(byte) - 48
      case 97...102: digit = Int(byte) - 87
      case 65...70: digit = Int(byte) - 55
      default: digit = -1
      }
      guard digit >= 0 else { break }
      guard digits < 15 else { return nil }
      size = size * 16 + digit
      digits += 1
      index += 1
    }
    while index < line.endIndex, line[index] == 32 || line[index] == 9 { index += 1 }
    guard digits > 0, index == line.endIndex || line[index] == 59 else { return nil }
    return size
  }

  private func count(_ bytes: Int, towardsLimit: Bool) throws(Failure) {
    guard towardsLimit else { return }
    bodyBytesRead += bytes
    if bodyBytesRead > maximumBodySize {
      throw Failure(
        reason: "\(origin) sent a response larger than the limit of \(maximumBodySize) bytes",
        isOversized: true)
    }
  }

  /// The bytes received and not consumed.
  private var buffered: Int { buffer.count - bufferStart }

  /// Consumes the buffered bytes before `index`; drops consumed bytes once they are at least half
  /// the buffer, so that consuming is amortized constant time however small the pieces.
  private func consume(through index: Int) {
    Self.consume(&buffer, start: &bufferStart, scanned: &scanned, through: index)
  }

  /// Consumes `bytes` before `index`: the unconsumed bytes and the scan start there.
  ///
  /// The consumed bytes are dropped once they are all of them, or at least 4 KiB and half of
  /// them, so consuming is amortized constant time however small the pieces. Serves the received
  /// bytes and the line being assembled alike.
  private static func consume(
    _ bytes: inout [UInt8], start: inout Int, scanned: inout Int, through index: Int
  ) {
    start = index
    scanned = index
    if start == bytes.count {
      bytes.removeAll(keepingCapacity: true)
      start = 0
      scanned = 0
    } else if start >= 4096, start * 2 >= bytes.count {
      bytes.removeSubrange(..<start)
      start = 0
      scanned = 0
    }
  }

  /// Receives more bytes into `buffer`; `false` when the server closed the connection.
  private func receive() throws(Failure) -> Bool {
    try wait(for: Int16(POLLIN))
    while true {
      let count = receiveBuffer.withUnsafeMutableBytes {
        systemReceive(descriptor, $0.baseAddress!, $0.count)
      }
      if count < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN || errno == EWOULDBLOCK {
          try wait(for: Int16(POLLIN))
          continue
        }
        throw Failure(reason: "Cannot receive from \(origin): \(POSIX.lastError)")
      }
      if count == 0 { return false }
      buffer += receiveBuffer[..<count]
      // A line being read starts its clock with its first byte, framing included.
      if lineTimeLimit != nil { startLineClock() }
      return true
    }
  }

  /// Waits until the socket is ready for `events`, checking the cancellation test every 100 ms.
  private func wait(for events: Int16) throws(Failure) {
    guard descriptor >= 0 else { throw Failure(reason: "The connection to \(origin) is closed") }
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if isCancelled() {
        throw Failure(reason: "The exchange with \(origin) was cancelled", wasCancelled: true)
      }
      // Checked before each wait, so a server dripping bytes can't hold the exchange longer.
      if let overall = self.deadline, Date() >= overall {
        throw Failure(reason: "\(origin) did not finish its answer in time")
      }
      if let lineDeadline, Date() >= lineDeadline {
        throw Failure(
          reason: "\(origin) did not finish a message within "
            + "\(Self.seconds(lineTimeLimit ?? 0))")
      }
      var entry = pollfd(fd: descriptor, events: events, revents: 0)
      let ready = poll(&entry, 1, 100)
      if ready > 0 { return }
      if ready < 0, errno != EINTR {
        throw Failure(reason: "Cannot wait for \(origin): \(POSIX.lastError)")
      }
      let now = Date()
      if now >= deadline {
        throw Failure(reason: "\(origin) did not answer within \(Self.seconds(timeout))")
      }
    }
  }

  static func seconds(_ value: Double) -> String {
    let value = (value * 1000).rounded() / 1000  // 0.6, not 0.6000000000000001
    return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
  }

  /// Where `pattern` first occurs in the buffered bytes (an index into `buffer`), looking at each
  /// byte once across calls: a search that fails resumes where it stopped when more bytes come.
  private func find(_ pattern: [UInt8]) -> Int? {
    var index = max(bufferStart, scanned - (pattern.count - 1))
    while index + pattern.count <= buffer.count {
      if buffer[index] == pattern[0], buffer[index..<index + pattern.count].elementsEqual(pattern) {
        return index
      }
      index += 1
    }
    scanned = buffer.count
    return nil
  }

  // MARK: - Connecting

  private static func connect(
    host: String, port: Int, timeout: Double, origin: String, isCancelled: () -> Bool
  ) throws(Failure) -> Int32 {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Darwin)
      hints.ai_socktype = SOCK_STREAM
    #else
      hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #endif
    var list: UnsafeMutablePointer<addrinfo>?
    let bareHost =
      host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    let status = getaddrinfo(bareHost, String(port), &hints, &list)
    guard status == 0, let first = list else {
      throw Failure(reason: "Cannot resolve \(host): \(String(cString: gai_strerror(status)))")
    }
    defer { freeaddrinfo(list) }
    var lastReason = "no address"
    var entry: UnsafeMutablePointer<addrinfo>? = first
    while let address = entry {
      entry = address.pointee.ai_next
      // A stopped watch opens no more connections.
      if isCancelled() {
        throw Failure(reason: "The exchange with \(origin) was cancelled", wasCancelled: true)
      }
      let socketDescriptor = socket(address.pointee.ai_family, address.pointee.ai_socktype, 0)
      guard socketDescriptor >= 0 else {
        lastReason = POSIX.lastError
        continue
      }
      _ = fcntl(socketDescriptor, F_SETFD, FD_CLOEXEC)
      _ = fcntl(socketDescriptor, F_SETFL, fcntl(socketDescriptor, F_GETFL) | O_NONBLOCK)
      #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(
          socketDescriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
      #endif
      var noDelay: Int32 = 1
      setsockopt(
        socketDescriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay,
        socklen_t(MemoryLayout<Int32>.size))
      let result = systemConnect(
        socketDescriptor, address.pointee.ai_addr, address.pointee.ai_addrlen)
      if result == 0 { return socketDescriptor }
      guard errno == EINPROGRESS else {
        lastReason = POSIX.lastError
        _ = systemClose(socketDescriptor)
        continue
      }
      // Waited for in slices of 100 ms, so a stopped watch doesn't wait for the whole timeout.
      let deadline = Date().addingTimeInterval(timeout)
      var ready: Int32 = 0
      while ready == 0, Date() < deadline {
        if isCancelled() {
          _ = systemClose(socketDescriptor)
          throw Failure(reason: "The exchange with \(origin) was cancelled", wasCancelled: true)
        }
        var waitEntry = pollfd(fd: socketDescriptor, events: Int16(POLLOUT), revents: 0)
        ready = poll(&waitEntry, 1, 100)
        if ready < 0, errno == EINTR { ready = 0 }
      }
      var socketError: Int32 = 0
      var length = socklen_t(MemoryLayout<Int32>.size)
      if ready > 0, getsockopt(socketDescriptor, SOL_SOCKET, SO_ERROR, &socketError, &length) == 0,
        socketError == 0
      {
        return socketDescriptor
      }
      lastReason =
        ready == 0 ? "no answer within \(seconds(timeout))" : String(cString: strerror(socketError))
      _ = systemClose(socketDescriptor)
    }
    throw Failure(reason: "Cannot connect to \(origin): \(lastReason)")
  }
}

// The system calls, named apart from the methods they serve.
private func systemClose(_ descriptor: Int32) -> Int32 {
  #if canImport(Darwin)
    Darwin.close(descriptor)
  #else
    Glibc.close(descriptor)
  #endif
}

private func systemConnect(
  _ descriptor: Int32, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t
) -> Int32 {
  #if canImport(Darwin)
    Darwin.connect(descriptor, address, length)
  #else
    Glibc.connect(descriptor, address, length)
  #endif
}

private func systemSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  #if canImport(Darwin)
    Darwin.send(descriptor, bytes, count, 0)
  #else
    Glibc.send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
  #endif
}

private func systemReceive(
  _ descriptor: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int
) -> Int {
  #if canImport(Darwin)
    Darwin.recv(descriptor, bytes, count, 0)
  #else
    Glibc.recv(descriptor, bytes, count, 0)
  #endif
}
