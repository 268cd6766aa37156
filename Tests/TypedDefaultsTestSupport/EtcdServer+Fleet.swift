import Foundation

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
    let existing = try request(
      "/v3/kv/range",
      [
        "key": start.base64EncodedString(),
        "range_end": Self.prefixEnd(start).base64EncodedString(),
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
    guard let socket = BoundSocket() else {
      throw RequestFailure(path: "bind", status: nil, message: "no free loopback port")
    }
    return Int(socket.port)  // closed as `socket` goes: nothing listens on it
  }
}
