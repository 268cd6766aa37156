import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport
import TypedDefaultsTesting

@testable import TypedDefaults

// Probes of the models capability (issue 12). Each test names the promise it tries to break.

private let breakSentinel = "SENTINEL-9f3"

private final class BreakSecretModel: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting.
  @Setting("token", default: "", secret: true) var token: String
  @Setting("vault", default: [:], secret: true) var vault: [String: String]
  @Setting var visible = 0
}

private struct BreakSecretInner: SettingsGroup {
  @Setting("pin", default: "", secret: true) var pin: String
}

private struct BreakSecretOuter: SettingsGroup {
  static let keyPrefix = "com.break.secret."
  var inner = BreakSecretInner()
}

private struct BreakPlain: SettingsGroup {
  static let keyPrefix = "com.break.plain."
  @Setting var volume = 0.8
  @Setting var name = "guest"
}

private struct BreakEQ: SettingsGroup {
  @Setting var bass = 0
}

private struct BreakChannel: SettingsGroup {
  @Setting var gain = 1.0
  var eq = BreakEQ()
}

private final class BreakMixer: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting or a group of them.
  override class var keyPrefix: String { "com.break.mix." }
  var left = BreakChannel()
  var right = BreakChannel()
  @Setting var master = 0.5
}

private struct BreakMigrated: SettingsGroup, MigratableSettings {
  @Setting("text.fontSize", default: 12) var fontSize: Int
  static let migrations = SettingsMigrations(
    versionKey: "break.schemaVersion", steps: [.renameKey("fontSize", to: "text.fontSize")])
}

private final class BreakMigratedModel: SettingsModel, MigratableSettings, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting.
  @Setting("text.fontSize", default: 12) var fontSize: Int
  static let migrations = SettingsMigrations(
    versionKey: "break.model.schemaVersion",
    steps: [.renameKey("fontSize", to: "text.fontSize")])
}

private struct BreakTwoStep: SettingsGroup, MigratableSettings {
  @Setting var a = 0
  static let migrations = SettingsMigrations(
    versionKey: "break.twoStep.version",
    steps: [.removeKey("old1"), .removeKey("old2")])
}

private struct BreakEveryType: SettingsGroup {
  @Setting var set: Set<String> = []
  @Setting var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
  @Setting var range: Range<Int> = 0..<1
  @Setting var closed: ClosedRange<Double> = 0...1
  @Setting var date = Date(timeIntervalSinceReferenceDate: 0)
  @Setting var data = Data()
  @Setting var nested: [[String: [Int]]] = []
  @Setting var point = BreakPoint(x: 0, y: 0)
  @Setting var optional: String?
}

private struct BreakPoint: Codable, SettingValue, Hashable {
  var x: Int
  var y: Int
}

/// A backend whose listing leaves out keys holding empty strings or containers, and is otherwise
/// correct.
private final class EmptyHidingBackend: SettingsBackend, @unchecked Sendable {
  // @unchecked Sendable: `values` is behind `lock`.
  private var values: [String: PropertyListValue] = [:]
  private let lock = NSLock()
  let name = "EmptyHidingBackend"

  func value(forKey key: String) -> PropertyListValue? { lock.withLock { values[key] } }
  func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    lock.withLock { values[key] = value }
  }
  func removeValue(forKey key: String) { lock.withLock { values[key] = nil } }
  func dictionaryRepresentation() -> [String: PropertyListValue] {
    lock.withLock {
      values.filter { _, value in
        switch value {
        case .string(let string): !string.isEmpty
        case .array(let array): !array.isEmpty
        case .dictionary(let dictionary): !dictionary.isEmpty
        default: true
        }
      }
    }
  }
}

