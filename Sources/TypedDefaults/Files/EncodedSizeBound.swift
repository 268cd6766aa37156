import Foundation

/// An upper bound on the bytes a value takes in an encoded property list, cheap enough to keep up
/// to date on every write: it lets a store refuse, when a value is written, a value that would make
/// its file larger than the store can write and read back, rather than fail at every later save.
///
/// The bound assumes the worst the writers do for a file of at most `limit` bytes: in binary,
/// every object its own (Foundation's writer on Linux shares none, not even equal strings),
/// offsets and references as wide as such a file needs, non-ASCII text as UTF-16; in XML, one tab
/// of indentation per level, every `&`, `<` and `>` escaped, data in base64 lines of 60
/// characters each with its own indentation. Walking a value stops as soon as the bound passes
/// the limit, so even a value that a small binary file expands into billions of bytes (one
/// object referred to many times over) is measured in time proportional to the limit.
enum EncodedSizeBound {
  /// The bytes a file holding only an empty root dictionary may take.
  static func emptyFile(format: PropertyListFile.Format) -> Int {
    format == .xml ? 256 : 64
  }

  /// The most bytes one entry of a root dictionary adds to a file: its key and its value; or, if
  /// that is more than `limit`, some number above `limit`.
  ///
  /// - Parameters:
  ///   - key: The entry's key.
  ///   - value: The entry's value.
  ///   - format: The file's format (OpenStep is counted as XML).
  ///   - limit: The largest file, in bytes, of interest.
  static func entry(
    key: String, value: PropertyListValue, format: PropertyListFile.Format, limit: Int
  ) -> Int {
    var total = 0
    if format == .binary {
      let width = byteWidth(of: max(limit, 1))
      total += binaryText(key, width: width)
      binary(value, width: width, total: &total, limit: limit)
    } else {
      total += 8 + xmlText(key)
      xml(value, depth: 1, total: &total, limit: limit)
    }
    return total
  }

  /// The bytes an offset or reference takes in a binary file of at most `limit` bytes.
  private static func byteWidth(of limit: Int) -> Int {
    var width = 1
    while width < 8, limit >> (8 * width) != 0 { width += 1 }
    return width
  }

  // Binary: an object is a marker, a length beyond 14 (an integer object of its own), its
  // payload, its offset and one reference to it.
  private static func binaryObject(count: Int, width: Int) -> Int {
    let length = count < 15 ? 0 : count < 256 ? 2 : count < 65_536 ? 3 : count < 1 << 32 ? 5 : 9
    return 1 + length + 2 * width
  }

  private static func binaryText(_ text: String, width: Int) -> Int {
    let bytes = text.utf8.count
    if text.utf8.contains(where: { $0 >= 0x80 }) {
      let units = text.utf16.count
      return binaryObject(count: units, width: width) + 2 * units
    }
    return binaryObject(count: bytes, width: width) + bytes
  }

  private static func binary(
    _ value: PropertyListValue, width: Int, total: inout Int, limit: Int
  ) {
    guard total <= limit else { return }
    switch value {
    case .string(let text): total += binaryText(text, width: width)
    case .integer: total += binaryObject(count: 0, width: width) + 16
    case .real, .date: total += binaryObject(count: 0, width: width) + 8
    case .bool: total += binaryObject(count: 0, width: width)
    case .data(let bytes): total += binaryObject(count: bytes.count, width: width) + bytes.count
    case .array(let elements):
      total += binaryObject(count: elements.count, width: width)
      for element in elements {
        binary(element, width: width, total: &total, limit: limit)
        if total > limit { return }
      }
    case .dictionary(let entries):
      total += binaryObject(count: entries.count, width: width)
      for (key, entry) in entries {
        total += binaryText(key, width: width)
        binary(entry, width: width, total: &total, limit: limit)
        if total > limit { return }
      }
    }
  }

  // XML: text with its escapes; each element on its own line with its indentation.
  private static func xmlText(_ text: String) -> Int {
    var escapes = 0
    for byte in text.utf8
    where byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
      || byte == UInt8(ascii: "\r")
    {
      escapes += 1
    }
    return text.utf8.count + 4 * escapes
  }

  private static func xml(_ value: PropertyListValue, depth: Int, total: inout Int, limit: Int) {
    guard total <= limit else { return }
    let line = depth + 1  // indentation and line feed
    switch value {
    case .string(let text): total += line + 17 + xmlText(text)
    case .integer: total += line + 19 + 20
    case .real: total += line + 13 + 32
    case .date: total += line + 13 + 24
    case .bool: total += line + 8
    case .data(let bytes):
      let base64 = (bytes.count + 2) / 3 * 4
      total += line + 13 + base64 + (base64 / 60 + 1) * (depth + 2)
    case .array(let elements):
      total += 2 * line + 17
      for element in elements {
        xml(element, depth: depth + 1, total: &total, limit: limit)
        if total > limit { return }
      }
    case .dictionary(let entries):
      total += 2 * line + 13
      for (key, entry) in entries {
        total += depth + 2 + 11 + xmlText(key)
        xml(entry, depth: depth + 1, total: &total, limit: limit)
        if total > limit { return }
      }
    }
  }
}
