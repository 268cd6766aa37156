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
  ///   a value that is not a property-list type, nesting too deep, or too many values.
  static func read(
    _ data: Data, path: String
  ) throws(SettingsError) -> (root: PropertyListValue, format: PropertyListFile.Format) {
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
}
