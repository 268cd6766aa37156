import Foundation
import TypedDefaults

/// Property-list bytes in memory (standard input, standard output, a `write` literal), read and
/// written with the library's own reader and writer.
enum PlistBytes {
  /// Decodes property-list bytes in any format Foundation reads (XML, binary, OpenStep), with the
  /// library's reader and its defences against hostile input.
  ///
  /// CoreFoundation logs some parse errors on standard error itself; that is silenced, since the
  /// error is reported anyway.
  ///
  /// - Parameters:
  ///   - data: The bytes.
  ///   - source: What to call them in errors, such as `<stdin>`.
  /// - Returns: The root value.
  /// - Throws: The library's ``SettingsError`` (``SettingsError/Code/corruptFile`` and others),
  ///   naming `source`.
  static func decode(_ data: Data, source: String) throws(SettingsError) -> PropertyListValue {
    try withStandardErrorSilenced { () throws(SettingsError) in
      try PropertyListFile.decode(data, path: source).root
    }
  }

  /// Encodes a value as XML or binary property-list bytes.
  ///
  /// - Throws: The library's ``SettingsError`` if the value can't be written.
  static func encode(
    _ value: PropertyListValue,
    format: PropertyListFile.Format
  ) throws(SettingsError) -> Data {
    try PropertyListFile.encode(value, format: format, path: "-")
  }
}
