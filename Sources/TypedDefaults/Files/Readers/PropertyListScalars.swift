/// The text of XML property-list numbers and data: `<integer>`, `<real>` and `<data>`, parsed
/// from bytes without building strings where it can.
enum PropertyListScalars {
  /// `text` without the XML white space (space, tab, line feed, carriage return) around it.
  static func trimmed(_ text: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    var start = 0
    var end = text.count
    while start < end, XMLScanner.isWhitespace(text[start]) { start += 1 }
    while end > start, XMLScanner.isWhitespace(text[end - 1]) { end -= 1 }
    return UnsafeRawBufferPointer(rebasing: text[start..<end])
  }

  /// An integer: an optional sign, then decimal digits or `0x` and hexadecimal digits; `nil`
  /// unless it is exactly a value in `Int64.min ... UInt64.max`.
  static func integer(_ text: UnsafeRawBufferPointer) -> PropertyListValue.Integer? {
    var index = 0
    var negative = false
    if index < text.count, text[index] == 0x2D || text[index] == 0x2B {
      negative = text[index] == 0x2D
      index += 1
    }
    var radix: UInt64 = 10
    if index + 1 < text.count, text[index] == 0x30, text[index + 1] | 0x20 == 0x78 {
      radix = 16
      index += 2
    }
    guard index < text.count else { return nil }
    var magnitude: UInt64 = 0
    while index < text.count {
      let byte = text[index]
      let digit: UInt64
      switch byte {
      case 0x30...0x39: digit = UInt64(byte - 0x30)
      case 0x61...0x66 where radix == 16: digit = UInt64(byte - 0x61 + 10)
      case 0x41...0x46 where radix == 16: digit = UInt64(byte - 0x41 + 10)
      default: return nil
      }
      let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: radix)
      let (sum, carry) = shifted.addingReportingOverflow(digit)
      guard !overflow, !carry else { return nil }
      magnitude = sum
      index += 1
    }
    if negative {
      if magnitude == 0 { return PropertyListValue.Integer(Int64(0)) }
      guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
      return PropertyListValue.Integer(Int64(truncatingIfNeeded: 0 &- magnitude))
    }
    return PropertyListValue.Integer(magnitude)
  }

  /// A real number: decimal with an optional fraction and exponent (`-1.5e-3`, `.5`, `5.`), or
  /// `nan`, `inf` or `infinity` in any case, the last two with an optional sign.
  ///
  /// The value is the correctly rounded `Double`; `nil` for anything else (hexadecimal included).
  static func real(_ text: UnsafeRawBufferPointer) -> Double? {
    var index = 0
    let count = text.count
    var sign = false
    if index < count, text[index] == 0x2D || text[index] == 0x2B {
      sign = true
      index += 1
    }
    // The named values.
    if index < count, text[index] | 0x20 == 0x6E || text[index] | 0x20 == 0x69 {
      var lowered = ""
      for byte in text[index...] {
        guard byte < 0x80 else { return nil }
        lowered.unicodeScalars.append(Unicode.Scalar(byte | 0x20))
      }
      let negative = text[0] == 0x2D
      switch lowered {
      case "nan" where !sign: return .nan
      case "inf", "infinity": return negative ? -.infinity : .infinity
      default: return nil
      }
    }
    var digits = 0
    while index < count, text[index] >= 0x30, text[index] <= 0x39 {
      index += 1
      digits += 1
    }
    if index < count, text[index] == 0x2E {
      index += 1
      while index < count, text[index] >= 0x30, text[index] <= 0x39 {
        index += 1
        digits += 1
      }
    }
    guard digits > 0 else { return nil }
    if index < count, text[index] | 0x20 == 0x65 {
      index += 1
      if index < count, text[index] == 0x2D || text[index] == 0x2B { index += 1 }
      let exponentStart = index
      while index < count, text[index] >= 0x30, text[index] <= 0x39 { index += 1 }
      guard index > exponentStart else { return nil }
    }
    guard index == count else { return nil }
    return Double(String(decoding: text, as: UTF8.self))
  }

  /// Base64 (`A–Z a–z 0–9 + /`, `=` padding) with XML white space anywhere; an unpadded last
  /// group of two or three characters is accepted.
  ///
  /// `nil` for any other character, padding that is not at the end, or a lone last character.
  static func base64(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
    var output: [UInt8] = []
    output.reserveCapacity(text.count / 4 * 3)
    var group: UInt32 = 0
    var inGroup = 0
    var padding = 0
    for byte in text {
      let value: UInt32
      switch byte {
      case 0x41...0x5A: value = UInt32(byte - 0x41)
      case 0x61...0x7A: value = UInt32(byte - 0x61 + 26)
      case 0x30...0x39: value = UInt32(byte - 0x30 + 52)
      case 0x2B: value = 62
      case 0x2F: value = 63
      case 0x20, 0x09, 0x0A, 0x0D: continue
      case 0x3D:
        // '=' only in the last group, after at least two characters.
        guard inGroup + padding >= 2 else { return nil }
        padding += 1
        guard inGroup + padding <= 4 else { return nil }
        continue
      default: return nil
      }
      guard padding == 0 else { return nil }
      group = group << 6 | value
      inGroup += 1
      if inGroup == 4 {
        output.append(UInt8(truncatingIfNeeded: group >> 16))
        output.append(UInt8(truncatingIfNeeded: group >> 8))
        output.append(UInt8(truncatingIfNeeded: group))
        group = 0
        inGroup = 0
      }
    }
    if padding > 0, inGroup + padding != 4 { return nil }
    switch inGroup {
    case 0: break
    case 2:
      output.append(UInt8(truncatingIfNeeded: group >> 4))
    case 3:
      output.append(UInt8(truncatingIfNeeded: group >> 10))
      output.append(UInt8(truncatingIfNeeded: group >> 2))
    default:
      return nil
    }
    return output
  }
}
