import Foundation
import TypedDefaults
import TypedDefaultsLayers

/// Reading a domain, and opening it for writing, without ever moving or rewriting a file that
/// can't be read.
///
/// The library recovers from a corrupt `data.plist` or suite file by moving it aside and starting
/// empty: right for an app, wrong for a tool someone points at a file to inspect it. So every file
/// is read with `PropertyListFile` first, and a file that doesn't read stops the command with the
/// library's error before any store is opened on it.
extension Domain {
  /// The domain's root value: a file's root, whatever its type, or the dictionary of a store or
  /// suite (the merged view of a layered store's layers).
  ///
  /// - Parameter hidingSecrets: Whether a value a secret layer gives is `<secret>` (see
  ///   ``readValues(hidingSecrets:)``).
  /// - Returns: The root, or `nil` if the domain doesn't exist.
  /// - Throws: What ``readValues(hidingSecrets:)`` throws.
  func readRoot(hidingSecrets: Bool = false) throws(Failure) -> PropertyListValue? {
    if case .file(let url) = kind {
      let file = PropertyListFile(url: url)
      return try Failure.fromLibrary { () throws(SettingsError) in try file.read() }?.root
    }
    return try readValues(hidingSecrets: hidingSecrets).map(PropertyListValue.dictionary)
  }

  /// The domain's keys and values (for a layered store, the merged view of its layers).
  ///
  /// - Parameter hidingSecrets: Whether, in a layered store, a value that comes from a layer
  ///   holding secrets (a `DirectorySource` of a Secret mount) is the string `<secret>`, as the
  ///   library's `explain` shows it: what `read` prints. `export` copies the values as they are.
  /// - Returns: The values, or `nil` if the domain doesn't exist.
  /// - Throws: The library's error for a file that can't be read or whose root isn't a
  ///   dictionary.
  func readValues(hidingSecrets: Bool = false) throws(Failure) -> [String: PropertyListValue]? {
    switch kind {
    case .file(let url):
      return try Self.readDictionary(url)
    case .layered:
      guard let store = try openLayeredStore() else { return nil }
      return Self.values(of: store, hidingSecrets: hidingSecrets)
    case .unresolved:
      return nil
    case .suite(let suite):
      // No file, no suite; and nothing left behind for a mistyped name.
      guard FileManager.default.fileExists(atPath: Self.suiteFile(suite).path) else { return nil }
      guard try Self.readDictionary(Self.suiteFile(suite)) != nil else { return nil }
      return UserDefaultsBackend(suiteName: suite).dictionaryRepresentation()
    }
  }

  /// A layered store's merged view: the value of each key that wins.
  ///
  /// - Parameters:
  ///   - store: The store (``openLayeredStore()``).
  ///   - hidingSecrets: Whether a value that comes from a layer holding secrets is `<secret>`
  ///     (see ``readValues(hidingSecrets:)``).
  /// - Returns: The values.
  static func values(
    of store: LayeredPlistStore, hidingSecrets: Bool
  ) -> [String: PropertyListValue] {
    var values = store.dictionaryRepresentation()
    if hidingSecrets {
      for key in values.keys {
        let provenance = store.explain(key)
        if let source = provenance.source, provenance.hidesValue(in: source) {
          values[key] = .string(LayeredPlistStore.Provenance.secretPlaceholder)
        }
      }
    }
    return values
  }

  /// Whether the domain exists: its file does, or for a layered store, the app's record of its
  /// layers or any of its files.
  func exists() throws(Failure) -> Bool {
    try readValues() != nil
  }

  /// Opens a layered store folder's store with every layer the tool can open, after checking its
  /// property-list files read.
  ///
  /// Where the app wrote its schema, the store learns it, so that it judges each layer's value
  /// as the app's store does (issue 37): a text layer's text (an environment variable, a
  /// ConfigMap file) is read as the declared type, and a value the setting refuses is passed
  /// over for the next layer's (`Provenance.passedOver`). What `read` and `explain` show is then
  /// what the app reads. The store's report of each value passed over is not a warning here:
  /// `read` and `explain` show it in their output.
  ///
  /// - Returns: The store, or `nil` if the folder holds no record of the app's layers and none
  ///   of its files.
  func openLayeredStore() throws(Failure) -> LayeredPlistStore? {
    guard case .layered(let files) = kind else { return nil }
    var found = files.isRecorded
    for file in files.files {
      if try Self.readDictionary(file) != nil { found = true }
    }
    guard found else { return nil }
    let store = try Self.openStore(files)
    if let schema = try schema() {
      let warn = SettingsDiagnostics.handler
      SettingsDiagnostics.withHandler({ diagnostic in
        if diagnostic.kind != .layerValueRejected { warn(diagnostic) }
      }) {
        store.learn(schema)
      }
    }
    return store
  }

