import Foundation

/// A strict reader of binary property lists (`bplist00`) that decodes the bytes straight into
/// ``PropertyListValue``, never handing them to Foundation.
///
/// `PropertyListSerialization` on Linux crashes on some malformed files (a root array holding a
/// set, for one), so untrusted bytes must never reach it. This reader checks every number before
/// using it, with arithmetic that can't overflow: the header and trailer
/// (``BinaryPropertyListTrailer``), every offset and reference, every length against the bytes
/// that could hold it (before anything is allocated), and every object's kind. It refuses what
/// no property list holds: null, fill bytes used as values, sets, unknown markers, non-string
/// dictionary keys, unpaired UTF-16 surrogates, non-finite dates and integers outside
/// `Int64.min ... UInt64.max`.
///
/// Objects may be shared (one array referred to from many places): each object is decoded once
/// and its value reused, so a file decodes in time linear in its size. Every use of a shared
/// object still counts its whole expanded size towards ``PropertyListReaders/maximumValueCount``,
/// and its depth towards ``PropertyListReaders/maximumDepth``, exactly as if it had been
/// written out in full; an object that contains itself is refused.
///
/// Decisions where the format leaves room:
/// - ASCII strings (`0x5n`) holding bytes 0x80 and above, which real files contain, are read as
///   ISO Latin-1 (each byte is the code point of the same number), which is what CoreFoundation
///   and `plutil` produce for them (`C2 A9` reads as "Â©").
/// - 16-byte integers are accepted when their value fits `Int64.min ... UInt64.max`.
/// - A dictionary that holds a key twice keeps the last value (CoreFoundation's binary reader
///   keeps the first, measured on Linux with Swift 6.3.1: see `KeyedArchiveCheck`).
/// - Keyed-archiver UIDs read as `["CF$UID": n]`, like ``FoundationBridge``.
enum BinaryPropertyListReader {
  /// Decodes a binary property list.
  ///
  /// - Parameters:
  ///   - data: The file's bytes, starting with `bplist00`.
  ///   - path: What to call the bytes in errors.
  ///   - salvagingEntries: When the root is a dictionary, leave out an entry whose value can't be
  ///     read (reported in ``PropertyListReaders/Result/unreadableEntries``) rather than fail.
  ///     Errors in the header, trailer, offset table, root object or a key still fail the read.
  /// - Returns: The root value and, when salvaging, the entries left out.
  /// - Throws: ``SettingsError/Code/corruptFile`` naming the byte offset and what was expected.
  static func read(
    _ data: Data, path: String, salvagingEntries: Bool = false
  ) throws(SettingsError) -> PropertyListReaders.Result {
    // The decoder recurses once per level of nesting. Files nest a few levels; one nested
    // deeper than a small thread stack can surely hold is decoded again with a stack for the
    // deepest file the limit allows (DeepStack).
    var outcome = decode(data, salvaging: salvagingEntries, stackDepthLimit: 16)
    if case .failure(let failure) = outcome, failure.needsDeeperStack {
      outcome = DeepStack.run { decode(data, salvaging: salvagingEntries, stackDepthLimit: .max) }
    }
    switch outcome {
    case .success(let decoded):
      return PropertyListReaders.Result(
        root: decoded.root,
        unreadableEntries: decoded.unreadable.map { entry in
          SettingsError(.corruptFile, path: path, key: entry.key, reason: entry.failure.reason)
        })
    case .failure(let failure):
      throw SettingsError(.corruptFile, path: path, reason: failure.reason)
    }
  }

  /// Decodes a whole file on the calling thread, nesting containers at most `stackDepthLimit`
  /// levels before giving up with a failure that ``Failure/needsDeeperStack``.
  private static func decode(
    _ data: Data, salvaging: Bool, stackDepthLimit: Int
  ) -> Swift.Result<Decoded, Failure> {
    data.withUnsafeBytes { bytes in
      Swift.Result { () throws(Failure) -> Decoded in
        var decoder = try Decoder(bytes: bytes, stackDepthLimit: stackDepthLimit)
        return try decoder.decodeRoot(salvaging: salvaging)
      }
    }
  }

  /// Why bytes could not be read: the reason a ``SettingsError`` will carry.
  struct Failure: Error {
    /// A capitalised sentence without a trailing period, usually starting `At byte n:`.
    let reason: String
    /// Whether the failure is nesting too deep, which depends on where the object is used
    /// rather than on the object alone.
    let isNesting: Bool

