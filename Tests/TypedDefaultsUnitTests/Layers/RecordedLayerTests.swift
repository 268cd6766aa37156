import Foundation
import Testing
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsSchema
import TypedDefaultsTestSupport
import settings

/// The record a store makes of its layers (`data.plist.layers`), and the layers a tool opens
/// from it (`LayerDefinition(recorded:environment:)`): what the `settings` tool uses to see the
/// layers the app sees.
@Suite struct RecordedLayerTests {
  private typealias Layer = LayeredPlistStore.Layer
  private typealias Recorded = LayeredPlistStore.RecordedLayer

  private static let options = LayeredPlistStore.Options(savesAtExit: false)

  /// A store folder with a file, a folder, a managed file and a settings bundle for the layers,
  /// each holding a value.
  private struct AppFolder {
    let directory: TemporaryDirectory
    var persistent: URL { directory.file("data.plist") }
    var delivered: URL { directory.file("JF-info.plist") }
    var extra: URL { directory.file("extra.plist") }
    var secrets: URL { directory.file("secrets") }
    var managed: URL { directory.file("etc/managed.plist") }
    var bundle: URL { directory.file("Settings.bundle") }

    init() throws {
      directory = try TemporaryDirectory()
      try PropertyListFile(url: delivered).write(["theme": "light", "volume": 0.25])
      try PropertyListFile(url: extra).write(["extra": true])
      try FileManager.default.createDirectory(at: secrets, withIntermediateDirectories: false)
      try Data("s3cr3t".utf8).write(to: secrets.appendingPathComponent("token"))
      try FileManager.default.createDirectory(
        at: managed.deletingLastPathComponent(), withIntermediateDirectories: false)
      try PropertyListFile(url: managed).write(["maxBitrate": 128])
      try FileManager.default.setAttributes(
        [.posixPermissions: 0o644], ofItemAtPath: managed.path)
      try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: false)
      try PropertyListFile(url: bundle.appendingPathComponent("Root.plist")).write([
        "PreferenceSpecifiers": [
          ["Type": "PSToggleSwitchSpecifier", "Key": "autoplay", "DefaultValue": true]
        ]
      ])
    }

    /// The app's layers: every built-in source, in the standard order, and one more file.
    func layers(environment: [String: String]) -> [LayeredPlistStore.LayerDefinition] {
      var layers = LayeredPlistStore.standardLayers(
        managed: ManagedSettingsSource(file: managed, trustedOwner: 501),
        arguments: CommandLineArgumentsSource(arguments: ["--volume", "1"], keys: ["volume"]),
        environment: EnvironmentVariablesSource(
          prefix: "DEMO", keys: ["volume", "serverURL"], environment: environment),
        directories: [DirectorySource(directory: secrets, layer: "secrets", holdsSecrets: true)],
        deliveredFile: delivered,
        settingsBundle: SettingsBundleSource(bundle: bundle))
      layers.append(.source(PropertyListFileSource(file: extra, layer: "extra")))
      return layers
    }

