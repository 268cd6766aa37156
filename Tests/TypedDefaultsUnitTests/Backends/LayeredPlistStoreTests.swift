import Foundation
import Testing
@_spi(Testing) import TypedDefaultsLayers
import TypedDefaultsSchema
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// A store on files in a fresh temporary folder.
private struct StoreFixture {
  let directory: TemporaryDirectory
  var persistent: URL { directory.file("data.plist") }
  var delivered: URL { directory.file("JF-info.plist") }
  var bundled: URL { directory.file("Info.plist") }

  init() throws {
    directory = try TemporaryDirectory()
  }

  func write(
    _ values: [String: PropertyListValue], to url: URL, format: PropertyListFile.Format = .xml
  ) throws {
    try PropertyListFile(url: url).write(.dictionary(values), format: format)
  }

  func open(options: LayeredPlistStore.Options = .init()) throws -> LayeredPlistStore {
    try LayeredPlistStore(
      persistentFile: persistent,
      deliveredFile: delivered,
      bundledFile: bundled,
      options: options
    )
  }
}

/// A model declaring `volume` a `Double`.
private struct VolumeSettings: SettingsGroup {
  @Setting var volume = 0.5
}

@Suite struct LayeredPlistStoreTests {
  // MARK: - Precedence

  /// Each of the 16 combinations of a key present or absent in each of the four layers.
  @Test(arguments: 0..<16)
  func theHighestLayerHoldingAKeyWins(_ presence: Int) throws {
    let layers: [LayeredPlistStore.Layer] = [.runtime, .persistent, .delivered, .bundled]
    let present = layers.indices.filter { presence & (1 << $0) != 0 }.map { layers[$0] }
    let fixture = try StoreFixture()
    if present.contains(.bundled) { try fixture.write(["key": "bundled"], to: fixture.bundled) }
    if present.contains(.delivered) {
      try fixture.write(["key": "delivered"], to: fixture.delivered)
    }
    if present.contains(.persistent) {
      try fixture.write(["key": "persistent"], to: fixture.persistent)
    }
    let store = try fixture.open()
    if present.contains(.runtime) { try store.setValue("runtime", forKey: "key", in: .runtime) }

    let winner = present.first
    #expect(store.layer(forKey: "key") == winner)
    #expect(store.value(forKey: "key") == winner.map { .string($0.description) })
    #expect(store.dictionaryRepresentation()["key"] == winner.map { .string($0.description) })
    for layer in layers {
      let expected: PropertyListValue? = present.contains(layer) ? .string(layer.description) : nil
      #expect(store.value(forKey: "key", in: layer) == expected)
    }
  }

  @Test func removingFromAWritableLayerRevealsTheLayerBelow() throws {
    let fixture = try StoreFixture()
    try fixture.write(["timeout": 30], to: fixture.bundled)
    try fixture.write(["timeout": 20], to: fixture.delivered)
    let store = try fixture.open()
    try store.setValue(10, forKey: "timeout")
    try store.setValue(5, forKey: "timeout", in: .runtime)
    #expect(store.value(forKey: "timeout") == 5)
    try store.setValue(nil, forKey: "timeout", in: .runtime)
    #expect(store.value(forKey: "timeout") == 10)
    store.removeValue(forKey: "timeout")
    #expect(store.value(forKey: "timeout") == 20)
    #expect(store.layer(forKey: "timeout") == .delivered)
  }

