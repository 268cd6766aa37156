import Foundation
import Testing
import TypedDefaultsTestSupport

/// The harness the fleet-configuration tests (the etcd layer source) run on: a real etcd
/// started, written, killed and restarted, with authentication and compaction, and a test that
/// fails in CI when etcd isn't installed (where every etcd test would be skipped silently).
@Suite("EtcdServer (test harness)") struct EtcdServerTests {
  /// Where `TYPEDDEFAULTS_REQUIRE_ETCD=1` (CI: `.ci/run` installs etcd and sets it), a missing
  /// etcd is a failure, not a skip; elsewhere this test checks nothing.
  @Test func etcdIsInstalledWhereItIsRequired() {
    guard ProcessInfo.processInfo.environment["TYPEDDEFAULTS_REQUIRE_ETCD"] == "1" else { return }
    #expect(
      EtcdServer.isAvailable,
      "TYPEDDEFAULTS_REQUIRE_ETCD=1, but no etcd was found: \(EtcdServer.unavailableReason)")
  }

  /// The tests that run etcd, skipped (saying why) where it isn't installed.
  @Suite(.enabled(if: EtcdServer.isAvailable, EtcdServer.unavailableComment))
  struct WithEtcd {
    /// A new server is healthy on loopback; each put raises the revision by one and reads back.
    @Test func aPutRaisesTheRevisionByOneAndReadsBack() throws {
      let server = try EtcdServer()
      #expect(server.endpoint.absoluteString == "http://127.0.0.1:\(server.clientPort)")
      #expect(server.processID != nil)
      let start = try server.revision()
      try server.put("fleet/a", "1")
      #expect(try server.revision() == start + 1)
      try server.put("fleet/a", "2")
      #expect(try server.revision() == start + 2)
      #expect(try server.get("fleet/a") == "2")
      #expect(try server.get("fleet/missing") == nil)
      let bytes = Data([0x00, 0xFF, 0x7F, 0x0A])
      try server.put("fleet/bytes", data: bytes)
      #expect(try server.getData("fleet/bytes") == bytes)
      try server.put("fleet/empty", "")
      #expect(try server.get("fleet/empty") == "")
      try server.delete("fleet/a")
      #expect(try server.get("fleet/a") == nil)
      #expect(try server.revision() == start + 5)
    }

    /// What was put before a SIGKILL is there after a restart on the same ports and folder.
    @Test func aKilledServerRestartsWithItsData() throws {
      let server = try EtcdServer()
      try server.put("fleet/kept", "before the kill")
      let revision = try server.revision()
      let first = server.processID
      server.kill()
      #expect(server.processID == nil)
      server.kill()  // a second kill does nothing
      try server.restart()
      #expect(server.processID != nil)
      #expect(server.processID != first)
      #expect(try server.get("fleet/kept") == "before the kill")
      #expect(try server.revision() == revision)
      try server.put("fleet/after", "restart")
      #expect(try server.get("fleet/after") == "restart")
    }

    /// A stopped server restarts too, and a running one restarts in place.
    @Test func aStoppedOrRunningServerRestarts() throws {
      let server = try EtcdServer()
      try server.put("fleet/kept", "1")
      server.stop()
      #expect(server.processID == nil)
      try server.restart()
      try server.restart()
      #expect(try server.get("fleet/kept") == "1")
    }

    /// With authentication on, the helpers work as root (across a restart too), a wrong
    /// password is refused, and a user added for a prefix can authenticate.
    @Test func withAuthenticationTheHelpersWorkAsRoot() throws {
      let server = try EtcdServer(authTokenTTL: 60)
      try server.put("fleet/open", "before auth")
      try server.enableAuthentication(rootPassword: "root-secret")
      try server.put("fleet/closed", "after auth")
      #expect(try server.get("fleet/closed") == "after auth")
      #expect(try server.get("fleet/open") == "before auth")
      let wrong = #expect(throws: EtcdServer.RequestFailure.self) {
        try server.authenticate(name: "root", password: "wrong")
      }
      #expect(wrong?.message.contains("authentication failed") == true)
      #expect(wrong?.status == 400)

      try server.addUser(name: "reader", password: "reader-secret", readPrefix: "fleet/")
      #expect(try !server.authenticate(name: "reader", password: "reader-secret").isEmpty)
      let again = #expect(throws: EtcdServer.RequestFailure.self) {
        try server.addUser(name: "reader", password: "x", readPrefix: "fleet/")
      }
      #expect(again?.message.contains("already exists") == true)

      server.kill()
      try server.restart()
      try server.put("fleet/closed", "after restart")
      #expect(try server.get("fleet/closed") == "after restart")
    }

    /// When etcd invalidates the helpers' token (here: root's password changed, to the same
    /// one), the next helper call authenticates again and succeeds.
    @Test func anInvalidatedTokenIsRenewedOnce() throws {
      let server = try EtcdServer()
      try server.enableAuthentication(rootPassword: "root-secret")
      let old = try server.authenticate(name: "root", password: "root-secret")
      try server.request("/v3/auth/user/changepw", ["name": "root", "password": "root-secret"])
      let invalid = #expect(throws: EtcdServer.RequestFailure.self) {
        try server.request("/v3/kv/range", ["key": base64("fleet/a")], token: old)
      }
      #expect(invalid?.message == "etcdserver: invalid auth token")
      #expect(invalid?.status == 401)
      #expect(invalid?.code == 16)
      try server.put("fleet/a", "renewed")
      #expect(try server.get("fleet/a") == "renewed")
    }

    /// A user added for a prefix reads under it and nothing else, and may not write; a request
    /// without a token is refused once authentication is on.
    @Test func aUserAddedForAPrefixReadsOnlyThere() throws {
      let server = try EtcdServer()
      try server.put("fleet/a", "inside")
      try server.put("other/a", "outside")
      try server.enableAuthentication(rootPassword: "root-secret")
      try server.addUser(name: "reader", password: "reader-secret", readPrefix: "fleet/")
      let token = try server.authenticate(name: "reader", password: "reader-secret")
      let inside = try server.request("/v3/kv/range", ["key": base64("fleet/a")], token: token)
      let kvs = inside["kvs"] as? [[String: Any]]
      #expect(kvs?.first?["value"] as? String == base64("inside"))
      let outside = #expect(throws: EtcdServer.RequestFailure.self) {
        try server.request("/v3/kv/range", ["key": base64("other/a")], token: token)
      }
      #expect(outside?.message == "etcdserver: permission denied")
      #expect(outside?.status == 403)
      #expect(outside?.code == 7)
      #expect(throws: EtcdServer.RequestFailure.self) {
        try server.request(
          "/v3/kv/put", ["key": base64("fleet/a"), "value": base64("x")], token: token)
      }
      let anonymous = #expect(throws: EtcdServer.RequestFailure.self) {
        try server.request("/v3/kv/range", ["key": base64("fleet/a")], token: "")
      }
      #expect(anonymous?.message == "etcdserver: user name is empty")
      #expect(anonymous?.status == 400)
    }

    /// A helper called on a killed server throws (connection refused); it doesn't hang or crash.
    @Test func aHelperOnAKilledServerThrows() throws {
      let server = try EtcdServer()
      server.kill()
      let refused = #expect(throws: EtcdServer.RequestFailure.self) {
        try server.get("fleet/a")
      }
      #expect(refused?.status == nil)
    }

    /// Compaction to the current revision succeeds; again to it, or to a future one, is refused
    /// with etcd's messages.
    @Test func compactionToTheCurrentRevisionWorks() throws {
      let server = try EtcdServer()
      for value in 1...3 { try server.put("fleet/counter", "\(value)") }
      let revision = try server.revision()
      try server.compact(toRevision: revision)
      #expect(try server.get("fleet/counter") == "3")
      let compacted = #expect(throws: EtcdServer.RequestFailure.self) {
        try server.compact(toRevision: revision)
      }
      #expect(compacted?.message.contains("required revision has been compacted") == true)
      let future = #expect(throws: EtcdServer.RequestFailure.self) {
        try server.compact(toRevision: revision + 100)
      }
      #expect(future?.message.contains("required revision is a future revision") == true)
      #expect(future?.code == 11)
    }

    /// Two servers at once get ports of their own and keep their data apart.
    @Test func twoServersAtOnceAreSeparate() throws {
      let first = try EtcdServer()
      let second = try EtcdServer()
      #expect(
        Set([first.clientPort, first.peerPort, second.clientPort, second.peerPort]).count == 4)
      try first.put("fleet/who", "first")
      try second.put("fleet/who", "second")
      #expect(try first.get("fleet/who") == "first")
      #expect(try second.get("fleet/who") == "second")
    }
  }
}

/// `text`'s UTF-8 bytes in base64, as etcd's gateway takes and gives keys and values.
private func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
