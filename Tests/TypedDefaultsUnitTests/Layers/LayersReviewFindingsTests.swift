import Foundation
import Testing
import TypedDefaults
import TypedDefaultsLayers
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

  /// A secret layer's value for a key the model didn't declare `secret: true` was quoted by the
  /// setting's read (the `typeMismatch` diagnostic's message and stored value) when the declared
  /// type couldn't read it, though `explain` and the store's own diagnostics redacted it.
  ///
  /// (A value the setting refuses is passed over, in any source's layer, and reported by the
  /// store without it.)
  @Test func aSecretLayersUnreadableValueIsNotShownWhenTheSettingIsRead() throws {
    let directory = try TemporaryDirectory()
    let secrets = LayerTestSource("secrets", ["port": "hunter2"], holdsSecrets: true)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .source(secrets), .persistent], options: Self.options)
    let (settings, declared) = collectingDiagnostics { MountedSettings(backend: store) }
    let (port, read) = collectingDiagnostics { settings.port }
    #expect(port == 80)
    #expect(read.isEmpty)
    #expect(declared.map(\.kind) == [.layerValueRejected])
    #expect(declared.first?.storedValue == nil)
    for diagnostic in declared + read {
      #expect(!"\(diagnostic) \(diagnostic.message)".contains("hunter2"), "\(diagnostic)")
    }
    // A Secret mount's text that doesn't parse is reported without it, and left out.
    let mount = try secretMount(["port": "hunter3\n"], in: directory)
    let mounted = try LayeredPlistStore(
      persistentFile: directory.file("mounted.plist"),
      layers: [.runtime, .source(mount), .persistent], options: Self.options)
    let (mountedSettings, mountedDeclared) = collectingDiagnostics {
      MountedSettings(backend: mounted)
    }
    #expect(mountedSettings.port == 80)
    #expect(mountedDeclared.map(\.kind) == [.layerValueRejected])
    #expect(mountedDeclared.first?.storedValue == nil)
    #expect(!mountedDeclared.contains { "\($0) \($0.message)".contains("hunter3") })
    // Through a scoped view too.
    let scoped = MountedSettings(backend: store.scoped(to: ""))
    let (_, scopedRead) = collectingDiagnostics { scoped.port }
    #expect(!scopedRead.contains { $0.message.contains("hunter2") })
  }

  /// `SettingsChange.description` redacted only keys declared `secret: true`: a change of a key
  /// whose value comes from a Secret mount (`holdsSecrets`) printed the secret, through the
  /// store and through a scoped view of it, as a change or as an initial value.
  @Test func aChangeOfASecretMountsKeyIsNotPrintedWithItsValue() throws {
    let directory = try TemporaryDirectory()
    let secrets = LayerTestSource("secrets", ["port": "1"], holdsSecrets: true)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .source(secrets), .persistent], options: Self.options)
    store.startWatching()
    defer { store.stopWatching() }
    let received = Received<SettingsChange>()
    let token = store.observe(key: "port", initial: true) { received.append($0) }
    defer { token.cancel() }
    let scoped = Received<SettingsChange>()
    let scopedToken = store.scoped(to: "po").observe(key: "rt", initial: true) {
      scoped.append($0)
    }
    defer { scopedToken.cancel() }
    secrets.set(["port": "4242"])
    #expect(received.all.map(\.key) == ["port", "port"])
    #expect(received.all.map(\.description) == ["port → <secret>", "port → <secret>"])
    #expect(scoped.all.map(\.description) == ["rt → <secret>", "rt → <secret>"])
    #expect(received.all.last == SettingsChange(key: "port", newValue: "4242"))
  }

  /// A source's `LayerContents` printed its values: `print(try secretMount.read())` showed them.
  @Test func aSecretSourcesContentsDoNotPrintTheirValues() throws {
    let directory = try TemporaryDirectory()
    let secrets = try secretMount(["password": "hunter2"], in: directory)
    let contents = try secrets.read()
    #expect(contents.holdsSecrets)
    #expect(contents.values == ["password": "hunter2"])
    #expect("\(contents)" == "LayerContents(password: <secret>)")
    var dumped = ""
    dump(contents, to: &dumped)
    #expect(!dumped.contains("hunter2"), "\(dumped)")
    // Another source's contents print their values.
    #expect("\(LayerContents(values: ["port": 80]))" == "LayerContents(port: 80)")
  }

  // MARK: - Validated before applied

  /// A text the declared type can't read, at open, shadowed the good value below it.
  ///
  /// At open (or whenever a model declares the key after the store read the source), such a text
  /// stayed in its layer as a string: the setting read its default rather than the value saved
  /// in `data.plist`, though a bad deployment file must never replace good settings with
  /// defaults. It is now left out of the layer, and reported.
  @Test func aBadTextAtOpenDoesNotHideTheValueSavedBelowIt() throws {
    let directory = try TemporaryDirectory()
    let environment = EnvironmentVariablesSource(
      prefix: "PLAYER", keys: ["port"], environment: ["PLAYER_PORT": "eighty"])
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .source(environment), .persistent], options: Self.options)
    try store.setValue(8080, forKey: "port")
    let (settings, declared) = collectingDiagnostics { MountedSettings(backend: store) }
    let (port, read) = collectingDiagnostics { settings.port }
    #expect(port == 8080)
    #expect(read.isEmpty)
    #expect(store.layer(forKey: "port") == .persistent)
    #expect(
      declared.map(\.message) == [
        "The environment layer's text 'eighty' for 'port' (PLAYER_PORT) can't be read as Int (it "
          + "is not an integer); the layer is passed over for it: the setting reads the "
          + "persistent layer's value, 8080"
      ])
    #expect(declared.map(\.kind) == [.layerValueRejected])
  }

  /// A text left out at declaration comes back once the source gives one that parses.
  @Test func aBadTextLeftOutAtOpenIsReplacedByTheNextGoodOne() throws {
    let directory = try TemporaryDirectory()
    let environment = LayerTestSource(.environment, ["port": "eighty"], valuesAreText: true)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .source(environment), .persistent], options: Self.options)
    store.startWatching()
    defer { store.stopWatching() }
    let (settings, _) = collectingDiagnostics { MountedSettings(backend: store) }
    #expect(settings.port == 80)
    let ((), again) = collectingDiagnostics { environment.set(["port": "eighty"]) }
    #expect(again.isEmpty, "the same bad text is reported once")
    environment.set(["port": "81"])
    #expect(settings.port == 81)
    #expect(store.layer(forKey: "port") == .environment)
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
        "The environment layer's text 'eighty' for 'port' can't be read as Int (it is not an "
          + "integer); the layer is passed over for it: no other layer holds the key, so the "
          + "setting reads its default"
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

  /// One source layered by two stores updated only one of them.
  ///
  /// The same managed file for an app's store and its extension's: a source keeps one reporter,
  /// so only one store heard of a change (`PropertyListFileSource` and `ManagedSettingsSource`
  /// kept the first store's reporter, `DirectorySource` the last one's), and either store
  /// stopping its watch stopped the source for both. The stores now share the source's watch.
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
    let secondSaw = try await eventually(within: 5) { second.value(forKey: "volume") == 0.2 }
    #expect(secondSaw, "the second store never read the changed file")
    // One store stopping its watch leaves the other's.
    first.stopWatching()
    try write("0.3")
    let secondSawAgain = try await eventually(within: 5) {
      second.value(forKey: "volume") == 0.3
    }
    #expect(secondSawAgain, "the second store stopped hearing of changes with the first")
    #expect(first.value(forKey: "volume") == 0.2)
  }

  /// Two stores layering one source ask it to start watching once, and to stop once, when the
  /// last of them stops.
  @Test func storesSharingASourceStartAndStopItsWatchOnce() throws {
    let directory = try TemporaryDirectory()
    let source = LayerTestSource("flags", ["beta": true])
    let stores = try (0..<2).map { index in
      try LayeredPlistStore(
        persistentFile: directory.file("\(index).plist"),
        layers: [.runtime, .source(source), .persistent], options: Self.options)
    }
    let received = Received<SettingsChange>()
    let tokens = stores.map { store in store.observe(key: "beta") { received.append($0) } }
    defer { for token in tokens { token.cancel() } }
    for store in stores { store.startWatching() }
    #expect(source.starts == 1)
    source.set(["beta": false])
    #expect(received.all.map(\.description) == ["beta → false", "beta → false"])
    stores[0].stopWatching()
    #expect(source.stops == 0)
    stores[1].stopWatching()
    #expect(source.stops == 1)
  }
}

