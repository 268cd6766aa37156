import Foundation
import Testing
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsTestSupport

private struct ServiceSettings: SettingsGroup {
  @Setting(in: 1...65535) var port = 8080
  @Setting(in: 0.1...60.0) var requestTimeout = 5.0
  @Setting var verbose = false
  @Setting(secret: true) var token = ""
}

/// The rule for a value a layer holds that the setting refuses (issue 37, items 1 and 2): it is
/// passed over for the next layer's, at open and on every change alike, and the diagnostic
/// names the layer and where its source holds the key.
@Suite struct RefusedLayerValueTests {
  private static let options = LayeredPlistStore.Options(savesAtExit: false)

  /// A store of arguments > environment > data.plist > delivered (`port` 9000,
  /// `requestTimeout` 20).
  private func store(
    environment: [String: String], arguments: [String] = [], in directory: TemporaryDirectory
  ) throws -> LayeredPlistStore {
    let delivered = directory.file("delivered.plist")
    try writePlist(["port": 9000, "requestTimeout": 20.0], to: delivered)
    return try serviceStore(
      keys: ServiceSettings(backend: InMemoryBackend()).allSettings.map(\.key),
      arguments: arguments, environment: environment, delivered: delivered, in: directory)
  }

  /// Writes an XML property list, as a delivered file is.
  private func writePlist(_ values: [String: PropertyListValue], to url: URL) throws {
    try PropertyListFile(url: url).write(.dictionary(values), format: .xml)
  }

  // MARK: - At open

