import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

// MARK: - A library's model and its host's

/// What a library ships: its settings under its own prefix, on whatever backend its host gives.
private final class SDKSettings: SettingsModel, @unchecked Sendable {
  override class var keyPrefix: String { "com.example.sdk." }
  @Setting("userId") var userId = ""
  @Setting var volume = 0.8
  var playback = SDKPlaybackSettings()
}

private struct SDKPlaybackSettings: SettingsGroup {
  @Setting var autoplay = true
}

/// The host app's own model, unprefixed, declaring the same keys.
private final class HostSettings: SettingsModel, @unchecked Sendable {
  @Setting("userId") var userId = ""
  @Setting var volume = 0.5
  @Setting var userIdHistory: [String] = []
}

private struct CollidingHostSettings: SettingsGroup {
  @Setting("com.example.sdk.volume") var volume = "loud"
}

/// Field cases from library authors (H35, H36, H37 in the shared field cases).
@Suite(.tags(.regression)) struct LibrarySettingsTests {
  // MARK: - H35: a library's keys collide with the host app's keys

  @Test(arguments: BackendFactory.all)
  func aLibraryModelAndAnAppModelDeclaringVolumeOnOneBackendStoreTwoKeys(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      let library = SDKSettings(backend: backend)
      let app = HostSettings(backend: backend)
      library.volume = 0.1
      app.volume = 0.9
      #expect(library.$volume.key == "com.example.sdk.volume")
      #expect(app.$volume.key == "volume")
      #expect(backend.value(forKey: "com.example.sdk.volume") == 0.1)
      #expect(backend.value(forKey: "volume") == 0.9)

      library.resetAll()
      #expect(app.volume == 0.9)
      #expect(library.volume == 0.8)
      library.volume = 0.2
      app.resetAll()
      #expect(library.volume == 0.2)
      #expect(backend.value(forKey: "volume") == nil)
    }
  }

  @Test(arguments: BackendFactory.all)
  func aHostWritingItsUserIdNeverChangesTheLibrarysAndResetsLeaveTheOthersKeys(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      let library = SDKSettings(backend: backend)
      let host = HostSettings(backend: backend)
      host.userId = "host-user"
      #expect(library.userId == "")
      library.userId = "sdk-user"
      host.userIdHistory = ["a"]
      #expect(host.userId == "host-user")
      #expect(
        Set(backend.keys) == ["userId", "userIdHistory", "com.example.sdk.userId"])

      host.resetAll()
      #expect(backend.dictionaryRepresentation() == ["com.example.sdk.userId": "sdk-user"])
      host.userId = "again"
      library.resetAll()
      #expect(backend.dictionaryRepresentation() == ["userId": "again"])
    }
  }

  #if DEBUG
    @Test func twoModelsStoringOneKeyAsDifferentTypesAreReportedOnceNamingBothProperties() {
      let (_, diagnostics) = collectingDiagnostics {
        let backend = InMemoryBackend()
        _ = SDKSettings(backend: backend)
        _ = CollidingHostSettings(backend: backend)
        _ = CollidingHostSettings(backend: backend)
      }
      #expect(diagnostics.map(\.kind) == [.keyCollision])
      #expect(diagnostics.first?.key == "com.example.sdk.volume")
      #expect(
        diagnostics.first?.message
          == "CollidingHostSettings.volume (String) and SDKSettings.volume (Double) are both "
          + "stored under the key 'com.example.sdk.volume' in InMemoryBackend; each reads the "
          + "other's value as the wrong type")
    }
  #endif

  // MARK: - H36: the backend the host passes in is used everywhere

  @Test func everyReadAndWriteOfALibrarysModelGoesToTheBackendItsHostPassed() async throws {
    let backend = KeyRecordingBackend()
    let library = SDKSettings(backend: backend)
    library.volume = 0.3
    _ = library.playback.autoplay
    library.$volume.reset()
    _ = library.snapshot()
    _ = library.allSettings.map(\.description)
    let token = library.$userId.observe { _ in }
    library.userId = "u"
    token.cancel()
    var values = library.$volume.changes(initial: true).makeAsyncIterator()
    _ = await values.next()
    library.resetAll()
    let keys = Set(backend.calls.compactMap { $0.split(separator: " ").last.map(String.init) })
    #expect(
      keys == [
        "com.example.sdk.userId", "com.example.sdk.volume", "com.example.sdk.playback.autoplay",
      ])
  }

  @Test func aModelOnASuiteTheHostPassedLeavesTheStandardDefaultsUntouched() throws {
    let suite = TemporarySuite()
    let standardBefore = UserDefaultsBackend.standard.dictionaryRepresentation()
    let library = SDKSettings(backend: suite.backend)
    let scoped = HostSettings(backend: suite.backend.scoped(to: "host."))
    library.volume = 0.3
    library.playback.autoplay = false
    scoped.userIdHistory = ["x"]
    _ = library.snapshot()
    library.$userId.reset()
    let token = library.$volume.observe { _ in }
    library.volume = 0.4
    token.cancel()
    suite.backend.synchronize()
    let standardAfter = UserDefaultsBackend.standard.dictionaryRepresentation()
    for key in [
      "com.example.sdk.volume", "com.example.sdk.playback.autoplay", "host.userIdHistory",
    ] {
      #expect(standardAfter[key] == standardBefore[key])
    }
    #expect(
      suite.backend.dictionaryRepresentation() == [
        "com.example.sdk.volume": 0.4, "com.example.sdk.playback.autoplay": false,
        "host.userIdHistory": ["x"],
      ])
  }

  // MARK: - H37: a library's storage location and reset scope follow the host

  @Test func twoHostsGivingTheLibraryTheirOwnSuitesNeverShareItsSettings() {
    let first = TemporarySuite()
    let second = TemporarySuite()
    let inFirst = SDKSettings(backend: first.backend)
    let inSecond = SDKSettings(backend: second.backend)
    inFirst.volume = 0.1
    #expect(inSecond.volume == 0.8)
    #expect(second.backend.keys.isEmpty)
  }

  @Test func twoHostsNamingOneSharedSuiteBothSeeTheLibrarysWrites() {
    let shared = TemporarySuite()
    let inFirst = SDKSettings(backend: UserDefaultsBackend(suiteName: shared.name))
    let inSecond = SDKSettings(backend: shared.backend)
    inFirst.volume = 0.1
    (inFirst.backend as? UserDefaultsBackend)?.synchronize()
    try? shared.backend.reload()
    #expect(inSecond.volume == 0.1)
  }

  @Test(arguments: [BackendFactory.userDefaults, .layeredPlistStore])
  func aHostsResetAllLeavesItsLibrarysSettingsAndTheLibrarysLeavesTheHosts(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withInstance { instance in
      let library = SDKSettings(backend: instance.backend)
      let host = HostSettings(backend: instance.backend)
      library.userId = "sdk"
      library.playback.autoplay = false
      host.userId = "host"
      host.resetAll()
      let reloaded = try instance.reload()
      #expect(
        reloaded.dictionaryRepresentation() == [
          "com.example.sdk.userId": "sdk", "com.example.sdk.playback.autoplay": false,
        ])
      host.userId = "host"
      library.resetAll()
      #expect(try instance.reload().dictionaryRepresentation() == ["userId": "host"])
    }
  }
}

