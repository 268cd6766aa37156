import Foundation
import TypedDefaults

// The schema written next to a store, for the `settings` tool: `<store file>.schema.json`
// (`data.plist.schema.json` in a LayeredPlistStore's folder, `com.example.app.plist.schema.json`
// beside a UserDefaults suite's file on Linux).

extension SettingsSchema {
  /// The largest schema file read, in bytes (1 MiB): a schema of ten thousand settings is a tenth
  /// of it.
  public static let maximumFileSize = 1024 * 1024

  /// Where the schema of the store kept in `storeFile` is written: the file's path with
  /// `.schema.json` appended.
  ///
  /// - Parameter storeFile: The store's property-list file (a `LayeredPlistStore`'s `data.plist`,
  ///   a `UserDefaults` suite's file).
  /// - Returns: The schema file's URL, in the same folder.
  public static func fileURL(nextTo storeFile: URL) -> URL {
    storeFile.deletingLastPathComponent()
      .appendingPathComponent(storeFile.lastPathComponent + ".schema.json")
  }

  /// Reads the schema written next to a store's file; fails (`nil`) if no schema file exists.
  ///
  /// - Parameter storeFile: The store's property-list file.
  /// - Throws: ``SettingsError/Code/fileNotReadable``, ``SettingsError/Code/fileTooLarge``
  ///   (more than ``maximumFileSize`` bytes) or ``SettingsError/Code/corruptFile`` (not a JSON
  ///   Schema as ``init(jsonSchema:)`` reads it), each naming the schema file's path.
  public init?(contentsOfFileNextTo storeFile: URL) throws(SettingsError) {
    let url = Self.fileURL(nextTo: storeFile)
    let file = PropertyListFile(url: url, maximumSize: Self.maximumFileSize)
    guard let data = try file.readData() else { return nil }
    do {
      try self.init(jsonSchema: data, file: url.path)
    } catch {
      throw SettingsError(error.code, path: url.path, key: error.key, reason: error.reason)
    }
  }

  /// Writes the schema next to a store's file (``fileURL(nextTo:)``) as JSON Schema
  /// (``jsonSchema()``), replacing the file atomically: a reader sees the old schema or the new
  /// one, never part of one.
  ///
  /// A missing store folder is created (readable and writable by its owner only), as a store
  /// creates it on its first save: an app may write its schema before it has saved anything, in
  /// a home with no `~/.config` yet. A schema file that is a symbolic link is replaced where it
  /// points, as a store's file is, but no folder is created for a link that points nowhere.
  ///
  /// - Parameter storeFile: The store's property-list file.
  /// - Throws: ``SettingsError/Code/fileNotWritable`` naming the schema file's path and the cause.
  public func write(nextTo storeFile: URL) throws(SettingsError) {
    try AtomicFile.createMissingFolder(of: storeFile)
    try AtomicFile.replace(Self.fileURL(nextTo: storeFile), with: jsonSchema())
  }

  /// This schema with the settings of `other` added, replacing those with the same keys; the
  /// title stays this one's.
  ///
  /// - Parameter other: The schema whose settings are added.
  /// - Returns: The merged schema.
  public func merging(_ other: SettingsSchema) -> SettingsSchema {
    SettingsSchema(title: title, settings: settings + other.settings)
  }
}

extension SettingsContainer {
  /// Writes the model's ``schema`` next to its backend's store file, so that the `settings` tool
  /// checks what it writes against the declared types and ranges and shows help texts and
  /// declared defaults.
  ///
  /// The settings of other models already in the file (a library's, sharing the app's store) are
  /// kept; this model's replace their earlier entries. Keys the model no longer declares stay in
  /// the file until it is removed. Under a ``ScopedBackend`` view, keys are written with the
  /// view's prefix, as the store holds them.
  ///
  /// Writes the file each time it is called: call it once at launch, or when the app is built.
  /// Thread-safe, and safe between processes: the read, merge and write happen holding the
  /// schema file's lock (`<schema file>.lock`, as a store's saves hold theirs), so models writing
  /// at once each keep the others' keys.
  ///
  /// A model with no settings writes nothing.
  ///
  /// - Throws: ``SettingsError/Code/fileNotWritable`` if the backend keeps no file (an
  ///   ``InMemoryBackend``; a ``UserDefaultsBackend`` on Apple platforms, where the system keeps
  ///   the preferences) or the file can't be written; what
  ///   ``SettingsSchema/init(contentsOfFileNextTo:)`` throws for an existing schema file that
  ///   can't be read (it is not overwritten).
  public func writeSchema() throws(SettingsError) {
    let settings = allSettings
    guard let backend = settings.first?.setting.backend else { return }
    let view = backend as? any BackendView
    let base = view?.base ?? backend
    guard let keeper = base as? any KeepsStoreFile, let storeFile = keeper.storeFile else {
      throw SettingsError(
        .fileNotWritable, path: nil,
        reason: "\(base.name) keeps no file next to which a schema could be written")
    }
    var schema = SettingsSchema(
      title: TypeNames.sugared(Self.self), settings: settings.map(\.schema))
    if let view {
      schema.settings = schema.settings.map { setting in
        var setting = setting
        setting.key = view.baseKey(forKey: setting.key)
        return setting
      }
    }
    // Created as the store's first save would: never a home that doesn't exist.
    try keeper.createMissingFolder(forWriting: SettingsSchema.fileURL(nextTo: storeFile))
    try AtomicFile.withLock(on: SettingsSchema.fileURL(nextTo: storeFile)) {
      () throws(SettingsError) in
      let merged = try SettingsSchema(contentsOfFileNextTo: storeFile)?.merging(schema) ?? schema
      try merged.write(nextTo: storeFile)
    }
  }
}