    /// A failure described by a whole sentence.
    ///
    /// - Parameters:
    ///   - reason: The sentence.
    ///   - isNesting: Whether it is about nesting too deep.
    init(_ reason: String, isNesting: Bool = false) {
      self.reason = reason
      self.isNesting = isNesting
      self.needsDeeperStack = false
    }

    /// Whether the decoding stopped only because this thread's stack might not hold more
    /// nesting: no fault of the file, and never recorded against it.
    let needsDeeperStack: Bool

    /// Decoding must continue on a thread with a larger stack.
    static let deeperStackNeeded = Failure(needingDeeperStack: ())

    private init(needingDeeperStack: Void) {
      reason = "The values nest deeper than this thread's stack allows"
      isNesting = false
      needsDeeperStack = true
    }

    /// A failure at a byte offset: `At byte offset: problem`.
    ///
    /// - Parameters:
    ///   - offset: Where in the file.
    ///   - problem: What is wrong there, starting in lower case.
    ///   - isNesting: Whether it is about nesting too deep.
    init(at offset: Int, _ problem: String, isNesting: Bool = false) {
      self.init("At byte \(offset): \(problem)", isNesting: isNesting)
    }
  }

  /// What a whole read produces.
  private struct Decoded: Sendable {
    var root: PropertyListValue
    var unreadable: [(key: String, failure: Failure)]
  }

  /// One decoded object: its value, how many values it expands to and how deep its containers
  /// nest (0 for a scalar).
  private struct Object {
    var value: PropertyListValue
    var count: Int
    var height: Int
    /// The bytes of text and data it expands to, every use of a shared object counted.
    var size: Int = 0
  }

  /// The decoding of one file's objects, memoized by object index.
  private struct Decoder {
    let bytes: UnsafeRawBufferPointer
    let layout: BinaryPropertyListTrailer
    /// Per object: 0 not decoded yet, ``inProgress``, ``failed``, or 1 + its index in `objects`.
    var states: [UInt32]
    var objects: [Object] = []
    /// Why a failed object failed, and at which depth (nesting failures depend on it).
    var failures: [Int: (failure: Failure, depth: Int)] = [:]
    /// Entries left out of a salvaged root dictionary.
    var unreadable: [(key: String, failure: Failure)] = []

    static let inProgress = UInt32.max
    static let failed = UInt32.max - 1
    static let maximumDepth = PropertyListReaders.maximumDepth
    static let maximumCount = PropertyListReaders.maximumValueCount
    static let maximumSize = PropertyListReaders.maximumExpandedSize

    /// Checks the file's layout (``BinaryPropertyListTrailer``) and prepares one state per object.
    ///
    /// - Parameter bytes: The whole file, alive for as long as the decoder.
    /// - Throws: ``Failure`` for a bad header, trailer or offset table.
    /// The nesting past which decoding stops with ``Failure/deeperStackNeeded``.
    let stackDepthLimit: Int

    init(bytes: UnsafeRawBufferPointer, stackDepthLimit: Int) throws(Failure) {
      self.bytes = bytes
      self.stackDepthLimit = stackDepthLimit
      layout = try BinaryPropertyListTrailer(bytes: bytes)
      guard layout.objectCount < Int(Self.failed) else {
        throw Failure(
          at: layout.trailerStart + 8, "\(layout.objectCount) objects are more than can be read")
      }
      states = [UInt32](repeating: 0, count: layout.objectCount)
    }

    /// Decodes the root object; with `salvaging`, a root dictionary's unreadable entries are
    /// left out and recorded in ``unreadable``.
    ///
    /// - Parameter salvaging: Whether to leave out a root dictionary's unreadable entries.
    /// - Returns: The root value, and the entries left out, each with its failure (none without
    ///   `salvaging`).
    /// - Throws: ``Failure`` for the root object, a key, or (without salvaging) any value.
    mutating func decodeRoot(salvaging: Bool) throws(Failure) -> Decoded {
      let top = layout.topObject
      let position = layout.trailerStart + 16
      let root: Object
      if salvaging, bytes[layout.offset(of: top, in: bytes)] >> 4 == 0xD {
        states[top] = Self.inProgress
        root = try dictionary(top, at: layout.offset(of: top, in: bytes), depth: 0, salvaging: true)
      } else {
        root = try object(top, referencedAt: position, depth: 0)
      }
      return Decoded(root: root.value, unreadable: unreadable)
    }

    // MARK: Objects

