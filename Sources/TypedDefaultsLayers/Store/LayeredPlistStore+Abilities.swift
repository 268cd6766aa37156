import Foundation
import TypedDefaults

// The abilities the store offers (Backends/Abilities/), by the methods it has: the atomic
// updates, save and reload of `data.plist`, the watch of its files, and forced (managed) keys.

extension LayeredPlistStore: MultiKeyUpdatingBackend, SavingBackend, ReloadingBackend,
  WatchingBackend
{}

extension ReloadingBackend where Self: LayeredPlistStore {
  /// Reloads `data.plist` as ``LayeredPlistStore/reload()`` does, without its result: the
  /// ``ReloadingBackend`` requirement, which returns nothing.
  ///
  /// A call on a store picks `reload()`, which returns whether any value changed.
  ///
  /// - Throws: What ``LayeredPlistStore/reload()`` throws.
  public func reload() throws(SettingsError) {
    let _: Bool = try (self as LayeredPlistStore).reload()
  }
}

// Observers are registered under the keys as the store normalizes them.
extension LayeredPlistStore: NormalizesKeys {}

extension LayeredPlistStore: RestrictsKeys {
  /// An XML `data.plist` can't hold every character in a key.
  package func checkStorable(key: String) throws(SettingsError) {
    guard persistentFormat == .xml else { return }
    _ = try XMLPropertyListRules.normalized(true, key: key)
  }
}

extension LayeredPlistStore: HasReadOnlyLayers {
  package func readOnlyLayers(
    holding key: String, without replacement: String
  ) -> [(layer: String, path: String)] {
    var found: [(layer: String, path: String)] = []
    for slot in sourceSlots {
      guard value(forKey: key, in: slot.layer) != nil,
        value(forKey: replacement, in: slot.layer) == nil
      else { continue }
      found.append(("\(slot.layer)", Self.origin(of: slot.source)))
    }
    return found
  }

  /// Where a source reads from, as a migration's diagnostic names it: its file or folder's
  /// path, else what it records, else its type.
  static func origin(of source: any LayerSource) -> String {
    switch source.recordedSource {
    case .propertyListFile(let path)?, .directory(let path, _)?, .managed(let path, _)?,
      .settingsBundle(let path)?:
      path
    case .environment(let prefix, _)?: "environment variables \(prefix)*"
    case .etcd(let endpoints, let prefix, _, _)?:
      "etcd \(prefix)* at \(endpoints.joined(separator: ", "))"
    case nil: String(describing: type(of: source))
    }
  }
}

extension LayeredPlistStore: ForcingBackend {}

extension LayeredPlistStore: HasSecretLayers {
  /// Whether the winning value of `key` comes from a layer whose source holds secrets.
  package func holdsSecretValue(forKey key: String) -> Bool {
    guard !secretLayers.isEmpty else { return false }
    let key = normalizedKey(key)
    return state.withLock { $0.effective[key].map { secretLayers.contains($0.layer) } ?? false }
  }
}

extension LayeredPlistStore: KeepsStoreFile {
  /// The persistent layer's file, `data.plist`: the file the `settings` tool writes.
  package var storeFile: URL? { persistentFile.url }

  /// Creates the folder of `file` if it is missing, by the rule of the store's first save: a
  /// folder ``StandardLocation`` chose in a home that doesn't exist is never created, and one
  /// that can't be created is blamed on the variables that chose it.
  ///
  /// - Parameter file: The file to be written (a schema next to `data.plist`).
  /// - Throws: ``SettingsError/Code/fileNotWritable`` naming `file`.
  package func createMissingFolder(forWriting file: URL) throws(SettingsError) {
    let folder = file.deletingLastPathComponent()
    guard !FileManager.default.fileExists(atPath: folder.path) else { return }
    let choice = StandardLocation.choice(ofFolder: folder)
    if let problem = choice?.creationProblem(of: folder) {
      throw SettingsError(.fileNotWritable, path: file.path, reason: problem)
    }
    do {
      try AtomicFile.createMissingFolder(of: file)
    } catch {
      throw SettingsError(
        .fileNotWritable, path: error.path, reason: error.reason + (choice?.advice ?? ""))
    }
  }
}
