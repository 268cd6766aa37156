import Foundation

/// The layout of a binary property list (`bplist00`), read from its header and its 32-byte
/// trailer and checked against the file's size before anything else is read.
///
/// A binary property list is an 8-byte header, the objects, an offset table (one big-endian
/// offset per object) and a trailer: 5 unused bytes, a sort version, the size of an offset, the
/// size of an object reference, then three big-endian 8-byte numbers: how many objects there
/// are, which one is the root and where the offset table starts. Every number is checked, with
/// arithmetic that can't overflow, so that later reads stay inside the file: the offset table
/// lies between the header and the trailer, references and offsets are wide enough to address
/// what they must (as CoreFoundation requires), and every object's offset lies between the
/// header and the offset table.
struct BinaryPropertyListTrailer {
  /// The size of one entry of the offset table, 1 to 8 bytes.
  let offsetSize: Int
  /// The size of one object reference inside an array or dictionary, 1 to 8 bytes.
  let referenceSize: Int
  /// How many objects the offset table lists (at least 1).
  let objectCount: Int
  /// The index of the root object (less than ``objectCount``).
  let topObject: Int
  /// Where the offset table starts, which is also where the objects' bytes end.
  let tableStart: Int
  /// Where the trailer starts: 32 bytes before the end.
  let trailerStart: Int

  /// The first 8 bytes of every binary property list this reader accepts.
  static let header: [UInt8] = Array("bplist00".utf8)

  /// Reads and checks the header, the trailer and the offset table.
  ///
  /// - Parameter bytes: The whole file.
  /// - Throws: ``BinaryPropertyListReader/Failure`` naming the byte offset of the first field
  ///   that is wrong and what it should have been.
  init(bytes: UnsafeRawBufferPointer) throws(BinaryPropertyListReader.Failure) {
    typealias Failure = BinaryPropertyListReader.Failure
    let minimum = Self.header.count + 32
    guard bytes.count >= minimum else {
      throw Failure(
        "The file is \(bytes.count) bytes long, too short for a binary property list: it needs "
          + "at least \(minimum) (an 8-byte header and a 32-byte trailer)")
    }
    guard bytes.starts(with: Self.header.prefix(6)) else {
      throw Failure(at: 0, "the header '\(Self.quoted(bytes, 0..<8))' is not 'bplist00'")
    }
    guard bytes[6] == 0x30, bytes[7] == 0x30 else {
      throw Failure(
        at: 6, "the version '\(Self.quoted(bytes, 6..<8))' is not '00', the only one there is")
    }
    let trailer = bytes.count - 32
    trailerStart = trailer
    offsetSize = Int(bytes[trailer + 6])
    referenceSize = Int(bytes[trailer + 7])
    guard (1...8).contains(offsetSize) else {
      throw Failure(at: trailer + 6, "the offset size is \(offsetSize), not 1 to 8 bytes")
    }
    guard (1...8).contains(referenceSize) else {
      throw Failure(
        at: trailer + 7, "the object reference size is \(referenceSize), not 1 to 8 bytes")
    }
    let count = bytes.bigEndianInteger(at: trailer + 8, size: 8)
    let top = bytes.bigEndianInteger(at: trailer + 16, size: 8)
    let start = bytes.bigEndianInteger(at: trailer + 24, size: 8)

    // The offset table lies between the header and the trailer.
    guard start >= UInt64(Self.header.count) else {
      throw Failure(at: trailer + 24, "the offset table starts at byte \(start), inside the header")
    }
    guard start <= UInt64(trailer) else {
      throw Failure(
        at: trailer + 24,
        "the offset table starts at byte \(start), past the trailer at byte \(trailer)")
    }
    tableStart = Int(start)
    guard count >= 1 else {
      throw Failure(at: trailer + 8, "the object count is 0; a property list has a root object")
    }
    guard count <= UInt64((trailer - tableStart) / offsetSize) else {
      throw Failure(
        at: trailer + 8,
        "an offset table of \(count) entries of \(offsetSize) bytes from byte \(tableStart) runs "
          + "past the trailer at byte \(trailer)")
    }
    objectCount = Int(count)
    guard top < count else {
      throw Failure(
        at: trailer + 16, "the top object \(top) is past the last object (\(count) objects)")
    }
    topObject = Int(top)
    // References and offsets must be wide enough for what they address (CoreFoundation's rule).
    if referenceSize < 8, UInt64(1) << (8 * referenceSize) <= count {
      throw Failure(
        at: trailer + 7,
        "\(referenceSize)-byte object references can't address \(count) objects")
    }
    if offsetSize < 8, UInt64(1) << (8 * offsetSize) <= start {
      throw Failure(
        at: trailer + 6,
        "\(offsetSize)-byte offsets can't address the offset table at byte \(start)")
    }
    // Every object starts after the header and before the offset table.
    for object in 0..<objectCount {
      let position = tableStart + object * offsetSize
      let offset = bytes.bigEndianInteger(at: position, size: offsetSize)
      guard offset >= UInt64(Self.header.count), offset < start else {
        throw Failure(
          at: position,
          "object \(object) is at byte \(offset), outside the objects (bytes 8 to \(start - 1))")
      }
    }
  }

  /// Where an object's bytes start: already checked to lie between the header and the table.
  ///
  /// - Parameters:
  ///   - object: An object index less than ``objectCount``.
  ///   - bytes: The whole file.
  /// - Returns: The object's byte offset.
  @inline(__always)
  func offset(of object: Int, in bytes: UnsafeRawBufferPointer) -> Int {
    Int(
      truncatingIfNeeded: bytes.bigEndianInteger(
        at: tableStart &+ object &* offsetSize, size: offsetSize))
  }

  /// Bytes as text for an error: printable ASCII as is, anything else as `\xNN`.
  private static func quoted(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
    var text = ""
    for byte in bytes[range] {
      if (0x20..<0x7F).contains(byte), byte != 0x27 {
        text.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        text += "\\x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
      }
    }
    return text
  }
}

extension String {
  /// The string with zeros in front, to at least `width` characters.
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}

extension UnsafeRawBufferPointer {
  /// The big-endian unsigned integer of `size` bytes (1 to 8) at `offset`.
  ///
  /// The caller has checked that the bytes lie inside the buffer.
  ///
  /// - Parameters:
  ///   - offset: Where the integer starts.
  ///   - size: Its width in bytes, 1 to 8.
  /// - Returns: Its value.
  @inline(__always)
  func bigEndianInteger(at offset: Int, size: Int) -> UInt64 {
    switch size {
    case 1:
      return UInt64(self[offset])
    case 2:
      return UInt64(UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
    case 4:
      return UInt64(UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    case 8:
      return UInt64(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    default:
      var value: UInt64 = 0
      for index in offset..<(offset &+ size) {
        value = value << 8 | UInt64(self[index])
      }
      return value
    }
  }
}
