import Foundation
import Testing
@_spi(Testing) import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

#if canImport(Observation)
  import Observation
#endif

private struct CounterSettings: SettingsGroup {
  @Setting var count = 0
  @Setting var name = "none"
}

/// `backend.scoped(to:)`: a view that prefixes every key both ways, on every backend.
@Suite struct ScopedBackendTests {
  static let prefix = "com.example.sdk."

  // MARK: - Keys both ways

  @Test(arguments: BackendFactory.all)
  func aViewPrefixesEveryKeyItWritesAndStripsItFromEveryKeyItReads(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { base in
      let view = base.scoped(to: Self.prefix)
      try view.setValue(1, forKey: "volume")
      #expect(base.value(forKey: "com.example.sdk.volume") == 1)
      #expect(base.value(forKey: "volume") == nil)
      #expect(view.value(forKey: "volume") == 1)

      try base.setValue("written by the base", forKey: "com.example.sdk.title")
      #expect(view.value(forKey: "title") == "written by the base")

      view.removeValue(forKey: "volume")
      #expect(base.value(forKey: "com.example.sdk.volume") == nil)
      try view.setValue(2, forKey: "volume")
      try view.setValue(nil, forKey: "volume")
      #expect(base.value(forKey: "com.example.sdk.volume") == nil)
    }
  }

  @Test(arguments: BackendFactory.all)
  func listingAViewShowsOnlyItsOwnKeysWithoutThePrefix(_ factory: BackendFactory) async throws {
    try await factory.withBackend { base in
      try base.setValues([
        "volume": 0.5, "com.example.sdk.volume": 0.8, "com.example.sdk.user.name": "Ann",
        "com.example.sdkother": true, "com.example.": 1,
      ])
      let view = base.scoped(to: Self.prefix)
      #expect(view.dictionaryRepresentation() == ["volume": 0.8, "user.name": "Ann"])
      #expect(view.keys == ["user.name", "volume"])
    }
  }

  @Test(arguments: BackendFactory.all)
  func removingThroughAViewLeavesTheBasesOtherKeysAlone(_ factory: BackendFactory) async throws {
    try await factory.withBackend { base in
      try base.setValues(["volume": 0.5, "com.example.sdk.volume": 0.8])
      let view = base.scoped(to: Self.prefix)
      view.removeValue(forKey: "volume")
      #expect(base.dictionaryRepresentation() == ["volume": 0.5])
    }
  }

