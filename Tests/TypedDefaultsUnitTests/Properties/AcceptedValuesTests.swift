import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

// MARK: - Fixture models

private enum Codec: String, SettingValue, CaseIterable {
  case aac, opus
}

private struct PlaybackSettings: SettingsGroup {
  @Setting("volume", default: 0.8, in: 0...1, help: "Playback volume, 0 to 1.") var volume: Double
  @Setting("retries", in: 0..., help: "Retries before giving up.") var retries = 3
  @Setting("delay", in: ...60.0) var delay = 5.0
  @Setting("language", default: "en", allowedValues: ["en", "fr"], help: "The language.")
  var language: String
  @Setting("pin", default: 1234, in: 1000...9999, secret: true) var pin: Int
  @Setting(help: "Shown once.") var welcome = true
  @Setting("codec") var codec = Codec.aac
  @Setting("note", help: "Free text.") var note: String?
}

/// A secret whose allowed values tell the secret's shape (issue 34, item 9).
private struct SecretCodeSettings: SettingsGroup {
  @Setting("code", default: "alpha-7", allowedValues: ["alpha-7", "bravo-9"], secret: true)
  var code: String
}

/// Where the fixtures are declared, as messages about their values name it.
private let playbackFile = "TypedDefaultsUnitTests/AcceptedValuesTests.swift"

/// A range that clamps, and the line it is declared on (issue 35, item 5).
private struct ClampedSettings: SettingsGroup {
  static let volumeLine = #line + 1
  @Setting("volume", default: 0.8, in: 0...1, clamping: true) var volume: Double
  @Setting("retries", in: 0...10, clamping: true) var retries = 3
  static let strictLine = #line + 1
  @Setting("strict", in: 0...1) var strict = 0.5
}

