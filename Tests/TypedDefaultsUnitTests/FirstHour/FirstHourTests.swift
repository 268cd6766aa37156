import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport
import TypedDefaultsTesting

@testable import TypedDefaults

#if canImport(Observation)
  import Observation
#endif

/// A model an app shares, read in the tests through each test's backend.
private final class FirstHourAppSettings: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting.
  @Setting var launches = 0
  static let shared = FirstHourAppSettings(backend: InMemoryBackend(name: "the app's own"))
}

/// An app's settings as a struct, shared as a `static let`, as Getting Started suggests.
private struct FirstHourGroupSettings: SettingsGroup {
  @Setting var volume = 8
  static let shared = FirstHourGroupSettings(backend: InMemoryBackend(name: "the group's own"))
}

/// A model with a secret, bound to a store.
private struct FirstHourAccount: SettingsGroup {
  @Setting("apiToken", default: "", secret: true) var apiToken: String
  @Setting var userName = "guest"
}

/// A setting many tasks write at once.
private struct FirstHourCounter: SettingsGroup {
  @Setting var count = -1
}

/// Collects integers thread-safely.
private final class Collected: Sendable {
  private let values = Locked<[Int]>([])
  var all: [Int] { values.withLock { $0 } }
  func append(_ value: Int) { values.withLock { $0.append(value) } }
}

