import Foundation

/// A strict reader of binary property lists (`bplist00`). (Placeholder: delegates to Foundation.)
enum BinaryPropertyListReader {
  /// Decodes a binary property list.
  ///
  /// - Parameters:
  ///   - data: The file's bytes, starting with `bplist00`.
  ///   - path: What to call the bytes in errors.
  ///   - salvagingEntries: When the root is a dictionary, leave out an entry whose value can't be
  ///     read (reported in ``PropertyListReaders/Result/unreadableEntries``) rather than fail.
  /// - Throws: ``SettingsError/Code/corruptFile`` naming the byte offset and what was expected.
  static func read(
    _ data: Data, path: String, salvagingEntries: Bool = false
  ) throws(SettingsError) -> PropertyListReaders.Result {
    let limit = PropertyListReaders.maximumValueCount
    if let count = BinaryPropertyListScan.expandedValueCount(of: data, limit: limit), count > limit
    {
      throw SettingsError(
        .corruptFile, path: path,
        reason: "It expands to more than \(limit) values: objects referred to many times over")
    }
    let decoded: (root: PropertyListValue, format: PropertyListFile.Format)
    do {
      decoded = try FoundationPropertyListReader.read(data, path: path)
    } catch {
      throw SettingsError(
        .corruptFile, path: path, reason: "The binary property list is truncated or corrupt")
    }
    guard decoded.format == .binary else {
      throw SettingsError(
        .corruptFile, path: path, reason: "The binary property list is truncated or corrupt")
    }
    return PropertyListReaders.Result(root: decoded.root)
  }
}
