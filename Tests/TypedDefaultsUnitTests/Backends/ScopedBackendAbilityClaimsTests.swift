import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport
import TypedDefaultsTesting

@testable import TypedDefaults

// A ScopedBackend adopts every ability protocol whatever its base can do
// (Backends/ScopedBackend+Abilities.swift): `backend is any UpdatingBackend` and
// `backend is any SavingBackend` are true of a view over a base that has neither ability. What
// the view then does is documented (ScopedBackend, UpdatingBackend, MultiKeyUpdatingBackend,
// SavingBackend, ChoosingABackend.md): over a base without an update, its update is a read, a
// transform and a write run as one write through the library, which no other write through the
// library comes between, though a write made to the base directly can; over a base that isn't a
// SavingBackend (a ReloadingBackend), its save (its reload) refuses with a typed error.

/// A backend with only the required methods whose storage another writer changes between a
/// read and the next write.
///
/// Written against the public API (no `@testable` member used), with no ability: another writer
/// changes its storage between a read of `counter` (or a listing of every value) and the next
/// write, the moment a read-then-write update loses a change. Deterministic: the other write
/// happens once, right after that read, on its thread.
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

/// A backend with only the required methods (no ability) that runs `between`, once, on the
/// reading thread, right after the first read of `counter` (or the first listing holding it):
/// the moment a read-then-write update would lose a change.
private final class HookBetweenReadAndWrite: SettingsBackend {
  private struct State {
    var values: [String: PropertyListValue] = [:]
    var between: (@Sendable () -> Void)?
  }
  private let interruptingListing: Bool
  private let state = Locked(State())

  let name = "HookBetweenReadAndWrite"

  init(interruptingListing: Bool = false) { self.interruptingListing = interruptingListing }

  /// Runs `between` once, after the next read of the counter.
  func runOnce(between: @escaping @Sendable () -> Void) { state.withLock { $0.between = between } }

  private func runHook() {
    let hook = state.withLock { state in
      defer { state.between = nil }
      return state.between
    }
    hook?()
  }

  func value(forKey key: String) -> PropertyListValue? {
    let value = state.withLock { $0.values[key] }
    if !interruptingListing, key.hasSuffix("counter") { runHook() }
    return value
  }

  func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    state.withLock { $0.values[key] = value }
  }

  func removeValue(forKey key: String) { state.withLock { $0.values[key] = nil } }

  func dictionaryRepresentation() -> [String: PropertyListValue] {
    let values = state.withLock { $0.values }
    if interruptingListing, values["app.counter"] != nil { runHook() }
    return values
  }
}

/// Runs `body` on a new thread and returns a semaphore signalled once it returned.
private func onAnotherThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
  let done = DispatchSemaphore(value: 0)
  Thread.detachNewThread {
    body()
    done.signal()
  }
  return done
}

private func addOne(_ value: PropertyListValue?) -> PropertyListValue? {
  .integer(.init(Int64((value?.intValue ?? 0) + 1)))
}

private func addHundred(_ value: PropertyListValue?) -> PropertyListValue? {
  .integer(.init(Int64((value?.intValue ?? 0) + 100)))
}

