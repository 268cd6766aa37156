import Foundation
import Testing
@_spi(Testing) import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

// MARK: - Fixture models

private struct Window: Codable, SettingValue, Equatable {
  var width: Int
  var height: Int
}

private struct EditorSettings: SettingsGroup {
  @Setting var fontSize = 12
  @Setting var volume = 5
  @Setting var darkMode = false
  @Setting var zoom = 1.0
  @Setting var tags: [String] = []
  @Setting var quality = Quality.auto
  @Setting var window = Window(width: 800, height: 600)
  @Setting var lastOpened: Date?
}

/// The same settings in a class, to check both model styles get the operations.
private final class EditorModel: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting.
  @Setting var fontSize = 12
  @Setting var volume = 5
}

/// Version 2 of a model whose version 1 stored `fontSize` (H48).
private struct TextSettingsV2: SettingsGroup, MigratableSettings {
  @Setting("text.fontSize", default: 12) var fontSize: Int
  static let migrations = SettingsMigrations(
    versionKey: "schemaVersion",
    steps: [.removeKey("legacyCache"), .renameKey("fontSize", to: "text.fontSize")])
}

/// Export and import of a model: validation first, all or nothing, one batch, unknown keys
/// reported (H47, H48).
@Suite struct ExportImportTests {
  static let wholeSecond = Date(timeIntervalSinceReferenceDate: 786_000_000)

  private func fill(_ settings: EditorSettings) {
    settings.fontSize = 14
    settings.volume = 3
    settings.darkMode = true
    settings.zoom = 1.5
    settings.tags = ["jazz", "blues"]
    settings.quality = .high
    settings.window = Window(width: 1024, height: 768)
    settings.lastOpened = Self.wholeSecond
  }

  // MARK: - Export

