import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// MARK: - Fixture models

/// Version 2 of a model whose version 1 stored `fontSize = 14` at the top level.
private struct TextSettings: SettingsGroup, MigratableSettings {
  @Setting("text.fontSize", default: 12) var fontSize: Int
  static let migrations = SettingsMigrations(
    versionKey: "text.schemaVersion", steps: [.renameKey("fontSize", to: "text.fontSize")])
}

/// H38: a Bool setting that became a three-way enum on the same key.
enum NoticeMode: Int, SettingValue {
  case auto = 0, all = 1, none = -1
}

private struct NoticeSettings: SettingsGroup, MigratableSettings {
  @Setting("showNotices", default: .auto) var showNotices: NoticeMode
  static let migrations = SettingsMigrations(
    versionKey: "notices.schemaVersion",
    steps: [
      .convertValue(forKey: "showNotices", from: Bool.self, to: NoticeMode.self) {
        $0 ? .all : .none
      }
    ])
}

/// Type changes: Int seconds to Double, String to an enum.
private struct NetworkSettings: SettingsGroup, MigratableSettings {
  @Setting var timeout = 30.0
  @Setting var quality = Quality.auto
  static let migrations = SettingsMigrations(
    versionKey: "network.schemaVersion",
    steps: [
      .convertValue(forKey: "timeout", from: Int.self, to: Double.self) { Double($0) },
      .convertValue(forKey: "quality", from: String.self, to: Quality.self) {
        Quality(rawValue: $0.lowercased()) ?? .auto
      },
    ])
}

/// H35: a library's legacy keys moved into its prefix, by a fixed list.
private struct SDKSettings: SettingsGroup, MigratableSettings {
  @Setting("com.example.sdk.userId", default: "") var userId: String
  @Setting("com.example.sdk.sessionId", default: "") var sessionId: String
  static let migrations = SettingsMigrations(
    versionKey: "com.example.sdk.schemaVersion",
    steps: [.moveKeys(["userId", "sessionId"], toPrefix: "com.example.sdk.")])
}

/// H40: version 2 knows `a` and `b`; version 1 knows `a` only.
private struct DocumentV2: SettingsGroup, MigratableSettings {
  @Setting var a = 0
  @Setting var b = 0
  static let migrations = SettingsMigrations(
    versionKey: "schemaVersion", steps: [.removeKey("old1"), .removeKey("old2")])
}

private struct DocumentV1: SettingsGroup, MigratableSettings {
  @Setting var a = 0
  static let migrations = SettingsMigrations(
    versionKey: "schemaVersion", steps: [.removeKey("old1")])
}

/// A stored Codable value that gained a field with no default in its decoding.
private struct ItemV1: Codable, SettingValue, Equatable { var a: String }
private struct ItemV2: Codable, SettingValue, Equatable {
  var a: String
  var b: String
}

private struct ItemSettings: SettingsGroup {
  @Setting var item = ItemV2(a: "", b: "standard")
}

private struct MigratedItemSettings: SettingsGroup, MigratableSettings {
  @Setting var item = ItemV2(a: "", b: "standard")
  static let migrations = SettingsMigrations(
    versionKey: "item.schemaVersion",
    steps: [
      .transformValue(forKey: "item") { old in
        guard case .dictionary(var fields) = old, fields["b"] == nil else { return old }
        fields["b"] = "standard"
        return .dictionary(fields)
      }
    ])
}

/// The rename in a model class, migrated through an instance.
private final class TextModel: SettingsModel, MigratableSettings, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting.
  @Setting("text.fontSize", default: 12) var fontSize: Int
  static let migrations = TextSettings.migrations
}

private struct Interrupted: Error, CustomStringConvertible {
  var description: String { "interrupted" }
}

private struct ResumableSettings: SettingsGroup, MigratableSettings {
  @Setting var b = 0
  @Setting var c = 0.0
  static let migrations = SettingsMigrations(
    versionKey: "resumable.schemaVersion",
    steps: [
      .renameKey("a", to: "b"),
      // Fails while the backend holds `interrupt`: a crash halfway.
      SettingsMigration("fail once") { values in
        if values["interrupt"] != nil { throw Interrupted() }
      },
      .convertValue(forKey: "seconds", from: Int.self, to: Double.self) { Double($0) },
      .renameKey("seconds", to: "c"),
    ])
}

/// Migrations: ordered steps, once per backend, recorded under a version key, resumable, safe
/// between processes (H38, H40).
@Suite struct MigrationTests {
  // MARK: - Renaming