/// The paths a new user takes in the first hour, as the README and the articles show them, each
/// in a new process with a fresh home where it matters.
@Suite(.tags(.breakIt)) struct FirstHourTests {
  /// A fresh home whose config and data folders don't exist yet.
  final class FreshHome: Sendable {
    let home: TemporaryDirectory
    let environment: [String: String]

    init() throws {
      home = try TemporaryDirectory()
      environment = [
        "HOME": home.url.path,
        "XDG_CONFIG_HOME": home.file("config").path,
        "XDG_DATA_HOME": home.file("data").path,
      ]
    }

    func probe(_ arguments: [String]) throws -> ProcessResult {
      try runProduct("SettingsProbe", arguments, environment: environment)
    }

    func settings(_ arguments: [String]) throws -> ProcessResult {
      try runProduct("settings", arguments, environment: environment)
    }
  }

  // MARK: - UserDefaultsBackend.standard

  /// Code migrating from raw `UserDefaults` mixes both on the standard domain: a raw removal or
  /// write is seen by the setting at once, and the setting's write by raw reads, as on Apple.
  @Test func theStandardDomainSeesRawUserDefaultsWritesAndRemovalsAtOnce() throws {
    let place = try FreshHome()
    let run = try place.probe(["first-hour", "standard-mixed"])
    #expect(run.status == 0, "\(run.standardError)")
    #expect(
      run.standardOutput
        == "set 2\nraw remove 0 stored false\nraw set 5 stored true\nraw reads 7\n")
  }

  /// A raw registration is read, a model's later registration of its own defaults replaces it
  /// (as `register(defaults:)` does on Apple), and neither it nor a `-volume 3` launch argument
  /// counts as stored or is exported as changed.
  @Test func onTheStandardDomainRegistrationsAndLaunchArgumentsAreNotStoredNorExported() throws {
    let place = try FreshHome()
    let run = try place.probe(["first-hour", "standard-stored", "-volume", "3"])
    #expect(run.status == 0, "\(run.standardError)")
    #expect(
      run.standardOutput
        == "raw registration reads true\nstored false\nstored false\nreads 3.0 false 1.0\n"
        + "exports []\n")
  }

  /// A `-volume 3` launch argument over a stored 0.5: the setting reads 3 and counts as stored
  /// (it is), and a changed-only export holds the stored 0.5, never the argument.
  @Test func aLaunchArgumentOverAStoredValueIsReadButTheStoredValueIsExported() throws {
    let place = try FreshHome()
    let run = try place.probe(["first-hour", "argument-over-stored", "-volume", "3"])
    #expect(run.status == 0, "\(run.standardError)")
    #expect(
      run.standardOutput
        == "reads 3.0 stored true\nexports [(key: \"volume\", value: 0.5)]\nsnapshot 3.0\n")
  }

  /// The Getting Started article's code, run in order on a suite in a fresh home, prints what
  /// the article says it prints.
  @Test func theGettingStartedArticlesCodeDoesWhatItSays() throws {
    let place = try FreshHome()
    let run = try place.probe(["first-hour", "getting-started"])
    #expect(run.status == 0, "\(run.standardError)")
    #expect(
      run.standardOutput == """
        key volume default 0.8
        stored true
        allowsCellularPlayback: Bool = false (default)
        volume: Double = 0.5
        quality: FirstHourQuality = auto (default)
        recentSearches: [String] = ["jazz"]
        lastPlayed: Date? = nil (default)
        snapshot [(key: "allowsCellularPlayback", value: false), (key: "quality", value: auto), \
        (key: "recentSearches", value: (jazz)), (key: "volume", value: 0.5)]
        after reset 0.8 stored false
        after resetAll [] auto

        """)
  }

  // MARK: - The settings tool and an app's store

  /// The app ran and opened its store in `StandardLocation.data` for its identifier, but has
  /// saved nothing yet (so its folder doesn't exist: the first save creates it), and has no
  /// read-only layers: the bare name names no store yet, and `--store layered` reaches the store
  /// the app reads.
  @Test func theToolWritesWithStoreLayeredToTheStoreAnAppOpenedButHasNotSavedYet() throws {
    let place = try FreshHome()
    let app = try place.probe(["first-hour", "app", "com.example.podcast", "get", "speed"])
    #expect(app.status == 0, "\(app.standardError)")
    #expect(app.standardOutput == "nil\n")
    let folder = place.home.file("data/com.example.podcast")
    #expect(!FileManager.default.fileExists(atPath: folder.path))

    let bare = try place.settings(["write", "com.example.podcast", "speed", "-float", "3"])
    #expect(bare.status == 64)
    #expect(bare.standardError.contains("com.example.podcast names no store yet"))
    let write = try place.settings([
      "write", "--store", "layered", "com.example.podcast", "speed", "-float", "3",
    ])
    #expect(write.status == 0, "\(write.standardError)")
    let reread = try place.probe(["first-hour", "app", "com.example.podcast", "get", "speed"])
    #expect(reread.standardOutput == "3.0\n")
    // Whatever it decides, it never writes a suite the app doesn't read.
    #expect(!FileManager.default.fileExists(atPath: place.home.file("config").path))
  }

  /// After the app saved once, the bare name reaches its store, and the tool reads what the app
  /// reads.
  @Test func theToolWritesByBareNameToTheStoreAnAppSaved() throws {
    let place = try FreshHome()
    let folder = place.home.file("data/com.example.podcast")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let store = try LayeredPlistStore(persistentFile: folder.appending(path: "data.plist"))
    try store.setValue(1.5, forKey: "speed")
    try store.save()
    let write = try place.settings(["write", "com.example.podcast", "speed", "-float", "3"])
    #expect(write.status == 0, "\(write.standardError)")
    let app = try place.probe(["first-hour", "app", "com.example.podcast", "get", "speed"])
    #expect(app.standardOutput == "3.0\n")
    let read = try place.settings(["read", "com.example.podcast", "speed"])
    #expect(read.standardOutput == "3\n")
    #expect(!FileManager.default.fileExists(atPath: place.home.file("config").path))
  }

  /// With no store of that name, a write is an error (status 64) and creates nothing.
  @Test func theToolRefusesABareNameThatNamesNoStoreAndCreatesNothing() throws {
    let place = try FreshHome()
    let write = try place.settings(["write", "com.example.none", "speed", "-float", "3"])
    #expect(write.status == 64)
    #expect(write.standardError.contains("com.example.none names no store yet"))
    let created = try FileManager.default.contentsOfDirectory(atPath: place.home.url.path)
    #expect(created.isEmpty)
  }

  /// The app saved a change for the next launch; then the tool (another writer of the same
  /// file) writes the key; the app's later save of another key must not write its older pending
  /// value back over the tool's.
  @Test func anAppsLaterSaveKeepsAToolsWriteOfAKeyItChangedForTheNextLaunch() throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("data.plist")
    let app = try LayeredPlistStore(persistentFile: file)
    try app.setValueForNextLaunch("dark", forKey: "Theme")
    try app.save()
    let tool = try LayeredPlistStore(persistentFile: file)
    #expect(tool.value(forKey: "Theme") == "dark")
    try tool.setValue("blue", forKey: "Theme")
    try tool.save()
    try app.setValue(1, forKey: "launches")
    try app.save()
    let next = try LayeredPlistStore(persistentFile: file)
    #expect(next.value(forKey: "Theme") == "blue")
    #expect(next.value(forKey: "launches") == 1)
  }

  // MARK: - Secrets

  /// A model bound to a store declared a key secret: the change events the store delivers for
  /// that key describe no value either (they are descriptions too).
  @Test func aSecretsChangeEventOnAStoreShowsNoValueInItsDescription() throws {
    let folder = try TemporaryDirectory()
    let store = try LayeredPlistStore(persistentFile: folder.file("data.plist"))
    let account = FirstHourAccount(backend: store)
    let events = Locked<[String]>([])
    let token = store.observe(key: "apiToken") { change in
      events.withLock { $0.append(String(describing: change)) }
    }
    account.apiToken = "tok-FIRSTHOUR-SECRET"
    token.cancel()
    let described = events.withLock { $0 }
    #expect(described.count == 1)
    for text in described { #expect(!text.contains("FIRSTHOUR-SECRET"), "\(text)") }
    // Everything else the store and the model show hides it.
    var dumped = ""
    dump(store, to: &dumped)
    dump(account, to: &dumped)
    let outputs = [
      String(describing: store.explain("apiToken")), String(describing: store), dumped,
      String(describing: account), "\(account.exportedValues())",
      "\(account.exportedValues(options: .init(omitsDefaultValues: true)))",
    ]
    for output in outputs { #expect(!output.contains("FIRSTHOUR-SECRET"), "\(output)") }
  }

  /// A secret too large for any file: the refusal (thrown, or reported from the property's
  /// setter) names the key but never quotes the value.
  @Test(arguments: BackendFactory.all)
  func aSecretTooLargeToSaveIsRefusedWithoutItsValueInTheErrorOrDiagnostic(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      let account = FirstHourAccount(backend: backend)
      let huge = "FIRSTHOUR-SECRET" + String(repeating: "é", count: 9_000_000)
      var thrown = ""
      do {
        try account.$apiToken.set(huge)
      } catch {
        thrown = "\(error)"
      }
      let (_, diagnostics) = collectingDiagnostics { account.apiToken = huge }
      let reported = diagnostics.map(\.description).joined(separator: "\n")
      for text in [thrown, reported] {
        #expect(!text.contains("FIRSTHOUR-SECRET"), "\(text.prefix(300))")
        #expect(text.count < 2000, "\(text.prefix(300))")
      }
      if backend is InMemoryBackend { return }
      // The key is no secret: the refusal says whose value made the file too large.
      #expect(thrown.contains("'apiToken'"), "\(thrown.prefix(300))")
      #expect(reported.contains("'apiToken'"), "\(reported.prefix(300))")
      #expect(account.apiToken == "")
    }
  }

  /// A bound model declared `apiToken` secret; then the store's `data.plist` is found with an
  /// unreadable entry for it: the salvage's diagnostic and error name the key, never the text
  /// found where the value should be.
  @Test func aCorruptEntryOfASecretKeyIsReportedWithoutItsText() throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file)
    let account = FirstHourAccount(backend: store)
    account.userName = "ada"
    try store.save()
    try xmlPropertyList(
      """
      <dict><key>apiToken</key><integer>FIRSTHOUR-SECRET</integer>\
      <key>userName</key><string>ada</string></dict>
      """
    ).write(to: file)
    let (_, diagnostics) = try collectingDiagnostics { try store.reload() }
    #expect(!diagnostics.isEmpty)
    for diagnostic in diagnostics {
      #expect(!"\(diagnostic)".contains("FIRSTHOUR-SECRET"), "\(diagnostic)")
      #expect("\(diagnostic)".contains("The secret value of 'apiToken' can't be read"))
    }
    #expect(account.userName == "ada")
  }

  // MARK: - Observation under contention

  /// 100 tasks each write a distinct value to one setting: exactly 100 callbacks, each value
  /// once, the last one the value the setting ends with.
  @Test(arguments: BackendFactory.all)
  func aHundredConcurrentWritesToOneSettingGiveExactlyAHundredEvents(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      let counter = FirstHourCounter(backend: backend)
      let seen = Collected()
      let token = counter.$count.observe { seen.append($0) }
      await withTaskGroup(of: Void.self) { group in
        for value in 0..<100 {
          group.addTask { counter.count = value }
        }
      }
      token.cancel()
      #expect(seen.all.count == 100)
      #expect(Set(seen.all) == Set(0..<100))
      #expect(seen.all.last == counter.count)
    }
  }

  // MARK: - Safety checks, in debug and release builds

  /// A subclass redeclaring its superclass's key, and a setting whose key is a nested group's,
  /// stop the program naming both settings, in the debug probe and (once built with
  /// `swift build -c release --product SettingsProbe`) the release one.
  @Test(arguments: ModelDeclarationChecksTests.probes, ["duplicate-inherited", "duplicate-nested"])
  func aKeyDeclaredTwiceAcrossASubclassOrANestedGroupStopsTheProgramSayingWhich(
    probe: URL, mode: String
  ) throws {
    let run = try runExecutable(probe, ["programmer-error", mode])
    let standardError = String(decoding: run.standardError, as: UTF8.self)
    #expect(run.status != 0)
    #expect(run.standardOutput.isEmpty)
    let message =
      mode == "duplicate-inherited"
      ? "Fatal error: BasePlayerSettings.volume and DerivedPlayerSettings.loudness are both "
        + "stored under the key 'volume'; give one of them a different key"
      : "Fatal error: NestedCollision.speed and NestedPlayback.playback.speed are both stored "
        + "under the key 'playback.speed'; give one of them a different key"
    #expect(standardError.contains(message), "\(standardError.prefix(400))")
  }

  /// The same on `UserDefaultsBackend.standard`, in a new process with its own config folder,
  /// over several rounds: 100 threads, 100 events, each value once, the last the final value.
  @Test func aHundredConcurrentWritesOnTheStandardDomainGiveExactlyAHundredEvents() throws {
    for _ in 0..<5 {
      let place = try FreshHome()
      let run = try place.probe(["first-hour", "standard-hundred"])
      #expect(run.status == 0, "\(run.standardError)")
      #expect(run.standardOutput == "events 100 distinct 100 last-is-final true\n")
    }
  }

  // MARK: - Tests of an app's model

  #if canImport(Observation)
    /// A view-model test as the testing article shows it: `.isolatedSettings`, Swift
    /// Observation on the app's shared model, and a captured diagnostic, in one test.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test(.isolatedSettings) func aViewModelTestTracksAndCapturesInsideItsIsolatedScope() throws {
      let changes = Collected()
      _ = withObservationTracking {
        FirstHourAppSettings.shared.launches
      } onChange: {
        changes.append(1)
      }
      FirstHourAppSettings.shared.launches += 1
      #expect(changes.all == [1])
      #expect(FirstHourAppSettings.shared.launches == 1)
      try #require(SettingsTesting.currentBackend).setValue("many", forKey: "launches")
      let diagnostics = SettingsDiagnostics.withCapture {
        #expect(FirstHourAppSettings.shared.launches == 0)
      }
      #expect(diagnostics.map(\.kind) == [.typeMismatch])
    }

    /// An `onChange` that writes the setting it tracked (a view model clamping a value), on
    /// every backend: no deadlock, and the clamped value is the one stored.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test(arguments: BackendFactory.all)
    func anOnChangeThatWritesTheTrackedSettingDoesNotDeadlock(
      _ factory: BackendFactory
    )
      async throws
    {
      try await factory.withBackend { backend in
        let counter = FirstHourCounter(backend: backend)
        _ = withObservationTracking {
          counter.count
        } onChange: {
          counter.count = 10
        }
        counter.count = 50
        #expect(counter.count == 10)
        let seen = Collected()
        let token = counter.$count.observe { value in
          seen.append(value)
          if value > 20 { counter.count = 20 }
        }
        counter.count = 30
        token.cancel()
        #expect(counter.count == 20)
        #expect(seen.all == [30, 20])
      }
    }

    /// The same with the app's settings as a shared struct: tracking and a stream of changes
    /// follow the test's backend.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test(.isolatedSettings) func aSharedSettingsStructIsTrackedAndStreamedInsideTheScope() async {
      let changes = Collected()
      _ = withObservationTracking {
        FirstHourGroupSettings.shared.volume
      } onChange: {
        changes.append(1)
      }
      var stream = FirstHourGroupSettings.shared.$volume.changes(initial: true).makeAsyncIterator()
      #expect(await stream.next() == 8)
      FirstHourGroupSettings.shared.volume = 3
      #expect(changes.all == [1])
      #expect(await stream.next() == 3)
      #expect(SettingsTesting.currentBackend?.value(forKey: "volume") == 3)
    }
  #endif
}