@Suite(.tags(.breakIt)) struct ModelEdgeCaseTests {
  // MARK: - Secrets

  @Test(arguments: BackendFactory.all)
  func breakDumpOfAModelClassHidesTheSecretOnEveryBackend(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      for model in [BreakSecretModel(backend: backend), .init(backend: backend.scoped(to: "s."))] {
        model.token = breakSentinel
        model.visible = 1
        var dumped = ""
        dump(model, to: &dumped)
        #expect(!dumped.contains(breakSentinel), "\(factory.name): dump shows the secret")
        #expect(!String(reflecting: model).contains(breakSentinel))
        #expect(!"\(model.allSettings)".contains(breakSentinel))
        #expect(!"\(model.snapshot())".contains(breakSentinel))
        #expect(!"\(model.exportedValues())".contains(breakSentinel))
      }
    }
  }

  @Test(arguments: BackendFactory.all.filter(\.refusesXMLForbiddenCharacters))
  func breakAFailedWriteOfASecretDictionaryDoesNotShowItsKeys(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withBackend { backend in
      let model = BreakSecretModel(backend: backend)
      let (_, diagnostics) = collectingDiagnostics {
        model.vault = [breakSentinel: "bell\u{7}"]
      }
      #expect(diagnostics.map(\.kind) == [.writeFailed])
      for diagnostic in diagnostics {
        #expect(!"\(diagnostic)".contains(breakSentinel), "\(diagnostic)")
      }
      #expect(throws: SettingsError.self) { try model.$vault.set([breakSentinel: "bell\u{7}"]) }
      do {
        try model.$vault.set([breakSentinel: "bell\u{7}"])
      } catch {
        #expect(!"\(error)".contains(breakSentinel), "\(error)")
      }
    }
  }

  @Test func aSecretInANestedGroupOnAScopedViewStaysHidden() throws {
    let base = InMemoryBackend()
    let view = base.scoped(to: "host.")
    try base.setValue(.array([.string(breakSentinel)]), forKey: "host.com.break.secret.inner.pin")
    let outer = BreakSecretOuter(backend: view)
    let (pin, diagnostics) = collectingDiagnostics { outer.inner.pin }
    #expect(pin == "")
    #expect(diagnostics.map(\.kind) == [.typeMismatch])
    #expect(diagnostics.allSatisfy { !"\($0)".contains(breakSentinel) && $0.storedValue == nil })
    #expect(!"\(outer.allSettings)".contains(breakSentinel))
    outer.inner.pin = breakSentinel
    var dumped = ""
    dump(outer, to: &dumped)
    for text in [
      dumped, String(describing: outer), String(reflecting: outer), "\(outer.snapshot())",
      "\(outer.exportedValues())", "\(outer.allSettings)", outer.allSettings[0].valueDescription,
    ] {
      #expect(!text.contains(breakSentinel), "\(text)")
    }
    #expect(outer.allSettings.map(\.key) == ["com.break.secret.inner.pin"])
    #expect(
      outer.exportedValues(options: .init(includesSecrets: true)).values.contains(
        .string(breakSentinel)))
  }

  // MARK: - Export and import

  @Test func breakAnImportIntoAModelOnAViewOfALayeredStoreIsSaved() throws {
    let folder = try TemporaryDirectory()
    let url = folder.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: url)
    let model = BreakPlain(backend: store.scoped(to: "host."))
    try model.importValues(["com.break.plain.volume": 0.25])
    #expect(model.volume == 0.25)
    // "a LayeredPlistStore is saved once" (ExportImportAndSecrets.md).
    let reopened = try LayeredPlistStore(persistentFile: url)
    #expect(reopened.value(forKey: "host.com.break.plain.volume") == 0.25)
  }

  @Test func breakAnImportInsideATestScopeIntoAModelOnAViewReadsBack() throws {
    let real = InMemoryBackend()
    let model = BreakPlain(backend: real.scoped(to: "host."))
    let test = InMemoryBackend()
    try SettingsTesting.withBackend(test) {
      try model.importValues(["com.break.plain.volume": 0.25])
      #expect(model.volume == 0.25)
      #expect(model.exportedValues()["com.break.plain.volume"] == 0.25)
    }
    #expect(real.dictionaryRepresentation().isEmpty)
    #expect(test.keys == ["host.com.break.plain.volume"])
  }

  @Test(arguments: BackendFactory.all)
  func breakOmittingDefaultsLeavesOutAStoredValueEqualToTheDefault(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withBackend { backend in
      let model = BreakPlain(backend: backend)
      model.volume = 0.8  // the default, stored explicitly
      model.name = "Ann"
      #expect(model.$volume.hasStoredValue)
      // Issue 12: "option: leave out values equal to their default".
      #expect(
        model.exportedValues(options: .init(omitsDefaultValues: true)) == [
          "com.break.plain.name": "Ann"
        ])
    }
  }

  @Test(arguments: BackendFactory.all.filter(\.refusesXMLForbiddenCharacters))
  func anImportTheBackendRefusesWritesNothing(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let model = BreakPlain(backend: backend)
      #expect(throws: SettingsError.self) {
        try model.importValues([
          "com.break.plain.volume": 0.1, "com.break.plain.name": "bell\u{7}",
        ])
      }
      #expect(backend.dictionaryRepresentation().isEmpty)
      #expect(model.volume == 0.8)
    }
  }

  @Test(arguments: BackendFactory.all)
  func everyValueTypeAndNestedGroupsRoundTripThroughAnExportFile(
    _ factory: BackendFactory
  )
    async throws
  {
    let folder = try TemporaryDirectory()
    let file = folder.file("export.plist")
    try await factory.withBackend { backend in
      let model = BreakEveryType(backend: backend)
      model.set = ["b", "a", "é"]
      model.uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
      model.range = -3..<7
      model.closed = -0.5...2.25
      model.date = Date(timeIntervalSinceReferenceDate: 786_000_000.25)
      model.data = Data([0, 0xFF, 7])
      model.nested = [["a": [1, 2]], [:], ["b": []]]
      model.point = BreakPoint(x: -1, y: .max)
      model.optional = "x"
      let mixer = BreakMixer(backend: backend)
      mixer.left.eq.bass = 3
      mixer.right.gain = 0.25
      try model.exportValues(to: file)
      let mixerFile = folder.file("mixer.plist")
      try mixer.exportValues(to: mixerFile, format: .xml)
      let fresh = InMemoryBackend()
      let copy = BreakEveryType(backend: fresh)
      let result = try copy.importValues(contentsOf: file)
      #expect(result.unknownKeys.isEmpty)
      #expect(copy.snapshot() == model.snapshot())
      #expect(copy.set == ["a", "b", "é"])
      #expect(copy.date == model.date)
      #expect(copy.point == model.point)
      let mixerCopy = BreakMixer(backend: fresh)
      try mixerCopy.importValues(contentsOf: mixerFile)
      #expect(mixerCopy.snapshot() == mixer.snapshot())
      #expect(mixerCopy.left.eq.bass == 3 && mixerCopy.right.gain == 0.25)
    }
  }

  @Test func oneErrorListsEveryBadKeyAndUnknownKeysAndWritesNothingOnAFileStore() throws {
    let folder = try TemporaryDirectory()
    let url = folder.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: url)
    try store.setValue("keep", forKey: "other")
    try store.save()
    let before = try Data(contentsOf: url)
    let model = BreakMixer(backend: store)
    do {
      try model.importValues(
        [
          "com.break.mix.left.gain": "loud", "com.break.mix.right.eq.bass": 1.5,
          "com.break.mix.master": 0.1, "com.break.mix.typo": 1,
        ], options: .init(rejectsUnknownKeys: true))
      Issue.record("the import was accepted")
    } catch {
      #expect(error.code == .importRejected)
      let text = "\(error)"
      #expect(text.contains("'com.break.mix.left.gain': expected Double, found String"))
      #expect(text.contains("'com.break.mix.right.eq.bass': expected Int, found Double"))
      #expect(text.contains("'com.break.mix.typo'"))
      #expect(!text.contains("loud"))
    }
    #expect(model.master == 0.5)
    #expect(try Data(contentsOf: url) == before)
  }

  // MARK: - Migrations

  @Test func breakMigratingAViewOfALayeredStoreSavesTheFile() throws {
    let folder = try TemporaryDirectory()
    let url = folder.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: url)
    try store.setValue(14, forKey: "sdk.fontSize")
    try store.save()
    let outcome = try BreakMigrated.migrate(store.scoped(to: "sdk."))
    #expect(outcome.appliedSteps == 1)
    #expect(store.value(forKey: "sdk.text.fontSize") == 14)
    // "On a LayeredPlistStore each applied step saves the file" (SchemaMigrations.md).
    let reopened = try LayeredPlistStore(persistentFile: url)
    #expect(reopened.value(forKey: "sdk.text.fontSize") == 14)
    #expect(reopened.value(forKey: "sdk.fontSize") == nil)
    #expect(reopened.value(forKey: "sdk.break.schemaVersion") == 1)
  }

  @Test(arguments: BackendFactory.all)
  func migratingAViewTouchesOnlyItsKeysAndRunsOnce(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      try backend.setValue(14, forKey: "sdk.fontSize")
      try backend.setValue(20, forKey: "fontSize")  // the host's own, outside the view
      let view = backend.scoped(to: "sdk.")
      #expect(try BreakMigrated.migrate(view).appliedSteps == 1)
      #expect(try BreakMigrated.migrate(view).appliedSteps == 0)
      #expect(BreakMigrated(backend: view).fontSize == 14)
      #expect(backend.value(forKey: "fontSize") == 20)
      #expect(backend.value(forKey: "text.fontSize") == nil)
      #expect(backend.value(forKey: "break.schemaVersion") == nil)
      #expect(view.keys == ["break.schemaVersion", "text.fontSize"])
    }
  }

  @Test func breakANegativeStoredSchemaVersionDoesNotCrash() async {
    // "bad input from files never crashes" (issue 12); a version is read from the store.
    await #expect(processExitsWith: .success) {
      let backend = InMemoryBackend()
      try? backend.setValue(-1, forKey: "break.twoStep.version")
      _ = try? BreakTwoStep.migrate(backend)
    }
  }

  @Test func aThrowingStepThenAReRunCompletesThroughAView() throws {
    struct Flaky: SettingsGroup, MigratableSettings {
      @Setting var a = 0
      static let migrations = SettingsMigrations(
        versionKey: "v",
        steps: [
          .removeKey("x"),
          SettingsMigration("fails while 'stop' is stored") { values in
            if values["stop"] != nil { throw SettingsError(.migrationFailed, reason: "stop") }
            values["y"] = 1
          },
        ])
    }
    let base = InMemoryBackend(["p.x": 1, "p.stop": true])
    let view = base.scoped(to: "p.")
    #expect(throws: SettingsError.self) { try Flaky.migrate(view) }
    #expect(base.dictionaryRepresentation() == ["p.stop": true, "p.v": 1])
    base.removeValue(forKey: "p.stop")
    #expect(try Flaky.migrate(view).appliedSteps == 1)
    #expect(base.dictionaryRepresentation() == ["p.y": 1, "p.v": 2])
  }

  // MARK: - Test isolation

  @Test func breakMigratingAModelInsideATestScopeLeavesItsRealBackendAlone() throws {
    let real = InMemoryBackend(["fontSize": 14])
    let model = BreakMigratedModel(backend: real)
    try SettingsTesting.withBackend(InMemoryBackend()) {
      _ = try model.migrate()
    }
    // "A test must be able to run models against a fresh InMemoryBackend without touching
    // UserDefaults or files" (issue 12): a migration inside the scope still rewrote the real one.
    #expect(real.dictionaryRepresentation() == ["fontSize": 14])
  }

  @Test func observationExportAndResetOfAModelOnAViewFollowTheTestsBackend() throws {
    let real = InMemoryBackend()
    let model = BreakPlain(backend: real.scoped(to: "host."))
    let test = InMemoryBackend()
    let seen = Locked<[Double]>([])
    SettingsTesting.withBackend(test) {
      let token = model.$volume.observe { volume in seen.withLock { $0.append(volume) } }
      model.volume = 0.3
      model.name = "Ann"
      #expect(model.exportedValues(options: .init(omitsDefaultValues: true)).count == 2)
      #expect(model.snapshot()["com.break.plain.volume"] == 0.3)
      model.resetAll()
      withExtendedLifetime(token) {}
    }
    #expect(seen.withLock { $0 } == [0.3, 0.8])
    #expect(real.dictionaryRepresentation().isEmpty)
    #expect(test.dictionaryRepresentation().isEmpty)
  }

  @Test func aModelOnAFileStoreWritesNothingToTheFileInsideATestScope() throws {
    let folder = try TemporaryDirectory()
    let url = folder.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: url)
    let mixer = BreakMixer(backend: store)
    SettingsTesting.withBackend(InMemoryBackend()) {
      mixer.left.gain = 9
      mixer.master = 0.1
      _ = try? mixer.importValues(["com.break.mix.right.gain": 2.0])
    }
    #expect(store.dictionaryRepresentation().isEmpty)
    #expect(!FileManager.default.fileExists(atPath: url.path))
    #expect(mixer.left.gain == 1)
  }

  // MARK: - Registration defaults

  @Test func breakRegisteringTheDefaultsOfAModelOnAViewOfUserDefaults() throws {
    let suite = TemporarySuite()
    let model = BreakPlain(backend: suite.backend.scoped(to: "host."))
    // "puts a model's defaults into a backend's registration domain where it has one".
    #expect(model.registerDefaults())
    let raw = try #require(UserDefaults(suiteName: suite.name))
    #expect(raw.object(forKey: "host.com.break.plain.volume") as? Double == 0.8)
    #expect(!model.$volume.hasStoredValue)
  }

  @Test func registeredDefaultsOfANestedModelAreNotStoredNorExportedNorListed() throws {
    let suite = TemporarySuite()
    let mixer = BreakMixer(backend: suite.backend)
    #expect(mixer.registerDefaults())
    let raw = try #require(UserDefaults(suiteName: suite.name))
    #expect(raw.object(forKey: "com.break.mix.left.eq.bass") as? Int == 0)
    #expect(mixer.allSettings.allSatisfy { !$0.hasStoredValue })
    #expect(suite.backend.dictionaryRepresentation().isEmpty)
    #expect(suite.backend.scoped(to: "com.break.").keys.isEmpty)
    #expect(mixer.exportedValues(options: .init(omitsDefaultValues: true)).isEmpty)
  }

  // MARK: - Nested groups and prefixes

  @Test func copiesOfAGroupTwoLevelsDeepHaveTheirOwnKeysAndPaths() {
    let backend = InMemoryBackend()
    let mixer = BreakMixer(backend: backend)
    #expect(
      mixer.allSettings.map(\.key) == [
        "com.break.mix.left.gain", "com.break.mix.left.eq.bass", "com.break.mix.right.gain",
        "com.break.mix.right.eq.bass", "com.break.mix.master",
      ])
    #expect(
      mixer.allSettings.map(\.propertyPath) == [
        "left.gain", "left.eq.bass", "right.gain", "right.eq.bass", "master",
      ])
    mixer.left.gain = 2
    mixer.right.eq.bass = 4
    #expect(mixer.right.gain == 1 && mixer.left.eq.bass == 0)
    #expect(BreakMixer(backend: backend).right.eq.bass == 4)
  }

  @Test func resetAllOnALibraryModelLeavesAHostKeyUnderItsPrefix() throws {
    let backend = InMemoryBackend()
    try backend.setValue("host", forKey: "com.break.plain.hostExtra")
    try backend.setValue(1, forKey: "com.break.plainly")
    let library = BreakPlain(backend: backend)
    library.volume = 0.1
    library.resetAll()
    #expect(
      backend.dictionaryRepresentation() == [
        "com.break.plain.hostExtra": "host", "com.break.plainly": 1,
      ])
    #expect(backend.scoped(to: "com.break.plain.").keys == ["hostExtra"])
  }

  // MARK: - The conformance suite against a broken backend

  @Test func breakABackendWhoseListingHidesEmptyValuesIsReported() async {
    var failures: [BackendConformance.Failure] = []
    await withKnownIssue(isIntermittent: true) {
      failures = await BackendConformance.run { EmptyHidingBackend() }
    }
    // "dictionaryRepresentation(): a snapshot of every key this backend stores".
    #expect(!failures.isEmpty, "a backend that lists no empty values passes every check")
  }
}
