import Foundation

/// A backend that keeps its values in one property-list file of its own, next to which a model's
/// schema is written (`SettingsContainer.writeSchema()`), where the `settings` tool finds it.
package protocol KeepsStoreFile: SettingsBackend {
  /// The file the backend keeps its values in; `nil` where it has none it can name (a
  /// `UserDefaultsBackend` on Apple platforms, where the system keeps the preferences).
  var storeFile: URL? { get }

  /// Creates the folder of `file`, a file to be written next to ``storeFile`` (a schema), if it is
  /// missing, as the backend's own first save would create it.
  ///
  /// - Parameter file: The file to be written.
  /// - Throws: ``SettingsError/Code/fileNotWritable`` naming `file`, when the folder can't or
  ///   mustn't be created.
  func createMissingFolder(forWriting file: URL) throws(SettingsError)
}

extension KeepsStoreFile {
  /// Creates the folder of `file` if it is missing (``AtomicFile``'s way, readable by its owner
  /// only).
  ///
  /// - Parameter file: The file to be written.
  /// - Throws: ``SettingsError/Code/fileNotWritable`` naming `file`.
  package func createMissingFolder(forWriting file: URL) throws(SettingsError) {
    try AtomicFile.createMissingFolder(of: file)
  }
}