@Suite(.tags(.breakIt)) struct ScopedBackendAbilityClaimsTests {
  /// A view adopts every ability whatever its base (a class can't conform only when its base
  /// does): as documented on ``ScopedBackend``.
  @Test func aViewAdoptsTheUpdateAbilitiesOverABaseWithoutThem() {
    let view: any SettingsBackend = AnotherWriterBetweenReadAndWrite().scoped(to: "app.")
    #expect(view is any UpdatingBackend, "a view over a base without update(forKey:_:)")
    #expect(view is any MultiKeyUpdatingBackend, "a view over a base without updateValues")
  }

  /// Over a base without `update(forKey:_:)`, a view's update holds off a write made through
  /// the library (here another view's update, started between the read and the write on another
  /// thread): both count.
  @Test func aViewsUpdateOverABaseWithoutOneHoldsOffAnUpdateThroughTheLibrary() throws {
    let base = HookBetweenReadAndWrite()
    let view: any SettingsBackend = base.scoped(to: "app.")
    let other = base.scoped(to: "app.")
    try view.setValue(1, forKey: "counter")
    let otherDone = Locked<DispatchSemaphore?>(nil)
    base.runOnce {
      otherDone.withLock {
        $0 = onAnotherThread { _ = try? other.update(forKey: "counter", addHundred) }
      }
    }
    let updating = try #require(view as? any UpdatingBackend)
    #expect(try updating.update(forKey: "counter", addOne) == 2)
    otherDone.withLock { $0 }?.wait()
    #expect(base.value(forKey: "app.counter") == 102)
  }

  /// The same for a view's `updateValues` over a base without one: another view's update and a
  /// `setValues` through a view, started between its listing and its write, are held off.
  @Test func aViewsMultiKeyUpdateOverABaseWithoutOneHoldsOffWritesThroughTheLibrary() throws {
    let base = HookBetweenReadAndWrite(interruptingListing: true)
    let view: any SettingsBackend = base.scoped(to: "app.")
    let other = base.scoped(to: "app.")
    try view.setValue(1, forKey: "counter")
    let othersDone = Locked<[DispatchSemaphore]>([])
    base.runOnce {
      let updated = onAnotherThread { _ = try? other.update(forKey: "counter", addHundred) }
      let set = onAnotherThread { try? other.setValues(["flag": true]) }
      othersDone.withLock { $0 = [updated, set] }
    }
    let updating = try #require(view as? any MultiKeyUpdatingBackend)
    let seen = try updating.updateValues { values in
      values["counter"] = addOne(values["counter"])
      return values
    }
    #expect(seen == ["counter": 2])
    for done in othersDone.withLock({ $0 }) { done.wait() }
    #expect(base.dictionaryRepresentation() == ["app.counter": 102, "app.flag": true])
  }

  /// Eight tasks each adding one a hundred times through views of one base without an update,
  /// half of them through `updateValues`, leave the counter 800 higher.
  @Test func racingUpdatesThroughViewsOfABaseWithoutOneEachTakeOneStep() async {
    let base = DictionaryBackend()
    await withTaskGroup(of: Void.self) { group in
      for task in 0..<8 {
        group.addTask {
          let view = base.scoped(to: "app.")
          for _ in 0..<100 {
            if task.isMultiple(of: 2) {
              _ = try? view.update(forKey: "counter", addOne)
            } else {
              try? view.updateValues { $0["counter"] = addOne($0["counter"]) }
            }
          }
        }
      }
    }
    #expect(base.value(forKey: "app.counter") == 800)
  }

  /// A user's backend that passes the conformance suite (the "Testing with TypedDefaults"
  /// article's DictionaryBackend) passes it through a view too, its racing updates included
  /// (`concurrentUpdateValuesEachTakeOneStep` once lost updates there under load).
  @Test func aViewOverABackendThatPassesTheConformanceSuitePassesItToo() async {
    let failures = await BackendConformance.run { DictionaryBackend().scoped(to: "p.") }
    #expect(failures.isEmpty, "\(failures)")
  }

  /// A write made to the base directly, not through the library, between a view's read and its
  /// write, is lost.
  ///
  /// Without the base's help it can't be held off (as documented on `UpdatingBackend` and
  /// `ScopedBackend.update(forKey:_:)`). Deterministic: the direct write
  /// happens once, always between the read and the write.
  @Test func aDirectWriteToTheBaseBetweenAViewsReadAndWriteIsLost() throws {
    let base = AnotherWriterBetweenReadAndWrite()
    let view: any SettingsBackend = base.scoped(to: "app.")
    try view.setValue(1, forKey: "counter")
    let updating = try #require(view as? any UpdatingBackend)
    try updating.update(forKey: "counter", addOne)
    withKnownIssue("a write made to a base without update(forKey:_:) directly can't be held off") {
      #expect(base.value(forKey: "app.counter") == 102)
    }
    #expect(base.value(forKey: "app.counter") == 2)
  }

  /// The same for `updateValues`.
  @Test func aDirectWriteToTheBaseBetweenAViewsListingAndWriteIsLost() throws {
    let base = AnotherWriterBetweenReadAndWrite(interruptingListing: true)
    let view: any SettingsBackend = base.scoped(to: "app.")
    try view.setValue(1, forKey: "counter")
    let updating = try #require(view as? any MultiKeyUpdatingBackend)
    try updating.updateValues { values in values["counter"] = addOne(values["counter"]) }
    withKnownIssue("a write made to a base without updateValues directly can't be held off") {
      #expect(base.value(forKey: "app.counter") == 102)
    }
    #expect(base.value(forKey: "app.counter") == 2)
  }

  /// Over a base that neither saves nor reloads, a view's `save()` and `reload()` refuse with
  /// `notSupported` naming the base, change nothing, and `supportsSaving`/`supportsReloading`
  /// say so beforehand; over a base that does, they say `true` and reach it.
  @Test func aViewRefusesToSaveOrReloadABaseThatCant() throws {
    let base = InMemoryBackend(name: "memory")
    let view = base.scoped(to: "app.")
    try view.setValue(7, forKey: "volume")
    #expect(!view.supportsSaving)
    #expect(!view.supportsReloading)
    #expect(!view.hasUnsavedChanges)
    let saveError = #expect(throws: SettingsError.self) { try view.save() }
    #expect(saveError?.code == .notSupported)
    #expect(
      saveError?.description
        == "memory scoped to 'app.' can't save: its base, memory, is no SavingBackend")
    let reloadError = #expect(throws: SettingsError.self) { try view.reload() }
    #expect(reloadError?.code == .notSupported)
    #expect(base.value(forKey: "app.volume") == 7)

    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(persistentFile: directory.file("data.plist"))
    let storeView = store.scoped(to: "app.")
    #expect(storeView.supportsSaving)
    #expect(storeView.supportsReloading)
    try storeView.setValue(7, forKey: "volume")
    try storeView.save()
    #expect(!store.hasUnsavedChanges)
  }

  #if !canImport(Darwin)
    /// A view over a `UserDefaultsBackend` saves it and reports its unsaved writes where
    /// `UserDefaultsBackend` adopts `SavingBackend`, and otherwise does neither (a view knows a
    /// base's saving only by that protocol, as documented on `ScopedBackend.save()`).
    @Test func aViewOverAUserDefaultsBackendSavesItOnlyWhereItIsASavingBackend() throws {
      let suite = "TypedDefaultsTests.viewSave.\(UUID().uuidString)"
      let file = UserDefaultsBackend.fileURL(ofDomain: suite)
      defer { try? FileManager.default.removeItem(at: file) }
      let base = UserDefaultsBackend(suiteName: suite, flushDelay: 3_600)
      let adopts = (base as any SettingsBackend) is any SavingBackend
      let view = base.scoped(to: "app.")
      try view.setValue(7, forKey: "volume")
      #expect(base.hasUnsavedChanges)
      #expect(view.hasUnsavedChanges == adopts)
      try view.save()
      let saved = try? PropertyListFile.decode(Data(contentsOf: file)).root
      #expect(
        (saved?.dictionaryValue?["app.volume"] == 7) == adopts,
        "the suite file holds \(String(describing: saved))")
      try base.save()  // leaves the file for the cleanup above, and the backend nothing to flush
    }
  #endif
}
