import Foundation

/// A strict reader of XML property lists. (Placeholder: delegates to Foundation.)
enum XMLPropertyListReader {
  /// Decodes an XML property list.
  ///
  /// - Parameters:
  ///   - data: The file's bytes: UTF-8 (with or without a byte-order mark), or UTF-16 or UTF-32
  ///     with a byte-order mark.
  ///   - path: What to call the bytes in errors.
  ///   - salvagingEntries: When the root is a dictionary, leave out an entry whose value can't be
  ///     read (reported in ``PropertyListReaders/Result/unreadableEntries``) rather than fail.
  /// - Throws: ``SettingsError/Code/corruptFile`` naming the line and what was expected.
  static func read(
    _ data: Data, path: String, salvagingEntries: Bool = false
  ) throws(SettingsError) -> PropertyListReaders.Result {
    PropertyListReaders.Result(root: try FoundationPropertyListReader.read(data, path: path).root)
  }
}
