import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// What the fleet source's tests need beyond one key at a time: a whole prefix replaced in one
// revision, and a port where no server answers.

extension EtcdServer {
  /// Replaces every key under `prefix` by `values` in one transaction (one revision, so a
  /// watcher sees the change as one message): keys missing from `values` are deleted.
  ///
  /// - Parameters:
  ///   - prefix: The key prefix.
  ///   - values: The new values by full etcd key, each under `prefix`.
  /// - Throws: ``RequestFailure`` when the gateway refuses or doesn't answer.
  package func replace(prefix: String, with values: [String: Data]) throws {
    let start = Data(prefix.utf8)
    var end = [UInt8](start)
    while let last = end.last, last == 0xFF { end.removeLast() }
    if end.isEmpty { end = [0] } else { end[end.count - 1] += 1 }
    let existing = try request(
      "/v3/kv/range",
      [
        "key": start.base64EncodedString(), "range_end": Data(end).base64EncodedString(),
        "keys_only": true,
      ])
    let held = ((existing["kvs"] as? [[String: Any]]) ?? []).compactMap { $0["key"] as? String }
    // etcd refuses a transaction naming one key twice: delete only the keys that go.
    let kept = Set(values.keys.map { Data($0.utf8).base64EncodedString() })
    var operations: [[String: Any]] = held.filter { !kept.contains($0) }.map {
      ["request_delete_range": ["key": $0]]
    }
    for (key, value) in values.sorted(by: { $0.key < $1.key }) {
      operations.append([
        "request_put": [
          "key": Data(key.utf8).base64EncodedString(), "value": value.base64EncodedString(),
        ]
      ])
    }
    guard !operations.isEmpty else { return }
    try request("/v3/kv/txn", ["success": operations])
  }

  /// A loopback TCP port nothing listens on (found by binding port 0, then closed), for an
  /// endpoint that is down.
  ///
  /// - Throws: ``RequestFailure`` when no socket can be bound.
  package static func unusedPort() throws -> Int {
    #if canImport(Glibc)
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard descriptor >= 0, bound else {
      throw RequestFailure(path: "bind", status: nil, message: "no free loopback port")
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
