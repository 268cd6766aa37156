import Foundation
import Testing
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

private struct ManagedTestSettings: SettingsGroup {
  @Setting var volume = 0.5
  @Setting var server = "https://default.example"
}

/// Managed settings (issue #19): the `managed` layer from a root-owned property-list file on
/// Linux, refused unless only the trusted owner could have written it, and from the managed app
/// configuration dictionary on Apple platforms (its conversion tested here).
///
/// The trust tests change owners, so they need root (the CI and this machine run as root).
@Suite struct ManagedSettingsSourceTests {
  static let isRoot = geteuid() == 0

  /// A temporary folder holding `etc/managed.plist`, the folder 0755 and the file 0644, both
  /// owned by root.
  struct ManagedFolder {
    let directory: TemporaryDirectory
    let folder: URL
    let file: URL

    init(
      values: [String: PropertyListValue]? = ["volume": 3, "server": "https://example.com"]
    )
      throws
    {
      directory = try TemporaryDirectory()
      folder = directory.file("etc")
      file = folder.appendingPathComponent("managed.plist")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
      try Self.setMode(0o755, of: folder)
      if let values {
        try PropertyListFile(url: file).write(.dictionary(values))
        try Self.setMode(0o644, of: file)
      }
    }

    static func setMode(_ mode: Int, of url: URL) throws {
      try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    }

    static func setOwner(_ user: Int, of url: URL) throws {
      try FileManager.default.setAttributes([.ownerAccountID: user], ofItemAtPath: url.path)
    }
  }

  /// The error `read()` throws.
  func readError(_ source: ManagedSettingsSource) -> SettingsError? {
    do {
      _ = try source.read()
      return nil
    } catch {
      return error
    }
  }

  // MARK: - What it is

  @Test func theSourceFillsTheManagedLayerAndIsForced() throws {
    let managed = try ManagedFolder()
    let source = ManagedSettingsSource(file: managed.file)
    #expect(source.layer == .managed)
    #expect(source.isForced)
    #expect(!source.holdsSecrets)
    #expect(!source.valuesAreText)
    #expect(source.trustedOwner == 0)
    #expect(source.recordedSource == .managed(path: managed.file.path))
  }

