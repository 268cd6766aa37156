import Foundation
import Testing
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsTestSupport

private struct ServerSettings: SettingsGroup {
  @Setting var serverURL = "https://default.example"
  @Setting var volume = 0.5
}

private struct TextSettings: SettingsGroup {
  @Setting var port = 80
  @Setting var verbose = false
  @Setting var ratio = 1.0
}

private struct SecretSettings: SettingsGroup {
  @Setting(secret: true) var token = ""
}

private struct SecretNumberSettings: SettingsGroup {
  @Setting(secret: true) var pin = 0
  @Setting var port = 80
}

/// A store whose layers are built from an ordered list: order, sources, validation before
/// applying, text layers, forced (managed) keys, secrets, the record of layers.
@Suite struct LayeredStoreLayersTests {
  private typealias Layer = LayeredPlistStore.Layer

  private static let options = LayeredPlistStore.Options(savesAtExit: false)

  // MARK: - Order

  @Test func aKeyInEveryLayerOfAnEightLayerStoreWalksDownOneLayerAtATime() throws {
    let directory = try TemporaryDirectory()
    let managed = LayerTestSource(.managed, ["k": "managed"], isForced: true)
    let arguments = LayerTestSource(.arguments, ["k": "arguments"])
    let environment = LayerTestSource(.environment, ["k": "environment"])
    let config = LayerTestSource("config", ["k": "config"])
    let delivered = LayerTestSource(.delivered, ["k": "delivered"])
    let bundled = LayerTestSource(.bundled, ["k": "bundled"])
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [
        .source(managed), .runtime, .source(arguments), .source(environment), .persistent,
        .source(config), .source(delivered), .source(bundled),
      ],
      options: Self.options)
    store.startWatching()
    defer { store.stopWatching() }
    // The runtime and persistent layers are written before the managed layer holds the key.
    managed.set([:])
    try store.setValue("runtime", forKey: "k", in: .runtime)
    try store.setValue("persistent", forKey: "k")
    managed.set(["k": "managed"])
    #expect(
      store.layers == [
        .managed, .runtime, .arguments, .environment, .persistent, "config", .delivered, .bundled,
      ])
    #expect(store.value(forKey: "k") == "managed")
    let received = Received<SettingsChange>()
    let token = store.observe(key: "k") { received.append($0) }
    defer { token.cancel() }

    let removals: [(Layer, () throws -> Void)] = [
      (.managed, { managed.set([:]) }),
      (.runtime, { try store.setValue(nil, forKey: "k", in: .runtime) }),
      (.arguments, { arguments.set([:]) }),
      (.environment, { environment.set([:]) }),
      (.persistent, { store.removeValue(forKey: "k") }),
      ("config", { config.set([:]) }),
      (.delivered, { delivered.set([:]) }),
      (.bundled, { bundled.set([:]) }),
    ]
    for (position, (layer, remove)) in removals.enumerated() {
      #expect(store.layer(forKey: "k") == layer)
      try remove()
      let next = removals.dropFirst(position + 1).first?.0
      #expect(store.value(forKey: "k") == next.map { .string($0.name) })
      #expect(store.layer(forKey: "k") == next)
      #expect(received.count == position + 1, "one change event per removal, from \(layer)")
      #expect(received.all.last?.newValue == next.map { .string($0.name) })
    }
  }

  @Test func aReportOfKeysWhoseEffectiveValueDidNotChangeDeliversNothing() throws {
    let directory = try TemporaryDirectory()
    let environment = LayerTestSource(.environment, ["a": 1, "b": 2])
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .source(environment), .persistent], options: Self.options)
    store.startWatching()
    defer { store.stopWatching() }
    try store.setValue(10, forKey: "b", in: .runtime)
    let received = Received<SettingsChange>()
    let token = store.observeAllKeys { received.append($0) }
    defer { token.cancel() }
    environment.set(["a": 1, "b": 2])  // nothing changed
    environment.set(["a": 1, "b": 3])  // shadowed by the runtime layer
    #expect(received.all.isEmpty)
    #expect(store.dictionaryRepresentation(of: .environment) == ["a": 1, "b": 3])
    environment.set(["a": 5, "b": 3])
    #expect(received.all.map(\.key) == ["a"])
    #expect(received.all.map(\.newValue) == [5])
  }

  @Test func standardLayersPutsEachLayerAtItsDefaultPosition() throws {
    let directory = try TemporaryDirectory()
    let all = LayeredPlistStore.standardLayers(
      managed: LayerTestSource(.managed), arguments: LayerTestSource(.arguments),
      environment: LayerTestSource(.environment), fleet: LayerTestSource("fleet"),
      directories: [LayerTestSource("config"), LayerTestSource("secrets")],
      deliveredFile: directory.file("JF-info.plist"),
      settingsBundle: LayerTestSource(.settingsBundle), bundledFile: directory.file("Info.plist"))
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), layers: all, options: Self.options)
    #expect(
      store.layers == [
        .managed, .runtime, .arguments, .environment, .persistent, "fleet", "config", "secrets",
        .delivered, .settingsBundle, .bundled,
      ])
    #expect(store.deliveredFile?.url == directory.file("JF-info.plist"))
    #expect(store.bundledFile?.url == directory.file("Info.plist"))
    let none = try LayeredPlistStore(
      persistentFile: directory.file("other.plist"),
      layers: LayeredPlistStore.standardLayers(), options: Self.options)
    #expect(none.layers == [.runtime, .persistent])
  }

  @Test func aPropertyListFileSourceFillsALayerOfItsOwnName() throws {
    let directory = try TemporaryDirectory()
    let site = directory.file("site.plist")
    try PropertyListFile(url: site).write(["region": "eu"])
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [
        .runtime, .persistent,
        .source(PropertyListFileSource(file: site, layer: "site")),
        .source(PropertyListFileSource(file: directory.file("missing.plist"), layer: "extra")),
      ],
      options: Self.options)
    #expect(store.value(forKey: "region") == "eu")
    #expect(store.layer(forKey: "region") == "site")
    #expect(store.layersLoadedFromDisk == ["site"])
    #expect(
      store.explain("region").description == """
        region
          runtime     -
          persistent  -
          site        eu   <- wins
          extra       (no file)
        """)
    #expect(
      PropertyListFileSource(file: site, layer: "site").recordedSource
        == .propertyListFile(path: site.standardizedFileURL.path))
  }

  /// `explain` cut a layer name longer than 11 characters (`settingsBun` for `settingsBundle`);
  /// the column now widens to the longest name, and shorter names keep the old layout.
  @Test func explainShowsALongLayerNameWholeAndWidensTheColumn() throws {
    let directory = try TemporaryDirectory()
    let site = directory.file("site.plist")
    try PropertyListFile(url: site).write(["region": "eu"])
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [
        .runtime, .persistent,
        .source(PropertyListFileSource(file: site, layer: "regionalOverrides")),
      ],
      options: Self.options)
    try store.setValueForNextLaunch("us", forKey: "region")
    #expect(
      store.explain("region").description == """
        region
          runtime           -
          persistent        -
          regionalOverrides eu   <- wins
          next launch       us
        """)
  }

  // MARK: - Reading sources

  @Test func aSourceThatThrowsAtOpenFailsTheOpenUnlessAskedToOpenAnyway() throws {
    let directory = try TemporaryDirectory()
    let failure = SettingsError(.fileNotReadable, path: "/run/config", reason: "Permission denied")
    let source = LayerTestSource("config", ["k": 1], failure: failure)
    let thrown = #expect(throws: SettingsError.self) {
      _ = try LayeredPlistStore(
        persistentFile: directory.file("data.plist"),
        layers: [.runtime, .persistent, .source(source)], options: Self.options)
    }
    #expect(thrown == failure)
    let (store, diagnostics) = try collectingDiagnostics {
      try LayeredPlistStore(
        persistentFile: directory.file("data.plist"),
        layers: [.runtime, .persistent, .source(source)],
        options: .init(savesAtExit: false, opensDespiteUnreadableReadOnlyFiles: true))
    }
    #expect(store.dictionaryRepresentation(of: "config").isEmpty)
    #expect(store.recoveredProblems == [failure])
    #expect(diagnostics.map(\.kind) == [.corruptFile])
    #expect(!store.layersLoadedFromDisk.contains("config"))
    #expect(store.explain("k").layersWithoutFile == ["config"])
    // Once it can be read, a report fills the layer.
    store.startWatching()
    defer { store.stopWatching() }
    source.fail(with: nil)
    #expect(store.value(forKey: "k") == 1)
  }

  @Test func anUnknownEnvironmentVariableIsALayerSourceProblemNotACorruptFile() throws {
    let directory = try TemporaryDirectory()
    let environment = EnvironmentVariablesSource(
      prefix: "DEMO", keys: ["volume"], environment: ["DEMO_VOLUME": "0.3", "DEMO_VOLUEM": "1"])
    let (store, diagnostics) = try collectingDiagnostics {
      try LayeredPlistStore(
        persistentFile: directory.file("data.plist"),
        layers: [.runtime, .source(environment), .persistent], options: Self.options)
    }
    #expect(store.value(forKey: "volume") == "0.3")
    #expect(diagnostics.map(\.kind) == [.layerSourceProblem])
    #expect(store.recoveredProblems.map(\.code) == [.unknownEnvironmentVariable])
  }

  @Test func aSourcesEntriesLeftOutAreRecordedAndItsKeysNormalized() throws {
    final class PartlyReadable: LayerSource {
      let layer: LayeredPlistStore.Layer = "config"
      func read() throws(SettingsError) -> LayerContents {
        LayerContents(
          values: ["feature_x": true],
          problems: [SettingsError(.corruptFile, key: "broken", reason: "not a number")])
      }
    }
    let directory = try TemporaryDirectory()
    let (store, diagnostics) = try collectingDiagnostics {
      try LayeredPlistStore(
        persistentFile: directory.file("data.plist"),
        layers: [.runtime, .persistent, .source(PartlyReadable())],
        options: .init(savesAtExit: false, keyNormalization: .underscoresToHyphens))
    }
    #expect(store.value(forKey: "feature-x") == true)
    #expect(store.recoveredProblems.map(\.key) == ["broken"])
    #expect(diagnostics.map(\.key) == ["broken"])
  }

  /// A store whose layers are `runtime`, `persistent` and `source`, watching (stop it when done).
  private func watchingStore(
    _ source: LayerTestSource, in directory: TemporaryDirectory
  ) throws -> LayeredPlistStore {
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .persistent, .source(source)], options: Self.options)
    store.startWatching()
    return store
  }

  /// A source reread for a change used to record (in `recoveredProblems`, which grew without
  /// bound) and report every entry it couldn't read again, on every read.
  @Test func aSourcesProblemIsRecordedOnceWhileTheSourceKeepsGivingIt() throws {
    let directory = try TemporaryDirectory()
    let source = LayerTestSource("config", ["k": 1])
    let store = try watchingStore(source, in: directory)
    defer { store.stopWatching() }
    let big = SettingsError(
      .fileTooLarge, path: "/run/config/big", key: "big", reason: "It is larger than 1 MiB")
    let ((), first) = collectingDiagnostics { source.set(["k": 1], problems: [big]) }
    #expect(first.map(\.key) == ["big"])
    let ((), again) = collectingDiagnostics {
      source.set(["k": 2], problems: [big])
      source.set(["k": 3], problems: [big])
    }
    #expect(again.isEmpty)
    #expect(store.value(forKey: "k") == 3)
    #expect(store.recoveredProblems == [big])
    // Fixed, then broken again: recorded and reported again.
    let ((), back) = collectingDiagnostics {
      source.set(["k": 3])
      source.set(["k": 3], problems: [big])
    }
    #expect(back.map(\.key) == ["big"])
    #expect(store.recoveredProblems == [big, big])
  }

  @Test func aReReadThatThrowsKeepsTheLayersValuesAndIsReported() throws {
    let directory = try TemporaryDirectory()
    let source = LayerTestSource("config", ["k": 1])
    let store = try watchingStore(source, in: directory)
    defer { store.stopWatching() }
    let ((), diagnostics) = collectingDiagnostics {
      source.fail(with: SettingsError(.fileNotReadable, path: "/run/config", reason: "EIO"))
    }
    #expect(store.value(forKey: "k") == 1)
    #expect(diagnostics.map(\.kind) == [.watchFailed])
    #expect(diagnostics.first?.message.contains("the config layer keeps the values it had") == true)
  }

  /// A re-read that threw was reported and dropped: the change it was reading stayed unseen
  /// until the source reported another.
  @Test func aReReadThatThrowsIsTriedAgainUntilTheSourceCanBeRead() async throws {
    let directory = try TemporaryDirectory()
    let source = LayerTestSource("config", ["k": 1])
    let store = try watchingStore(source, in: directory)
    defer { store.stopWatching() }
    let failure = SettingsError(.fileNotReadable, path: "/run/config", reason: "EMFILE")
    let ((), diagnostics) = collectingDiagnostics {
      source.setSilently(["k": 2])
      source.fail(with: failure)
    }
    #expect(
      diagnostics.map(\.message) == [
        "\(failure); the config layer keeps the values it had, and its source is read again, "
          + "every second at most, until it can"
      ])
    #expect(store.value(forKey: "k") == 1)
    // Readable again, with no new report: the retry reads it.
    source.fail(with: nil, reporting: false)
    await eventually("the retry reads the source") { store.value(forKey: "k") == 2 }
  }

  @Test func aReporterOfAReleasedStoreDoesNothingAndTheSourceWasStopped() throws {
    let directory = try TemporaryDirectory()
    let source = LayerTestSource("config", ["k": 1])
    weak var released: LayeredPlistStore?
    do {
      let store = try LayeredPlistStore(
        persistentFile: directory.file("data.plist"),
        layers: [.runtime, .persistent, .source(source)],
        options: .init(savesAtExit: false, watchesFiles: true))
      released = store
      #expect(source.reporter != nil)
    }
    #expect(released == nil)
    #expect(source.stops == 1)
    let reads = source.reads
    // A reporter kept by a source past its store's release delivers nothing.
    let kept = LayerTestSource("kept")
    do {
      let store = try LayeredPlistStore(
        persistentFile: directory.file("other.plist"),
        layers: [.runtime, .persistent, .source(kept)], options: Self.options)
      store.startWatching()
      let reporter = try #require(kept.reporter)
      store.stopWatching()
      #expect(kept.stops == 1)
      reporter.reportChanges()
      #expect(kept.reads == 1)
      store.startWatching()
      let second = try #require(kept.reporter)
      _ = store
      withExtendedLifetime(second) {}
    }
    #expect(source.reads == reads)
  }

  // MARK: - Validated before applied

  /// A value the setting refuses is passed over for the next layer's (issue 37): at open and on
  /// a change alike, so a running service reads what a restarted one would.
  @Test func aNewValueTheDeclaredTypeCannotReadIsPassedOverAsAtOpen() throws {
    let directory = try TemporaryDirectory()
    let config = LayerTestSource("config", ["volume": "loud"])
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .persistent, .source(config)], options: Self.options)
    store.startWatching()
    defer { store.stopWatching() }
    let (settings, _) = collectingDiagnostics { ServerSettings(backend: store) }
    // At open: passed over, and no layer below holds the key.
    let (volume, read) = collectingDiagnostics { settings.volume }
    #expect(volume == 0.5)
    #expect(read.isEmpty)
    #expect(store.explain("volume").passedOver == ["config": "loud"])
    config.set(["volume": 0.7])
    #expect(settings.volume == 0.7)
    let received = Received<SettingsChange>()
    let token = store.observe(key: "volume") { received.append($0) }
    defer { token.cancel() }
    let ((), diagnostics) = collectingDiagnostics { config.set(["volume": "louder", "other": 1]) }
    #expect(store.value(forKey: "volume", in: "config") == nil)
    #expect(store.value(forKey: "other") == 1)
    #expect(settings.volume == 0.5)
    #expect(received.all.map(\.newValue) == [nil])
    #expect(diagnostics.map(\.kind) == [.layerValueRejected])
    #expect(diagnostics.first?.key == "volume")
    #expect(
      diagnostics.first?.message
        == "The config layer's value louder for 'volume' can't be read as Double; the layer is "
        + "passed over for it: no other layer holds the key, so the setting reads its default")
    // A removal is taken too.
    config.set([:])
    #expect(store.value(forKey: "volume") == nil)
    #expect(store.explain("volume").passedOver.isEmpty)
  }

  /// A source reread for a change of another key (a mount's next `..data` swap, a managed
  /// file's folder touched) used to report its unchanged bad value again on every read.
  @Test func aRefusedValueIsReportedOnceWhileTheSourceKeepsGivingIt() throws {
    let directory = try TemporaryDirectory()
    let config = LayerTestSource("config", ["volume": 0.7])
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .persistent, .source(config)], options: Self.options)
    store.startWatching()
    defer { store.stopWatching() }
    let settings = ServerSettings(backend: store)
    let ((), first) = collectingDiagnostics { config.set(["volume": "loud"]) }
    #expect(first.map(\.kind) == [.layerValueRejected])
    let ((), again) = collectingDiagnostics {
      config.set(["volume": "loud", "other": 1])
      config.set(["volume": "loud", "other": 2])
    }
    #expect(again.isEmpty)
    #expect(store.value(forKey: "other") == 2)
    #expect(settings.volume == 0.5)
    // Another bad value is reported; so is the first one once it comes back after a good one.
    let ((), other) = collectingDiagnostics { config.set(["volume": "louder"]) }
    #expect(
      other.map(\.message) == [
        "The config layer's value louder for 'volume' can't be read as Double; the layer is "
          + "passed over for it: no other layer holds the key, so the setting reads its default"
      ])
    let ((), back) = collectingDiagnostics {
      config.set(["volume": 0.7])
      config.set(["volume": "loud"])
    }
    #expect(back.map(\.kind) == [.layerValueRejected])
    #expect(settings.volume == 0.5)
  }

  @Test func aRefusedValueOfASecretLayerIsNotShownInTheDiagnostic() throws {
    let directory = try TemporaryDirectory()
    let secrets = LayerTestSource("secrets", ["volume": 0.9], holdsSecrets: true)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .persistent, .source(secrets)], options: Self.options)
    store.startWatching()
    defer { store.stopWatching() }
    _ = ServerSettings(backend: store)
    let ((), diagnostics) = collectingDiagnostics { secrets.set(["volume": "hunter2"]) }
    #expect(diagnostics.map(\.kind) == [.layerValueRejected])
    #expect(diagnostics.first?.storedValue == nil)
    #expect(diagnostics.first?.message.contains("hunter2") == false)
    #expect(diagnostics.first?.message.contains("<secret>") == true)
  }

  @Test func aSecretTextThatDoesNotParseIsNotQuotedInTheDiagnostic() throws {
    let directory = try TemporaryDirectory()
    // A key declared secret in a text layer, and any key of a text layer holding secrets; the
    // first texts are converted when the model declares the keys, the later ones as they arrive.
    let environment = LayerTestSource(
      .environment, ["pin": "hunter2", "port": "eighty"], valuesAreText: true)
    let mount = LayerTestSource(
      "secrets", ["port": "s3cr3t"], holdsSecrets: true, valuesAreText: true)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .source(environment), .persistent, .source(mount)],
      options: Self.options)
    store.startWatching()
    defer { store.stopWatching() }
    let (settings, declared) = collectingDiagnostics { SecretNumberSettings(backend: store) }
    let ((), arrived) = collectingDiagnostics {
      environment.set(["pin": "hunter3", "port": "eighty"])
      mount.set(["port": "s3cr3u"])
    }
    #expect(settings.pin == 0)
    let messages = (declared + arrived).map(\.message)
    for text in ["hunter2", "hunter3", "s3cr3t", "s3cr3u"] {
      #expect(!messages.contains { $0.contains(text) }, "a diagnostic quotes '\(text)'")
    }
    #expect(
      messages.contains(
        "The environment layer's text <secret> for 'pin' can't be read as Int; the layer is "
          + "passed over for it: no other layer holds the key, so the setting reads its default"))
    #expect(messages.filter { $0.contains("<secret>") }.count == 4)
    #expect(
      messages.contains(
        "The environment layer's text 'eighty' for 'port' can't be read as Int (it is not an "
          + "integer); the layer is passed over for it: no other layer holds the key, so the "
          + "setting reads its default"))
  }

  // MARK: - Text layers

  @Test func aTextLayersValuesAreReadAsTheDeclaredTypesOnceAModelDeclaresThem() throws {
    let directory = try TemporaryDirectory()
    let environment = LayerTestSource(
      .environment, ["port": "8080", "verbose": "true", "ratio": "abc"], valuesAreText: true)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .source(environment), .persistent], options: Self.options)
    store.startWatching()
    defer { store.stopWatching() }
    // Nothing declared yet: the texts as strings.
    #expect(store.value(forKey: "port") == "8080")
    let received = Received<SettingsChange>()
    let token = store.observe(keys: ["port", "verbose", "ratio"]) { received.append($0) }
    defer { token.cancel() }
    let (settings, diagnostics) = collectingDiagnostics { TextSettings(backend: store) }
    #expect(store.value(forKey: "port") == 8080)
    #expect(store.value(forKey: "verbose") == true)
    #expect(settings.port == 8080)
    #expect(settings.verbose)
    // A text that doesn't parse is reported and left out of the layer.
    #expect(store.value(forKey: "ratio") == nil)
    #expect(settings.ratio == 1.0)
    #expect(diagnostics.map(\.kind) == [.layerValueRejected])
    #expect(diagnostics.first?.key == "ratio")
    #expect(diagnostics.first?.message.contains("environment layer's text 'abc'") == true)
    #expect(Set(received.all.map(\.key)) == ["port", "verbose", "ratio"])
    // New texts are converted as they are applied; one that doesn't parse is refused.
    environment.set(["port": "9090", "verbose": "true", "ratio": "abc"])
    #expect(store.value(forKey: "port") == 9090)
    let ((), refused) = collectingDiagnostics {
      environment.set(["port": "nope", "verbose": "true", "ratio": "abc"])
    }
    #expect(store.value(forKey: "port") == nil)
    #expect(refused.map(\.kind) == [.layerValueRejected])
    #expect(refused.first?.message.contains("'port'") == true)
  }

  // MARK: - Forced (managed) keys

  private func forcedStore(
    _ directory: TemporaryDirectory
  ) throws -> (LayeredPlistStore, LayerTestSource) {
    let managed = LayerTestSource(
      .managed, ["serverURL": "https://managed.example"], isForced: true)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: LayeredPlistStore.standardLayers(managed: managed), options: Self.options)
    return (store, managed)
  }

  @Test func aForcedKeyIsForcedAndExplainSaysWhichLayerManagesIt() throws {
    let directory = try TemporaryDirectory()
    let (store, _) = try forcedStore(directory)
    #expect(store.isForced(forKey: "serverURL"))
    #expect(!store.isForced(forKey: "volume"))
    #expect(store.scoped(to: "server").isForced(forKey: "URL"))
    let settings = ServerSettings(backend: store)
    #expect(settings.$serverURL.isForced)
    #expect(!settings.$volume.isForced)
    #expect(settings.serverURL == "https://managed.example")
    let provenance = store.explain("serverURL")
    #expect(provenance.forcedBy == .managed)
    #expect(
      provenance.description == """
        serverURL
          managed     https://managed.example   <- wins (managed: can't be changed)
          runtime     -
          persistent  -
        """)
    #expect(store.explain("volume").forcedBy == nil)
  }

  @Test func everyWriteOfAForcedKeyIsRefusedAndChangesNothing() throws {
    let directory = try TemporaryDirectory()
    let (store, _) = try forcedStore(directory)
    let url = "serverURL"
    func expectForced(_ path: String, _ write: () throws -> Void) {
      do {
        try write()
        Issue.record("\(path) wrote a forced key")
      } catch let error as SettingsError {
        #expect(
          error.description.contains(
            "Cannot write 'serverURL': it is managed by the 'managed' layer"),
          "\(path): \(error)")
      } catch {
        Issue.record("\(path) threw \(error)")
      }
    }
    expectForced("setValue") { try store.setValue("x", forKey: url) }
    expectForced("setValue(in: .runtime)") { try store.setValue("x", forKey: url, in: .runtime) }
    expectForced("setValues") { try store.setValues([url: "x", "volume": 0.9]) }
    expectForced("update") { try store.update(forKey: url) { _ in "x" } }
    expectForced("updateValues") {
      try store.updateValues {
        $0[url] = "x"; $0["volume"] = 0.9
      }
    }
    expectForced("applyServerConfiguration") {
      try store.applyServerConfiguration([url: "x", "volume": 0.9])
    }
    expectForced("setValueForNextLaunch") { try store.setValueForNextLaunch("x", forKey: url) }
    let settings = ServerSettings(backend: store)
    expectForced("Setting.set") { try settings.$serverURL.set("x") }
    expectForced("importValues") {
      try settings.importValues([url: "x", "volume": 0.9])
    }
    expectForced("migration") {
      try store.setValue("x", forKey: "oldURL")
      try SettingsMigrations(versionKey: "schemaVersion", steps: [.renameKey("oldURL", to: url)])
        .run(on: store)
    }
    let error = #expect(throws: SettingsError.self) { try store.setValue("x", forKey: url) }
    #expect(error?.code == .forcedValue)
    #expect(error?.key == url)
    // Nothing changed: no layer holds a value written, all or nothing.
    #expect(store.value(forKey: url, in: .persistent) == nil)
    #expect(store.value(forKey: url, in: .runtime) == nil)
    #expect(store.value(forKey: "volume") == nil)
    #expect(store.explain(url).nextLaunchChange == nil)
    #expect(store.value(forKey: "oldURL") == "x")
    // A removal can't throw: it does nothing and is reported.
    let ((), diagnostics) = collectingDiagnostics { store.removeValue(forKey: url) }
    #expect(diagnostics.map(\.kind) == [.writeFailed])
    #expect(diagnostics.first?.message.contains("managed by the 'managed' layer") == true)
    #expect(store.value(forKey: url) == "https://managed.example")
  }

  @Test func aKeyTheManagedLayerNoLongerHoldsCanBeWrittenAgain() throws {
    let directory = try TemporaryDirectory()
    let (store, managed) = try forcedStore(directory)
    store.startWatching()
    defer { store.stopWatching() }
    managed.set([:])
    #expect(!store.isForced(forKey: "serverURL"))
    try store.setValue("https://mine.example", forKey: "serverURL")
    #expect(store.value(forKey: "serverURL") == "https://mine.example")
  }

  // MARK: - Secrets

  @Test func aSecretLayersValuesAreRedactedInExplainAndDump() throws {
    let directory = try TemporaryDirectory()
    let secrets = LayerTestSource("secrets", ["token": "s3cr3t"], holdsSecrets: true)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .persistent, .source(secrets)], options: Self.options)
    try store.setValue("visible", forKey: "token", in: .runtime)
    let provenance = store.explain("token")
    #expect(provenance.secretLayers == ["secrets"])
    #expect(provenance.values["secrets"] == "s3cr3t")
    #expect(
      provenance.description == """
        token
          runtime     visible   <- wins
          persistent  -
          secrets     <secret>
        """)
    var dumped = ""
    dump(provenance, to: &dumped)
    #expect(!dumped.contains("s3cr3t"))
    #expect(dumped.contains("visible"))
    // A key declared secret hides every layer's value.
    _ = SecretSettings(backend: store)
    #expect(!store.explain("token").description.contains("visible"))
  }

  // MARK: - The record

  @Test func theRecordListsTheLayersInOrderWithTheirSources() throws {
    let directory = try TemporaryDirectory()
    let persistent = directory.file("data.plist")
    let delivered = directory.file("JF-info.plist")
    let store = try LayeredPlistStore(
      persistentFile: persistent,
      layers: LayeredPlistStore.standardLayers(
        environment: LayerTestSource(.environment, recordedSource: .environment(prefix: "APP_")),
        directories: [
          LayerTestSource(
            "secrets", recordedSource: .directory(path: "/run/secrets", holdsSecrets: true)),
          LayerTestSource("unrecordable"),
        ],
        deliveredFile: delivered),
      options: Self.options)
    _ = store
    let recorded = try LayeredPlistStore.recordedLayers(ofPersistentFile: persistent)
    typealias Recorded = LayeredPlistStore.RecordedLayer
    #expect(
      recorded == [
        Recorded(layer: .runtime),
        Recorded(layer: .environment, source: .environment(prefix: "APP_")),
        Recorded(layer: .persistent),
        Recorded(layer: "secrets", source: .directory(path: "/run/secrets", holdsSecrets: true)),
        Recorded(layer: "unrecordable"),
        Recorded(
          layer: .delivered, source: .propertyListFile(path: delivered.standardizedFileURL.path)),
      ])
    #expect(
      try LayeredPlistStore.recordedLayerFiles(ofPersistentFile: persistent)
        == LayeredPlistStore.LayerFiles(
          delivered: URL(fileURLWithPath: delivered.standardizedFileURL.path)))
  }

  @Test func aRecordInTheEarlierFormatReadsAsTheFourLayers() throws {
    let directory = try TemporaryDirectory()
    let persistent = directory.file("data.plist")
    let record = LayeredPlistStore.layerRecordFile(ofPersistentFile: persistent)
    try PropertyListFile(url: record).write(["bundled": "/opt/app/Info.plist"], format: .xml)
    typealias Recorded = LayeredPlistStore.RecordedLayer
    #expect(
      try LayeredPlistStore.recordedLayers(ofPersistentFile: persistent) == [
        Recorded(layer: .runtime), Recorded(layer: .persistent), Recorded(layer: .delivered),
        Recorded(layer: .bundled, source: .propertyListFile(path: "/opt/app/Info.plist")),
      ])
    #expect(
      try LayeredPlistStore.recordedLayerFiles(ofPersistentFile: persistent)
        == LayeredPlistStore.LayerFiles(bundled: URL(fileURLWithPath: "/opt/app/Info.plist")))
    try PropertyListFile(url: record).write(["layers": [["source": "nothing"]]], format: .xml)
    let error = #expect(throws: SettingsError.self) {
      try LayeredPlistStore.recordedLayers(ofPersistentFile: persistent)
    }
    #expect(error?.code == .corruptFile)
    #expect(error?.path == record.path)
  }
}
