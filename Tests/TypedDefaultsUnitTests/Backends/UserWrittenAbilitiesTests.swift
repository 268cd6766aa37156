import Foundation
import Testing
import TypedDefaults
import TypedDefaultsTesting

/// What a user's backend saves to: a dictionary standing for a file several processes share,
/// which counts its saves and tells the backends watching it of each one.
final class JournalStorage: Sendable {
  private struct State {
    var saved: [String: PropertyListValue] = [:]
    var saveCount = 0
    var watchers: [ObjectIdentifier: @Sendable () -> Void] = [:]
  }
  private let state = NSLock()
  // nonisolated(unsafe): only touched under `state`.
  nonisolated(unsafe) private var current = State()

  var saved: [String: PropertyListValue] { state.withLock { current.saved } }
  var saveCount: Int { state.withLock { current.saveCount } }

  /// Writes `values` over what is saved and removes `removed`, then tells every watcher but
  /// `writer`.
  func save(
    _ values: [String: PropertyListValue], removing removed: Set<String>, by writer: AnyObject
  ) {
    let others = state.withLock { () -> [@Sendable () -> Void] in
      current.saved.merge(values) { $1 }
      for key in removed { current.saved[key] = nil }
      current.saveCount += 1
      return current.watchers.filter { $0.key != ObjectIdentifier(writer) }.map(\.value)
    }
    for watcher in others { watcher() }
  }

  func watch(_ watcher: AnyObject, _ onSave: (@Sendable () -> Void)?) {
    state.withLock { current.watchers[ObjectIdentifier(watcher)] = onSave }
  }
}

/// A backend a user writes that adopts every ability, with nothing but the public API: values in
/// memory behind a lock, saved to a ``JournalStorage`` when asked, reloaded from it, watching it.
///
/// Counts the calls the library makes, so the tests can tell which path a model operation took.
final class JournalBackend: MultiKeyUpdatingBackend, SavingBackend, ReloadingBackend,
  WatchingBackend
{
  private struct State {
    var values: [String: PropertyListValue] = [:]
    var dirty: Set<String> = []
    var watching = false
    var updateValuesCalls = 0
    var plainWrites = 0
  }
  let storage: JournalStorage
  private let lock = NSLock()
  // nonisolated(unsafe): only touched under `lock`.
  nonisolated(unsafe) private var state = State()

  let name = "JournalBackend"

  init(storage: JournalStorage = JournalStorage()) {
    self.storage = storage
    state.values = storage.saved
  }

  deinit { storage.watch(self, nil) }

  /// How many times `updateValues` ran.
  var updateValuesCalls: Int { lock.withLock { state.updateValuesCalls } }
  /// How many `setValue`, `setValues` and `removeValue` calls were made.
  var plainWrites: Int { lock.withLock { state.plainWrites } }

  func value(forKey key: String) -> PropertyListValue? { lock.withLock { state.values[key] } }

  func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    lock.withLock {
      state.values[key] = value
      state.dirty.insert(key)
      state.plainWrites += 1
    }
  }

  func removeValue(forKey key: String) {
    lock.withLock {
      state.values[key] = nil
      state.dirty.insert(key)
      state.plainWrites += 1
    }
  }

  func setValues(_ values: [String: PropertyListValue]) throws(SettingsError) {
    lock.withLock {
      state.values.merge(values) { $1 }
      state.dirty.formUnion(values.keys)
      state.plainWrites += 1
    }
  }

  func dictionaryRepresentation() -> [String: PropertyListValue] { lock.withLock { state.values } }

  func updateValues<Result>(
    _ transform: (inout [String: PropertyListValue]) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    lock.lock()
    defer { lock.unlock() }
    state.updateValuesCalls += 1
    var values = state.values
    let result = try transform(&values)
    for key in Set(values.keys).union(state.values.keys) where values[key] != state.values[key] {
      state.dirty.insert(key)
    }
    state.values = values
    return result
  }

  var hasUnsavedChanges: Bool { lock.withLock { !state.dirty.isEmpty } }

  func save() throws(SettingsError) {
    let (written, removed) = lock.withLock { () -> ([String: PropertyListValue], Set<String>) in
      defer { state.dirty = [] }
      let written = state.values.filter { state.dirty.contains($0.key) }
      return (written, state.dirty.subtracting(written.keys))
    }
    storage.save(written, removing: removed, by: self)
  }

  func reload() throws(SettingsError) {
    let saved = storage.saved
    let changed = lock.withLock { () -> [String] in
      var changed: [String] = []
      for key in Set(saved.keys).union(state.values.keys)
      where !state.dirty.contains(key) && saved[key] != state.values[key] {
        state.values[key] = saved[key]
        changed.append(key)
      }
      return changed
    }
    reportChanges(forKeys: changed)
  }

  var isWatching: Bool { lock.withLock { state.watching } }

  func startWatching() {
    lock.withLock { state.watching = true }
    storage.watch(self) { [weak self] in try? self?.reload() }
  }

  func stopWatching() {
    storage.watch(self, nil)
    lock.withLock { state.watching = false }
  }
}

