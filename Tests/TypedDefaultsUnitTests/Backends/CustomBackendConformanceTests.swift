import Foundation
import Testing
import TypedDefaults
import TypedDefaultsTestSupport
import TypedDefaultsTesting

/// The backend a user writes in the "Testing with TypedDefaults" article: a dictionary behind a
/// lock, meeting the contract with nothing else.
final class DictionaryBackend: SettingsBackend {
  // nonisolated(unsafe): only touched under `lock`.
  nonisolated(unsafe) private var values: [String: PropertyListValue] = [:]
  private let lock = NSLock()

  let name = "DictionaryBackend"

  func value(forKey key: String) -> PropertyListValue? {
    lock.withLock { values[key] }
  }

  func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    lock.withLock { values[key] = value }
  }

  func removeValue(forKey key: String) {
    lock.withLock { values[key] = nil }
  }

  func dictionaryRepresentation() -> [String: PropertyListValue] {
    lock.withLock { values }
  }
}

/// A backend that breaks the contract on purpose: it forgets removals and lists nothing.
final class ForgetfulBackend: SettingsBackend {
  nonisolated(unsafe) private var values: [String: PropertyListValue] = [:]
  private let lock = NSLock()

  let name = "ForgetfulBackend"

  func value(forKey key: String) -> PropertyListValue? { lock.withLock { values[key] } }

  func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    guard let value else { return }  // writing nil is ignored: a bug
    lock.withLock { values[key] = value }
  }

  func removeValue(forKey key: String) {}  // a bug

  func dictionaryRepresentation() -> [String: PropertyListValue] { [:] }  // a bug
}

/// The public conformance suite (TypedDefaultsTesting) as a user runs it on their own backend.
@Suite struct CustomBackendConformanceTests {
  @Test func aUserWrittenDictionaryBackendPassesEveryCheck() async {
    let failures = await BackendConformance.run { DictionaryBackend() }
    #expect(failures.isEmpty)
  }

  @Test(arguments: BackendConformance.checks)
  func eachCheckRunsOnItsOwn(_ check: BackendConformance.Check) async {
    #expect(await check.run { DictionaryBackend() }.isEmpty)
  }

  @Test func aBackendThatBreaksTheContractIsReportedCheckByCheck() async {
    var failures: [BackendConformance.Failure] = []
    await withKnownIssue {
      failures = await BackendConformance.run { ForgetfulBackend() }
    }
    let broken = Set(failures.map(\.check))
    #expect(broken.isSuperset(of: ["writingNilRemovesTheKey", "removeValueRemovesTheKey"]))
    #expect(broken.contains("dictionaryRepresentationListsExactlyTheStoredKeys"))
    #expect(!broken.contains("missingKeyReadsNil"))
    #expect(!broken.contains("writtenValuesReadBackEqual"))
  }

  @Test func theDurabilityCheckRunsOnlyWithAReload() async {
    guard let check = BackendConformance.checks.first(where: \.needsReload) else {
      Issue.record("no check needs a reload")
      return
    }
    // With a reload that hands back the same store, a memory-only backend passes.
    #expect(await check.run(makeBackend: { DictionaryBackend() }, reload: { $0 }).isEmpty)
    #expect(await check.run { DictionaryBackend() }.isEmpty)
  }
}
