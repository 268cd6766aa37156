import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsSchema
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// A data folder a program only reads from (issue 35 item 6, issue 37 item 3): finding it writes
/// nothing and needs no permission to write; the store creates it at its first save; a save that
/// can't write says which folder and why, and keeps the changes for a retry.
@Suite struct StandardLocationTests {
  private func exists(_ url: URL) -> Bool {
    FileManager.default.fileExists(atPath: url.path)
  }

  /// Whether a test can make a folder read-only here.
  private static let readOnlyFoldersWork = ConditionTrait.enabled(
    if: LayeredPlistStoreFaultTests.ReadOnlyFolders.method != nil,
    "root ignores permissions, chattr +i does not work here, nor does a read-only mount")

  /// A folder made read-only for a test, as ``LayeredPlistStoreFaultTests/ReadOnlyFolders``
  /// makes one (root included), made writable again and taken down when released.
  private final class ReadOnlyFolder {
    typealias Method = LayeredPlistStoreFaultTests.ReadOnlyFolders
    let url: URL
    private let remove: () -> Void
    private var isReadOnly = false

    init(_ url: URL, holding entries: [String: PropertyListValue]? = nil) throws {
      self.url = url
      remove = try Method.create(url)
      if let entries {
        try PropertyListFile(url: url.appending(path: "data.plist")).write(.dictionary(entries))
      }
      try Method.makeReadOnly(url)
      isReadOnly = true
    }

    func makeWritable() {
      if isReadOnly { Method.makeWritable(url) }
      isReadOnly = false
    }

    deinit {
      makeWritable()
      remove()
    }
  }

  @Test func findingTheDataFolderCreatesNothing() throws {
    let directory = try TemporaryDirectory()
    // A home that doesn't exist, as `HOME=/nonexistent` for a service account.
    let home = directory.file("nonexistent")
    let found = try StandardLocation.data.directory(
      for: "com.example.player", environment: ["HOME": home.path])
    #if !canImport(Darwin)
      #expect(found.path == home.path + "/.local/share/com.example.player")
    #endif
    #expect(!exists(home))

    let share = directory.file("share")
    let chosen = try StandardLocation.data.directory(
      for: "com.example.player", environment: ["XDG_DATA_HOME": share.path, "HOME": home.path])
    #if !canImport(Darwin)
      #expect(chosen.path == share.path + "/com.example.player")
    #endif
    #expect(!exists(share))
  }

