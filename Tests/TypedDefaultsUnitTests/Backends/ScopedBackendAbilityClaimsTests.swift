import Foundation
import Testing
import TypedDefaultsTestSupport
import TypedDefaultsTesting

@testable import TypedDefaults

// A ScopedBackend adopts every ability protocol whatever its base can do
// (Backends/ScopedBackend+Abilities.swift), so `backend is any UpdatingBackend` and
// `backend is any SavingBackend` are true of a view over a base that has neither ability, and
// the view then breaks the contract the protocol documents (UpdatingBackend.swift: "One step";
// SavingBackend.swift: "Durable"). Code that asks a backend for an ability by its protocol, as
// the protocols' documentation invites, is misled by every view.

/// A backend written against the public API (no `@testable` member used) with only the required
/// methods (no ability), whose storage another writer changes between a read of `counter` (or a
/// listing of every value) and the next write: the moment a read-then-write update loses a
/// change. Deterministic: the other write happens once, right after that read, on its thread.
private final class AnotherWriterBetweenReadAndWrite: SettingsBackend {
  private struct State {
    var values: [String: PropertyListValue] = [:]
    var otherWriterWrote = false
  }
  /// Whether the other writer writes after the first listing (`dictionaryRepresentation()`)
  /// instead of after the first read of `counter`.
  private let interruptingListing: Bool
  // nonisolated(unsafe): only touched under `lock`.
  nonisolated(unsafe) private var state = State()
  private let lock = NSLock()

  let name = "AnotherWriterBetweenReadAndWrite"

  init(interruptingListing: Bool = false) {
    self.interruptingListing = interruptingListing
  }

  /// Another writer adds 100 to the counter, once.
  private func otherWriterAddsOnce() {
    lock.withLock {
      guard !state.otherWriterWrote else { return }
      state.otherWriterWrote = true
      state.values["app.counter"] = .integer(
        .init(Int64((state.values["app.counter"]?.intValue ?? 0) + 100)))
    }
  }

  func value(forKey key: String) -> PropertyListValue? {
    let value = lock.withLock { state.values[key] }
    // Another writer adds 100 to the counter right after this read returned its value.
    if !interruptingListing, key.hasSuffix("counter") { otherWriterAddsOnce() }
    return value
  }

  func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    lock.withLock { state.values[key] = value }
  }

  func removeValue(forKey key: String) {
    lock.withLock { state.values[key] = nil }
  }

  func dictionaryRepresentation() -> [String: PropertyListValue] {
    let values = lock.withLock { state.values }
    if interruptingListing, values["app.counter"] != nil { otherWriterAddsOnce() }
    return values
  }
}

@Suite(.tags(.breakIt)) struct ScopedBackendAbilityClaimsTests {
  /// `UpdatingBackend`'s contract: "its result is stored before any other write of the key …
  /// takes effect". A view over a base that can't update atomically is an `UpdatingBackend`
  /// anyway, and its update is a read and a write with another writer's change lost between.
  @Test func aViewClaimsAnAtomicUpdateOnlyWhereItsBaseHasOne() throws {
    let base = AnotherWriterBetweenReadAndWrite()
    // As code handed "a backend" sees it (the compiler knows a ScopedBackend always conforms).
    let view: any SettingsBackend = base.scoped(to: "app.")
    try view.setValue(1, forKey: "counter")
    if let updating = view as? any UpdatingBackend {
      try updating.update(forKey: "counter") { .integer(.init(Int64(($0?.intValue ?? 0) + 1))) }
      // One step: the other writer's +100 and this +1 both count.
      #expect(base.value(forKey: "app.counter") == 102)
    }
    #expect(!(view is any UpdatingBackend), "a view over a base without update(forKey:_:)")
    #expect(!(view is any MultiKeyUpdatingBackend), "a view over a base without updateValues")
  }

  /// `MultiKeyUpdatingBackend`'s contract: what the transform leaves "is stored before any other
  /// write … takes effect". Through a view over a base without `updateValues`, another writer's
  /// change made between the view's read of every value and its write is lost. (The same hole
  /// makes `BackendConformance.run { DictionaryBackend().scoped(to: "p.") }` fail
  /// `concurrentUpdateValuesEachTakeOneStep` under load: "80 racing updateValues left {from = 70;
  /// moves = 10; to = 10; }", seen in a full `swift test` run, though it passes when run alone.)
  @Test func aViewClaimsAnAtomicMultiKeyUpdateOnlyWhereItsBaseHasOne() throws {
    let base = AnotherWriterBetweenReadAndWrite(interruptingListing: true)
    let view: any SettingsBackend = base.scoped(to: "app.")
    try view.setValue(1, forKey: "counter")
    if let updating = view as? any MultiKeyUpdatingBackend {
      try updating.updateValues { values in
        values["counter"] = .integer(.init(Int64((values["counter"]?.intValue ?? 0) + 1)))
      }
      #expect(base.value(forKey: "app.counter") == 102)
    }
  }

  #if !canImport(Darwin)
    /// `SavingBackend`'s contract: "When save() returns without throwing, every write that
    /// returned before it was called is in storage". A view over a `UserDefaultsBackend` (which
    /// saves, by `save()`, but is deliberately not a `SavingBackend`) is a `SavingBackend` whose
    /// `save()` does nothing and whose `hasUnsavedChanges` is `false` while its base's writes
    /// are unsaved.
    @Test func aViewOverAUserDefaultsBackendSavesItsWritesWhenAskedTo() throws {
      let suite = "TypedDefaultsTests.viewSave.\(UUID().uuidString)"
      let file = UserDefaultsBackend.fileURL(ofDomain: suite)
      defer { try? FileManager.default.removeItem(at: file) }
      let base = UserDefaultsBackend(suiteName: suite, flushDelay: 3_600)
      let view = base.scoped(to: "app.")
      try view.setValue(7, forKey: "volume")
      #expect(base.hasUnsavedChanges)
      #expect(view.hasUnsavedChanges == base.hasUnsavedChanges)
      try view.save()
      let saved = try? PropertyListFile.decode(Data(contentsOf: file)).root
      #expect(
        saved?.dictionaryValue?["app.volume"] == 7,
        "the suite file holds \(String(describing: saved))")
      try base.save()  // leaves the file for the cleanup above, and the backend nothing to flush
    }
  #endif
}