/// Help text and accepted values: declared on the setting, enforced on every write and read,
/// described by the descriptor (issue 22).
@Suite struct AcceptedValuesTests {
  @Test(arguments: BackendFactory.all)
  func aWriteOutsideTheRangeIsRefusedAndStoresNothing(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let settings = PlaybackSettings(backend: backend)
      settings.volume = 0.5
      #expect(throws: SettingsError.self) { try settings.$volume.set(1.5) }
      do throws(SettingsError) {
        try settings.$volume.set(1.5)
      } catch {
        #expect(error.code == .valueNotAllowed)
        #expect(error.key == "volume")
        #expect(
          error.description
            == "Cannot write 'volume': 1.5 is greater than the maximum, 1.0 "
            + "(Playback volume, 0 to 1.) (declared at \(playbackFile):15)")
      }
      let (_, diagnostics) = collectingDiagnostics { settings.volume = -0.1 }
      #expect(diagnostics.map(\.kind) == [.writeFailed])
      #expect(settings.volume == 0.5)
      #expect(backend.storedValue(forKey: "volume") == .real(0.5))
      // The bounds themselves are accepted.
      try settings.$volume.set(1)
      try settings.$volume.set(0)
      #expect(backend.storedValue(forKey: "volume") == .real(0))
    }
  }

  @Test(arguments: BackendFactory.all)
  func aStoredValueOutsideTheRangeReadsTheDefaultReportedOnceAndIsKept(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      let settings = PlaybackSettings(backend: backend)
      try backend.setValue(.real(7.5), forKey: "volume")
      try backend.setValue(.integer(-1), forKey: "retries")
      try backend.setValue(.string("de"), forKey: "language")
      let (values, diagnostics) = collectingDiagnostics {
        (settings.volume, settings.volume, settings.retries, settings.language)
      }
      #expect(values.0 == 0.8 && values.1 == 0.8 && values.2 == 3 && values.3 == "en")
      #expect(diagnostics.map(\.kind) == [.valueNotAllowed, .valueNotAllowed, .valueNotAllowed])
      #expect(diagnostics.map(\.key) == ["volume", "retries", "language"])
      #expect(
        diagnostics.first?.message
          == "'volume' in \(backend.name) holds a real (7.5): 7.5 is greater than the maximum, "
          + "1.0; using the default (0.8) and leaving the stored value untouched "
          + "(declared at \(playbackFile):15)")
      #expect(backend.storedValue(forKey: "volume") == .real(7.5))
      // A value inside reads as itself.
      try backend.setValue(.real(0.25), forKey: "volume")
      #expect(settings.volume == 0.25)
    }
  }

  @Test func aScalarReadWithNoLockChecksTheRangeToo() throws {
    // InMemoryBackend's Int cells are read through their atomic words (LockFreeReadTests).
    let backend = InMemoryBackend()
    let settings = PlaybackSettings(backend: backend)
    try backend.setValue(.integer(5), forKey: "retries")
    #expect(settings.retries == 5)
    try backend.setValue(.integer(-5), forKey: "retries")
    let (value, diagnostics) = collectingDiagnostics { settings.retries }
    #expect(value == 3)
    #expect(diagnostics.map(\.kind) == [.valueNotAllowed])
  }

  @Test func partialRangesAndAllowedValuesAcceptWhatTheyDeclare() throws {
    let settings = PlaybackSettings(backend: InMemoryBackend())
    try settings.$retries.set(0)
    try settings.$retries.set(Int.max)
    #expect(throws: SettingsError.self) { try settings.$retries.set(-1) }
    try settings.$delay.set(-1000)
    try settings.$delay.set(60)
    #expect(throws: SettingsError.self) { try settings.$delay.set(60.5) }
    try settings.$language.set("fr")
    #expect(throws: SettingsError.self) { try settings.$language.set("de") }
    #expect(settings.retries == Int.max && settings.delay == 60 && settings.language == "fr")
  }

  /// The library said "1.5 is not allowed: 'volume' accepts in 0.0...1.0" where the `settings`
  /// tool said "1.5 is greater than the maximum, 1.0": one function words both now (the tool's
  /// side is pinned in SettingsToolSchemaTests).
  @Test func aRefusedWriteIsWordedAsTheToolWordsIt() throws {
    let settings = PlaybackSettings(backend: InMemoryBackend())
    let refusals: [(key: String, stored: PropertyListValue, error: SettingsError?)] = [
      ("volume", 1.5, #expect(throws: SettingsError.self) { try settings.$volume.set(1.5) }),
      ("retries", -1, #expect(throws: SettingsError.self) { try settings.$retries.set(-1) }),
      ("language", "de", #expect(throws: SettingsError.self) { try settings.$language.set("de") }),
    ]
    let lines = ["volume": 15, "retries": 16, "language": 18]
    for (key, stored, error) in refusals {
      let schema = try #require(settings.schema[key])
      let help = schema.help.map { " (\($0))" } ?? ""
      let declaration = " (declared at \(playbackFile):\(lines[key] ?? 0))"
      #expect(error?.reason == (schema.problem(with: stored) ?? "accepted") + help + declaration)
    }
    #expect(
      refusals.map { $0.error?.reason } == [
        "1.5 is greater than the maximum, 1.0 (Playback volume, 0 to 1.) (declared at \(playbackFile):15)",
        "-1 is less than the minimum, 0 (Retries before giving up.) (declared at \(playbackFile):16)",
        "de is not one of the allowed values (en, fr) (The language.) (declared at \(playbackFile):18)",
      ])
  }

  @Test func aSecretsRefusedValueIsNotInTheError() throws {
    let settings = PlaybackSettings(backend: InMemoryBackend())
    do throws(SettingsError) {
      try settings.$pin.set(12)
      Issue.record("a PIN of 12 was stored")
    } catch {
      #expect(
        error.description
          == "Cannot write 'pin': the secret value is less than the minimum, 1000 "
          + "(declared at \(playbackFile):20)")
    }
    let backend = InMemoryBackend()
    let stored = PlaybackSettings(backend: backend)
    try backend.setValue(.integer(12), forKey: "pin")
    let (_, diagnostics) = collectingDiagnostics { _ = stored.pin }
    #expect(diagnostics.count == 1)
    #expect(diagnostics.allSatisfy { !$0.message.contains("12") && $0.storedValue == nil })
  }

  /// A secret's allowed values were listed in the refusal of a write, the diagnostic of a
  /// stored value outside them and the descriptor's description.
  @Test func aSecretsAllowedValuesAreListedInNoRefusalDiagnosticOrDescription() throws {
    let backend = InMemoryBackend()
    let settings = SecretCodeSettings(backend: backend)
    let refusal = #expect(throws: SettingsError.self) { try settings.$code.set("charlie-3") }
    #expect(
      refusal?.description
        == "Cannot write 'code': the secret value is not an allowed value "
        + "(declared at \(playbackFile):28)")
    try backend.setValue("charlie-3", forKey: "code")
    let (code, diagnostics) = collectingDiagnostics { settings.code }
    #expect(code == "alpha-7")
    #expect(
      diagnostics.map(\.message) == [
        "'code' in InMemoryBackend holds a string: the secret value is not an allowed value; "
          + "using the default and leaving the stored value untouched (declared at \(playbackFile):28)"
      ])
    #expect(
      settings.allSettings.first?.description
        == "code: String = <secret> (one of its secret allowed values)")
    // The schema checks them, without listing them.
    #expect(
      settings.schema.problem(with: "charlie-3", forKey: "code")
        == "the secret value is not an allowed value")
    #expect(settings.schema.problem(with: "alpha-7", forKey: "code") == nil)
  }

  @Test func theDescriptorShowsTheHelpTextAndWhatTheSettingAccepts() throws {
    let settings = PlaybackSettings(backend: InMemoryBackend())
    settings.volume = 0.5
    let lines = settings.allSettings.map(\.description)
    #expect(
      lines == [
        "volume: Double = 0.5 (in 0.0...1.0) // Playback volume, 0 to 1.",
        "retries: Int = 3 (default) (≥ 0) // Retries before giving up.",
        "delay: Double = 5.0 (default) (≤ 60.0)",
        "language: String = en (default) (one of en, fr) // The language.",
        "pin: Int = <secret> (default) (in 1000...9999)",
        "welcome: Bool = true (default) // Shown once.",
        "codec: Codec = aac (default)",
        "note: String? = nil (default) // Free text.",
      ])
    #expect(settings.$volume.help == "Playback volume, 0 to 1.")
    #expect(settings.$codec.help == nil)
    let byKey = Dictionary(uniqueKeysWithValues: settings.allSettings.map { ($0.key, $0) })
    #expect(byKey["volume"]?.minimum == .real(0) && byKey["volume"]?.maximum == .real(1))
    #expect(byKey["retries"]?.minimum == .integer(0) && byKey["retries"]?.maximum == nil)
    #expect(byKey["language"]?.allowedValues == ["en", "fr"])
    // A CaseIterable enum lists its cases, as stored.
    #expect(byKey["codec"]?.allowedValues == ["aac", "opus"])
    #expect(byKey["welcome"]?.allowedValues == nil)
  }

  @Test func aDefaultOutsideTheDeclaredRangeIsReportedWhenTheModelIsFirstBound() {
    struct Mistaken: SettingsGroup {
      @Setting("level", default: 11, in: 0...10) var level: Int
      @Setting("mode", default: "x", allowedValues: ["a", "b"]) var mode: String
      @Setting("fine", default: 5, in: 0...10) var fine: Int
    }
    let (settings, diagnostics) = collectingDiagnostics { Mistaken(backend: InMemoryBackend()) }
    #expect(
      diagnostics.map(\.message) == [
        "Mistaken.level (Int) has a default its declaration doesn't accept: 11 is greater than "
          + "the maximum, 10; the setting reads it while nothing is stored, but can't store it",
        "Mistaken.mode (String) has a default its declaration doesn't accept: x is not one of the "
          + "allowed values (a, b); the setting reads it while nothing is stored, but can't store it",
      ])
    #expect(diagnostics.map(\.kind) == [.valueNotAllowed, .valueNotAllowed])
    #expect(settings.level == 11)
  }

  @Test func aStoresExplainShowsTheHelpTextAndAValueOutsideTheRange() throws {
    let folder = try TemporaryDirectory()
    let store = try LayeredPlistStore(persistentFile: folder.file("data.plist"))
    let settings = PlaybackSettings(backend: store)
    try store.setValue(.real(3), forKey: "volume")
    try store.setValue(.string("loud"), forKey: "delay")
    #expect(settings.volume == 0.8)
    let volume = store.explain("volume")
    #expect(volume.help == "Playback volume, 0 to 1.")
    #expect(volume.source == nil && volume.unreadableLayer == .persistent)
    #expect(
      volume.description == """
        volume   // Playback volume, 0 to 1.
          runtime     -
          persistent  3.0   <- not allowed (Double accepts in 0.0...1.0): reads as the default
          delivered   (no file)
          bundled     (no file)
        """)
    // A value of the wrong type keeps its mark.
    #expect(store.explain("delay").description.contains("<- unreadable as Double"))
    #expect(store.explain("welcome").help == "Shown once.")
    #expect(store.explain("codec").help == nil)
  }

  @Test func aSettingDeclaredWithoutThemHasNoAnnotations() {
    let settings = AllTypesSettings(backend: InMemoryBackend())
    #expect(settings.allSettings.allSatisfy { $0.help == nil && $0.minimum == nil })
    #expect(settings.$int.storage.annotations == nil)
  }

  @Test func aRefusedAssignmentNamesTheDeclarationsFileAndLine() {
    let settings = ClampedSettings(backend: InMemoryBackend())
    let (_, diagnostics) = collectingDiagnostics { settings.strict = 1.5 }
    #expect(settings.strict == 0.5)
    #expect(diagnostics.map(\.kind) == [.writeFailed])
    let declaration =
      "(declared at TypedDefaultsUnitTests/AcceptedValuesTests.swift:\(ClampedSettings.strictLine))"
    #expect(diagnostics.first?.message.hasSuffix(declaration) == true, "\(diagnostics)")
    #expect(throws: SettingsError.self) { try settings.$strict.set(2) }
    do {
      try settings.$strict.set(2)
    } catch {
      #expect(error.reason.hasSuffix(declaration), "\(error.reason)")
    }
  }

  /// An update replaced a stored value the setting couldn't read (wrong type, out of range)
  /// without a word: it starts from the default, as a read does, and reports what it replaced.
  @Test(arguments: BackendFactory.all)
  func anUpdateThatReplacesAnUnreadableStoredValueReportsIt(_ factory: BackendFactory) async throws
  {
    try await factory.withBackend { backend in
      let settings = ClampedSettings(backend: backend)
      try backend.setValue("forty-one", forKey: "retries")
      try backend.setValue(.real(7), forKey: "strict")
      let (_, diagnostics) = collectingDiagnostics {
        try? settings.$retries.update { $0 += 1 }
        try? settings.$strict.update { $0 /= 2 }
        // A value outside a clamping range starts from its nearest bound, as a read gives it.
        try? backend.setValue(.integer(-5), forKey: "retries")
        try? settings.$retries.update { $0 += 1 }
      }
      #expect(backend.value(forKey: "retries") == .integer(1))
      #expect(backend.value(forKey: "strict") == .real(0.25))
      #expect(diagnostics.map(\.kind) == [.typeMismatch, .valueNotAllowed])
      #expect(
        diagnostics.map(\.message) == [
          "'retries' in \(backend.name) holds a string (forty-one) that can't be read as Int; "
            + "the update started from the default (3) and replaced it "
            + "(declared at \(playbackFile):\(ClampedSettings.volumeLine + 1))",
          "'strict' in \(backend.name) holds a real (7.0): 7.0 is greater than the maximum, 1.0; "
            + "the update started from the default (0.5) and replaced it "
            + "(declared at \(playbackFile):\(ClampedSettings.strictLine))",
        ])
    }
  }

  @Test(arguments: BackendFactory.all)
  func aClampingRangeStoresAndReadsTheNearestBound(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let settings = ClampedSettings(backend: backend)
      let (_, diagnostics) = collectingDiagnostics {
        settings.volume = 1.5
        #expect(settings.volume == 1)
        #expect(settings.$volume.storedValue == .real(1))
        settings.volume = -3
        #expect(settings.volume == 0)
        settings.retries = 99
        #expect(settings.retries == 10)
        // A value outside, stored by someone else, reads as the nearest bound too.
        try? backend.setValue(.integer(-5), forKey: "retries")
        #expect(settings.retries == 0)
        #expect(backend.value(forKey: "retries") == .integer(-5))
      }
      #expect(diagnostics.isEmpty, "\(diagnostics)")
      // NaN is in no range and has no nearest bound: still refused.
      #expect(throws: SettingsError.self) { try settings.$volume.set(.nan) }
      #expect(settings.volume == 0)
    }
  }
}