  @Test func theFirstSaveCreatesTheMissingDataFolderForItsOwnerOnly() throws {
    #if !canImport(Darwin)
      let directory = try TemporaryDirectory()
      let share = directory.file("share")
      let folder = try StandardLocation.data.directory(
        for: "com.example.player", environment: ["XDG_DATA_HOME": share.path])
      let store = try LayeredPlistStore(
        persistentFile: folder.appending(path: "data.plist"), options: .init(savesAtExit: false))
      #expect(store.value(forKey: "volume") == nil)
      try store.setValue(0.5, forKey: "volume")
      #expect(!exists(share))

      try store.save()
      for created in [share, folder] {
        let attributes = try FileManager.default.attributesOfItem(atPath: created.path)
        #expect(attributes[.posixPermissions] as? Int == 0o700)
      }
      #expect(
        try PropertyListFile(url: folder.appending(path: "data.plist")).readDictionary()
          == ["volume": 0.5])
    #endif
  }

  @Test func aStoreOpenedWithNoFolderRecordsItsLayersAtTheFirstSave() throws {
    let directory = try TemporaryDirectory()
    let delivered = directory.file("JF-info.plist")
    try PropertyListFile(url: delivered).write(["volume": 0.25])
    let file = directory.file("share/com.example.player/data.plist")
    let store = try LayeredPlistStore(
      persistentFile: file, deliveredFile: delivered, options: .init(savesAtExit: false))
    #expect(store.value(forKey: "volume") == .real(0.25))
    #expect(try LayeredPlistStore.recordedLayerFiles(ofPersistentFile: file) == nil)
    try store.setValue(0.5, forKey: "volume")
    try store.save()
    #expect(
      try LayeredPlistStore.recordedLayerFiles(ofPersistentFile: file)
        == LayeredPlistStore.LayerFiles(delivered: delivered, bundled: nil))
  }

  @Test func aFileInTheWayOfTheDataFolderIsAnErrorNamingIt() throws {
    #if !canImport(Darwin)
      let directory = try TemporaryDirectory()
      let blocker = directory.file("share")
      try Data().write(to: blocker)
      let error = #expect(throws: SettingsError.self) {
        try StandardLocation.data.directory(
          for: "com.example.player", environment: ["XDG_DATA_HOME": blocker.path + "/deeper"])
      }
      #expect(
        error?.description
          == "Cannot use the folder '\(blocker.path)': Something other than a folder is there")
    #endif
  }

  @Test(readOnlyFoldersWork)
  func aFolderThatCantBeCreatedFailsTheSaveNamingItAndARetrySaves() throws {
    let directory = try TemporaryDirectory()
    let share = try ReadOnlyFolder(directory.file("share"))
    defer { withExtendedLifetime((directory, share)) {} }
    let folder = try StandardLocation.data.directory(
      for: "com.example.player", environment: ["XDG_DATA_HOME": share.url.path])
    let file = folder.appending(path: "data.plist")
    let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    try store.setValue(0.5, forKey: "volume")

    let error = #expect(throws: SettingsError.self) { try store.save() }
    #expect(error?.code == .fileNotWritable)
    #expect(error?.path == file.path)
    #expect(
      error?.reason.hasPrefix(
        "The folder '\(folder.path)' does not exist and can't be created: ") == true,
      "\(String(describing: error))")
    #expect(store.hasUnsavedChanges)
    #expect(!exists(folder))
    // The variables that choose the folder are named, not only the file (issue 37, item 3).
    #if !canImport(Darwin)
      #expect(
        error?.reason.hasSuffix(
          "; the folder is chosen by XDG_DATA_HOME, then STATE_DIRECTORY (as systemd's "
            + "StateDirectory= sets it), then HOME: set one of them to a folder this user can "
            + "write") == true, "\(String(describing: error))")
    #endif

    share.makeWritable()
    try store.save()
    #expect(!store.hasUnsavedChanges)
    #expect(try PropertyListFile(url: file).readDictionary() == ["volume": 0.5])
  }

  @Test(readOnlyFoldersWork)
  func aReadOnlyDataFolderOpensAStoreThatReadsAndASaveFailsNamingIt() throws {
    let directory = try TemporaryDirectory()
    let share = directory.file("share")
    try FileManager.default.createDirectory(at: share, withIntermediateDirectories: false)
    let environment = ["XDG_DATA_HOME": share.path, "HOME": directory.url.path]
    let readOnly = try ReadOnlyFolder(
      share.appending(path: "com.example.player"), holding: ["volume": 0.25])
    defer { withExtendedLifetime((directory, readOnly)) {} }
    let folder = readOnly.url
    let file = folder.appending(path: "data.plist")

    let found = try StandardLocation.data.directory(
      for: "com.example.player", environment: environment)
    #if !canImport(Darwin)
      #expect(found.path == folder.path)
    #endif
    let store = try LayeredPlistStore(
      persistentFile: found.appending(path: "data.plist"), options: .init(savesAtExit: false))
    #expect(store.value(forKey: "volume") == .real(0.25))
    try store.setValue(0.5, forKey: "volume")
    let error = #expect(throws: SettingsError.self) { try store.save() }
    #expect(error?.code == .fileNotWritable)
    #expect(error?.description.contains(folder.path) == true, "\(String(describing: error))")
    #expect(store.hasUnsavedChanges)
    #expect(try PropertyListFile(url: file).readDictionary() == ["volume": 0.25])

    readOnly.makeWritable()
    try store.save()
    #expect(try PropertyListFile(url: file).readDictionary() == ["volume": 0.5])
  }

  @Test func withNoHomeNoFolderIsChosenAndTheErrorNamesTheVariables() throws {
    #if !canImport(Darwin)
      for (environment, found) in [
        ([:], "HOME is not set"), (["HOME": ""], "HOME is not set"), (["HOME": "/"], "HOME is '/'"),
        (["HOME": "relative", "XDG_DATA_HOME": "also/relative"], "HOME is 'relative'"),
      ] {
        let error = #expect(throws: SettingsError.self) {
          try StandardLocation.data.directory(
            for: "com.example.player", environment: environment, accountHome: { "/" })
        }
        #expect(error?.code == .directoryNotUsable)
        #expect(
          error?.description
            == "Cannot use the folder '$XDG_DATA_HOME/com.example.player': No data folder is "
            + "chosen: neither XDG_DATA_HOME nor STATE_DIRECTORY is set to an absolute path, "
            + "\(found), and the account has no home; set XDG_DATA_HOME (or STATE_DIRECTORY, as "
            + "systemd's StateDirectory= does) to the folder, or HOME to a home, whose "
            + "'.local/share' is used")
      }
      // Either variable chooses one.
      #expect(
        try StandardLocation.data.directory(for: "app", environment: ["XDG_DATA_HOME": "/srv/d"])
          .path == "/srv/d/app")
      #expect(
        try StandardLocation.configuration.directory(for: "app", environment: ["HOME": "/h"])
          .path == "/h/.config/app")
    #endif
  }

  /// A service with no home (HOME unset or `/`, as containers and systemd start them) finds its
  /// folder in the account's home, or in systemd's STATE_DIRECTORY (issue 37, item 3).
  @Test func aServiceWithoutAHomeFindsItsFolderInTheAccountsHomeOrStateDirectory() throws {
    #if !canImport(Darwin)
      for environment in [[:], ["HOME": "/"], ["HOME": ""]] {
        #expect(
          try StandardLocation.data.directory(
            for: "svc", environment: environment, accountHome: { "/nonexistent" }
          ).path == "/nonexistent/.local/share/svc")
      }
      #expect(
        try StandardLocation.data.directory(
          for: "svc", environment: ["STATE_DIRECTORY": "/var/lib/svc:/var/lib/other"],
          accountHome: { nil }
        ).path == "/var/lib/svc/svc")
      // XDG_DATA_HOME first, then STATE_DIRECTORY, then the home.
      #expect(
        try StandardLocation.data.directory(
          for: "svc", environment: ["XDG_DATA_HOME": "/x", "STATE_DIRECTORY": "/s", "HOME": "/h"]
        ).path == "/x/svc")
      #expect(
        try StandardLocation.cache.directory(
          for: "svc", environment: ["CACHE_DIRECTORY": "/var/cache/svc", "HOME": "/h"]
        ).path == "/var/cache/svc/svc")
    #endif
  }

  /// The README's code in a process of its own: a program with a home that doesn't exist reads
  /// its settings and creates nothing; one with no home is told which variable to set.
  @Test func aProgramThatOnlyReadsStartsWithoutAHomeAndCreatesNoFolder() throws {
    #if !canImport(Darwin)
      let directory = try TemporaryDirectory()
      let home = directory.file("nonexistent")
      let read = try runProduct(
        "SettingsProbe", ["first-hour", "app", "com.example.player", "get", "volume"],
        environment: ["HOME": home.path, "XDG_DATA_HOME": ""])
      #expect(read.status == 0, "\(read.standardError)")
      #expect(read.standardOutput == "nil\n")
      #expect(!exists(home))

      // With HOME `/`, the account's home, where nothing is created either.
      let state = directory.file("state")
      let homeless = try runProduct(
        "SettingsProbe", ["first-hour", "app", "com.example.player", "get", "volume"],
        environment: ["HOME": "/", "XDG_DATA_HOME": "", "STATE_DIRECTORY": state.path])
      #expect(homeless.status == 0, "\(homeless.standardError)")
      #expect(homeless.standardOutput == "nil\n")
      #expect(!exists(state))
    #endif
  }

  /// As root with `HOME=/nonexistent`, the first save created `/nonexistent/.local/share/…`
  /// (issue 37, item 3): a home that doesn't exist is never created as a side effect of a save.
  @Test func aFirstSaveInAHomeThatDoesNotExistFailsNamingTheVariablesAndCreatesNothing() throws {
    #if !canImport(Darwin)
      let directory = try TemporaryDirectory()
      let home = directory.file("nonexistent")
      let folder = try StandardLocation.data.directory(
        for: "com.example.svc", environment: ["HOME": home.path])
      let file = folder.appending(path: "data.plist")
      let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
      try store.setValue(0.5, forKey: "volume")
      let error = #expect(throws: SettingsError.self) { try store.save() }
      #expect(error?.code == .fileNotWritable)
      #expect(
        error?.description
          == "Cannot write the property list at '\(file.path)': The folder '\(folder.path)' is in "
          + "the home '\(home.path)', which does not exist, and a home is not created as a side "
          + "effect of a write; the folder is chosen by XDG_DATA_HOME, then STATE_DIRECTORY (as "
          + "systemd's StateDirectory= sets it), then HOME: set one of them to a folder this "
          + "user can write")
      #expect(!exists(home))
      #expect(store.hasUnsavedChanges)
      // Once the home exists, the same store saves, creating its folders below the home.
      try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
      try store.save()
      #expect(try PropertyListFile(url: file).readDictionary() == ["volume": 0.5])
    #endif
  }

  /// As root with a home that doesn't exist, `writeSchema()` created the home and the data
  /// folder below it, which a save refuses to (issue 37's trial): a schema's write follows the
  /// store's rule, and its error names the schema file, a JSON file.
  @Test func writingASchemaInAHomeThatDoesNotExistFailsAndCreatesNothing() throws {
    #if !canImport(Darwin)
      final class Service: SettingsModel, @unchecked Sendable {
        // @unchecked Sendable: every stored property is a @Setting.
        @Setting var port = 8080
      }
      let directory = try TemporaryDirectory()
      let home = directory.file("nonexistent")
      let folder = try StandardLocation.data.directory(
        for: "com.example.schema", environment: ["HOME": home.path])
      let file = folder.appending(path: "data.plist")
      let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
      let service = Service(backend: store)
      let error = #expect(throws: SettingsError.self) { try service.writeSchema() }
      #expect(error?.code == .fileNotWritable)
      #expect(error?.path == SettingsSchema.fileURL(nextTo: file).path)
      #expect(error?.description.hasPrefix("Cannot write the JSON file at") == true)
      #expect(error?.description.contains("which does not exist") == true)
      #expect(!exists(home))
      try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
      try service.writeSchema()
      #expect(exists(SettingsSchema.fileURL(nextTo: file)))
    #endif
  }

  /// A service started as another user with the first user's `HOME` couldn't read its store's
  /// file, and the error named no variable (issue 37's trial): an unreadable `data.plist` in a
  /// folder `StandardLocation` chose says which variables choose the folder. (A directory where
  /// the file should be stands in for a file this user may not read, which root always may.)
  @Test func aStoreFileThatCantBeReadInAChosenFolderNamesTheVariables() throws {
    #if !canImport(Darwin)
      let directory = try TemporaryDirectory()
      let folder = try StandardLocation.data.directory(
        for: "com.example.unreadable", environment: ["XDG_DATA_HOME": directory.url.path])
      let file = folder.appending(path: "data.plist")
      try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
      let error = #expect(throws: SettingsError.self) {
        try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
      }
      #expect(error?.code == .fileNotReadable)
      #expect(
        error?.description.hasSuffix(
          "; the folder is chosen by XDG_DATA_HOME, then STATE_DIRECTORY (as systemd's "
            + "StateDirectory= sets it), then HOME: set one of them to a folder this user can "
            + "write") == true, "\(String(describing: error))")
    #endif
  }

  /// A read-only service opened its store each start with a `saveFailed` diagnostic for the
  /// record of its layers (issue 37, item 7): in a folder it can't write, the record is skipped
  /// quietly.
  @Test(readOnlyFoldersWork)
  func aStoreInAReadOnlyFolderSkipsTheRecordOfItsLayersQuietly() throws {
    let directory = try TemporaryDirectory()
    let readOnly = try ReadOnlyFolder(directory.file("svc"), holding: ["volume": 0.25])
    defer { withExtendedLifetime((directory, readOnly)) {} }
    let file = readOnly.url.appending(path: "data.plist")
    let environment = EnvironmentVariablesSource(
      prefix: "SVC", keys: ["volume"], environment: ["SVC_VOLUME": "0.5"])
    for _ in 0..<2 {
      let (store, reported) = try collectingDiagnostics {
        try LayeredPlistStore(
          persistentFile: file, layers: [.runtime, .source(environment), .persistent],
          options: .init(savesAtExit: false))
      }
      #expect(reported.isEmpty, "\(reported)")
      #expect(store.value(forKey: "volume") == "0.5")
    }
    #expect(!exists(readOnly.url.appending(path: "data.plist.layers")))
  }
}
