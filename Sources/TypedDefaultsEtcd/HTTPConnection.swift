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
    var description: String { reason }
  }

  /// A response's status and headers (names lowercased).
  struct Head: Sendable {
    var status: Int
    var headers: [String: String]
  }

  private var descriptor: Int32
  private let origin: String
  /// Bytes received and not yet consumed.
  private var buffer: [UInt8] = []
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
    case chunked(remainingInChunk: Int, atTrailer: Bool)
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
  /// - Returns: The status and headers; read the body with ``readBody()`` or ``readLine()``.
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
      end = Self.find([13, 10, 13, 10], in: buffer)
      if end != nil { break }
      guard buffer.count < limit else {
        throw Failure(reason: "\(origin) sent a response head larger than 64 KiB")
      }
      guard try receive() else {
        throw Failure(reason: "\(origin) closed the connection before it answered")
      }
    }
    let headBytes = buffer[..<end!]
    buffer.removeFirst(end! + 4)
    let text = String(decoding: headBytes, as: UTF8.self)
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
      framing = .chunked(remainingInChunk: 0, atTrailer: false)
    } else if let length = headers["content-length"] {
      guard let count = Int(length), count >= 0 else {
        throw Failure(reason: "\(origin) sent an invalid Content-Length '\(length)'")
      }
      guard count <= maximumBodySize else {
        throw Failure(
          reason: "\(origin) announced a response of \(count) bytes, above the limit of "
            + "\(maximumBodySize) bytes")
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
  /// - Parameter lineLimit: The longest line accepted, in bytes.
  /// - Returns: The line without its line feed; `nil` once the body ended (a last line without a
  ///   line feed is returned first).
  /// - Throws: ``Failure`` when the stream fails, a line exceeds `lineLimit`, or the wait is
  ///   cancelled.
  func readLine(lineLimit: Int) throws(Failure) -> [UInt8]? {
    while true {
      if let newline = pendingLine.firstIndex(of: 10) {
        let line = Array(pendingLine[..<newline])
        pendingLine.removeFirst(newline + 1)
        return line
      }
      guard pendingLine.count <= lineLimit else {
        throw Failure(
          reason: "\(origin) sent a message larger than the limit of \(lineLimit) bytes")
      }
      guard let piece = try nextBodyBytes(countingTowardsLimit: false) else {
        if pendingLine.isEmpty { return nil }
        defer { pendingLine = [] }
        return pendingLine
      }
      pendingLine += piece
    }
  }
  private var pendingLine: [UInt8] = []

  /// The next decoded bytes of the body; `nil` at its end.
  private func nextBodyBytes(countingTowardsLimit: Bool = true) throws(Failure) -> [UInt8]? {
    while !bodyEnded {
      switch framing {
      case .length(let total):
        if buffer.isEmpty, !(try receive()) {
          throw Failure(reason: "\(origin) closed the connection in the middle of its answer")
        }
        let take = min(buffer.count, total - bodyBytesRead)
        let piece = Array(buffer[..<take])
        buffer.removeFirst(take)
        bodyBytesRead += take
        if bodyBytesRead == total { bodyEnded = true }
        return piece
      case .toEnd:
        if buffer.isEmpty, !(try receive()) {
          bodyEnded = true
          return nil
        }
        let piece = buffer
        buffer = []
        try count(piece.count, towardsLimit: countingTowardsLimit)
        return piece
      case .chunked(let remaining, let atTrailer):
        if atTrailer {
          // The trailer section ends with an empty line.
          guard let end = Self.find([13, 10], in: buffer) else {
            guard buffer.count < 64 * 1024, try receive() else {
              throw Failure(reason: "\(origin) ended a chunked answer without its last line")
            }
            continue
          }
          buffer.removeFirst(end + 2)
          if end == 0 { bodyEnded = true }
          continue
        }
        if remaining == 0 {
          guard let end = Self.find([13, 10], in: buffer) else {
            guard buffer.count < 1024 else {
              throw Failure(reason: "\(origin) sent a malformed chunk size")
            }
            guard try receive() else {
              throw Failure(reason: "\(origin) closed the connection in the middle of its answer")
            }
            continue
          }
          let line = String(decoding: buffer[..<end], as: UTF8.self)
          let sizeText = line.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
          guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16),
            size >= 0
          else {
            throw Failure(reason: "\(origin) sent a malformed chunk size '\(line)'")
          }
          // Bounded before any arithmetic: a size near Int.max must not overflow below.
          guard size <= maximumBodySize else {
            throw Failure(
              reason: "\(origin) announced a chunk of \(size) bytes, above the limit of "
                + "\(maximumBodySize) bytes")
          }
          buffer.removeFirst(end + 2)
          if size == 0 {
            framing = .chunked(remainingInChunk: 0, atTrailer: true)
          } else {
            framing = .chunked(remainingInChunk: size + 2, atTrailer: false)  // with its CRLF
          }
          continue
        }
        if buffer.isEmpty, !(try receive()) {
          throw Failure(reason: "\(origin) closed the connection in the middle of its answer")
        }
        let take = min(buffer.count, remaining)
        var piece = Array(buffer[..<take])
        buffer.removeFirst(take)
        let left = remaining - take
        // Drop the chunk's closing CRLF (the last two bytes of `remaining`).
        let dataLeftBefore = max(0, remaining - 2)
        piece = Array(piece.prefix(dataLeftBefore))
        framing = .chunked(remainingInChunk: left, atTrailer: false)
        if piece.isEmpty { continue }
        try count(piece.count, towardsLimit: countingTowardsLimit)
        return piece
      }
    }
    return nil
  }

  private func count(_ bytes: Int, towardsLimit: Bool) throws(Failure) {
    guard towardsLimit else { return }
    bodyBytesRead += bytes
    if bodyBytesRead > maximumBodySize {
      throw Failure(
        reason: "\(origin) sent a response larger than the limit of \(maximumBodySize) bytes")
    }
  }

  /// Receives more bytes into `buffer`; `false` when the server closed the connection.
  private func receive() throws(Failure) -> Bool {
    try wait(for: Int16(POLLIN))
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes {
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
      buffer += chunk[..<count]
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
    value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
  }

  private static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
    guard bytes.count >= pattern.count else { return nil }
    var index = 0
    while index <= bytes.count - pattern.count {
      if bytes[index] == pattern[0], Array(bytes[index..<index + pattern.count]) == pattern {
        return index
      }
      index += 1
    }
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
