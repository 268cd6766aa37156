import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

private struct VideoSettings: SettingsGroup {
  @Setting var recentSearches: [String] = []
  @Setting var lastPlayed = Date(timeIntervalSinceReferenceDate: 0)
  @Setting var allowsCellularPlayback = false
  @Setting var launchCount = 0
  @Setting var volume: Float = 1
}

@Suite struct UserDefaultsBackendTests {
  // MARK: - Suite names

  /// A suite name with a newline made a suite file with a newline in its name.
  @Test func aSuiteNameWithAControlCharacterOrASlashIsNotValid() {
    for name in ["com.example.player", "My Suite", "réglages-日本", "a.b-c_d"] {
      #expect(UserDefaultsBackend.suiteNameProblem(name) == nil, "\(name)")
    }
    let refused: [(String, String)] = [
      ("bad\nname", "it holds a control character (U+000A)"),
      ("tab\there", "it holds a control character (U+0009)"),
      ("\r", "it holds a control character (U+000D)"),
      ("nul\u{0}", "it holds a control character (U+0000)"),
      ("del\u{7F}", "it holds a control character (U+007F)"),
      ("next-line\u{85}", "it holds a control character (U+0085)"),
      ("a/b", "it holds '/'"),
      ("", "it is empty"),
    ]
    for (name, problem) in refused {
      #expect(UserDefaultsBackend.suiteNameProblem(name) == problem, "\(name.debugDescription)")
    }
  }