  @Test func anOutOfRangeValueIsPassedOverForTheNextLayersValue() throws {
    let directory = try TemporaryDirectory()
    let store = try store(environment: ["SVC_PORT": "70000"], in: directory)
    let (settings, declared) = collectingDiagnostics { ServiceSettings(backend: store) }
    let (port, read) = collectingDiagnostics { settings.port }
    #expect(port == 9000)
    #expect(read.isEmpty)
    #expect(store.layer(forKey: "port") == .delivered)
    #expect(
      declared.map(\.message) == [
        "The environment layer's text '70000' for 'port' (SVC_PORT) is not allowed (the setting "
          + "accepts in 1...65535); the layer is passed over for it: the setting reads the "
          + "delivered layer's value, 9000"
      ])
    #expect(declared.map(\.kind) == [.layerValueRejected])
  }

  @Test func aValueThatIsNotANumberIsPassedOverTheSameWay() throws {
    let directory = try TemporaryDirectory()
    let store = try store(environment: ["SVC_PORT": "abc"], in: directory)
    let (settings, declared) = collectingDiagnostics { ServiceSettings(backend: store) }
    #expect(settings.port == 9000)
    #expect(
      declared.map(\.message) == [
        "The environment layer's text 'abc' for 'port' (SVC_PORT) can't be read as Int (it is "
          + "not an integer); the layer is passed over for it: the setting reads the delivered "
          + "layer's value, 9000"
      ])
  }

  @Test func aRefusedValueWithNothingBelowItReadsTheDefault() throws {
    let directory = try TemporaryDirectory()
    let store = try store(environment: ["SVC_VERBOSE": "maybe"], in: directory)
    let (settings, declared) = collectingDiagnostics { ServiceSettings(backend: store) }
    #expect(settings.verbose == false)
    #expect(
      declared.map(\.message).first?.hasSuffix(
        "the layer is passed over for it: no other layer holds the key, so the setting reads "
          + "its default") == true)
  }

  @Test func explainShowsTheValuePassedOver() throws {
    let directory = try TemporaryDirectory()
    let store = try store(environment: ["SVC_PORT": "70000"], in: directory)
    _ = collectingDiagnostics { ServiceSettings(backend: store) }
    let provenance = store.explain("port")
    #expect(provenance.passedOver == [.environment: "70000"])
    #expect(provenance.source == .delivered)
    #expect(
      "\(provenance)" == """
        port
          runtime     -
          arguments   -
          environment 70000   <- passed over: is not allowed (the setting accepts in 1...65535)
          persistent  -
          delivered   9000   <- wins
        """)
  }

  // MARK: - On a change

  @Test func aChangeToARefusedValueReadsWhatAStartWouldRead() throws {
    let directory = try TemporaryDirectory()
    let delivered = directory.file("delivered.plist")
    try writePlist(["requestTimeout": 20.0], to: delivered)
    let config = LayerTestSource("config", ["requestTimeout": "15"], valuesAreText: true)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .source(config), .persistent, .delivered(delivered)],
      options: Self.options)
    store.startWatching()
    defer { store.stopWatching() }
    let settings = ServiceSettings(backend: store)
    #expect(settings.requestTimeout == 15)
    let received = Received<SettingsChange>()
    let token = store.observe(key: "requestTimeout") { received.append($0) }
    defer { token.cancel() }
    let ((), swapped) = collectingDiagnostics { config.set(["requestTimeout": "999"]) }
    #expect(settings.requestTimeout == 20)
    #expect(received.all == [SettingsChange(key: "requestTimeout", newValue: 20.0)])
    #expect(
      swapped.map(\.message) == [
        "The config layer's text '999' for 'requestTimeout' is not allowed (the setting accepts "
          + "in 0.1...60.0); the layer is passed over for it: the setting reads the delivered "
          + "layer's value, 20.0"
      ])
    // A store opened on the same values reads the same.
    let restarted = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [
        .runtime,
        .source(LayerTestSource("config", ["requestTimeout": "999"], valuesAreText: true)),
        .persistent, .delivered(delivered),
      ],
      options: Self.options)
    let (restartedSettings, _) = collectingDiagnostics { ServiceSettings(backend: restarted) }
    #expect(restartedSettings.requestTimeout == settings.requestTimeout)
    // A good value again is taken, and reported as a change.
    config.set(["requestTimeout": "30"])
    #expect(settings.requestTimeout == 30)
    #expect(store.explain("requestTimeout").passedOver.isEmpty)
  }

  @Test func aSecretsRefusedValueIsNeverShown() throws {
    let directory = try TemporaryDirectory()
    let store = try store(environment: ["SVC_TOKEN": "hunter2", "SVC_PORT": "x"], in: directory)
    let (_, declared) = collectingDiagnostics { ServiceSettings(backend: store) }
    #expect(declared.count == 1)
    #expect(!declared.contains { "\($0.message) \($0)".contains("hunter2") })
  }

  // MARK: - Options without a value (item 2)

  @Test func aBareOptionForANumberIsRefusedAndPassedOver() throws {
    let directory = try TemporaryDirectory()
    let store = try store(environment: [:], arguments: ["--port", "--verbose"], in: directory)
    let (settings, declared) = collectingDiagnostics { ServiceSettings(backend: store) }
    #expect(settings.port == 9000)
    #expect(settings.verbose == true)
    #expect(
      declared.map(\.message) == [
        "The arguments layer's option --port for 'port' has no value, which only a Bool "
          + "setting's option may lack; the layer is passed over for it: the setting reads the "
          + "delivered layer's value, 9000"
      ])
  }

  @Test func aBareOptionForADoubleIsRefusedToo() throws {
    let directory = try TemporaryDirectory()
    let store = try store(environment: [:], arguments: ["--request-timeout"], in: directory)
    let (settings, declared) = collectingDiagnostics { ServiceSettings(backend: store) }
    #expect(settings.requestTimeout == 20)
    #expect(declared.map(\.kind) == [.layerValueRejected])
  }

  /// A URL setting refuses text that isn't a URL (issue 37, item 7): `not a url` was read as
  /// `not%20a%20url`, with no diagnostic.
  @Test func aURLSettingRefusesTextThatIsNotAURLRatherThanEncodingIt() throws {
    struct Endpoints: SettingsGroup {
      @Setting var endpoint = URL(string: "https://default.example")!
    }
    let directory = try TemporaryDirectory()
    let store = try serviceStore(
      keys: ["endpoint"], environment: ["SVC_ENDPOINT": "not a url"], in: directory)
    let (settings, declared) = collectingDiagnostics { Endpoints(backend: store) }
    #expect(settings.endpoint.absoluteString == "https://default.example")
    #expect(
      declared.map(\.message) == [
        "The environment layer's text 'not a url' for 'endpoint' (SVC_ENDPOINT) can't be read as "
          + "URL; the layer is passed over for it: no other layer holds the key, so the setting "
          + "reads its default"
      ])
    #expect(declared.map(\.kind) == [.layerValueRejected])
    // Stored in data.plist, the reason says why.
    #expect(URL.readFailureReason(for: "not a url") == "it is not a URL (a URL can't hold ' ')")
    // A URL, a URL without a scheme, and a path still read.
    for (text, read) in [
      ("https://api.example/v1?q=a%20b", "https://api.example/v1?q=a%20b"),
      ("www.example.com", "www.example.com"), ("/srv/data", "file:///srv/data"),
    ] {
      #expect(URL(propertyListValue: .string(text))?.absoluteString == read)
    }
    for text in ["not a url", "https://ex ample.com", "https://example.com/\u{E9}", "a\"b"] {
      #expect(URL(propertyListValue: .string(text)) == nil, "\(text)")
    }
  }
}