    /// The object at `index`, decoded once and then reused.
    ///
    /// - Parameters:
    ///   - index: An object index, already checked to be in range.
    ///   - position: Where the reference to it is, for errors.
    ///   - depth: The depth the object is used at (the root is 0).
    /// - Returns: The object's value, with how many values it expands to, how deep its
    ///   containers nest, and the bytes of text and data it expands to.
    /// - Throws: ``Failure`` for anything malformed in the object or below it.
    mutating func object(
      _ index: Int, referencedAt position: Int, depth: Int
    ) throws(Failure) -> Object {
      let state = states[index]
      if state != 0 {
        if state < Self.failed {
          let found = objects[Int(state) - 1]
          if found.height > 0, depth + found.height > Self.maximumDepth {
            throw nestingFailure(at: layout.offset(of: index, in: bytes))
          }
          return found
        }
        if state == Self.inProgress {
          throw Failure(at: position, "object \(index) refers to itself")
        }
        // Failed before: the same failure, unless it was nesting too deep further down.
        if let earlier = failures[index], !earlier.failure.isNesting || depth >= earlier.depth {
          throw earlier.failure
        }
      }
      let offset = layout.offset(of: index, in: bytes)
      let marker = bytes[offset]
      let decoded: Object
      do throws(Failure) {
        switch marker >> 4 {
        case 0xA, 0xD:
          guard depth < Self.maximumDepth else { throw nestingFailure(at: offset) }
          guard depth < stackDepthLimit else { throw Failure.deeperStackNeeded }
          states[index] = Self.inProgress
          decoded =
            marker >> 4 == 0xA
            ? try array(index, at: offset, depth: depth)
            : try dictionary(index, at: offset, depth: depth, salvaging: false)
        default:
          let value = try scalar(marker, at: offset)
          let size: Int
          switch value {
          case .string(let text): size = text.utf8.count
          case .data(let bytes): size = bytes.count
          default: size = 8
          }
          decoded = Object(value: value, count: 1, height: 0, size: size)
        }
      } catch {
        // This decoder is abandoned; another thread starts afresh.
        if error.needsDeeperStack { throw error }
        // Remembered, so that a bad object shared by many salvaged entries is read only once.
        states[index] = Self.failed
        failures[index] = (error, depth)
        throw error
      }
      objects.append(decoded)
      states[index] = UInt32(truncatingIfNeeded: objects.count)
      return decoded
    }

    /// The failure of a container at `offset` nested deeper than the limit.
    func nestingFailure(at offset: Int) -> Failure {
      Failure(
        at: offset, "the values nest deeper than \(Self.maximumDepth) levels", isNesting: true)
    }

    /// The object index in the reference at `position`, checked to be in range.
    @inline(__always)
    func reference(at position: Int) throws(Failure) -> Int {
      let index = bytes.bigEndianInteger(at: position, size: layout.referenceSize)
      guard index < UInt64(layout.objectCount) else {
        throw Failure(
          at: position,
          "an object reference \(index) is past the last object (\(layout.objectCount) objects)")
      }
      return Int(index)
    }

    /// An array: its count, then one reference per element.
    ///
    /// - Throws: ``Failure`` for its count, a reference or an element, or more values than the
    ///   limit.
    mutating func array(_ index: Int, at offset: Int, depth: Int) throws(Failure) -> Object {
      let (count, start) = try length(at: offset, unitSize: layout.referenceSize, of: "an array")
      var elements: [PropertyListValue] = []
      elements.reserveCapacity(count)
      var total = 1
      var size = 1
      var height = 0
      var position = start
      for _ in 0..<count {
        let element = try object(
          try reference(at: position), referencedAt: position, depth: depth + 1)
        elements.append(element.value)
        total += element.count
        size += element.size
        guard total <= Self.maximumCount else { throw Self.tooManyValues }
        guard size <= Self.maximumSize else { throw Self.tooLarge }
        height = max(height, element.height)
        position &+= layout.referenceSize
      }
      return Object(value: .array(elements), count: total, height: height + 1, size: size)
    }

