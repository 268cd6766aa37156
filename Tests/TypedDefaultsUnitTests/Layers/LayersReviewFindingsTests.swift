import Foundation
import Testing
import TypedDefaults
import TypedDefaultsTestSupport

private struct MountedSettings: SettingsGroup {
  @Setting var port = 80
  @Setting(secret: true) var pin = 0
}

/// Defects found by the break-it review of issue 19's layers: each a test, fixed, or a known
/// issue explained.
@Suite struct LayersReviewFindingsTests {
  private static let options = LayeredPlistStore.Options(savesAtExit: false)

  /// A Secret mount's file folder with these files.
  private func secretMount(
    _ files: [String: String], in directory: TemporaryDirectory
  ) throws -> DirectorySource {
    let mount = directory.file("secrets")
    try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
    for (name, text) in files {
      try Data(text.utf8).write(to: mount.appendingPathComponent(name))
    }
    return DirectorySource(directory: mount, layer: "secrets", holdsSecrets: true)
  }

  // MARK: - Secrets

  /// A Secret mount's value for a key the model didn't declare `secret: true` was quoted by the
  /// setting's read (the `typeMismatch` diagnostic's message and stored value) when the declared
  /// type couldn't read it, though `explain` and the store's own diagnostics redacted it.
  @Test func aSecretMountsUnreadableValueIsNotShownWhenTheSettingIsRead() throws {
    let directory = try TemporaryDirectory()
    let secrets = try secretMount(["port": "hunter2\n"], in: directory)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .source(secrets), .persistent], options: Self.options)
    let (settings, declared) = collectingDiagnostics { MountedSettings(backend: store) }
    let (port, read) = collectingDiagnostics { settings.port }
    #expect(port == 80)
    #expect(read.map(\.kind) == [.typeMismatch])
    #expect(read.first?.storedValue == nil)
    for diagnostic in declared + read {
      #expect(!"\(diagnostic) \(diagnostic.message)".contains("hunter2"), "\(diagnostic)")
    }
    // Through a scoped view too.
    let scoped = MountedSettings(backend: store.scoped(to: ""))
    let (_, scopedRead) = collectingDiagnostics { scoped.port }
    #expect(!scopedRead.contains { $0.message.contains("hunter2") })
  }

  /// `SettingsChange.description` redacts only keys declared `secret: true`: a change of a key
  /// whose value comes from a Secret mount (`holdsSecrets`) prints the secret.
  @Test func aChangeOfASecretMountsKeyIsNotPrintedWithItsValue() throws {
    let directory = try TemporaryDirectory()
    let secrets = LayerTestSource("secrets", ["port": "1"], holdsSecrets: true)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .source(secrets), .persistent], options: Self.options)
    store.startWatching()
    defer { store.stopWatching() }
    let received = Received<SettingsChange>()
    let token = store.observe(key: "port") { received.append($0) }
    defer { token.cancel() }
    secrets.set(["port": "4242"])
    #expect(received.all.map(\.key) == ["port"])
    withKnownIssue("SettingsChange knows declared secrets only, not the layer a value came from") {
      #expect(!received.all.map(\.description).joined().contains("4242"))
    }
  }

  /// A source's `LayerContents` prints its values: `print(try secretMount.read())` shows them.
  @Test func aSecretSourcesContentsDoNotPrintTheirValues() throws {
    let directory = try TemporaryDirectory()
    let secrets = try secretMount(["password": "hunter2"], in: directory)
    let contents = try secrets.read()
    withKnownIssue("LayerContents is a plain value; it doesn't know its source holds secrets") {
      #expect(!"\(contents)".contains("hunter2"))
    }
  }

  // MARK: - Validated before applied

  /// A text the declared type can't read, at open, shadows the good value below it.
  ///
  /// At open (or whenever a model declares the key after the store read the source), such a text
  /// stays in its layer as a string: the setting reads its default rather than the value saved
  /// in `data.plist`. A reread giving the same bad text (`apply`) leaves the key out of the layer
  /// instead. The issue says a bad deployment file never replaces good settings with defaults.
  @Test func aBadTextAtOpenDoesNotHideTheValueSavedBelowIt() throws {
    let directory = try TemporaryDirectory()
    let environment = EnvironmentVariablesSource(
      prefix: "PLAYER", keys: ["port"], environment: ["PLAYER_PORT": "eighty"])
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .source(environment), .persistent], options: Self.options)
    try store.setValue(8080, forKey: "port")
    let (settings, _) = collectingDiagnostics { MountedSettings(backend: store) }
    let (port, _) = collectingDiagnostics { settings.port }
    withKnownIssue(
      "by design (LayerSource.valuesAreText): an unparsable text stays a string and reads as the default"
    ) {
      #expect(port == 8080)
    }
  }
}

