import Foundation

/// Reading through `PropertyListSerialization`, kept for the one format the library has no
/// reader of its own for: OpenStep (old-style) text, which CoreFoundation parses well and which
/// no settings file written today uses.
///
/// Binary input is never handed to it (CoreFoundation on Linux crashes on some binary files);
/// ``PropertyListFile/decode(_:path:)`` routes by format.
enum FoundationPropertyListReader {
  /// Decodes property-list bytes with Foundation and converts the result.
  ///
  /// - Parameters:
  ///   - data: The bytes.
  ///   - path: What to call the bytes in errors.
  /// - Returns: The root value and the format Foundation found.
  /// - Throws: ``SettingsError/Code/corruptFile`` with Foundation's reason, or the bridge's for
  ///   a value that is not a property-list type, nesting too deep, or too many values; for text
  ///   holding only white space and comments (`/* */`, `//`), which Foundation reads as an empty
  ///   dictionary.
  static func read(
    _ data: Data, path: String
  ) throws(SettingsError) -> (root: PropertyListValue, format: PropertyListFile.Format) {
    // Foundation reads text holding no value at all as an empty "strings file" dictionary.
    if holdsNoValue(data) {
      throw SettingsError(
        .corruptFile, path: path,
        reason: data.isEmpty
          ? "The file is empty"
          : "It holds only white space or comments, which is not a property list")
    }
    var nativeFormat = PropertyListSerialization.PropertyListFormat.xml
    let object: Any
    do {
      object = try PropertyListSerialization.propertyList(
        from: data,
        options: [],
        format: &nativeFormat
      )
    } catch {
      throw SettingsError(
        .corruptFile, path: path,
        reason: data.isEmpty ? "The file is empty" : PropertyListFile.describe(error))
    }
    do {
      let root = try FoundationBridge.value(from: object)
      let format: PropertyListFile.Format =
        switch nativeFormat {
        case .binary: .binary
        case .openStep: .openStep
        default: .xml
        }
      return (root, format)
    } catch {
      throw SettingsError(.corruptFile, path: path, reason: error.reason)
    }
  }

  /// Whether OpenStep text holds nothing but white space and comments, in UTF-8 or, after a
  /// byte-order mark, UTF-16 or UTF-32 (zero bytes are skipped, so ASCII reads the same in all).
  static func holdsNoValue(_ data: Data) -> Bool {
    var bytes = data.filter { $0 != 0 }[...]
    for mark: [UInt8] in [[0xEF, 0xBB, 0xBF], [0xFE, 0xFF], [0xFF, 0xFE]]
    where bytes.starts(with: mark) {
      bytes = bytes.dropFirst(mark.count)
      break
    }
    while let byte = bytes.first {
      if [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D].contains(byte) {
        bytes = bytes.dropFirst()
      } else if bytes.starts(with: [0x2F, 0x2A]) {  // /* … */
        guard let end = bytes.dropFirst(2).firstRange(of: [0x2A, 0x2F]) else { return false }
        bytes = bytes[end.upperBound...]
      } else if bytes.starts(with: [0x2F, 0x2F]) {  // // … end of line
        bytes = bytes.drop { $0 != 0x0A && $0 != 0x0D }
      } else {
        return false
      }
    }
    return true
  }
}