/// A backend that adopts abilities and breaks their contracts on purpose: its `updateValues`
/// stores what a throwing transform changed, and its `save()` leaves the writes unsaved.
final class CarelessBackend: MultiKeyUpdatingBackend, SavingBackend {
  private let lock = NSLock()
  // nonisolated(unsafe): only touched under `lock`.
  nonisolated(unsafe) private var values: [String: PropertyListValue] = [:]

  let name = "CarelessBackend"

  func value(forKey key: String) -> PropertyListValue? { lock.withLock { values[key] } }

  func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    lock.withLock { values[key] = value }
  }

  func removeValue(forKey key: String) { lock.withLock { values[key] = nil } }

  func dictionaryRepresentation() -> [String: PropertyListValue] { lock.withLock { values } }

  func updateValues<Result>(
    _ transform: (inout [String: PropertyListValue]) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    var copy = dictionaryRepresentation()
    defer { lock.withLock { values = copy } }  // a bug: stored when `transform` throws too
    return try transform(&copy)
  }

  var hasUnsavedChanges: Bool { true }  // a bug: a save never clears it

  func save() throws(SettingsError) {}
}

/// A model with a migration whose one step changes two keys at once.
private struct FontSettings: SettingsGroup, MigratableSettings {
  @Setting("text.fontSize", default: 12) var fontSize: Int
  @Setting("text.fontName", default: "Menlo") var fontName: String
  static let migrations = SettingsMigrations(
    versionKey: "text.schemaVersion",
    steps: [.moveKeys(["fontSize", "fontName"], toPrefix: "text.")])
}

/// What a backend a user writes gets from the library by adopting the ability protocols, with
/// no library type named: atomic migrations, a save after an import, the conformance checks.
@Suite struct UserWrittenAbilitiesTests {
  @Test func aUserWrittenBackendWithEveryAbilityPassesEveryConformanceCheck() async {
    let failures = await BackendConformance.run(
      makeBackend: { JournalBackend() },
      reload: { backend in
        guard let journal = backend as? JournalBackend else {
          throw SettingsError(.fileNotReadable, reason: "not a journal")
        }
        try journal.save()
        return JournalBackend(storage: journal.storage)
      })
    #expect(failures.isEmpty)
  }

  @Test func aBackendThatBreaksAnAbilitysContractIsReportedByItsCheck() async {
    var failures: [BackendConformance.Failure] = []
    await withKnownIssue {
      failures = await BackendConformance.run { CarelessBackend() }
    }
    let broken = Set(failures.map(\.check))
    #expect(broken.isSuperset(of: ["updateValuesAppliesAllOrNothing", "saveLeavesNothingUnsaved"]))
    #expect(!broken.contains("updateChangesOneKeyAllOrNothing"))
    #expect(!broken.contains("missingKeyReadsNil"))
    #expect(!broken.contains("reloadKeepsWhatWasWrittenSavedOrNot"))
  }