    /// What the store records of `layers(environment:)`.
    var recorded: [Recorded] {
      [
        Recorded(layer: .managed, source: .managed(path: managed.path, trustedOwner: 501)),
        Recorded(layer: .runtime),
        Recorded(layer: .arguments),
        Recorded(
          layer: .environment, source: .environment(prefix: "DEMO_", keys: ["serverURL", "volume"])
        ),
        Recorded(layer: .persistent),
        Recorded(layer: "secrets", source: .directory(path: secrets.path, holdsSecrets: true)),
        Recorded(layer: .delivered, source: .propertyListFile(path: delivered.path)),
        Recorded(layer: .settingsBundle, source: .settingsBundle(path: bundle.path)),
        Recorded(layer: "extra", source: .propertyListFile(path: extra.path)),
      ]
    }
  }

  // MARK: - The record

  @Test func everyBuiltInSourceIsRecordedWithWhatItNeedsToBeOpenedAgain() throws {
    let folder = try AppFolder()
    let store = try LayeredPlistStore(
      persistentFile: folder.persistent,
      layers: folder.layers(environment: ["DEMO_VOLUME": "0.75"]), options: Self.options)
    #expect(store.value(forKey: "volume") == "1")
    #expect(
      try LayeredPlistStore.recordedLayers(ofPersistentFile: folder.persistent) == folder.recorded)
    // The record holds the keys and the owner as fields of their sources.
    let record = try #require(
      try PropertyListFile(
        url: LayeredPlistStore.layerRecordFile(ofPersistentFile: folder.persistent)
      )
      .readDictionary())
    guard case .array(let layers)? = record["layers"] else {
      Issue.record("no layers in \(record)")
      return
    }
    #expect(
      layers[0]
        == [
          "name": "managed",
          "source": ["kind": "managed", "path": .string(folder.managed.path), "trustedOwner": 501],
        ])
    #expect(
      layers[3]
        == [
          "name": "environment",
          "source": ["kind": "environment", "prefix": "DEMO_", "keys": ["serverURL", "volume"]],
        ])
  }

  @Test func sourcesWithoutKeysOrWithRootAsOwnerRecordNeither() throws {
    let directory = try TemporaryDirectory()
    let persistent = directory.file("data.plist")
    let managed = directory.file("managed.plist")
    _ = try LayeredPlistStore(
      persistentFile: persistent,
      layers: LayeredPlistStore.standardLayers(
        managed: ManagedSettingsSource(file: managed),
        environment: EnvironmentVariablesSource(prefix: "DEMO", environment: [:])),
      options: Self.options)
    #expect(
      try LayeredPlistStore.recordedLayers(ofPersistentFile: persistent) == [
        Recorded(layer: .managed, source: .managed(path: managed.path, trustedOwner: 0)),
        Recorded(layer: .runtime),
        Recorded(layer: .environment, source: .environment(prefix: "DEMO_", keys: nil)),
        Recorded(layer: .persistent),
      ])
    let record = try PropertyListFile(
      url: LayeredPlistStore.layerRecordFile(ofPersistentFile: persistent)
    ).readDictionary()
    #expect(
      record == [
        "layers": [
          ["name": "managed", "source": ["kind": "managed", "path": .string(managed.path)]],
          ["name": "runtime"],
          ["name": "environment", "source": ["kind": "environment", "prefix": "DEMO_"]],
          ["name": "persistent"],
        ]
      ])
  }

  @Test func aRecordThatIsNotOneAStoreWroteIsAnErrorNamingWhatIsWrong() throws {
    let directory = try TemporaryDirectory()
    let persistent = directory.file("data.plist")
    let record = LayeredPlistStore.layerRecordFile(ofPersistentFile: persistent)
    let own: [PropertyListValue] = [["name": "runtime"], ["name": "persistent"]]
    let cases: [(PropertyListValue, String)] = [
      (
        ["name": "cloud", "source": ["kind": "cloudKit", "container": "iCloud.x"]],
        "the source of the 'cloud' layer has the kind 'cloudKit', which this version of "
          + "TypedDefaults can't open (it opens 'propertyListFile', 'directory', 'environment', "
          + "'managed', 'settingsBundle', 'etcd')"
      ),
      (
        ["name": "environment", "source": ["kind": "environment", "prefix": "A_", "keys": [1]]],
        "the source of the 'environment' layer (environment) has 'keys' that are not an array "
          + "of strings"
      ),
      (
        [
          "name": "managed",
          "source": ["kind": "managed", "path": "/etc/m.plist", "trustedOwner": -1],
        ],
        "the source of the 'managed' layer (managed) has a 'trustedOwner' that is not a user id"
      ),
      (
        [
          "name": "secrets",
          "source": ["kind": "directory", "path": "relative", "holdsSecrets": true],
        ],
        "the source of the 'secrets' layer (directory) has no absolute 'path'"
      ),
      (["name": "persistent"], "the 'persistent' layer is listed twice"),
    ]
    for (layer, reason) in cases {
      try PropertyListFile(url: record).write(["layers": .array(own + [layer])], format: .xml)
      let error = #expect(throws: SettingsError.self) {
        try LayeredPlistStore.recordedLayers(ofPersistentFile: persistent)
      }
      #expect(error?.code == .corruptFile)
      #expect(error?.path == record.path)
      #expect(error?.reason == reason)
    }
    try PropertyListFile(url: record).write(["layers": [["name": "runtime"]]], format: .xml)
    let error = #expect(throws: SettingsError.self) {
      try LayeredPlistStore.recordedLayers(ofPersistentFile: persistent)
    }
    #expect(error?.reason == "it has no 'persistent' layer")
  }

  // MARK: - Opening the recorded layers again

  @Test func recordedLayersOpenAsTheLayersTheAppOpened() throws {
    let folder = try AppFolder()
    _ = try LayeredPlistStore(
      persistentFile: folder.persistent, layers: folder.layers(environment: [:]),
      options: Self.options)
    let recorded = try #require(
      try LayeredPlistStore.recordedLayers(ofPersistentFile: folder.persistent))
    // The tool's environment, not the app's.
    let environment = ["DEMO_VOLUME": "0.3", "DEMO_SERVER_URL": "https://tool.example"]
    let definitions = recorded.map {
      LayeredPlistStore.LayerDefinition(recorded: $0, environment: environment)
    }
    // Only the arguments of the app's launch can't be opened again.
    #expect(
      definitions.map { $0?.layer } == recorded.map { $0.layer == .arguments ? nil : $0.layer })
    let store = try LayeredPlistStore(
      persistentFile: folder.persistent, layers: definitions.compactMap { $0 },
      options: .init(savesAtExit: false, recordsLayerFiles: false))
    #expect(
      store.layers == [
        .managed, .runtime, .environment, .persistent, "secrets", .delivered, .settingsBundle,
        "extra",
      ])
    #expect(
      store.dictionaryRepresentation() == [
        "maxBitrate": 128, "volume": "0.3", "serverURL": "https://tool.example",
        "token": "s3cr3t", "theme": "light", "autoplay": true, "extra": true,
      ])
    // The delivered file is the store's delivered file, read as the app reads it.
    #expect(store.deliveredFile?.url.path == folder.delivered.path)
    #expect(store.layer(forKey: "volume") == .environment)
    #expect(store.explain("volume").values[.delivered] == 0.25)
    // Managed keys are forced, the secrets layer's values hidden, as in the app.
    #expect(store.isForced(forKey: "maxBitrate"))
    #expect(store.explain("maxBitrate").forcedBy == .managed)
    let token = store.explain("token")
    #expect(token.hidesValue(in: "secrets"))
    #expect(!token.hidesValue(in: .delivered))
    #expect(!token.description.contains("s3cr3t"))
    #expect(token.description.contains(LayeredPlistStore.Provenance.secretPlaceholder))
    // Opening leaves the app's record as it was.
    #expect(try LayeredPlistStore.recordedLayers(ofPersistentFile: folder.persistent) == recorded)
  }

  @Test func anEnvironmentRecordWithoutKeysNamesKeysByTheVariablesAlone() throws {
    let environment = ["DEMO_SERVER_URL": "https://a.example"]
    func values(_ keys: [String]?) throws -> [String: PropertyListValue] {
      let recorded = Recorded(
        layer: .environment, source: .environment(prefix: "DEMO_", keys: keys))
      let definition = try #require(
        LayeredPlistStore.LayerDefinition(recorded: recorded, environment: environment))
      let directory = try TemporaryDirectory()
      return try LayeredPlistStore(
        persistentFile: directory.file("data.plist"),
        layers: [.runtime, definition, .persistent],
        options: .init(savesAtExit: false, recordsLayerFiles: false)
      ).dictionaryRepresentation()
    }
    #expect(try values(["serverURL"]) == ["serverURL": "https://a.example"])
    #expect(try values(nil) == ["serverUrl": "https://a.example"])
  }

  @Test func layersWithoutARecordedSourceOpenOnlyWhenTheyAreEmptyFileLayers() throws {
    func layer(_ layer: Layer, _ source: RecordedLayerSource? = nil) -> Layer? {
      LayeredPlistStore.LayerDefinition(recorded: Recorded(layer: layer, source: source))?.layer
    }
    #expect(layer(.runtime) == .runtime)
    #expect(layer(.persistent) == .persistent)
    // The old initializer given no delivered or bundled file: an empty layer.
    #expect(layer(.delivered) == .delivered)
    #expect(layer(.bundled) == .bundled)
    // Arguments, the managed app configuration, a source of the app's own: nothing to open.
    #expect(layer(.arguments) == nil)
    #expect(layer(.managed) == nil)
    #expect(layer("flags") == nil)
    // A record edited by hand: a source on a layer it can't fill.
    #expect(layer(.persistent, .propertyListFile(path: "/etc/x.plist")) == nil)
    #expect(layer("other", .managed(path: "/etc/m.plist")) == nil)
    #expect(layer("other", .settingsBundle(path: "/opt/Settings.bundle")) == nil)
    #expect(layer("other", .propertyListFile(path: "/etc/x.plist")) == "other")

    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [
        .runtime, .persistent,
        try #require(LayeredPlistStore.LayerDefinition(recorded: Recorded(layer: .delivered))),
      ],
      options: .init(savesAtExit: false, recordsLayerFiles: false))
    #expect(store.deliveredFile == nil)
    #expect(store.explain("k").layersWithoutFile == [.delivered])
  }
}