  @Test(arguments: BackendFactory.all)
  func aRenamedKeyReadsItsOldValueKeepsANewOneAndTheOldKeyIsGone(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withInstance { instance in
      let backend = instance.backend
      try backend.setValue(14, forKey: "fontSize")
      let outcome = try TextSettings.migrate(backend)
      #expect(outcome == .init(previousVersion: 0, version: 1, appliedSteps: 1))
      let settings = TextSettings(backend: backend)
      #expect(settings.fontSize == 14)
      #expect(backend.value(forKey: "fontSize") == nil)
      settings.fontSize = 16
      let reloaded = try instance.reload()
      #expect(reloaded.value(forKey: "text.fontSize") == 16)
      #expect(reloaded.value(forKey: "fontSize") == nil)
      #expect(reloaded.value(forKey: "text.schemaVersion") == 1)
      // A v1 downgrade writes `fontSize` again: it can't shadow the new key, and nothing reruns.
      try backend.setValue(10, forKey: "fontSize")
      #expect(try TextSettings.migrate(backend).appliedSteps == 0)
      #expect(settings.fontSize == 16)
    }
  }

  @Test func aRenameReportsTheOldKeyItCantChangeInAReadOnlyFile() throws {
    let directory = try TemporaryDirectory()
    let delivered = directory.file("JF-info.plist")
    let bundled = directory.file("Info.plist")
    // An older deployment file, still using the old key; the bundled file already renamed.
    try PropertyListFile(url: delivered).write(["fontSize": 14, "kit.userId": "x"])
    try PropertyListFile(url: bundled).write(["fontSize": 11, "text.fontSize": 12])
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), deliveredFile: delivered,
      bundledFile: bundled, options: .init(savesAtExit: false))
    let migrations = SettingsMigrations(
      versionKey: "schemaVersion",
      steps: [.renameKey("fontSize", to: "text.fontSize"), .moveKeys(["userId"], toPrefix: "sdk.")])
    let (outcome, diagnostics) = try collectingDiagnostics {
      try migrations.run(on: store.scoped(to: "kit."))
    }
    #expect(outcome.appliedSteps == 2)
    #expect(
      diagnostics.map(\.message) == [
        "Step 2 of 2 (move 'userId' to 'sdk.') can't change the delivered file '\(delivered.path)', "
          + "which is read-only: its value for 'kit.userId' is no longer read, since the setting "
          + "reads 'kit.sdk.userId'; rename the key in that file"
      ])
    // On the store itself: the delivered file's old key is reported, the bundled file's is not
    // (it holds the new key too).
    let (_, unscoped) = try collectingDiagnostics { try migrations.run(on: store) }
    #expect(unscoped.map(\.kind) == [.readOnlyKeyNotMigrated])
    #expect(unscoped.map(\.key) == ["fontSize"])
    // Once migrated, a later run reports nothing.
    let (_, again) = try collectingDiagnostics { try migrations.run(on: store) }
    #expect(again.isEmpty)
  }

  @Test func aModelClassMigratesItsOwnBackend() throws {
    let model = TextModel(backend: InMemoryBackend(["fontSize": 14]))
    #expect(model.fontSize == 12)
    #expect(try model.migrate().appliedSteps == 1)
    #expect(model.fontSize == 14)
    #expect(try model.migrate().appliedSteps == 0)
  }

  @Test func theRenameGivesTheSameResultOverAHundredRunsInShuffledStorageOrder() throws {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<100 {
      let directory = try TemporaryDirectory()
      let file = directory.file("data.plist")
      var entries: [(String, PropertyListValue)] = [("fontSize", 14)]
      entries += (0..<20).map { ("other.\($0)", PropertyListValue.integer(.init(Int64($0)))) }
      let store = try LayeredPlistStore(persistentFile: file)
      for (key, value) in entries.shuffled(using: &generator) {
        try store.setValue(value, forKey: key)
      }
      try store.save()
      let reopened = try LayeredPlistStore(persistentFile: file)
      try TextSettings.migrate(reopened)
      let settings = TextSettings(backend: reopened)
      #expect(settings.fontSize == 14)
      settings.fontSize = 16
      try reopened.save()
      let again = try LayeredPlistStore(persistentFile: file)
      #expect(TextSettings(backend: again).fontSize == 16)
      #expect(again.value(forKey: "fontSize") == nil)
      #expect(again.dictionaryRepresentation().count == 22)
    }
  }

  @Test(arguments: BackendFactory.all)
  func whenTheOldAndTheNewKeyBothExistTheNewKeysValueWinsAndTheOldKeyIsRemoved(
    _ factory: BackendFactory
  ) async throws {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<(factory.name == "UserDefaultsBackend" ? 10 : 100) {
      try await factory.withBackend { backend in
        for (key, value) in [("fontSize", 14), ("text.fontSize", 18)].shuffled(using: &generator) {
          try backend.setValue(.integer(.init(Int64(value))), forKey: key)
        }
        try TextSettings.migrate(backend)
        #expect(backend.value(forKey: "text.fontSize") == 18)
        #expect(backend.value(forKey: "fontSize") == nil)
      }
    }
  }

  // MARK: - Once, in order, resumable

  @Test(arguments: BackendFactory.all)
  func runningAgainIsANoOpAndAStepThatThrowsLeavesAStateTheNextRunCompletes(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      try backend.setValues(["a": 1, "seconds": 90, "interrupt": true])
      #expect {
        try ResumableSettings.migrate(backend)
      } throws: { error in
        let error = error as? SettingsError
        return error?.code == .migrationFailed
          && error?.reason.contains("Step 2 of 4 (fail once) failed") == true
          && error?.reason.contains("interrupted") == true
      }
      // Step 1 is applied and recorded; steps 2 to 4 are not.
      #expect(backend.value(forKey: "resumable.schemaVersion") == 1)
      #expect(backend.value(forKey: "b") == 1)
      #expect(backend.value(forKey: "a") == nil)
      #expect(backend.value(forKey: "seconds") == 90)

      backend.removeValue(forKey: "interrupt")
      let outcome = try ResumableSettings.migrate(backend)
      #expect(outcome == .init(previousVersion: 1, version: 4, appliedSteps: 3))
      let settings = ResumableSettings(backend: backend)
      #expect(settings.b == 1)
      #expect(settings.c == 90.0)
      #expect(backend.value(forKey: "c") == .real(90))
      let before = backend.dictionaryRepresentation()
      #expect(try ResumableSettings.migrate(backend).appliedSteps == 0)
      #expect(backend.dictionaryRepresentation() == before)
    }
  }

  @Test func aVersionThatIsNotAnIntegerStopsTheMigrationBeforeAnyStep() throws {
    let backend = InMemoryBackend(["text.schemaVersion": "two", "fontSize": 14])
    #expect {
      try TextSettings.migrate(backend)
    } throws: { ($0 as? SettingsError)?.code == .migrationFailed }
    #expect(backend.value(forKey: "fontSize") == 14)
  }

  // MARK: - Type changes (H38)

  @Test(arguments: BackendFactory.all)
  func aBoolThatBecameAnEnumReadsAsTheDeclaredConversion(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      try backend.setValue(false, forKey: "showNotices")
      try NoticeSettings.migrate(backend)
      #expect(NoticeSettings(backend: backend).showNotices == NoticeMode.none)
      #expect(backend.value(forKey: "showNotices") == -1)
    }
    try await factory.withBackend { backend in
      try backend.setValue(true, forKey: "showNotices")
      try NoticeSettings.migrate(backend)
      #expect(NoticeSettings(backend: backend).showNotices == .all)
    }
    try await factory.withBackend { backend in
      try NoticeSettings.migrate(backend)
      #expect(NoticeSettings(backend: backend).showNotices == .auto)
      #expect(backend.value(forKey: "showNotices") == nil)  // nothing written for an unset key
      // An enum value stored after the migration is not taken for a Bool: 0 stays .auto.
      try backend.setValue(0, forKey: "showNotices")
      try backend.setValue(nil, forKey: "notices.schemaVersion")
      try NoticeSettings.migrate(backend)
      #expect(backend.value(forKey: "showNotices") == 0)
    }
  }

  @Test(arguments: BackendFactory.all)
  func withoutTheMigrationAStoredBoolIsNotSilentlyReadAsAnIntEnumCase(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      try backend.setValue(false, forKey: "showNotices")
      let (value, diagnostics) = collectingDiagnostics {
        // v2's setting without the migration: `false` must not pass for `.auto` (raw value 0).
        NoticeSettings(backend: backend).showNotices
      }
      #expect(value == .auto)
      #expect(diagnostics.map(\.kind) == [.typeMismatch])
      #expect(diagnostics.first?.message.contains("a bool is never a raw value") == true)
      #expect(backend.value(forKey: "showNotices") == false)  // untouched
    }
  }

  @Test(arguments: BackendFactory.all)
  func intSecondsBecomeADoubleAndAStringBecomesAnEnum(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      try backend.setValues(["timeout": 45, "quality": "HIGH"])
      try NetworkSettings.migrate(backend)
      let settings = NetworkSettings(backend: backend)
      #expect(settings.timeout == 45.0)
      #expect(backend.value(forKey: "timeout") == .real(45))
      #expect(settings.quality == .high)
      #expect(backend.value(forKey: "quality") == "high")
    }
  }

  @Test(arguments: BackendFactory.all)
  func movingKeysIntoAPrefixTouchesOnlyTheListedKeys(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      try backend.setValues([
        "userId": "u1", "sessionId": "s1", "userIdHistory": ["u0"], "kUserId": "host",
      ])
      try SDKSettings.migrate(backend)
      #expect(
        backend.dictionaryRepresentation() == [
          "com.example.sdk.userId": "u1", "com.example.sdk.sessionId": "s1",
          "userIdHistory": ["u0"], "kUserId": "host", "com.example.sdk.schemaVersion": 1,
        ])
      #expect(SDKSettings(backend: backend).userId == "u1")
    }
  }

  // MARK: - Codable fields (H38's rule for stored structs)

  @Test(arguments: BackendFactory.all)
  func aStoredStructMissingANewFieldReadsTheDefaultUntilAStepFillsIt(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withBackend { backend in
      try backend.setValue(try ItemV1(a: "old").propertyListValue(), forKey: "item")
      let stored = backend.value(forKey: "item")
      let (value, diagnostics) = collectingDiagnostics { ItemSettings(backend: backend).item }
      #expect(value == ItemV2(a: "", b: "standard"))
      #expect(diagnostics.map(\.kind) == [.typeMismatch])
      #expect(backend.value(forKey: "item") == stored)  // untouched

      try MigratedItemSettings.migrate(backend)
      #expect(MigratedItemSettings(backend: backend).item == ItemV2(a: "old", b: "standard"))
    }
  }

  // MARK: - Downgrades (H40)

  @Test(arguments: [BackendFactory.layeredPlistStore, .userDefaults])
  func anOlderVersionRunsNoMigrationNeverLowersTheVersionAndKeepsWhatItDoesntKnow(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withInstance { instance in
      let backend = instance.backend
      try DocumentV2.migrate(backend)
      let v2 = DocumentV2(backend: backend)
      v2.a = 1
      v2.b = 2
      let reopened = try instance.reload()
      #expect(reopened.value(forKey: "schemaVersion") == 2)

      let outcome = try DocumentV1.migrate(backend)
      #expect(outcome == .init(previousVersion: 2, version: 2, appliedSteps: 0))
      let v1 = DocumentV1(backend: backend)
      #expect(v1.a == 1)
      v1.a = 3
      let afterV1 = try instance.reload()
      #expect(afterV1.value(forKey: "a") == 3)
      #expect(afterV1.value(forKey: "b") == 2)
      #expect(afterV1.value(forKey: "schemaVersion") == 2)
      #expect(try DocumentV2.migrate(backend).appliedSteps == 0)
      #expect(DocumentV2(backend: backend).b == 2)
    }
  }

  // MARK: - Several processes

  @Test(arguments: ["layered", "userdefaults"])
  func processesRunningTheSameMigrationApplyEachStepOnce(_ kind: String) throws {
    #if canImport(Darwin)
      if kind == "userdefaults" { return }  // no lock between processes there (documented)
    #endif
    for _ in 0..<5 {
      let directory = try TemporaryDirectory()
      let suite = TemporarySuite()
      let location: String
      if kind == "layered" {
        location = directory.file("data.plist").path
        let store = try LayeredPlistStore(persistentFile: directory.file("data.plist"))
        try store.setValue(0, forKey: "counter")
        try store.save()
      } else {
        location = suite.name
        try suite.backend.setValue(0, forKey: "counter")
        try suite.backend.save()
      }
      let outputs = Self.runConcurrently(4, ["\(kind)", location, "migrate-count", "go"])
      #expect(
        outputs.compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
          .reduce(0, +) == 3, "\(outputs)")
      let saved: [String: PropertyListValue]?
      if kind == "layered" {
        saved = try PropertyListFile(url: directory.file("data.plist")).readDictionary()
      } else {
        saved = try PropertyListFile(url: suite.fileURL).readDictionary()
      }
      #expect(saved?["counter"] == 3)
      #expect(saved?["probe.schemaVersion"] == 3)
    }
  }

  /// Runs `count` SettingsProbe processes at once; returns what each printed.
  private static func runConcurrently(_ count: Int, _ arguments: [String]) -> [String] {
    let executable = TestPaths.productsDirectory.appendingPathComponent("SettingsProbe").path
    let outputs = Locked([String](repeating: "", count: count))
    DispatchQueue.concurrentPerform(iterations: count) { index in
      let output = FileManager.default.temporaryDirectory
        .appendingPathComponent("MigrationTests-\(UUID().uuidString).out")
      let descriptor = open(output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
      defer { try? FileManager.default.removeItem(at: output) }
      let outcome = ChildProcess.run(
        executable, arguments, environment: ProcessInfo.processInfo.environment,
        standardOutput: descriptor, timeout: 60)
      close(descriptor)
      let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
      outputs.withLock { $0[index] = outcome == .exited(0) ? text : "\(outcome)" }
    }
    return outputs.withLock { $0 }
  }
}