  #if !canImport(Darwin)
    @Test func anIdentifierNamesTheFileInItsFolderUnderEtc() {
      let source = ManagedSettingsSource(identifier: "com.example.app")
      #expect(source.file?.path == "/etc/com.example.app/managed.plist")
      #expect(source.recordedSource == .managed(path: "/etc/com.example.app/managed.plist"))
      #expect(
        ManagedSettingsSource.defaultFile(forIdentifier: "com.example.app").path
          == "/etc/com.example.app/managed.plist")
    }

    @Test func anIdentifierWithoutAFileIsAnEmptyLayer() throws {
      let source = ManagedSettingsSource(identifier: "TypedDefaultsTests-\(UUID().uuidString)")
      #expect(try source.read() == LayerContents(values: [:]))
    }

    @Test(arguments: ["", ".", "..", "../passwd", "a/b"])
    func anIdentifierThatIsNotAPlainNameIsRefused(_ identifier: String) {
      let error = readError(ManagedSettingsSource(identifier: identifier))
      #expect(error?.code == .directoryNotUsable)
      #expect(error?.reason == "The identifier '\(identifier)' is not a plain folder name")
    }
  #endif

  // MARK: - Reading

  @Test(.enabled(if: isRoot)) func aRootOwnedFileWritableOnlyByRootIsRead() throws {
    let managed = try ManagedFolder()
    let contents = try ManagedSettingsSource(file: managed.file).read()
    #expect(contents == LayerContents(values: ["volume": 3, "server": "https://example.com"]))
  }

  @Test func aMissingFileIsAnEmptyLayer() throws {
    let managed = try ManagedFolder(values: nil)
    #expect(try ManagedSettingsSource(file: managed.file).read() == LayerContents(values: [:]))
  }

  @Test func aMissingFolderIsAnEmptyLayer() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("absent").appendingPathComponent("managed.plist")
    #expect(try ManagedSettingsSource(file: file).read() == LayerContents(values: [:]))
  }

  @Test(.enabled(if: isRoot)) func aZeroByteFileIsAnEmptyLayer() throws {
    let managed = try ManagedFolder(values: nil)
    try Data().write(to: managed.file)
    try ManagedFolder.setMode(0o644, of: managed.file)
    #expect(try ManagedSettingsSource(file: managed.file).read() == LayerContents(values: [:]))
  }

  @Test(.enabled(if: isRoot)) func aCorruptFileThrowsACorruptFileErrorNamingItsPath() throws {
    let managed = try ManagedFolder(values: nil)
    try Data("<plist><dict><key>a</key>".utf8).write(to: managed.file)
    try ManagedFolder.setMode(0o644, of: managed.file)
    let error = readError(ManagedSettingsSource(file: managed.file))
    #expect(error?.code == .corruptFile)
    #expect(error?.path == managed.file.path)
  }

  @Test(.enabled(if: isRoot)) func aFileWhoseRootIsNotADictionaryThrowsWrongRootType() throws {
    let managed = try ManagedFolder(values: nil)
    try PropertyListFile(url: managed.file).write([1, 2])
    try ManagedFolder.setMode(0o644, of: managed.file)
    let error = readError(ManagedSettingsSource(file: managed.file))
    #expect(error?.code == .wrongRootType)
    #expect(error?.path == managed.file.path)
  }

  @Test(.enabled(if: isRoot)) func aFolderInTheFilesPlaceIsNotReadable() throws {
    let managed = try ManagedFolder(values: nil)
    try FileManager.default.createDirectory(at: managed.file, withIntermediateDirectories: false)
    try ManagedFolder.setMode(0o755, of: managed.file)
    let error = readError(ManagedSettingsSource(file: managed.file))
    #expect(error?.code == .fileNotReadable)
    #expect(error?.reason == "It is a directory")
  }

  // MARK: - Trust

  @Test(.enabled(if: isRoot)) func aFileWritableByOthersIsRefusedNamingItsPathAndMode() throws {
    let managed = try ManagedFolder()
    try ManagedFolder.setMode(0o666, of: managed.file)
    let error = readError(ManagedSettingsSource(file: managed.file))
    #expect(error?.code == .fileNotTrusted)
    #expect(error?.path == managed.file.path)
    #expect(
      error?.description
        == "Cannot trust the file at '\(managed.file.path)': It is writable by its group and by others (mode 0666): managed settings must be writable only by root"
    )
    try ManagedFolder.setMode(0o646, of: managed.file)
    #expect(
      readError(ManagedSettingsSource(file: managed.file))?.reason
        == "It is writable by others (mode 0646): managed settings must be writable only by root")
  }

  @Test(.enabled(if: isRoot)) func aFileWritableByItsGroupIsRefused() throws {
    let managed = try ManagedFolder()
    try ManagedFolder.setMode(0o664, of: managed.file)
    let error = readError(ManagedSettingsSource(file: managed.file))
    #expect(error?.code == .fileNotTrusted)
    #expect(
      error?.reason
        == "It is writable by its group (mode 0664): managed settings must be writable only by root"
    )
  }

  @Test(.enabled(if: isRoot)) func aFileOwnedByAnotherUserIsRefused() throws {
    let managed = try ManagedFolder()
    try ManagedFolder.setOwner(12345, of: managed.file)
    let error = readError(ManagedSettingsSource(file: managed.file))
    #expect(error?.code == .fileNotTrusted)
    #expect(
      error?.reason
        == "It is owned by uid 12345 (mode 0644): managed settings must be writable only by root")
  }

  @Test(.enabled(if: isRoot)) func theTrustedOwnerMayOwnTheFileAndItsFolder() throws {
    let managed = try ManagedFolder()
    try ManagedFolder.setOwner(12345, of: managed.file)
    try ManagedFolder.setOwner(12345, of: managed.folder)
    let source = ManagedSettingsSource(file: managed.file, trustedOwner: 12345)
    #expect(try source.read().values == ["volume": 3, "server": "https://example.com"])
    // Not writable by others, though: the rule is the same for every owner.
    try ManagedFolder.setMode(0o666, of: managed.file)
    #expect(
      readError(source)?.reason
        == "It is writable by its group and by others (mode 0666): managed settings must be writable only by root or uid 12345"
    )
  }

  @Test(.enabled(if: isRoot)) func aFolderWritableByOthersIsRefused() throws {
    let managed = try ManagedFolder()
    try ManagedFolder.setMode(0o757, of: managed.folder)
    let error = readError(ManagedSettingsSource(file: managed.file))
    #expect(error?.code == .fileNotTrusted)
    #expect(error?.path == managed.file.path)
    #expect(
      error?.reason
        == "Its folder '\(managed.folder.path)' is writable by others (mode 0757): managed settings must be writable only by root"
    )
  }

  @Test(.enabled(if: isRoot)) func aFolderOwnedByAnotherUserIsRefused() throws {
    let managed = try ManagedFolder()
    try ManagedFolder.setOwner(12345, of: managed.folder)
    let error = readError(ManagedSettingsSource(file: managed.file))
    #expect(error?.code == .fileNotTrusted)
    #expect(
      error?.reason
        == "Its folder '\(managed.folder.path)' is owned by uid 12345 (mode 0755): managed settings must be writable only by root"
    )
  }

  @Test(.enabled(if: isRoot)) func aSymbolicLinkToATrustedFileInATrustedFolderIsFollowed() throws {
    let managed = try ManagedFolder(values: nil)
    let real = managed.folder.appendingPathComponent("..data", isDirectory: true)
    try FileManager.default.createDirectory(at: real, withIntermediateDirectories: false)
    try ManagedFolder.setMode(0o755, of: real)
    let target = real.appendingPathComponent("managed.plist")
    try PropertyListFile(url: target).write(["volume": 9])
    try ManagedFolder.setMode(0o644, of: target)
    // As a Kubernetes ConfigMap mounts it: a relative link into the data folder.
    try FileManager.default.createSymbolicLink(
      atPath: managed.file.path, withDestinationPath: "..data/managed.plist")
    #expect(try ManagedSettingsSource(file: managed.file).read().values == ["volume": 9])
  }

  @Test(.enabled(if: isRoot)) func aSymbolicLinkToAFileOthersMayWriteIsRefused() throws {
    let managed = try ManagedFolder(values: nil)
    let target = managed.directory.file("target.plist")
    try PropertyListFile(url: target).write(["volume": 9])
    try ManagedFolder.setMode(0o666, of: target)
    try FileManager.default.createSymbolicLink(at: managed.file, withDestinationURL: target)
    let error = readError(ManagedSettingsSource(file: managed.file))
    #expect(error?.code == .fileNotTrusted)
    #expect(error?.path == managed.file.path)
    #expect(
      error?.reason
        == "The file it links to, '\(target.path)', is writable by its group and by others (mode 0666): managed settings must be writable only by root"
    )
  }

  @Test(.enabled(if: isRoot)) func aSymbolicLinkIntoAFolderOthersMayWriteIsRefused() throws {
    let managed = try ManagedFolder(values: nil)
    let open = managed.directory.file("open")
    try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
    try ManagedFolder.setMode(0o757, of: open)
    let target = open.appendingPathComponent("managed.plist")
    try PropertyListFile(url: target).write(["volume": 9])
    try ManagedFolder.setMode(0o644, of: target)
    try FileManager.default.createSymbolicLink(at: managed.file, withDestinationURL: target)
    let error = readError(ManagedSettingsSource(file: managed.file))
    #expect(error?.code == .fileNotTrusted)
    #expect(
      error?.reason
        == "Its folder '\(open.path)' (reached through a symbolic link) is writable by others (mode 0757): managed settings must be writable only by root"
    )
  }

  @Test func aSymbolicLinkToNothingIsAnEmptyLayer() throws {
    let managed = try ManagedFolder(values: nil)
    try FileManager.default.createSymbolicLink(
      atPath: managed.file.path, withDestinationPath: "nowhere.plist")
    #expect(try ManagedSettingsSource(file: managed.file).read() == LayerContents(values: [:]))
  }

  // MARK: - In a store

  /// A wrong-typed value in the managed file made a forced key read its default over the
  /// user's saved value, and the type mismatch named the store's `data.plist`.
  @Test(.enabled(if: isRoot))
  func aManagedValueTheDeclaredTypeCannotReadIsPassedOverForTheNextLayersValue() throws {
    let managed = try ManagedFolder(values: ["volume": "loud", "server": "https://managed.example"])
    let dataFile = managed.directory.file("data.plist")
    try PropertyListFile(url: dataFile).write(["volume": 0.8, "server": "https://mine.example"])
    let store = try LayeredPlistStore(
      persistentFile: dataFile,
      layers: LayeredPlistStore.standardLayers(managed: ManagedSettingsSource(file: managed.file)),
      options: .init(savesAtExit: false))
    let (settings, declared) = collectingDiagnostics { ManagedTestSettings(backend: store) }
    let (volume, read) = collectingDiagnostics { settings.volume }
    // The user's saved value, read without a type mismatch; the managed file is named.
    #expect(volume == 0.8)
    #expect(read.isEmpty)
    #expect(
      declared.map(\.message) == [
        "The managed layer's value loud for 'volume' in '\(managed.file.path)' can't be read as "
          + "Double; the layer is passed over for it, so the key isn't forced: the setting reads "
          + "the persistent layer's value, 0.8"
      ])
    #expect(declared.map(\.kind) == [.layerValueRejected])
    #expect(declared.first?.key == "volume")
    #expect(store.layer(forKey: "volume") == .persistent)
    // The key isn't forced while the managed file holds no value it can read; the others are.
    #expect(!settings.$volume.isForced)
    try settings.$volume.set(0.3)
    #expect(settings.volume == 0.3)
    #expect(settings.server == "https://managed.example")
    #expect(settings.$server.isForced)
  }

  // MARK: - Watching

  @Test(.enabled(if: isRoot)) func watchingReportsAChangeOfTheFile() async throws {
    let managed = try ManagedFolder()
    let source = ManagedSettingsSource(file: managed.file)
    let reports = Received<[String]?>()
    let reporter = LayerSourceReporter { reports.append($0) }
    source.startWatching(reportingTo: reporter)
    defer { source.stopWatching() }
    // Once armed, a watch reports every file once (whatever changed while it was being set up).
    await eventually("the watch reports the file once armed") { reports.count >= 1 }
    let before = reports.count
    try PropertyListFile(url: managed.file).write(["volume": 4])
    await eventually("the watch reports the new file") { reports.count > before }
    #expect(reports.all.allSatisfy { $0 == nil })
    #expect(try source.read().values == ["volume": 4])
  }

  @Test func watchingTwiceAndStoppingTwiceAreHarmless() throws {
    let managed = try ManagedFolder()
    let source = ManagedSettingsSource(file: managed.file)
    let reporter = LayerSourceReporter { _ in }
    source.startWatching(reportingTo: reporter)
    source.startWatching(reportingTo: reporter)
    source.stopWatching()
    source.stopWatching()
  }

  // MARK: - The managed app configuration (Apple platforms' origin, its logic shared)

  @Test func aManagedAppConfigurationBecomesPropertyListValues() throws {
    let source = ManagedSettingsSource(managedConfiguration: {
      [
        "volume": 3, "ratio": 0.5, "enabled": true, "server": "https://example.com",
        "hosts": ["a", "b"], "limits": ["upload": 10], "token": Data([1, 2]),
      ]
    })
    #expect(source.file == nil)
    #expect(source.recordedSource == nil)
    #expect(source.isForced)
    let contents = try source.read()
    #expect(
      contents.values == [
        "volume": 3, "ratio": 0.5, "enabled": true, "server": "https://example.com",
        "hosts": ["a", "b"], "limits": ["upload": 10], "token": .data(Data([1, 2])),
      ])
    #expect(contents.problems.isEmpty)
  }

  @Test func noManagedAppConfigurationIsAnEmptyLayer() throws {
    let source = ManagedSettingsSource(managedConfiguration: { nil })
    #expect(try source.read() == LayerContents(values: [:]))
  }

  @Test func anEntryThatIsNoPropertyListValueIsLeftOutAsAProblemNamingItsKey() {
    let contents = ManagedSettingsSource.contents(ofManagedConfiguration: [
      "volume": 3, "nothing": NSNull(), "list": [1, NSNull()] as [Any],
    ])
    #expect(contents.values == ["volume": 3])
    #expect(contents.problems.map(\.key) == ["list", "nothing"])
    #expect(contents.problems.allSatisfy { $0.code == .valueNotRepresentable })
    #expect(
      contents.problems.allSatisfy {
        $0.reason.hasPrefix("The managed app configuration's value is not a property-list value")
      })
  }

  @Test func aDefaultsChangeNotificationIsReportedForAManagedAppConfiguration() async {
    let source = ManagedSettingsSource(managedConfiguration: { ["volume": 1] })
    let reports = Received<[String]?>()
    source.startWatching(reportingTo: LayerSourceReporter { reports.append($0) })
    NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: nil)
    #expect(reports.all.first == .some(nil))
    source.stopWatching()
    let count = reports.count
    NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: nil)
    #expect(reports.count == count)
  }
}
