/// Text from bytes that must be well-formed UTF-8, or `nil`: `String(validating:as:)` where the
/// system has it (macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2; always on Linux), else
/// ``validatedUTF8ByDecoding(_:)``, the same check through the standard library's decoder.
///
/// - Parameter bytes: The bytes.
/// - Returns: The text, or `nil` if the bytes aren't well-formed UTF-8.
package func validatedUTF8<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String? {
  if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
    return String(validating: bytes, as: UTF8.self)
  }
  return validatedUTF8ByDecoding(bytes)
}

/// Text from bytes that must be well-formed UTF-8, checked by `Unicode.UTF8`'s decoder.
///
/// The decoder refuses what `String(validating:as:)` refuses: overlong forms, surrogates,
/// values above U+10FFFF, truncated and stray bytes. The fallback of ``validatedUTF8(_:)`` on
/// systems older than `String(validating:as:)`; compiled everywhere, and compared with it by the
/// tests on Linux.
///
/// - Parameter bytes: The bytes.
/// - Returns: The text, or `nil` if the bytes aren't well-formed UTF-8.
func validatedUTF8ByDecoding<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String? {
  var decoder = UTF8()
  var iterator = bytes.makeIterator()
  while true {
    switch decoder.decode(&iterator) {
    case .scalarValue: continue
    case .emptyInput: return String(decoding: bytes, as: UTF8.self)
    case .error: return nil
    }
  }
}