extension LayersReviewFindingsTests {
  /// A `..data` left pointing to nothing was reported as replaced during each of 16 attempts,
  /// sending whoever reads the diagnostic after a race that isn't there.
  @Test func aDataLinkToNothingSaysSoRatherThanReplacedDuringEachAttempt() throws {
    let directory = try TemporaryDirectory()
    let root = directory.file("config")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("..data").path, withDestinationPath: "..2026_missing")
    let error = #expect(throws: SettingsError.self) {
      try DirectorySource(directory: root, layer: "config").read()
    }
    #expect(error?.code == .fileNotReadable)
    #expect(error?.path == root.appendingPathComponent("..data").path)
    #expect(
      error?.reason
        == "It leads to nothing (a link to a folder that doesn't exist) at each of 16 attempts "
        + "to read it")
  }
}

extension LayersReviewFindingsTests {
  private struct RangedSettings: SettingsGroup {
    @Setting var port = 80
  }

  /// A refused text's diagnostic said the same thing twice: `new value eighty for 'port' can't
  /// be read as Int ('eighty' can't be read as Int: it is not an integer)` (DeploymentDemo shows
  /// it for its ConfigMap's volume); the reason in parentheses is now only the why.
  @Test func aRefusedTextsDiagnosticSaysWhyOnce() throws {
    let directory = try TemporaryDirectory()
    let environment = LayerTestSource(.environment, ["port": "8080"], valuesAreText: true)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .source(environment), .persistent], options: Self.options)
    store.startWatching()
    defer { store.stopWatching() }
    let settings = RangedSettings(backend: store)
    #expect(settings.port == 8080)
    let ((), diagnostics) = collectingDiagnostics { environment.set(["port": "eighty"]) }
    #expect(
      diagnostics.map(\.message) == [
        "The environment layer's new value eighty for 'port' can't be read as Int (it is not an "
          + "integer); the layer keeps its last value, 8080"
      ])
  }
}

extension LayersReviewFindingsTests {
  /// Whether `condition` holds within `seconds`, checked every 10 ms.
  private func eventually(within seconds: Double, _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
      if condition() { return true }
      try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
  }

  /// One source layered by two stores updates only one of them.
  ///
  /// The same managed file for an app's store and its extension's: a source keeps one reporter,
  /// so only one store hears of a change. `PropertyListFileSource` and `ManagedSettingsSource` keep the first store's reporter
  /// (a second `startWatching` does nothing), `DirectorySource` the last one's; and either store
  /// stopping its watch stops the source for both. Nothing in `LayerSource`'s documentation says
  /// a source serves one store.
  @Test func aSourceLayeredByTwoStoresUpdatesBoth() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.plist")
    func write(_ volume: String) throws {
      try Data("<plist><dict><key>volume</key><real>\(volume)</real></dict></plist>".utf8)
        .write(to: file, options: .atomic)
    }
    try write("0.1")
    let source = PropertyListFileSource(file: file, layer: "shared")
    let first = try LayeredPlistStore(
      persistentFile: directory.file("first.plist"),
      layers: [.runtime, .source(source), .persistent], options: Self.options)
    let second = try LayeredPlistStore(
      persistentFile: directory.file("second.plist"),
      layers: [.runtime, .source(source), .persistent], options: Self.options)
    first.startWatching()
    second.startWatching()
    defer {
      first.stopWatching()
      second.stopWatching()
    }
    try write("0.2")
    let firstSaw = try await eventually(within: 5) { first.value(forKey: "volume") == 0.2 }
    #expect(firstSaw, "the first store never read the changed file")
    let secondSaw = try await eventually(within: 0.5) { second.value(forKey: "volume") == 0.2 }
    withKnownIssue("a source keeps one reporter; LayerSource doesn't say it serves one store") {
      #expect(secondSaw)
    }
  }
}

extension LayersReviewFindingsTests {
  private struct TokenSettings: SettingsGroup {
    @Setting var apiToken = ""
  }

  /// A Secret mount's value is exported and printed when its key isn't declared secret.
  ///
  /// A key the model didn't declare `secret: true` is exported (an export leaves secrets out by default, so that it can be shared) and printed by the
  /// setting's descriptor; the issue says a Secret mount's values are redacted everywhere
  /// secrets are. Only `explain` and the store's own diagnostics (and, since this review, the
  /// setting's read diagnostic) treat the layer's values as secrets.
  @Test func aSecretMountsValueIsNeitherExportedNorPrintedByTheDescriptor() throws {
    let directory = try TemporaryDirectory()
    let secrets = try secretMount(["apiToken": "hunter2\n"], in: directory)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .source(secrets), .persistent], options: Self.options)
    let settings = TokenSettings(backend: store)
    #expect(settings.apiToken == "hunter2")
    #expect(!store.explain("apiToken").description.contains("hunter2"))
    withKnownIssue("export and descriptors know declared secrets only, not secret layers") {
      #expect(settings.exportedValues()["apiToken"] == nil)
      #expect(!settings.allSettings.map(\.description).joined().contains("hunter2"))
    }
  }
}
