import Foundation
import Testing
import TypedDefaults
import TypedDefaultsTestSupport
import TypedDefaultsTesting

// Backends written against the public API that adopt some abilities and not others: only
// UpdatingBackend; SavingBackend without MultiKeyUpdatingBackend. Each passes the conformance
// suite, directly and through a view, and the library uses exactly the abilities it has.

/// A dictionary behind a lock with an atomic one-key update, and nothing else.
private final class CounterBackend: UpdatingBackend {
  // nonisolated(unsafe): only touched under `lock`.
  nonisolated(unsafe) private var values: [String: PropertyListValue] = [:]
  private let lock = NSLock()
  let name = "CounterBackend"

  func value(forKey key: String) -> PropertyListValue? { lock.withLock { values[key] } }
  func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    lock.withLock { values[key] = value }
  }
  func removeValue(forKey key: String) { lock.withLock { values[key] = nil } }
  func dictionaryRepresentation() -> [String: PropertyListValue] { lock.withLock { values } }

  func update(
    forKey key: String,
    _ transform: (PropertyListValue?) throws(SettingsError) -> PropertyListValue?
  ) throws(SettingsError) -> PropertyListValue? {
    lock.lock()
    defer { lock.unlock() }
    let new = try transform(values[key])
    values[key] = new
    return new
  }
}

/// Writes kept in memory until `save()` copies them to `saved` (its "storage"); no update.
private final class SavingOnlyBackend: SavingBackend {
  private struct State {
    var values: [String: PropertyListValue] = [:]
    var saved: [String: PropertyListValue] = [:]
    var unsaved = false
    var saves = 0
  }
  // nonisolated(unsafe): only touched under `lock`.
  nonisolated(unsafe) private var state = State()
  private let lock = NSLock()
  let name = "SavingOnlyBackend"

  var saves: Int { lock.withLock { state.saves } }
  var saved: [String: PropertyListValue] { lock.withLock { state.saved } }

  func value(forKey key: String) -> PropertyListValue? { lock.withLock { state.values[key] } }
  func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    lock.withLock {
      state.values[key] = value
      state.unsaved = true
    }
  }
  func removeValue(forKey key: String) {
    lock.withLock {
      state.values[key] = nil
      state.unsaved = true
    }
  }
  func dictionaryRepresentation() -> [String: PropertyListValue] { lock.withLock { state.values } }
  var hasUnsavedChanges: Bool { lock.withLock { state.unsaved } }
  func save() throws(SettingsError) {
    lock.withLock {
      state.saved = state.values
      state.unsaved = false
      state.saves += 1
    }
  }
}

private struct Font: SettingsGroup, MigratableSettings {
  @Setting("text.fontSize", default: 12) var fontSize: Int
  static let migrations = SettingsMigrations(
    versionKey: "schemaVersion", steps: [.renameKey("fontSize", to: "text.fontSize")])
}

@Suite(.tags(.breakIt)) struct PartialAbilitiesTests {
  @Test func aBackendWithOnlyAnAtomicUpdatePassesEveryCheckDirectlyAndThroughAView() async {
    #expect(await BackendConformance.run { CounterBackend() }.isEmpty)
    #expect(await BackendConformance.run { CounterBackend().scoped(to: "p.") }.isEmpty)
  }

  @Test func aBackendThatSavesButCantUpdatePassesEveryCheckDirectlyAndThroughAView() async {
    #expect(await BackendConformance.run { SavingOnlyBackend() }.isEmpty)
    #expect(await BackendConformance.run { SavingOnlyBackend().scoped(to: "p.") }.isEmpty)
  }

  @Test func anImportSavesABackendThatSavesButCantUpdateOnce() throws {
    let backend = SavingOnlyBackend()
    let font = Font(backend: backend)
    try font.importValues(["text.fontSize": 14])
    #expect(backend.saves == 1)
    #expect(backend.saved == ["text.fontSize": 14])
    #expect(!backend.hasUnsavedChanges)
  }

  @Test func aMigrationOnABackendThatCantUpdateRunsOnceAndLeavesTheRenamedKey() throws {
    let backend = SavingOnlyBackend()
    try backend.setValue(15, forKey: "fontSize")
    let first = try Font.migrate(backend)
    let second = try Font.migrate(backend)
    let font = Font(backend: backend)
    #expect(first.appliedSteps == 1 && second.appliedSteps == 0)
    #expect(backend.dictionaryRepresentation() == ["text.fontSize": 15, "schemaVersion": 1])
    #expect(font.fontSize == 15)
  }
}
