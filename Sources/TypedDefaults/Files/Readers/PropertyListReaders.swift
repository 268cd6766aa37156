import Foundation

/// What the library's own property-list readers share: their limits and their result.
///
/// The binary (``BinaryPropertyListReader``) and XML (``XMLPropertyListReader``) readers decode
/// bytes straight into ``PropertyListValue``; only OpenStep text goes through Foundation
/// (``FoundationPropertyListReader``). Every failure is a ``SettingsError`` with code
/// ``SettingsError/Code/corruptFile`` naming the path and where in the file (a line for XML, a
/// byte offset for binary) the reader found what it did not expect.
enum PropertyListReaders {
  /// The deepest nesting of arrays and dictionaries a reader accepts (the root is depth 0).
  static let maximumDepth = FoundationBridge.maximumDepth
  /// The most values (scalars and containers, counting every use of a shared binary object) one
  /// file may expand to.
  static let maximumValueCount = FoundationBridge.maximumValueCount
  /// The most bytes of text and data (counting every use of a shared binary object) one file may
  /// expand to: 256 MiB, sixteen times the largest file read by default.
  ///
  /// A few kilobytes of binary property list can otherwise describe terabytes of text, which
  /// whoever prints, encodes or compares the value would have to walk.
  static let maximumExpandedSize = 256 << 20

  /// The most entries of a root dictionary a salvaging read leaves out: past that, the file is
  /// corrupt as a whole, and the reader stops there.
  ///
  /// A file with a few bad values keeps the rest; one where thousands of entries are bad is not
  /// that file, and reporting each (a message, a key, a diagnostic) would cost more than reading
  /// it: 300,000 bad entries of a 9 MB file took 3.3 s to open. The original bytes are kept aside
  /// either way.
  static let maximumUnreadableEntries = 1000

  /// The reason a salvaging read stopped, after ``maximumUnreadableEntries`` entries.
  static let tooManyUnreadableEntries =
    "more than \(maximumUnreadableEntries) entries of the root dictionary hold values that "
    + "can't be read, so the file is not read as a whole"

  /// A decoded property list.
  struct Result: Sendable {
    /// The root value.
    var root: PropertyListValue
    /// With salvaging on, the entries of a root dictionary that were left out because their
    /// values could not be read: one ``SettingsError/Code/corruptFile`` error each, with its
    /// ``SettingsError/key`` set to the entry's key.
    ///
    /// Always empty with salvaging off.
    var unreadableEntries: [SettingsError] = []
  }
}

extension PropertyListFile.Format {
  /// The elements an XML property list's root can be.
  private static let xmlElementNames = [
    "plist", "dict", "array", "string", "integer", "real", "true", "false", "date", "data",
  ]

  /// The format bytes are in, from their first characters: `bplist` is binary; an XML
  /// declaration, a comment, a DOCTYPE or an element (`<plist`, or a bare value root such as
  /// `<dict>`), after an optional byte-order mark and any amount of white space, in UTF-8,
  /// UTF-16 or UTF-32, is XML; anything else is left to the OpenStep reader, which also reads
  /// OpenStep's `<hex data>`.
  static func detect(_ data: Data) -> PropertyListFile.Format {
    if data.starts(with: [0x62, 0x70, 0x6C, 0x69, 0x73, 0x74]) { return .binary }  // "bplist"
    return data.withUnsafeBytes { bytes in
      let text = leadingASCII(bytes, count: 10)
      if text.starts(with: Array("<?".utf8)) || text.starts(with: Array("<!".utf8)) {
        return .xml
      }
      // OpenStep's `<0fbd 77>` data is hexadecimal digits, which no element name is.
      for name in xmlElementNames where text.starts(with: Array("<\(name)".utf8)) {
        let next = text.dropFirst(name.utf8.count + 1).first
        if next.map({ [0x3E, 0x2F, 0x20, 0x09, 0x0A, 0x0D].contains($0) }) ?? true { return .xml }
      }
      return .openStep
    }
  }

  /// Up to `count` ASCII characters after the byte-order mark (if any) and all leading white
  /// space, in the code units the bytes use: UTF-8, or UTF-16 or UTF-32 of either byte order
  /// (from the mark, or from zero bytes around a first `<` or white space).
  ///
  /// A non-ASCII character ends them.
  private static func leadingASCII(_ bytes: UnsafeRawBufferPointer, count: Int) -> [UInt8] {
    func starts(_ prefix: [UInt8]) -> Bool {
      bytes.count >= prefix.count && prefix.indices.allSatisfy { bytes[$0] == prefix[$0] }
    }
    func isOpening(_ byte: UInt8) -> Bool { [0x3C, 0x20, 0x09, 0x0A, 0x0D].contains(byte) }
    var (start, width, bigEndian) = (0, 1, true)
    if starts([0xEF, 0xBB, 0xBF]) {
      start = 3
    } else if starts([0x00, 0x00, 0xFE, 0xFF]) {
      (start, width, bigEndian) = (4, 4, true)
    } else if starts([0xFF, 0xFE, 0x00, 0x00]) {
      (start, width, bigEndian) = (4, 4, false)
    } else if starts([0xFE, 0xFF]) {
      (start, width, bigEndian) = (2, 2, true)
    } else if starts([0xFF, 0xFE]) {
      (start, width, bigEndian) = (2, 2, false)
    } else if bytes.count >= 4, bytes[0] == 0, bytes[1] == 0, bytes[2] == 0, isOpening(bytes[3]) {
      (width, bigEndian) = (4, true)
    } else if bytes.count >= 4, isOpening(bytes[0]), bytes[1] == 0, bytes[2] == 0, bytes[3] == 0 {
      (width, bigEndian) = (4, false)
    } else if bytes.count >= 2, bytes[0] == 0, isOpening(bytes[1]) {
      (width, bigEndian) = (2, true)
    } else if bytes.count >= 2, isOpening(bytes[0]), bytes[1] == 0 {
      (width, bigEndian) = (2, false)
    }
    var text: [UInt8] = []
    var index = start
    while index + width <= bytes.count, text.count < count {
      let value = bigEndian ? bytes[index + width - 1] : bytes[index]
      for other in 0..<width - 1 where bytes[bigEndian ? index + other : index + 1 + other] != 0 {
        return text
      }
      guard value < 0x80 else { return text }
      index += width
      if text.isEmpty, [0x20, 0x09, 0x0A, 0x0D].contains(value) { continue }
      text.append(value)
    }
    return text
  }
}