// MARK: - Checks of a model's declaration, in every build

/// A library's prefix missing its final separator (issue 17, item 13).
private struct KitSettings: SettingsGroup {
  static let keyPrefix = "com.example.kit"
  @Setting var volume = 0.5
}

/// The same with its separator.
private struct SeparatedKitSettings: SettingsGroup {
  static let keyPrefix = "com.example.kit-"
  @Setting var volume = 0.5
}

@Suite struct ModelDeclarationChecksTests {
  @Test func aKeyPrefixWithoutASeparatorIsReportedOncePerModelType() throws {
    let backend = InMemoryBackend()
    let (_, diagnostics) = collectingDiagnostics {
      let kit = KitSettings(backend: backend)
      kit.volume = 0.7
      _ = KitSettings(backend: backend)
      _ = SeparatedKitSettings(backend: InMemoryBackend())
    }
    #expect(backend.value(forKey: "com.example.kitvolume") == 0.7)
    #expect(
      diagnostics.map(\.message) == [
        "KitSettings's key prefix 'com.example.kit' doesn't end in a separator, so it runs into "
          + "its keys (com.example.kitvolume); end it with '.', as in 'com.example.kit.'"
      ])
    #expect(diagnostics.map(\.kind) == [.invalidKey])
  }

  /// The probe as the tests build it (debug), and, once built with
  /// `swift build -c release --product SettingsProbe`, its release build: the one that shows
  /// whether a check and its message survive `-O`.
  static let probes: [URL] = {
    let debug = TestPaths.productsDirectory.appendingPathComponent("SettingsProbe")
    let release = TestPaths.productsDirectory.deletingLastPathComponent()
      .appendingPathComponent("release/SettingsProbe")
    return FileManager.default.isExecutableFile(atPath: release.path) ? [debug, release] : [debug]
  }()

  /// Runs the probe's `programmer-error` mode, which must stop the program with `message`.
  func expectStop(_ mode: String, saying message: String, probe: URL) throws {
    let run = try runExecutable(probe, ["programmer-error", mode])
    let standardError = String(decoding: run.standardError, as: UTF8.self)
    #expect(run.status != 0)
    #expect(run.standardOutput.isEmpty)
    #expect(standardError.contains("Fatal error: \(message)"), "\(standardError.prefix(400))")
  }

  @Test(arguments: probes)
  func twoSettingsUnderOneKeyStopTheProgramSayingWhich(probe: URL) throws {
    try expectStop(
      "duplicate-key",
      saying: "TwoSettingsOneKey.volume and TwoSettingsOneKey.loudness are both stored under the "
        + "key 'volume'; give one of them a different key", probe: probe)
  }

  @Test(arguments: probes)
  func readingAGroupNeverAttachedStopsTheProgramSayingWhy(probe: URL) throws {
    try expectStop(
      "unattached",
      saying: "The @Setting 'volume' of type Double is not attached to a backend. Declare it in a "
        + "SettingsModel subclass, in a SettingsGroup created with init(backend:), or with an "
        + "explicit backend: @Setting(\"key\", default: …, backend: …)", probe: probe)
  }
}
