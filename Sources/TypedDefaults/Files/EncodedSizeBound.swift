import Foundation

/// An upper bound on the bytes a value takes in an encoded property list, cheap enough to keep up
/// to date on every write: it lets a store refuse, when a value is written, a value that would make
/// its file larger than the store can write and read back, rather than fail at every later save.
///
/// The bound assumes the worst the writers do: in binary, every object its own (no sharing of
/// equal values), 4-byte offsets and references (files up to 4 GiB), non-ASCII text as UTF-16; in
/// XML, one tab of indentation per level, every `&`, `<` and `>` escaped, data in base64 lines of
/// 60 characters each with its own indentation.
enum EncodedSizeBound {
  /// The bytes a file holding only an empty root dictionary may take.
  static func emptyFile(format: PropertyListFile.Format) -> Int {
    format == .xml ? 256 : 64
  }

  /// The most bytes one entry of a root dictionary adds to a file: its key and its value.
  ///
  /// - Parameters:
  ///   - key: The entry's key.
  ///   - value: The entry's value.
  ///   - format: The file's format (OpenStep is counted as XML).
  static func entry(key: String, value: PropertyListValue, format: PropertyListFile.Format) -> Int {
    if format == .binary {
      return binaryText(key) + binary(value)
    }
    return 8 + xmlText(key) + xml(value, depth: 1)
  }

  // Binary: an object is a marker and a length (at most 1 + 9 bytes), its payload, its offset
  // (4) and one reference to it (4).
  private static let binaryObject = 18

  private static func binaryText(_ text: String) -> Int {
    let bytes = text.utf8.count
    return binaryObject + (text.utf8.contains { $0 >= 0x80 } ? 2 * bytes : bytes)
  }

  private static func binary(_ value: PropertyListValue) -> Int {
    switch value {
    case .string(let text): return binaryText(text)
    case .integer: return binaryObject + 16
    case .real, .date: return binaryObject + 8
    case .bool: return binaryObject
    case .data(let bytes): return binaryObject + bytes.count
    case .array(let elements):
      return elements.reduce(binaryObject) { $0 + binary($1) }
    case .dictionary(let entries):
      return entries.reduce(binaryObject) { $0 + binaryText($1.key) + binary($1.value) }
    }
  }

  // XML: text with its escapes; each element on its own line with its indentation.
  private static func xmlText(_ text: String) -> Int {
    var escapes = 0
    for byte in text.utf8
    where byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") {
      escapes += 1
    }
    return text.utf8.count + 4 * escapes
  }

  private static func xml(_ value: PropertyListValue, depth: Int) -> Int {
    let line = depth + 1  // indentation and line feed
    switch value {
    case .string(let text): return line + 17 + xmlText(text)
    case .integer: return line + 19 + 20
    case .real: return line + 13 + 32
    case .date: return line + 13 + 20
    case .bool: return line + 8
    case .data(let bytes):
      let base64 = (bytes.count + 2) / 3 * 4
      return line + 13 + base64 + (base64 / 60 + 1) * (depth + 2)
    case .array(let elements):
      return elements.reduce(2 * line + 17) { $0 + xml($1, depth: depth + 1) }
    case .dictionary(let entries):
      return entries.reduce(2 * line + 13) {
        $0 + depth + 2 + 11 + xmlText($1.key) + xml($1.value, depth: depth + 1)
      }
    }
  }
}