  @Test func aMigrationsMultiKeyStepRunsThroughTheBackendsUpdateValues() throws {
    let backend = JournalBackend()
    try backend.setValues(["fontSize": 14, "fontName": "Courier"])
    let writesBefore = backend.plainWrites
    let token = backend.observe(keys: ["text.fontSize", "text.fontName", "fontSize"]) { _ in }
    let outcome = try FontSettings.migrate(backend)
    withExtendedLifetime(token) {}
    #expect(outcome.previousVersion == 0 && outcome.version == 1 && outcome.appliedSteps == 1)
    #expect(backend.updateValuesCalls == 1)
    #expect(backend.plainWrites == writesBefore)
    #expect(
      backend.dictionaryRepresentation() == [
        "text.fontSize": 14, "text.fontName": "Courier", "text.schemaVersion": 1,
      ])
    #expect(FontSettings(backend: backend).fontSize == 14)
    // Up to date: a second run reads the version and updates nothing.
    #expect(try FontSettings.migrate(backend).appliedSteps == 0)
    #expect(backend.updateValuesCalls == 1)
  }

  @Test func aMigrationThroughAViewRunsThroughItsBasesUpdateValues() throws {
    let backend = JournalBackend()
    try backend.setValues(["com.example.sdk.fontSize": 14, "host.fontSize": 20])
    let writesBefore = backend.plainWrites
    #expect(try FontSettings.migrate(backend.scoped(to: "com.example.sdk.")).appliedSteps == 1)
    #expect(backend.updateValuesCalls == 1)
    #expect(backend.plainWrites == writesBefore)
    #expect(
      backend.dictionaryRepresentation() == [
        "com.example.sdk.text.fontSize": 14, "com.example.sdk.text.schemaVersion": 1,
        "host.fontSize": 20,
      ])
  }

  @Test func aMigrationStepReachesObserversOfAUserWrittenBackendOncePerKey() throws {
    let backend = JournalBackend()
    try backend.setValue(14, forKey: "fontSize")
    let seen = Collected<[SettingsChange]>([])
    let token = backend.observe(keys: ["fontSize", "text.fontSize"]) { change in
      seen.withLock { $0.append(change) }
    }
    try FontSettings.migrate(backend)
    withExtendedLifetime(token) {}
    #expect(
      seen.withLock { $0 }.sorted { $0.key < $1.key } == [
        SettingsChange(key: "fontSize", newValue: nil),
        SettingsChange(key: "text.fontSize", newValue: 14),
      ])
  }

  @Test func anImportSavesAUserWrittenBackendOnce() throws {
    let backend = JournalBackend()
    let settings = FontSettings(backend: backend)
    let result = try settings.importValues(["text.fontSize": 16, "text.fontName": "Monaco"])
    #expect(result.importedKeys == ["text.fontName", "text.fontSize"])
    #expect(backend.storage.saveCount == 1)
    #expect(backend.storage.saved == ["text.fontSize": 16, "text.fontName": "Monaco"])
    #expect(!backend.hasUnsavedChanges)
  }

  @Test func anImportThroughAViewSavesItsUserWrittenBaseOnce() throws {
    let backend = JournalBackend()
    let settings = FontSettings(backend: backend.scoped(to: "com.example.sdk."))
    try settings.importValues(["text.fontSize": 16])
    #expect(backend.storage.saveCount == 1)
    #expect(backend.storage.saved == ["com.example.sdk.text.fontSize": 16])
  }

  @Test func aWatchingUserWrittenBackendTellsObserversOfAnotherInstancesSave() throws {
    let storage = JournalStorage()
    let watcher = JournalBackend(storage: storage)
    let writer = JournalBackend(storage: storage)
    watcher.startWatching()
    let seen = Collected<[PropertyListValue?]>([])
    let token = watcher.observe(key: "volume") { change in
      seen.withLock { $0.append(change.newValue) }
    }
    try writer.setValue(0.5, forKey: "volume")
    try writer.save()
    withExtendedLifetime(token) {}
    #expect(seen.withLock { $0 } == [0.5])
    #expect(watcher.value(forKey: "volume") == 0.5)
  }
}

/// A value behind a lock, for observers' callbacks in these tests.
private final class Collected<Value: Sendable>: Sendable {
  private let lock = NSLock()
  // nonisolated(unsafe): only touched under `lock`.
  nonisolated(unsafe) private var value: Value
  init(_ value: Value) { self.value = value }
  func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
    lock.withLock { body(&value) }
  }
}