  @Test func writingToAReadOnlyLayerThrowsAndChangesNothing() throws {
    let fixture = try StoreFixture()
    try fixture.write(["a": 1], to: fixture.bundled)
    let store = try fixture.open()
    for layer in [LayeredPlistStore.Layer.delivered, .bundled] {
      #expect(throws: SettingsError.self) { try store.setValue(2, forKey: "a", in: layer) }
      do {
        try store.setValue(2, forKey: "a", in: layer)
      } catch {
        #expect(error.code == .readOnlyLayer)
        #expect(error.key == "a")
        #expect(
          error.description
            == "Cannot write 'a': The \(layer) layer is read-only; write to the runtime or persistent layer"
        )
      }
    }
    #expect(store.value(forKey: "a") == 1)
    #expect(!store.hasUnsavedChanges)
  }

  // MARK: - Persistence

  @Test func savedValuesAreReadByANewStoreOnTheSameFiles() throws {
    let fixture = try StoreFixture()
    try fixture.write(["name": "bundled"], to: fixture.bundled)
    let store = try fixture.open()
    let values = BackendConformanceTests.samples
    for (key, value) in values { try store.setValue(value, forKey: key) }
    try store.setValue("this run only", forKey: "runtimeOnly", in: .runtime)
    #expect(store.hasUnsavedChanges)
    try store.save()
    #expect(!store.hasUnsavedChanges)

    let reopened = try fixture.open()
    #expect(reopened.dictionaryRepresentation(of: .persistent) == values)
    #expect(reopened.value(forKey: "runtimeOnly") == nil)
    #expect(reopened.value(forKey: "name") == "bundled")
    #expect(!reopened.hasUnsavedChanges)
  }

  /// A save with nothing unsaved rewrote the whole file (2.5 s for 16 MB, a new inode): it now
  /// writes nothing, and takes in what another process saved, as ``LayeredPlistStore/reload()``.
  @Test func aSaveWithNothingUnsavedLeavesTheFileAsItIs() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.save()
    #expect(!FileManager.default.fileExists(atPath: fixture.persistent.path))
    try store.setValue(0.5, forKey: "volume")
    try store.save()
    let saved = try #require(POSIX.identity(ofFileAt: fixture.persistent.path))

    try store.save()
    // Same inode, size, modification and status change times: not written.
    #expect(POSIX.identity(ofFileAt: fixture.persistent.path) == saved)
    #expect(store.saveCount == 1)

    let other = try fixture.open()
    try other.setValue(0.75, forKey: "volume")
    try other.save()
    let othersSave = try #require(POSIX.identity(ofFileAt: fixture.persistent.path))
    try store.save()
    #expect(store.value(forKey: "volume") == .real(0.75))
    #expect(POSIX.identity(ofFileAt: fixture.persistent.path) == othersSave)
  }

  @Test func saveIfNeededWritesOnlyWhenThePersistentLayerChanged() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    #expect(try store.saveIfNeeded() == false)
    #expect(!FileManager.default.fileExists(atPath: fixture.persistent.path))
    try store.setValue(1, forKey: "runtime", in: .runtime)
    #expect(try store.saveIfNeeded() == false)
    try store.setValue(1, forKey: "a")
    #expect(try store.saveIfNeeded() == true)
    #expect(try store.saveIfNeeded() == false)
    // Writing the value a key already has is not a change.
    try store.setValue(1, forKey: "a")
    #expect(!store.hasUnsavedChanges)
    #expect(try PropertyListFile(url: fixture.persistent).readDictionary() == ["a": 1])
  }

  @Test func aFailedSaveKeepsTheChangesSoARetrySucceeds() throws {
    let fixture = try StoreFixture()
    let folder = fixture.directory.file("not-yet-created")
    let file = folder.appendingPathComponent("data.plist")
    let store = try LayeredPlistStore(persistentFile: file)
    try store.setValue("kept", forKey: "a")
    // A file where the folder goes: the first save, which creates a missing folder, can't.
    try Data().write(to: folder)

    let error = #expect(throws: SettingsError.self) { try store.save() }
    #expect(error?.code == .fileNotWritable)
    #expect(error?.path == file.path)
    #expect(
      error?.description.hasPrefix("Cannot write the property list at '\(file.path)': ") == true)
    #expect(store.hasUnsavedChanges)
    #expect(store.value(forKey: "a") == "kept")

    try FileManager.default.removeItem(at: folder)
    #expect(try store.saveIfNeeded() == true)
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": "kept"])
  }

  @Test func aSaveKeepsTheFormatTheFileHad() throws {
    let fixture = try StoreFixture()
    try fixture.write(["a": 1], to: fixture.persistent, format: .binary)
    let store = try fixture.open()
    try store.setValue(2, forKey: "b")
    try store.save()
    let contents = try #require(try PropertyListFile(url: fixture.persistent).read())
    #expect(contents.format == .binary)
    #expect(contents.root == ["a": 1, "b": 2])
  }

  @Test func theFormatOptionOverridesTheFilesFormat() throws {
    let fixture = try StoreFixture()
    try fixture.write(["a": 1], to: fixture.persistent, format: .xml)
    let store = try fixture.open(options: .init(format: .binary))
    // At the next write: a save with nothing unsaved writes nothing.
    try store.save()
    #expect(try PropertyListFile(url: fixture.persistent).read()?.format == .xml)
    try store.setValue(2, forKey: "b")
    try store.save()
    #expect(try PropertyListFile(url: fixture.persistent).read()?.format == .binary)
  }

  @Test func aNewFileIsSavedAsBinaryAndXMLOnRequest() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.setValue(1, forKey: "a")
    try store.save()
    #expect(try Data(contentsOf: fixture.persistent).starts(with: Data("bplist00".utf8)))
    #expect(store.persistentFormat == .binary)

    let xmlFixture = try StoreFixture()
    let xmlStore = try xmlFixture.open(options: .init(format: .xml))
    try xmlStore.setValue(1, forKey: "a")
    try xmlStore.save()
    let text = try String(contentsOf: xmlFixture.persistent, encoding: .utf8)
    #expect(text.hasPrefix("<?xml"))
    #expect(text.contains("<key>a</key>"))
  }

  // MARK: - Unreadable files

  @Test func missingFilesAreEmptyLayers() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    #expect(store.dictionaryRepresentation().isEmpty)
  }

  @Test(arguments: [
    (Data("not a plist <".utf8), "Cannot read the property list"),
    (Data("bplist00\u{1}\u{2}".utf8), "Cannot read the property list"),
  ])
  func aCorruptDeliveredOrBundledFileIsATypedErrorNamingThePath(
    _ bytes: Data, _ expected: String
  )
    throws
  {
    for layer in ["delivered", "bundled"] {
      let fixture = try StoreFixture()
      let url = fixture.directory.file("\(layer).plist")
      try bytes.write(to: url)
      let error = #expect(throws: SettingsError.self) {
        if layer == "delivered" {
          _ = try LayeredPlistStore(persistentFile: fixture.persistent, deliveredFile: url)
        } else {
          _ = try LayeredPlistStore(persistentFile: fixture.persistent, bundledFile: url)
        }
      }
      #expect(error?.code == .corruptFile)
      #expect(error?.path == url.path)
      #expect(error?.description.contains(url.path) == true)
      #expect(error?.description.contains(expected) == true, "\(error?.description ?? "")")
      #expect(error?.reason.isEmpty == false)
      // A file the store doesn't own is left exactly as it was.
      #expect(try Data(contentsOf: url) == bytes)
    }
  }

  @Test func aCorruptDeliveredFileOpensAsAnEmptyLayerWhenAskedAndIsReported() throws {
    let fixture = try StoreFixture()
    let bytes = Data("<plist><dict><key>ServerURL</key>".utf8)  // a deployment's typo
    try bytes.write(to: fixture.delivered)
    try fixture.write(["ServerURL": "https://bundled"], to: fixture.bundled)
    try fixture.write(["volume": 3], to: fixture.persistent)
    // By default the error is the initializer's.
    let thrown = #expect(throws: SettingsError.self) { _ = try fixture.open() }
    #expect(thrown?.code == .corruptFile)
    // Asked, the store opens on the other layers, and keeps and reports the same error.
    let (store, diagnostics) = try collectingDiagnostics {
      try fixture.open(options: .init(opensDespiteUnreadableReadOnlyFiles: true))
    }
    #expect(store.value(forKey: "ServerURL") == "https://bundled")
    #expect(store.value(forKey: "volume") == 3)
    #expect(store.layersLoadedFromDisk == [.persistent, .bundled])
    #expect(store.explain("ServerURL").layersWithoutFile == [.delivered])
    #expect(store.recoveredProblems.map(\.description) == [thrown?.description])
    #expect(
      diagnostics.map(\.message) == [
        "\(thrown?.description ?? ""); the layer is empty until the file is fixed (it was left "
          + "in place)"
      ])
    #expect(diagnostics.map(\.kind) == [.corruptFile])
    #expect(try Data(contentsOf: fixture.delivered) == bytes)
  }

  @Test func aWrongTypedValueIsNoLayersValueOnceAModelDeclaredTheKey() throws {
    let fixture = try StoreFixture()
    try fixture.write(["volume": "loud"], to: fixture.persistent)
    try fixture.write(["volume": 0.8], to: fixture.delivered)
    let store = try fixture.open(options: .init(savesAtExit: false))
    // No model declared the key: the store tells what it holds.
    #expect(store.layer(forKey: "volume") == .persistent)
    let settings = VolumeSettings(backend: store)
    let (volume, _) = collectingDiagnostics { settings.volume }
    #expect(volume == 0.5)  // the default: a wrong-typed value doesn't fall through
    #expect(store.layer(forKey: "volume") == nil)
    let provenance = store.explain("volume")
    #expect(provenance.source == nil)
    #expect(provenance.value == nil)
    #expect(provenance.unreadableLayer == .persistent)
    #expect(provenance.declaredTypeName == "Double")
    #expect(
      provenance.description == """
        volume
          runtime     -
          persistent  loud   <- unreadable as Double: reads as the default
          delivered   0.8
          bundled     (no file)
        """)
    // A value it reads wins again.
    settings.volume = 0.6
    #expect(store.layer(forKey: "volume") == .persistent)
    #expect(store.explain("volume").unreadableLayer == nil)
  }

  @Test func aRootThatIsNotADictionaryIsATypedErrorThatSaysSo() throws {
    let fixture = try StoreFixture()
    try PropertyListFile(url: fixture.delivered).write(["a", "b"])
    let error = #expect(throws: SettingsError.self) { try fixture.open() }
    #expect(error?.code == .wrongRootType)
    #expect(error?.path == fixture.delivered.path)
    #expect(
      error?.description
        == "The property list at '\(fixture.delivered.path)' has the wrong root type: The root is an array, not a dictionary"
    )
  }

  @Test func aDirectoryInPlaceOfAFileIsATypedError() throws {
    let fixture = try StoreFixture()
    try FileManager.default.createDirectory(at: fixture.bundled, withIntermediateDirectories: false)
    let error = #expect(throws: SettingsError.self) { try fixture.open() }
    #expect(error?.code == .fileNotReadable)
    #expect(error?.path == fixture.bundled.path)
  }

  @Test func aFileAboveTheSizeLimitIsRefused() throws {
    let fixture = try StoreFixture()
    try fixture.write(["big": .data(Data(count: 4096))], to: fixture.delivered)
    let error = #expect(throws: SettingsError.self) {
      try fixture.open(options: .init(maximumFileSize: 1024))
    }
    #expect(error?.code == .fileTooLarge)
    #expect(error?.path == fixture.delivered.path)
    #expect(
      try fixture.open(options: .init(maximumFileSize: 64 * 1024)).value(forKey: "big") != nil)
  }

  // MARK: - Settings on a layered store

  @Test func aModelReadsTheLayeredValuesAndWritesThePersistentLayer() throws {
    struct AppConfig: SettingsGroup {
      @Setting("serverURL") var serverURL = URL(string: "https://default.example")!
      @Setting("timeout") var timeout = 60.0
      @Setting("verbose") var verbose = false
    }
    let fixture = try StoreFixture()
    try fixture.write(["serverURL": "https://bundled.example", "timeout": 30], to: fixture.bundled)
    try fixture.write(["timeout": 20], to: fixture.delivered)
    let store = try fixture.open()
    let config = AppConfig(backend: store)
    #expect(config.serverURL == URL(string: "https://bundled.example"))
    #expect(config.timeout == 20)
    #expect(config.verbose == false)

    config.timeout = 5
    #expect(store.layer(forKey: "timeout") == .persistent)
    config.$timeout.reset()
    #expect(config.timeout == 20)
    #expect(store.layer(forKey: "timeout") == .delivered)
  }
}