    /// A dictionary: its count, the key references, then the value references.
    ///
    /// With `salvaging`, an entry whose value can't be read is left out and recorded in
    /// ``unreadable``; a bad key still fails.
    ///
    /// - Throws: ``Failure`` for its count, a key, a value (without salvaging), or more values
    ///   than the limit.
    mutating func dictionary(
      _ index: Int, at offset: Int, depth: Int, salvaging: Bool
    ) throws(Failure) -> Object {
      let (count, start) = try length(
        at: offset, unitSize: 2 * layout.referenceSize, of: "a dictionary")
      var entries: [String: PropertyListValue] = [:]
      entries.reserveCapacity(count)
      var total = 1
      var size = 1
      var height = 0
      var keyPosition = start
      var valuePosition = start &+ count &* layout.referenceSize
      for _ in 0..<count {
        let key = try self.key(at: keyPosition)
        let value: Object
        if salvaging {
          do {
            value = try object(
              try reference(at: valuePosition), referencedAt: valuePosition, depth: depth + 1)
          } catch {
            if error.needsDeeperStack { throw error }
            guard unreadable.count < PropertyListReaders.maximumUnreadableEntries else {
              throw Failure(at: valuePosition, PropertyListReaders.tooManyUnreadableEntries)
            }
            entries[key] = nil  // the last one for a key wins, even when it is unreadable
            unreadable.append((key, error))
            keyPosition &+= layout.referenceSize
            valuePosition &+= layout.referenceSize
            continue
          }
        } else {
          value = try object(
            try reference(at: valuePosition), referencedAt: valuePosition, depth: depth + 1)
        }
        entries[key] = value.value
        total += value.count
        size += value.size + key.utf8.count
        guard total <= Self.maximumCount else { throw Self.tooManyValues }
        guard size <= Self.maximumSize else { throw Self.tooLarge }
        height = max(height, value.height)
        keyPosition &+= layout.referenceSize
        valuePosition &+= layout.referenceSize
      }
      if salvaging, !unreadable.isEmpty {
        // One report per key whose last value was unreadable.
        var reported = Set<String>()
        unreadable = unreadable.reversed().filter { entry in
          entries[entry.key] == nil && reported.insert(entry.key).inserted
        }.reversed()
      }
      return Object(value: .dictionary(entries), count: total, height: height + 1, size: size)
    }

    static let tooLarge = Failure(
      "It expands to more than \(maximumSize) bytes of text and data: objects referred to many "
        + "times over")

    static let tooManyValues = Failure(
      "It expands to more than \(maximumCount) values: objects referred to many times over")

    /// The dictionary key the reference at `position` refers to: a string object.
    ///
    /// - Throws: ``Failure`` for a bad reference, a key that is not a string or a bad string.
    mutating func key(at position: Int) throws(Failure) -> String {
      let index = try reference(at: position)
      let offset = layout.offset(of: index, in: bytes)
      let marker = bytes[offset]
      guard marker >> 4 == 0x5 || marker >> 4 == 0x6,
        case .string(let key) = try object(index, referencedAt: position, depth: 0).value
      else {
        throw Failure(
          at: position,
          "a dictionary key refers to object \(index), \(Self.describe(marker)), not a string")
      }
      return key
    }

    // MARK: Scalars

