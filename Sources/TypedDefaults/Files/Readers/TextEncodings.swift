import Foundation

/// The text encodings an XML property list may use, told apart by their byte-order mark, and the
/// conversion of each to UTF-8, which the XML reader parses.
///
/// UTF-8 is read with or without a byte-order mark; UTF-16 and UTF-32 (either byte order) need
/// one, as XML 1.0 (section 4.3.3) requires of UTF-16 and as every writer of UTF-32 plists
/// provides. Every conversion validates: an unpaired surrogate, a code point above U+10FFFF or a
/// malformed UTF-8 sequence is an error, never a replacement character.
enum TextEncodings {
  /// An encoding of a whole file.
  enum Encoding: Equatable, CustomStringConvertible {
    /// UTF-8; `hasByteOrderMark` when the file starts with EF BB BF.
    case utf8(hasByteOrderMark: Bool)
    /// UTF-16 with a byte-order mark.
    case utf16(bigEndian: Bool)
    /// UTF-32 with a byte-order mark.
    case utf32(bigEndian: Bool)

    /// The encoding's name, for messages, such as `UTF-8`, `UTF-16LE` or `UTF-32BE`.
    var description: String {
      switch self {
      case .utf8: "UTF-8"
      case .utf16(let bigEndian): bigEndian ? "UTF-16BE" : "UTF-16LE"
      case .utf32(let bigEndian): bigEndian ? "UTF-32BE" : "UTF-32LE"
      }
    }

    /// Whether `name`, the `encoding=` of an XML declaration, agrees with this encoding
    /// (compared without regard to case; `UTF-16` and `UTF-32` name either byte order).
    func isNamed(_ name: String) -> Bool {
      let name = name.uppercased()
      switch self {
      case .utf8:
        return name == "UTF-8" || name == "UTF8"
      case .utf16(let bigEndian):
        return name == "UTF-16" || name == (bigEndian ? "UTF-16BE" : "UTF-16LE")
      case .utf32(let bigEndian):
        return name == "UTF-32" || name == (bigEndian ? "UTF-32BE" : "UTF-32LE")
      }
    }
  }

  /// The encoding of `bytes`, from its byte-order mark (UTF-8 when there is none), or the reason
  /// it can't be read: UTF-16 or UTF-32 without a mark.
  ///
  /// - Parameter bytes: The start of the file (the first four bytes are enough).
  /// - Returns: The encoding and the length of its byte-order mark.
  static func detect(_ bytes: some Collection<UInt8>) -> Result<(Encoding, Int), Refusal> {
    let head = Array(bytes.prefix(4))
    func starts(_ prefix: [UInt8]) -> Bool { head.starts(with: prefix) }
    if starts([0xEF, 0xBB, 0xBF]) { return .success((.utf8(hasByteOrderMark: true), 3)) }
    if starts([0x00, 0x00, 0xFE, 0xFF]) { return .success((.utf32(bigEndian: true), 4)) }
    if starts([0xFF, 0xFE, 0x00, 0x00]) { return .success((.utf32(bigEndian: false), 4)) }
    if starts([0xFE, 0xFF]) { return .success((.utf16(bigEndian: true), 2)) }
    if starts([0xFF, 0xFE]) { return .success((.utf16(bigEndian: false), 2)) }
    if starts([0x00, 0x00, 0x00, 0x3C]) || starts([0x3C, 0x00, 0x00, 0x00]) {
      return .failure(Refusal(reason: "The file is UTF-32 without a byte-order mark"))
    }
    if starts([0x00, 0x3C]) || starts([0x3C, 0x00]) {
      return .failure(
        Refusal(reason: "The file is UTF-16 without the byte-order mark XML requires"))
    }
    return .success((.utf8(hasByteOrderMark: false), 0))
  }

  /// Why bytes can't be read as text: the reason, and the offset in the UTF-8 output (for a
  /// line number) where it was found.
  struct Refusal: Error {
    /// What is wrong, capitalised, without a trailing period.
    var reason: String
    /// How many UTF-8 bytes were produced before the problem, if known.
    var utf8Offset: Int? = nil
  }