  @Test(arguments: BackendFactory.all)
  func anExportHoldsEverySettingAndCanLeaveOutDefaults(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let settings = EditorSettings(backend: backend)
      settings.fontSize = 14
      settings.tags = ["jazz"]
      #expect(
        settings.exportedValues() == [
          "fontSize": 14, "volume": 5, "darkMode": false, "zoom": 1.0, "tags": ["jazz"],
          "quality": "auto", "window": ["width": 800, "height": 600],
        ])
      #expect(
        settings.exportedValues(options: .init(omitsDefaultValues: true)) == [
          "fontSize": 14, "tags": ["jazz"],
        ])
    }
  }

  @Test(arguments: BackendFactory.all, [PropertyListFile.Format.binary, .xml])
  func anExportedFileImportedIntoAFreshBackendGivesAnEqualSnapshot(
    _ factory: BackendFactory, format: PropertyListFile.Format
  ) async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("export.plist")
    let exported = try await factory.withBackend { backend in
      let settings = EditorSettings(backend: backend)
      fill(settings)
      try settings.exportValues(to: file, format: format)
      return settings.snapshot()
    }
    try await factory.withBackend { backend in
      let settings = EditorSettings(backend: backend)
      let result = try settings.importValues(contentsOf: file)
      #expect(result.unknownKeys.isEmpty)
      #expect(result.importedKeys.count == 8)
      #expect(settings.snapshot() == exported)
      #expect(settings.window == Window(width: 1024, height: 768))
      #expect(settings.lastOpened == Self.wholeSecond)
    }
  }

  @Test func aModelClassExportsAndImportsAsAGroupDoes() throws {
    let model = EditorModel(backend: InMemoryBackend())
    model.fontSize = 20
    let copy = EditorModel(backend: InMemoryBackend())
    try copy.importValues(model.exportedValues())
    #expect(copy.fontSize == 20)
    #expect(copy.snapshot() == model.snapshot())
  }

  // MARK: - Validation (H47)

  @Test(arguments: BackendFactory.all)
  func anImportWithAWrongTypedValueWritesNothingAndNamesTheKey(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withBackend { backend in
      let settings = EditorSettings(backend: backend)
      settings.fontSize = 10
      let before = backend.dictionaryRepresentation()
      let bytesBefore = try Self.fileBytes(of: backend)
      let events = Locked(0)
      let token = backend.observe(keys: ["fontSize", "volume", "darkMode"]) { _ in
        events.withLock { $0 += 1 }
      }
      defer { token.cancel() }
      #expect {
        try settings.importValues(["fontSize": 14, "volume": "loud", "darkMode": true])
      } throws: { error in
        let error = error as? SettingsError
        return error?.code == .importRejected
          && error?.reason
            == "Nothing was imported: 1 value doesn't match its setting's type: "
            + "'volume': expected Int, found String"
      }
      #expect(backend.dictionaryRepresentation() == before)
      #expect(try Self.fileBytes(of: backend) == bytesBefore)
      #expect(events.withLock { $0 } == 0)
      #expect(settings.fontSize == 10)
    }
  }

  @Test func oneErrorListsEveryWrongTypedValueNestedOnesIncluded() throws {
    let settings = EditorSettings(backend: InMemoryBackend())
    #expect {
      try settings.importValues([
        "tags": "null", "volume": "loud", "window": ["width": "wide"], "fontSize": 14,
      ])
    } throws: { error in
      let message = "\(error)"
      return message.contains("3 values don't match their settings' types")
        && message.contains("'tags': expected [String], found String")
        && message.contains("'volume': expected Int, found String")
        && message.contains("'window': expected Window, found Dictionary")
    }
    #expect(settings.fontSize == 12)
    #expect(throws: SettingsError.self) { try settings.importValues(["tags": [true]]) }
    // A value that reads is stored as the setting stores it.
    try settings.importValues(["darkMode": "yes", "tags": [1, 2]])
    #expect(settings.allSettings.first { $0.key == "darkMode" }?.storedValue == true)
    #expect(settings.tags == ["1", "2"])
  }

  @Test(arguments: BackendFactory.all)
  func anImportFileWithOneWrongTypedValueWritesNothingAndNamesThatKey(
    _ factory: BackendFactory
  )
    async throws
  {
    let directory = try TemporaryDirectory()
    let file = directory.file("import.plist")
    try PropertyListFile(url: file).write(["fontSize": 14, "darkMode": "maybe", "zoom": 2.0])
    try await factory.withBackend { backend in
      let settings = EditorSettings(backend: backend)
      #expect {
        try settings.importValues(contentsOf: file)
      } throws: { error in
        let error = error as? SettingsError
        return error?.path == file.path && error?.reason.contains("'darkMode'") == true
          && error?.reason.contains("'zoom'") == false
      }
      #expect(backend.dictionaryRepresentation().isEmpty)
    }
  }

  @Test func aDeeplyNestedOrMissingImportFileIsRefusedWithoutACrash() throws {
    let directory = try TemporaryDirectory()
    let deep = directory.file("deep.plist")
    let depth = 100_000
    try xmlPropertyList(
      "<dict><key>tags</key>" + String(repeating: "<array>", count: depth)
        + String(repeating: "</array>", count: depth) + "</dict>"
    ).write(to: deep)
    let settings = EditorSettings(backend: InMemoryBackend())
    #expect(throws: SettingsError.self) { try settings.importValues(contentsOf: deep) }
    #expect {
      try settings.importValues(contentsOf: directory.file("missing.plist"))
    } throws: { ($0 as? SettingsError)?.code == .fileNotReadable }
  }

  // MARK: - Unknown keys (H48)

  @Test(arguments: BackendFactory.all)
  func anUnknownKeyIsReportedAndNeverStoredAndRefusedWhenAsked(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withBackend { backend in
      let settings = EditorSettings(backend: backend)
      #expect {
        try settings.importValues(
          ["fontSize": 14, "fontSzie": 16], options: .init(rejectsUnknownKeys: true))
      } throws: { error in
        "\(error)".contains("unknown keys: 'fontSzie'")
      }
      #expect(backend.dictionaryRepresentation().isEmpty)

      let result = try settings.importValues(["fontSize": 14, "fontSzie": 16])
      #expect(result.importedKeys == ["fontSize"])
      #expect(result.unknownKeys == ["fontSzie"])
      #expect(settings.fontSize == 14)
      #expect(backend.value(forKey: "fontSzie") == nil)
    }
  }

  @Test(arguments: BackendFactory.all)
  func anExportOfAnEarlierVersionIsMigratedOnImportAndTheVersionIsNotLowered(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      try TextSettingsV2.migrate(backend)
      #expect(backend.value(forKey: "schemaVersion") == 2)
      let settings = TextSettingsV2(backend: backend)
      let result = try settings.importValues(["schemaVersion": 1, "fontSize": 14])
      #expect(result.importedVersion == 1)
      #expect(result.unknownKeys.isEmpty)
      #expect(settings.fontSize == 14)
      #expect(backend.value(forKey: "text.fontSize") == 14)
      #expect(backend.value(forKey: "fontSize") == nil)
      #expect(backend.value(forKey: "schemaVersion") == 2)
      // The export records the schema it is in.
      #expect(settings.exportedValues() == ["schemaVersion": 2, "text.fontSize": 14])
    }
  }

  // MARK: - One batch

  @Test func anImportIntoALayeredStoreIsOneSave() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file)
    let settings = EditorSettings(backend: store)
    let source = EditorSettings(backend: InMemoryBackend())
    fill(source)
    try settings.importValues(source.exportedValues())
    #expect(store.saveCount == 1)
    #expect(!store.hasUnsavedChanges)
    #expect(try LayeredPlistStore(persistentFile: file).dictionaryRepresentation().count == 8)
  }

  #if !canImport(Darwin)
    /// A `UserDefaultsBackend` is a `SavingBackend`: an import leaves its suite saved, in the
    /// file, when it returns, as it leaves a layered store.
    @Test func anImportIntoAUserDefaultsSuiteIsSavedWhenItReturns() throws {
      let suite = TemporarySuite()
      let backend = UserDefaultsBackend(suiteName: suite.name)
      #expect((backend as any SettingsBackend) is any SavingBackend)
      let settings = EditorSettings(backend: backend)
      let source = EditorSettings(backend: InMemoryBackend())
      fill(source)
      try settings.importValues(source.exportedValues())
      #expect(!backend.hasUnsavedChanges)
      let saved = try PropertyListFile(url: suite.fileURL).readDictionary() ?? [:]
      #expect(saved == backend.dictionaryRepresentation())
      #expect(saved.count == 8)
      withExtendedLifetime(suite) {}
    }
  #endif

  @Test(arguments: BackendFactory.all)
  func observersHearEachImportedKeyOnce(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let settings = EditorSettings(backend: backend)
      let keys = Locked<[String]>([])
      let token = backend.observe(keys: ["fontSize", "volume"]) { change in
        keys.withLock { $0.append(change.key) }
      }
      defer { token.cancel() }
      try settings.importValues(["fontSize": 14, "volume": 2])
      #expect(keys.withLock { $0.sorted() } == ["fontSize", "volume"])
    }
  }

  /// The bytes of the file behind a backend, or `nil` for one with no file of its own.
  private static func fileBytes(of backend: any SettingsBackend) throws -> Data? {
    if let store = backend as? LayeredPlistStore {
      try store.save()
      return try? Data(contentsOf: store.persistentFile.url)
    }
    if let defaults = backend as? UserDefaultsBackend, let url = defaults.fileURL {
      defaults.synchronize()
      return try? Data(contentsOf: url)
    }
    return nil
  }
}