    /// A scalar object (anything but an array or a dictionary) starting with `marker`.
    ///
    /// - Throws: ``Failure`` for a marker no property list holds, or contents that are too
    ///   short or out of range.
    func scalar(_ marker: UInt8, at offset: Int) throws(Failure) -> PropertyListValue {
      switch marker >> 4 {
      case 0x0:
        switch marker {
        case 0x08: return .bool(false)
        case 0x09: return .bool(true)
        case 0x00:
          throw Failure(at: offset, "a null (marker 0x00), which property lists can't hold")
        case 0x0F: throw Failure(at: offset, "a fill byte (marker 0x0F) where a value should be")
        default: throw unknown(marker, at: offset)
        }
      case 0x1:
        return .integer(try integer(marker, at: offset))
      case 0x2:
        switch marker & 0x0F {
        case 2:
          try need(4, after: offset, for: "a 4-byte real")
          let bits = UInt32(bytes.bigEndianInteger(at: offset + 1, size: 4))
          return .real(Double(Float(bitPattern: bits)))
        case 3:
          try need(8, after: offset, for: "an 8-byte real")
          return .real(Double(bitPattern: bytes.bigEndianInteger(at: offset + 1, size: 8)))
        default:
          throw Failure(
            at: offset,
            "a real of \(Self.power(marker)) bytes (marker \(Self.hex(marker))); reals are 4 or 8 "
              + "bytes")
        }
      case 0x3:
        guard marker == 0x33 else { throw unknown(marker, at: offset) }
        try need(8, after: offset, for: "a date")
        let seconds = Double(bitPattern: bytes.bigEndianInteger(at: offset + 1, size: 8))
        guard seconds.isFinite else {
          throw Failure(at: offset, "a date of '\(seconds)' seconds, which is not a finite time")
        }
        return .date(Date(timeIntervalSinceReferenceDate: seconds))
      case 0x4:
        let (count, start) = try length(at: offset, unitSize: 1, of: "data")
        return .data(Data(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)])))
      case 0x5:
        let (count, start) = try length(at: offset, unitSize: 1, of: "an ASCII string")
        return .string(asciiString(from: start, count: count))
      case 0x6:
        let (count, start) = try length(at: offset, unitSize: 2, of: "a UTF-16 string")
        return .string(try utf16String(from: start, count: count))
      case 0x8:
        let size = Int(marker & 0x0F) + 1
        guard size <= 8, size <= layout.tableStart - offset - 1 else {
          throw Failure(
            at: offset, "a UID of \(size) bytes; UIDs are 1 to 8 bytes before the offset table")
        }
        let uid = bytes.bigEndianInteger(at: offset + 1, size: size)
        guard uid <= UInt64(UInt32.max) else {
          throw Failure(at: offset, "a UID of \(uid), above the largest, \(UInt32.max)")
        }
        return .dictionary(["CF$UID": .integer(.init(uid))])
      case 0xC:
        throw Failure(
          at: offset, "a set (marker \(Self.hex(marker))), which no property-list type holds")
      default:
        throw unknown(marker, at: offset)
      }
    }

    /// An integer object (`0x1n`: 2ⁿ big-endian bytes).
    func integer(_ marker: UInt8, at offset: Int) throws(Failure) -> PropertyListValue.Integer {
      switch marker & 0x0F {
      case 0, 1, 2:
        let size = 1 << Int(marker & 0x0F)
        try need(size, after: offset, for: "a \(size)-byte integer")
        return .init(bytes.bigEndianInteger(at: offset + 1, size: size))
      case 3:
        try need(8, after: offset, for: "an 8-byte integer")
        return .init(Int64(bitPattern: bytes.bigEndianInteger(at: offset + 1, size: 8)))
      case 4:
        try need(16, after: offset, for: "a 16-byte integer")
        let high = bytes.bigEndianInteger(at: offset + 1, size: 8)
        let low = bytes.bigEndianInteger(at: offset + 9, size: 8)
        if high == 0 { return .init(low) }
        if high == UInt64.max, low >> 63 == 1 { return .init(Int64(bitPattern: low)) }
        throw Failure(
          at: offset, "a 16-byte integer outside Int64.min ... UInt64.max, the range plists hold")
      default:
        throw Failure(
          at: offset,
          "an integer of \(Self.power(marker)) bytes (marker \(Self.hex(marker))); integers are "
            + "1, 2, 4, 8 or 16 bytes")
      }
    }

    /// Checks that `size` bytes follow the marker at `offset` before the offset table.
    @inline(__always)
    func need(_ size: Int, after offset: Int, for what: String) throws(Failure) {
      guard size <= layout.tableStart - offset - 1 else {
        throw Failure(
          at: offset, "\(what) runs past the end of the objects at byte \(layout.tableStart)")
      }
    }

    /// The count of a data, string, array or dictionary object: the marker's low 4 bits, or
    /// when they are all set, an integer object that follows.
    ///
    /// Checked against the bytes left before the offset table, `unitSize` bytes per counted item.
    ///
    /// - Returns: The count and where the contents start.
    func length(
      at offset: Int, unitSize: Int, of what: String
    ) throws(Failure) -> (count: Int, start: Int) {
      let end = layout.tableStart
      var count = Int(bytes[offset] & 0x0F)
      var start = offset + 1
      if count == 0x0F {
        guard start < end else {
          throw Failure(at: start, "the length of \(what) is missing before the offset table")
        }
        let marker = bytes[start]
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else {
          throw Failure(
            at: start,
            "the length of \(what) is \(Self.describe(marker)) (marker \(Self.hex(marker))), not "
              + "a 1, 2, 4 or 8-byte integer")
        }
        let size = 1 << Int(marker & 0x0F)
        guard size <= end - start - 1 else {
          throw Failure(
            at: start, "the length of \(what) runs past the end of the objects at byte \(end)")
        }
        let value = bytes.bigEndianInteger(at: start + 1, size: size)
        guard value <= UInt64(Int.max) else {
          throw Failure(
            at: start, "the length of \(what), \(Int64(bitPattern: value)), is negative")
        }
        count = Int(value)
        start += 1 + size
      }
      guard count <= (end - start) / unitSize else {
        throw Failure(
          at: offset,
          "\(what) of \(count) \(unitSize == 1 ? "bytes" : "items") runs past the end of the "
            + "objects at byte \(end)")
      }
      return (count, start)
    }

    /// An ASCII string object's text.
    ///
    /// Bytes 0x80 and above, which real files hold, are read as ISO Latin-1 (byte n is U+00n), as
    /// CoreFoundation reads them.
    func asciiString(from start: Int, count: Int) -> String {
      guard count > 0, let base = bytes.baseAddress else { return "" }
      let text = UnsafeBufferPointer(
        start: (base + start).assumingMemoryBound(to: UInt8.self), count: count)
      if Self.isASCII(UnsafeRawBufferPointer(text)) {
        return String(decoding: text, as: UTF8.self)
      }
      // Latin-1 to UTF-8: bytes below 0x80 as they are, others as two bytes.
      return String(unsafeUninitializedCapacity: count * 2) { utf8 in
        var written = 0
        for byte in text {
          if byte < 0x80 {
            utf8[written] = byte
            written += 1
          } else {
            utf8[written] = 0xC0 | byte >> 6
            utf8[written + 1] = 0x80 | byte & 0x3F
            written += 2
          }
        }
        return written
      }
    }

    /// Whether every byte is below 0x80, eight at a time.
    static func isASCII(_ text: UnsafeRawBufferPointer) -> Bool {
      var index = 0
      var high: UInt64 = 0
      while index + 8 <= text.count {
        high |= text.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        index += 8
      }
      while index < text.count {
        high |= UInt64(text[index])
        index += 1
      }
      return high & 0x8080_8080_8080_8080 == 0
    }

    /// A UTF-16 (big-endian) string object's text; an unpaired surrogate is an error.
    func utf16String(from start: Int, count: Int) throws(Failure) -> String {
      guard count > 0 else { return "" }
      var bad: (position: Int, unit: UInt16)?
      let bytes = self.bytes
      let text = withUnsafeTemporaryAllocation(of: UInt16.self, capacity: count) { units in
        for index in 0..<count {
          units[index] = UInt16(
            bigEndian: bytes.loadUnaligned(fromByteOffset: start + 2 * index, as: UInt16.self))
        }
        var index = 0
        while index < count {
          let unit = units[index]
          if unit & 0xF800 == 0xD800 {
            guard unit < 0xDC00, index + 1 < count, units[index + 1] & 0xFC00 == 0xDC00 else {
              bad = (start + 2 * index, unit)
              return ""
            }
            index += 2
          } else {
            index += 1
          }
        }
        return String(decoding: units, as: UTF16.self)
      }
      if let bad {
        throw Failure(
          at: bad.position,
          "an unpaired \(bad.unit < 0xDC00 ? "high" : "low") surrogate 0x"
            + String(bad.unit, radix: 16, uppercase: true) + " in a UTF-16 string")
      }
      return text
    }

    // MARK: Describing markers

    /// The failure of a marker no binary property list uses.
    func unknown(_ marker: UInt8, at offset: Int) -> Failure {
      Failure(at: offset, "an unknown object marker \(Self.hex(marker))")
    }

    /// `0x5F`.
    static func hex(_ marker: UInt8) -> String {
      "0x" + (marker < 0x10 ? "0" : "") + String(marker, radix: 16, uppercase: true)
    }

    /// 2ⁿ for a marker's low 4 bits n, as text.
    static func power(_ marker: UInt8) -> String {
      String(UInt64(1) << UInt64(marker & 0x0F))
    }

    /// The kind of object a marker starts, with an article, for errors.
    static func describe(_ marker: UInt8) -> String {
      switch marker >> 4 {
      case 0x0:
        switch marker {
        case 0x00: "a null"
        case 0x08, 0x09: "a Boolean"
        case 0x0F: "a fill byte"
        default: "an unknown object"
        }
      case 0x1: "an integer"
      case 0x2: "a real"
      case 0x3: "a date"
      case 0x4: "data"
      case 0x5, 0x6: "a string"
      case 0x8: "a UID"
      case 0xA: "an array"
      case 0xC: "a set"
      case 0xD: "a dictionary"
      default: "an unknown object"
      }
    }
  }
}
