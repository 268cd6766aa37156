import Foundation
import TypedDefaults

/// The last content an ``EtcdSource`` applied, kept in a local property-list file so that an app
/// launched with no connection starts with the fleet's last values.
///
/// Written by the persistence engine under `data.plist` (``PersistedPropertyListFile``): an
/// atomic replace under the file lock, the file created readable and writable by its owner only
/// (0600) in a folder created 0700; read carefully, a corrupt file kept aside and reported, never
/// written over. The file holds a dictionary: `prefix` (the etcd prefix it belongs to),
/// `revision` (the etcd revision the values are at), `savedAt` (a date) and `values` (the layer's
/// values by setting key).
///
/// Thread-safety: `Sendable`; saves and reads are serialized by the engine.
final class EtcdLastKnownGood: Sendable {
  /// What the file held.
  struct Snapshot: Sendable, Equatable {
    var values: [String: PropertyListValue]
    var revision: Int64
    var savedAt: Date
  }

  let engine: PersistedPropertyListFile
  let prefix: String

  var url: URL { engine.file.url }

  /// - Parameters:
  ///   - url: The file.
  ///   - prefix: The etcd prefix whose values it keeps; a file of another prefix is ignored.
  init(url: URL, prefix: String) {
    engine = PersistedPropertyListFile(
      file: PropertyListFile(url: url, maximumSize: PropertyListFile.defaultMaximumSize),
      rules: .init(format: .binary))
    self.prefix = prefix
  }

  /// Reads the file.
  ///
  /// - Returns: What it held, or `nil` for no file, or a file of another prefix.
  /// - Throws: ``SettingsError`` naming the file when it can't be read or is corrupt (a corrupt
  ///   file is kept aside first: see ``PersistedPropertyListFile``).
  func load() throws(SettingsError) -> Snapshot? {
    let (_, read) = engine.open()
    let entries = try read.get().entries
    if let recovery = try read.get().recovery { throw recovery.problem }
    guard !entries.isEmpty else { return nil }
    guard case .string(prefix)? = entries["prefix"] else { return nil }
    guard case .dictionary(let values)? = entries["values"] else {
      throw SettingsError(
        .corruptFile, path: url.path, reason: "It holds no 'values' dictionary")
    }
    var revision: Int64 = 0
    if case .integer(let number)? = entries["revision"] { revision = number.int64Value ?? 0 }
    var savedAt = Date(timeIntervalSince1970: 0)
    if case .date(let date)? = entries["savedAt"] { savedAt = date }
    return Snapshot(values: values, revision: revision, savedAt: savedAt)
  }

  /// Replaces the file with `snapshot`.
  ///
  /// - Throws: ``SettingsError/Code/fileNotWritable`` naming the file and the cause; the file is
  ///   left as it was.
  func save(_ snapshot: Snapshot) throws(SettingsError) {
    let contents: [String: PropertyListValue] = [
      "prefix": .string(prefix), "revision": .integer(.init(snapshot.revision)),
      "savedAt": .date(snapshot.savedAt), "values": .dictionary(snapshot.values),
    ]
    _ = try engine.exclusively { () throws(SettingsError) in
      _ = try engine.saveLocked(
        .init(changes: [], contents: contents), format: .binary, createsFolder: true
      ) { merged in
        merged = contents
        return []
      }
    }
  }
}