  /// Converts UTF-16 or UTF-32 code units (after the byte-order mark) to UTF-8.
  ///
  /// - Parameters:
  ///   - bytes: The code units, without the byte-order mark.
  ///   - encoding: ``Encoding/utf16(bigEndian:)`` or ``Encoding/utf32(bigEndian:)``.
  /// - Returns: The text as UTF-8.
  /// - Throws: ``Refusal`` for a partial code unit at the end, an unpaired surrogate or a code
  ///   point above U+10FFFF.
  static func transcodeToUTF8(
    _ bytes: UnsafeRawBufferPointer, from encoding: Encoding
  ) throws(Refusal) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count / 2 + 16)
    switch encoding {
    case .utf8:
      output.append(contentsOf: bytes)
    case .utf16(let bigEndian):
      guard bytes.count % 2 == 0 else {
        throw Refusal(reason: "The UTF-16 text ends in the middle of a character")
      }
      var index = 0
      func unit(_ at: Int) -> UInt32 {
        let first = UInt32(bytes[at])
        let second = UInt32(bytes[at + 1])
        return bigEndian ? first << 8 | second : second << 8 | first
      }
      while index < bytes.count {
        let lead = unit(index)
        index += 2
        var scalar = lead
        if lead >= 0xD800 && lead < 0xDC00 {
          guard index < bytes.count else {
            throw Refusal(
              reason: "The UTF-16 text ends in the middle of a surrogate pair",
              utf8Offset: output.count)
          }
          let trail = unit(index)
          guard trail >= 0xDC00 && trail < 0xE000 else {
            throw Refusal(
              reason: "Invalid UTF-16: a high surrogate not followed by a low one",
              utf8Offset: output.count)
          }
          index += 2
          scalar = 0x10000 + ((lead - 0xD800) << 10) + (trail - 0xDC00)
        } else if lead >= 0xDC00 && lead < 0xE000 {
          throw Refusal(
            reason: "Invalid UTF-16: a low surrogate without a high one", utf8Offset: output.count)
        }
        appendUTF8(scalar, to: &output)
      }
    case .utf32(let bigEndian):
      guard bytes.count % 4 == 0 else {
        throw Refusal(reason: "The UTF-32 text ends in the middle of a character")
      }
      var index = 0
      while index < bytes.count {
        let b0 = UInt32(bytes[index])
        let b1 = UInt32(bytes[index + 1])
        let b2 = UInt32(bytes[index + 2])
        let b3 = UInt32(bytes[index + 3])
        let scalar =
          bigEndian ? b0 << 24 | b1 << 16 | b2 << 8 | b3 : b3 << 24 | b2 << 16 | b1 << 8 | b0
        index += 4
        guard scalar < 0x11_0000, !(scalar >= 0xD800 && scalar < 0xE000) else {
          let hex = String(scalar, radix: 16, uppercase: true)
          throw Refusal(
            reason: "Invalid UTF-32: 0x\(hex) is not a Unicode scalar value",
            utf8Offset: output.count)
        }
        appendUTF8(scalar, to: &output)
      }
    }
    return output
  }

  /// Appends the UTF-8 form of a Unicode scalar value (already known to be one).
  @inline(__always)
  static func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
    switch scalar {
    case 0..<0x80:
      output.append(UInt8(truncatingIfNeeded: scalar))
    case 0x80..<0x800:
      output.append(UInt8(truncatingIfNeeded: 0xC0 | scalar >> 6))
      output.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
    case 0x800..<0x10000:
      output.append(UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12))
      output.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
      output.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
    default:
      output.append(UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18))
      output.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F))
      output.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
      output.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
    }
  }

  /// The offset of the first byte of `bytes` that is not part of well-formed UTF-8 (an
  /// overlong form, a surrogate, a code point above U+10FFFF, a stray or missing continuation
  /// byte), or `nil` if all of it is well formed.
  ///
  /// - Parameter bytes: The bytes to check.
  /// - Returns: The offset of the first byte that is not part of well-formed UTF-8; `nil` if
  ///   there is none.
  static func firstInvalidUTF8(in bytes: UnsafeRawBufferPointer) -> Int? {
    let count = bytes.count
    var index = 0
    while index < count {
      // Eight ASCII bytes at a time.
      if index + 8 <= count {
        let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        if word & 0x8080_8080_8080_8080 == 0 {
          index += 8
          continue
        }
      }
      let lead = bytes[index]
      if lead < 0x80 {
        index += 1
        continue
      }
      func continuation(_ offset: Int) -> UInt8? {
        guard index + offset < count else { return nil }
        let byte = bytes[index + offset]
        return byte & 0xC0 == 0x80 ? byte : nil
      }
      switch lead {
      case 0xC2...0xDF:
        guard continuation(1) != nil else { return index }
        index += 2
      case 0xE0...0xEF:
        guard let second = continuation(1), continuation(2) != nil else { return index }
        if lead == 0xE0 && second < 0xA0 { return index }  // overlong
        if lead == 0xED && second >= 0xA0 { return index }  // a surrogate
        index += 3
      case 0xF0...0xF4:
        guard let second = continuation(1), continuation(2) != nil, continuation(3) != nil
        else { return index }
        if lead == 0xF0 && second < 0x90 { return index }  // overlong
        if lead == 0xF4 && second >= 0x90 { return index }  // above U+10FFFF
        index += 4
      default:
        return index
      }
    }
    return nil
  }
}
