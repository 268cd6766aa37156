import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// What `UserDefaultsBackend` does on Apple platforms, run on Linux.
///
/// Its reads and writes there (`DirectAccess`, one `UserDefaults` call each) run against
/// corelibs' `UserDefaults`, which has the same calls, and its watch
/// (`UserDefaults.didChangeNotification`) with notifications these tests post themselves
/// (corelibs posts none). What stays untested here is only which path each method takes, one
/// line behind `#if canImport(Darwin)` each.
@Suite struct UserDefaultsApplePathTests {
  /// The Apple path on a fresh suite (whose file `TemporarySuite` removes).
  private func direct(_ suite: TemporarySuite) -> UserDefaultsBackend.DirectAccess {
    UserDefaultsBackend.DirectAccess(
      userDefaults: suite.backend.userDefaults, domainName: suite.name,
      backendName: suite.backend.name)
  }

  // MARK: - Reads and writes

  @Test func writesAreTheNativeObjectsAndReadBackConverted() {
    let suite = TemporarySuite()
    let direct = direct(suite)
    defer { for key in ["flag", "count", "names", "when"] { direct.set(nil, forKey: key) } }
    let when = Date(timeIntervalSinceReferenceDate: 1000.5)
    direct.set(true, forKey: "flag")
    direct.set(["count": 3, "names": ["a", "b"], "when": .date(when)])
    let defaults = suite.backend.userDefaults
    #expect(defaults.object(forKey: "flag") as? Bool == true)
    #expect(defaults.object(forKey: "count") as? Int == 3)
    #expect(defaults.stringArray(forKey: "names") == ["a", "b"])
    #expect(defaults.object(forKey: "when") as? Date == when)
    #expect(direct.value(forKey: "flag") == true)
    #expect(direct.value(forKey: "count") == 3)
    #expect(direct.value(forKey: "names") == ["a", "b"])
    #expect(direct.value(forKey: "when") == .date(when))
    #expect(direct.storedValue(forKey: "count") == 3)
    #expect(
      direct.dictionaryRepresentation()
        == ["flag": true, "count": 3, "names": ["a", "b"], "when": .date(when)])

    direct.set(nil, forKey: "count")
    #expect(defaults.object(forKey: "count") == nil)
    #expect(direct.value(forKey: "count") == nil)
    #expect(direct.storedValue(forKey: "count") == nil)
    #expect(direct.dictionaryRepresentation()["count"] == nil)
  }

  @Test func aRegisteredDefaultIsReadButNeverStored() {
    let suite = TemporarySuite()
    let direct = direct(suite)
    let key = "registered.\(suite.name)"
    suite.backend.userDefaults.register(defaults: [key: 7])
    #expect(direct.value(forKey: key) == 7)
    #expect(direct.storedValue(forKey: key) == nil)
    #expect(direct.dictionaryRepresentation()[key] == nil)
  }

  @Test func anObjectThatIsNotAPropertyListReadsNilAndIsReportedOnce() {
    let suite = TemporarySuite()
    let (value, diagnostics) = collectingDiagnostics {
      direct(suite).converted(NSObject(), forKey: "odd")
    }
    #expect(value == nil)
    #expect(diagnostics.count == 1)
    #expect(diagnostics.first?.kind == .typeMismatch)
    #expect(diagnostics.first?.key == "odd")
    #expect(
      diagnostics.first?.message.hasPrefix(
        "'odd' in \(suite.backend.name) holds something that is not a property list: ") == true)
  }

  @Test func anUpdateWithoutTheFileLockReadsTransformsAndWrites() throws {
    let suite = TemporarySuite()
    let backend = suite.backend
    try backend.setValue(1, forKey: "launchCount")
    let stored = try backend.updateWithoutFileLock(forKey: "launchCount") {
      .integer(.init(Int64(($0?.intValue ?? 0) + 1)))
    }
    #expect(stored == 2)
    #expect(backend.value(forKey: "launchCount") == 2)
    #expect(try backend.updateWithoutFileLock(forKey: "launchCount") { _ in nil } == nil)
    #expect(backend.value(forKey: "launchCount") == nil)
  }

  // MARK: - The watch: UserDefaults.didChangeNotification

  @Test func aChangeNotificationReportsRawWritesOfObservedKeysOnThePostingThread() throws {
    let suite = TemporarySuite()
    let backend = suite.backend
    try backend.setValue(1, forKey: "k")
    let received = Received<SettingsChange>()
    let token = backend.observe(key: "k") { received.append($0) }
    let observation = backend.observeDidChangeNotifications()
    defer {
      observation.remove()
      token.cancel()
    }
    backend.userDefaults.set(5, forKey: "k")  // a raw write, which Foundation would announce
    NotificationCenter.default.post(
      name: UserDefaults.didChangeNotification, object: backend.userDefaults)
    #expect(received.all == [SettingsChange(key: "k", newValue: 5)])
    // Announced again with nothing changed: nothing more.
    NotificationCenter.default.post(
      name: UserDefaults.didChangeNotification, object: backend.userDefaults)
    #expect(received.all.count == 1)
  }

  #if !canImport(Darwin)
    // Linux only: on Apple platforms the raw write below is itself announced by Foundation.
    @Test func aChangeNotificationOfAnotherInstanceOrAfterRemovalReportsNothing() throws {
      let suite = TemporarySuite()
      let other = TemporarySuite()
      let backend = suite.backend
      try backend.setValue(1, forKey: "k")
      let received = Received<SettingsChange>()
      let token = backend.observe(key: "k") { received.append($0) }
      defer { token.cancel() }
      let observation = backend.observeDidChangeNotifications()
      backend.userDefaults.set(5, forKey: "k")  // a raw write no notification of ours announces
      NotificationCenter.default.post(
        name: UserDefaults.didChangeNotification, object: other.backend.userDefaults)
      observation.remove()
      NotificationCenter.default.post(
        name: UserDefaults.didChangeNotification, object: backend.userDefaults)
      // Nothing read `k` since the raw write, so nothing reported it.
      #expect(received.all.isEmpty)
    }
  #endif

  @Test func theKeysCheckedAfterANotificationAreTheObservedOnesAndTheStoredOnesForAllKeys() {
    var asked = 0
    let stored: () -> [String] = {
      asked += 1
      return ["s1", "k"]
    }
    #expect(
      UserDefaultsBackend.keysToCheck(
        observedKeys: ["k", "o"], observesAllKeys: false, storedKeys: stored) == ["k", "o"])
    #expect(asked == 0)
    #expect(
      UserDefaultsBackend.keysToCheck(
        observedKeys: ["k", "o"], observesAllKeys: true, storedKeys: stored) == ["k", "o", "s1"])
    #expect(asked == 1)
    #expect(
      UserDefaultsBackend.keysToCheck(observedKeys: [], observesAllKeys: false, storedKeys: stored)
        .isEmpty)
  }
}