  @Test(arguments: BackendFactory.all)
  func setValuesThroughAViewPrefixesEveryKey(_ factory: BackendFactory) async throws {
    try await factory.withBackend { base in
      let view = base.scoped(to: Self.prefix)
      try view.setValues(["a": 1, "b": "two"])
      #expect(
        base.dictionaryRepresentation() == ["com.example.sdk.a": 1, "com.example.sdk.b": "two"])
    }
  }

  @Test func setValuesThroughAViewIsOneSaveOfTheFileStore() throws {
    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      options: .init(autosave: .afterEveryWrite, savesAtExit: false))
    let view = store.scoped(to: Self.prefix)
    let before = store.saveCount
    try view.setValues(
      Dictionary(
        uniqueKeysWithValues: (0..<50).map {
          ("k\($0)", PropertyListValue.integer(.init(Int64($0))))
        }))
    #expect(store.saveCount == before + 1)
    let reopened = try LayeredPlistStore(persistentFile: directory.file("data.plist"))
    #expect(reopened.scoped(to: Self.prefix).keys.count == 50)
  }

  @Test func aBatchThroughAViewThatTheBaseRefusesWritesNothingAndNamesTheViewsKey() throws {
    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), options: .init(format: .xml))
    let view = store.scoped(to: Self.prefix)
    let error = #expect(throws: SettingsError.self) {
      try view.setValues(["good": 1, "bad": "control \u{1} character"])
    }
    #expect(error?.key == "bad")
    #expect(store.dictionaryRepresentation().isEmpty)
  }

  // MARK: - Views of views, names, the empty prefix

  @Test func scopingAViewAddsToItsPrefix() throws {
    let base = InMemoryBackend()
    let view = base.scoped(to: "com.").scoped(to: "example.").scoped(to: "sdk.")
    #expect(view.prefix == "com.example.sdk.")
    #expect(view.base === base)
    try view.setValue(true, forKey: "enabled")
    #expect(base.dictionaryRepresentation() == ["com.example.sdk.enabled": true])
    #expect(base.scoped(to: "com.example.").keys == ["sdk.enabled"])
  }

  @Test func aViewsNameSaysItsBaseAndItsPrefix() {
    let base = InMemoryBackend(name: "host")
    #expect(base.scoped(to: "com.example.sdk.").name == "host scoped to 'com.example.sdk.'")
    #expect(base.scoped(to: "a.").scoped(to: "b.").name == "host scoped to 'a.b.'")
  }

  @Test func anEmptyPrefixIsAnIdentityView() throws {
    let base = InMemoryBackend(["volume": 0.5])
    let view = base.scoped(to: "")
    #expect(view.dictionaryRepresentation() == ["volume": 0.5])
    try view.setValue(0.7, forKey: "volume")
    #expect(base.value(forKey: "volume") == 0.7)
    #expect(view.name == "InMemoryBackend scoped to ''")
  }

  @Test func aViewOfANormalizingStoreListsItsKeysNormalized() throws {
    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      options: .init(keyNormalization: .underscoresToHyphens))
    let view = store.scoped(to: "my_sdk.")
    try view.setValue(1, forKey: "feature_x")
    #expect(store.keys == ["my-sdk.feature-x"])
    #expect(view.keys == ["feature-x"])
    #expect(view.value(forKey: "feature_x") == 1)
  }

  // MARK: - Settings through a view

  @Test(arguments: BackendFactory.all)
  func aModelOnAViewReadsAndWritesThePrefixedKeys(_ factory: BackendFactory) async throws {
    try await factory.withBackend { base in
      let view = base.scoped(to: Self.prefix)
      let settings = CounterSettings(backend: view)
      #expect(settings.$count.key == "count")
      #expect(settings.$count.backend === view)
      settings.count = 3
      #expect(base.value(forKey: "com.example.sdk.count") == 3)
      try base.setValue(4, forKey: "com.example.sdk.count")
      #expect(settings.count == 4)
      #expect(settings.$count.storedValue == 4)
      settings.$count.reset()
      #expect(base.value(forKey: "com.example.sdk.count") == nil)
      #expect(settings.snapshot() == ["count": 0, "name": "none"])
      settings.name = "x"
      settings.resetAll()
      #expect(base.dictionaryRepresentation().isEmpty)
    }
  }

  @Test func aSettingThroughAViewNamesItsOwnKeyInErrors() throws {
    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), options: .init(format: .xml))
    let settings = CounterSettings(backend: store.scoped(to: Self.prefix))
    let error = #expect(throws: SettingsError.self) {
      try settings.$name.set("a \u{1} control character")
    }
    #expect(error?.key == "name")
  }

  @Test func updateThroughAViewOfAFileStoreIsTheStoresLockedUpdate() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    let view = store.scoped(to: Self.prefix)
    for _ in 0..<3 {
      try view.update(forKey: "launches") { .integer(.init(Int64(($0?.intValue ?? 0) + 1))) }
    }
    #expect(view.value(forKey: "launches") == 3)
    // The update saved: a store opened on the file now sees it.
    #expect(
      try LayeredPlistStore(persistentFile: file).value(forKey: "com.example.sdk.launches") == 3)
  }

  @Test(arguments: BackendFactory.all)
  func updateThroughAViewChangesThePrefixedKey(_ factory: BackendFactory) async throws {
    try await factory.withBackend { base in
      let view = base.scoped(to: Self.prefix)
      try base.setValue(1, forKey: "launches")
      let stored = try view.update(forKey: "launches") {
        .integer(.init(Int64(($0?.intValue ?? 0) + 10)))
      }
      #expect(stored == 10)
      #expect(base.value(forKey: "com.example.sdk.launches") == 10)
      #expect(base.value(forKey: "launches") == 1)
    }
  }

  // MARK: - Observation

  @Test(arguments: BackendFactory.all)
  func observingAKeyOfAViewSeesEveryWriterUnprefixed(_ factory: BackendFactory) async throws {
    try await factory.withBackend { base in
      let view = base.scoped(to: Self.prefix)
      let seen = Locked<[SettingsChange]>([])
      let token = view.observe(key: "count") { change in seen.withLock { $0.append(change) } }
      let settings = CounterSettings(backend: view)
      try view.setValue(1, forKey: "count")
      try base.setValue(2, forKey: "com.example.sdk.count")
      settings.count = 3
      try base.setValue(99, forKey: "count")  // the host's own key: not the view's
      view.removeValue(forKey: "count")
      token.cancel()
      #expect(
        seen.withLock { $0 } == [
          SettingsChange(key: "count", newValue: 1), SettingsChange(key: "count", newValue: 2),
          SettingsChange(key: "count", newValue: 3), SettingsChange(key: "count", newValue: nil),
        ])
    }
  }

  @Test(arguments: BackendFactory.all)
  func observingAllKeysOfAViewSeesOnlyItsOwnKeys(_ factory: BackendFactory) async throws {
    try await factory.withBackend { base in
      let view = base.scoped(to: Self.prefix)
      let seen = Locked<[SettingsChange]>([])
      let token = view.observeAllKeys { change in seen.withLock { $0.append(change) } }
      try base.setValue("host", forKey: "name")
      try view.setValue("sdk", forKey: "name")
      try base.setValue(true, forKey: "com.example.sdk.enabled")
      try base.setValue(true, forKey: "com.example.other")
      token.cancel()
      #expect(
        seen.withLock { $0 } == [
          SettingsChange(key: "name", newValue: "sdk"),
          SettingsChange(key: "enabled", newValue: true),
        ])
    }
  }

  @Test(arguments: BackendFactory.all)
  func aSettingsChangesThroughAViewArriveAsTypedValues(_ factory: BackendFactory) async throws {
    try await factory.withBackend { base in
      let settings = CounterSettings(backend: base.scoped(to: Self.prefix))
      settings.count = 5
      var values = settings.$count.changes(initial: true).makeAsyncIterator()
      #expect(await values.next() == 5)
      try base.setValue(6, forKey: "com.example.sdk.count")
      #expect(await values.next() == 6)
      var changes = base.scoped(to: Self.prefix).changes(forKey: "count").makeAsyncIterator()
      settings.count = 7
      #expect(await changes.next() == SettingsChange(key: "count", newValue: 7))
    }
  }

  @Test func aBackendOutsideTheLibrarySeesWritesThroughAViewPublished() throws {
    let base = KeyRecordingBackend()
    let view = base.scoped(to: Self.prefix)
    let seen = Locked<[SettingsChange]>([])
    let token = base.observe(key: "com.example.sdk.count") { change in
      seen.withLock { $0.append(change) }
    }
    try view.setValue(1, forKey: "count")
    CounterSettings(backend: view).count = 2
    token.cancel()
    #expect(seen.withLock { $0.map(\.newValue) } == [1, 2])
  }

  #if canImport(Observation)
    @Test func swiftObservationTracksASettingReadThroughAView() throws {
      guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *) else {
        return
      }
      let base = InMemoryBackend()
      let settings = CounterSettings(backend: base.scoped(to: Self.prefix))
      let changed = Locked(false)
      withObservationTracking {
        _ = settings.count
      } onChange: {
        changed.withLock { $0 = true }
      }
      try base.setValue(1, forKey: "com.example.sdk.count")
      #expect(changed.withLock { $0 })
    }
  #endif
}

/// A backend outside the library: a locked dictionary that records every key it is asked for.
final class KeyRecordingBackend: SettingsBackend {
  private let state = Locked((values: [String: PropertyListValue](), calls: [String]()))
  let name = "KeyRecordingBackend"

  /// Every call, as `read key`, `write key`, `remove key`, `list`.
  var calls: [String] { state.withLock { $0.calls } }

  func value(forKey key: String) -> PropertyListValue? {
    state.withLock {
      $0.calls.append("read \(key)")
      return $0.values[key]
    }
  }

  func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    state.withLock {
      $0.calls.append("write \(key)")
      $0.values[key] = value
    }
  }

  func removeValue(forKey key: String) {
    state.withLock {
      $0.calls.append("remove \(key)")
      $0.values[key] = nil
    }
  }

  func dictionaryRepresentation() -> [String: PropertyListValue] {
    state.withLock {
      $0.calls.append("list")
      return $0.values
    }
  }
}