  /// Opens the domain for writing: the store or suite that `write`, `delete` and `import` change.
  ///
  /// - Throws: The library's error if a file the domain consists of exists but can't be read, or
  ///   holds something other than a dictionary; nothing is opened then.
  func openForWriting() throws(Failure) -> any WritableDomain {
    switch kind {
    case .file(let url):
      try Self.checkNoKeyedArchiverUIDs(url)
      // A file named by a path goes in a folder that exists: a store would create a missing one
      // at its first save, which for a mistyped path is never wanted.
      let folder = url.deletingLastPathComponent()
      if !FileManager.default.fileExists(atPath: folder.path) {
        throw Failure(
          SettingsError(
            .fileNotWritable, path: url.path, reason: "The folder '\(folder.path)' does not exist"))
      }
      return StoreDomain(
        store: try Self.openStore(persistent: url, layers: [.runtime, .persistent]), files: nil)
    case .layered(let files):
      for file in files.files {
        _ = try Self.readDictionary(file)
      }
      try Self.createStoreFolder(files.folder)
      return StoreDomain(store: try Self.openStore(files), files: files)
    case .suite(let suite):
      // No lock or folder of the tool's own: on Linux, UserDefaultsBackend saves the suite file
      // itself, atomically, under `flock` on `<suite file>.lock`, merging with other processes by
      // key, and creates a missing config folder (readable by its owner only) as corelibs does.
      _ = try Self.readDictionary(Self.suiteFile(suite))
      return SuiteDomain(backend: UserDefaultsBackend(suiteName: suite))
    case .unresolved(let folder, let suiteFile):
      throw Failure.usage(
        "\(name) names no store yet: there is neither a LayeredPlistStore in \(folder.path) nor "
          + "a UserDefaults suite \(suiteFile.path); to create one, say which with --store "
          + "layered or --store defaults before the name")
    }
  }

  /// Creates the folder of a layered store named by an app's identifier (`--store layered`), as
  /// the app's store does at its first save: readable by its owner only.
  ///
  /// A folder named by a path must exist already.
  private static func createStoreFolder(_ folder: URL) throws(Failure) {
    guard !FileManager.default.fileExists(atPath: folder.path),
      folder.deletingLastPathComponent().standardizedFileURL.path
        == layeredStoresDirectory.standardizedFileURL.path
    else { return }
    _ = try Failure.fromLibrary { () throws(SettingsError) in
      let found = try StandardLocation.data.directory(for: folder.lastPathComponent)
      // As the app's store does at its first save.
      try AtomicFile.createMissingFolder(of: found.appendingPathComponent("data.plist"))
    }
  }

  /// Checks a file reads as a dictionary, and refuses a binary file that holds `NSKeyedArchiver`
  /// UIDs (an archive or a nib, not settings): the library reads a UID as the dictionary `{CF$UID = n}`, which is how XML
  /// writes one but not how binary does, so saving would break the archive.
  private static func checkNoKeyedArchiverUIDs(_ url: URL) throws(Failure) {
    let file = PropertyListFile(url: url)
    let read = try Failure.fromLibrary {
      () throws(SettingsError) -> (entries: [String: PropertyListValue], binary: Bool)? in
      guard let contents = try file.read() else { return nil }
      return (try file.dictionary(in: contents), contents.format == .binary)
    }
    if let read, read.binary, holdsUID(.dictionary(read.entries)) {
      throw Failure(
        "Cannot write '\(url.path)': it holds NSKeyedArchiver UIDs (an archive, not settings), "
          + "which settings can't write back as they are; it is left unchanged")
    }
  }

  /// Whether a value holds a dictionary that is a UID as the library reads one: `{CF$UID = n}`.
  private static func holdsUID(_ value: PropertyListValue) -> Bool {
    switch value {
    case .dictionary(let entries):
      if entries.count == 1, case .integer? = entries["CF$UID"] { return true }
      return entries.values.contains(where: holdsUID)
    case .array(let elements):
      return elements.contains(where: holdsUID)
    default:
      return false
    }
  }

  // MARK: - Helpers

  /// Reads a file that must hold a dictionary, quietly (see ``withStandardErrorSilenced(_:)``).
  ///
  /// - Returns: Its dictionary, or `nil` if there is no file.
  private static func readDictionary(_ url: URL) throws(Failure) -> [String: PropertyListValue]? {
    try Failure.fromLibrary { () throws(SettingsError) in
      try PropertyListFile(url: url).readDictionary()
    }
  }

  /// Opens a store folder's store with the layers the tool can open (see
  /// ``openStore(persistent:layers:)``).
  static func openStore(_ files: LayeredFiles) throws(Failure) -> LayeredPlistStore {
    try openStore(persistent: files.persistent, layers: files.definitions)
  }

  /// Opens a store that saves only when asked (`save()`), never at exit, never moves a corrupt
  /// file aside, and never rewrites the app's record of its layers.
  static func openStore(
    persistent: URL,
    layers: [LayeredPlistStore.LayerDefinition]
  ) throws(Failure) -> LayeredPlistStore {
    try Failure.fromLibrary { () throws(SettingsError) in
      try LayeredPlistStore(
        persistentFile: persistent,
        layers: layers,
        // A corrupt file is an error to report, never moved: the tool only inspects and edits.
        // The app's record of its layers is the app's to write, not the tool's.
        options: .init(
          autosave: .manual, savesAtExit: false, movesCorruptFileAside: false,
          recordsLayerFiles: false)
      )
    }
  }
}