  /// `UserDefaultsBackend(suiteName: "")` trapped at a library line, saying nothing in a release
  /// build; the name is refused saying why, and can be checked first, as
  /// `UserDefaults(suiteName:)` returns `nil`.
  @Test func anEmptySuiteNameStopsTheProgramSayingWhyAndCanBeCheckedFirst() async {
    #expect(UserDefaultsBackend.suiteNameProblem("") == "it is empty")
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = UserDefaultsBackend(suiteName: "")
    }
    let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      standardError.contains("'' is not a valid suite name: it is empty"), "\(standardError)")
  }

  @Test func aSuiteNameWithANewlineStopsTheProgramSayingWhy() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = UserDefaultsBackend(suiteName: "bad\nname")
    }
    let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      standardError.contains(
        "'bad\\nname' is not a valid suite name: it holds a control character (U+000A)"),
      "\(standardError)")
  }

  // MARK: - Interoperability with code that uses UserDefaults directly

  @Test func valuesAreStoredAsTheNativeObjectsOtherCodeExpects() throws {
    let suite = TemporarySuite()
    let backend = suite.backend
    let settings = VideoSettings(backend: backend)
    settings.recentSearches = ["jazz", "piano"]
    settings.lastPlayed = Date(timeIntervalSinceReferenceDate: 1000)
    settings.allowsCellularPlayback = true
    settings.launchCount = 1

    let defaults = backend.userDefaults
    #expect(defaults.stringArray(forKey: "recentSearches") == ["jazz", "piano"])
    #expect(defaults.array(forKey: "recentSearches") as? [String] == ["jazz", "piano"])
    #expect(
      defaults.object(forKey: "lastPlayed") as? Date == Date(timeIntervalSinceReferenceDate: 1000))
    #expect(defaults.bool(forKey: "allowsCellularPlayback") == true)
    #expect(defaults.object(forKey: "launchCount") as? Int == 1)
  }

  @Test func valuesWrittenByOtherCodeReadTheSameOnEveryPlatform() {
    let suite = TemporarySuite()
    let backend = suite.backend
    let defaults = backend.userDefaults
    defaults.set(1, forKey: "allowsCellularPlayback")
    defaults.set(42, forKey: "volume")
    defaults.set("7", forKey: "launchCount")
    defaults.set(["a", "b"], forKey: "recentSearches")
    let settings = VideoSettings(backend: backend)
    #expect(settings.allowsCellularPlayback == true)
    #expect(settings.volume == 42)
    #expect(settings.launchCount == 7)
    #expect(settings.recentSearches == ["a", "b"])
    #expect(backend.value(forKey: "allowsCellularPlayback") == 1)
  }

  @Test func anIntegerOneIsNeverReadBackAsABool() throws {
    let suite = TemporarySuite()
    let backend = suite.backend
    try backend.setValue(1, forKey: "int")
    try backend.setValue(true, forKey: "bool")
    try backend.setValue(0, forKey: "zero")
    #expect(backend.value(forKey: "int") == 1)
    #expect(backend.value(forKey: "bool") == true)
    #expect(backend.value(forKey: "zero") == 0)
  }

  @Test func dictionaryRepresentationListsOnlyTheSuitesOwnDomain() throws {
    let suite = TemporarySuite()
    let backend = suite.backend
    let registered = "TypedDefaultsTests.registered.\(UUID().uuidString)"
    UserDefaults.standard.register(defaults: [registered: "from register(defaults:)"])
    try backend.setValue("mine", forKey: "own")
    #expect(backend.value(forKey: registered) == "from register(defaults:)")
    #expect(backend.dictionaryRepresentation() == ["own": "mine"])
  }

  // MARK: - Durability

  @Test func aWriteReachesDiskWithoutAnExplicitSynchronize() async throws {
    #if canImport(Darwin)
      // The system persists UserDefaults on Apple platforms; nothing of ours to check.
    #else
      let suite = TemporarySuite()
      let backend = UserDefaultsBackend(suiteName: suite.name, flushDelay: 0.01)
      try backend.setValue("flushed", forKey: "k")
      let file = suite.fileURL
      // Bounded polling: the scheduled flush runs 10 ms after the write.
      var contents: [String: PropertyListValue]?
      for _ in 0..<500 where contents?["k"] == nil {
        contents = try? PropertyListFile(url: file).readDictionary()
        if contents?["k"] == nil { try await Task.sleep(for: .milliseconds(10)) }
      }
      #expect(contents?["k"] == "flushed", "\(file.path) was not written within 5 seconds")
    #endif
  }

  /// A save with nothing unsaved rewrote the suite's whole file (a new inode): it now writes
  /// nothing, and takes in what another backend saved, as ``UserDefaultsBackend/reload()``.
  @Test func aSaveWithNothingUnsavedLeavesTheSuiteFileAsItIs() throws {
    #if !canImport(Darwin)
      let suite = TemporarySuite()
      let backend = UserDefaultsBackend(suiteName: suite.name, flushDelay: 60)
      try backend.save()
      #expect(!FileManager.default.fileExists(atPath: suite.fileURL.path))
      try backend.setValue(0.5, forKey: "volume")
      try backend.save()
      let saved = try #require(POSIX.identity(ofFileAt: suite.fileURL.path))

      try backend.save()
      // Same inode, size, modification and status change times: not written.
      #expect(POSIX.identity(ofFileAt: suite.fileURL.path) == saved)

      let other = UserDefaultsBackend(suiteName: suite.name, flushDelay: 60)
      try other.setValue(0.75, forKey: "volume")
      try other.save()
      let othersSave = try #require(POSIX.identity(ofFileAt: suite.fileURL.path))
      try backend.save()
      #expect(backend.value(forKey: "volume") == .real(0.75))
      #expect(POSIX.identity(ofFileAt: suite.fileURL.path) == othersSave)
    #endif
  }

  @Test func aValueWrittenByOneProcessIsReadByTheNext() throws {
    let config = try TemporaryDirectory()
    let environment = ["XDG_CONFIG_HOME": config.url.path]
    let suite = "TypedDefaultsTests.crossProcess"
    // The writer never calls synchronize(): the backend flushes when the process exits.
    let write = try runProduct(
      "SettingsProbe", ["userdefaults", suite, "set", "volume", "real:0.25"],
      environment: environment)
    #expect(write.status == 0, "\(write.standardError)")
    let read = try runProduct(
      "SettingsProbe", ["userdefaults", suite, "get", "volume"], environment: environment)
    #expect(read.status == 0, "\(read.standardError)")
    #expect(read.standardOutput == "0.25\n")

    #if !canImport(Darwin)
      // The file is where corelibs keeps suites, and python-independent readers can parse it.
      let file = config.file("\(suite).plist")
      #expect(try PropertyListFile(url: file).readDictionary() == ["volume": 0.25])
    #endif
  }
}

@Suite struct LayeredPlistStoreProcessTests {
  @Test func aValueSavedByOneProcessIsReadByTheNext() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist").path
    let write = try runProduct(
      "SettingsProbe", ["layered", file, "set", "name", "string:from a child"])
    #expect(write.status == 0, "\(write.standardError)")
    let read = try runProduct("SettingsProbe", ["layered", file, "get", "name"])
    #expect(read.standardOutput == "\"from a child\"\n")
    let store = try LayeredPlistStore(persistentFile: directory.file("data.plist"))
    #expect(store.value(forKey: "name") == "from a child")
  }
}