extension LayersReviewFindingsTests {
  private struct TokenSettings: SettingsGroup {
    @Setting var apiToken = ""
  }

  /// A Secret mount's value was exported and printed when its key wasn't declared secret.
  ///
  /// An export leaves secrets out by default, so that it can be shared; a key the model didn't
  /// declare `secret: true` was exported all the same, and printed by the setting's descriptor,
  /// though a Secret mount's values are redacted everywhere secrets are.
  @Test func aSecretMountsValueIsNeitherExportedNorPrintedByTheDescriptor() throws {
    let directory = try TemporaryDirectory()
    let secrets = try secretMount(["apiToken": "hunter2\n"], in: directory)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .persistent, .source(secrets)], options: Self.options)
    let settings = TokenSettings(backend: store)
    #expect(settings.apiToken == "hunter2")
    #expect(!store.explain("apiToken").description.contains("hunter2"))
    #expect(settings.exportedValues()["apiToken"] == nil)
    #expect(settings.exportedValues(options: .init(includesSecrets: true))["apiToken"] == "hunter2")
    #expect(settings.allSettings.map(\.description) == ["apiToken: String = <secret>"])
    #expect(settings.allSettings.map(\.valueDescription) == ["<secret>"])
    #expect(!"\(settings)".contains("hunter2"))
    // Once a layer that holds no secrets gives the value, it is shown and exported.
    try store.setValue("visible", forKey: "apiToken")
    #expect(settings.exportedValues()["apiToken"] == "visible")
    #expect(settings.allSettings.map(\.description) == ["apiToken: String = visible"])
  }
}
