import Foundation
import TypedDefaults

/// The mutations ``Fuzzer`` applies to a seed's bytes.
package enum Mutations {
  /// Applies one mutation chosen by `random` and returns its name.
  package static func apply(
    _ bytes: inout [UInt8], format: PropertyListFile.Format, _ random: inout SplitMix64
  ) -> String {
    if format == .binary, bytes.count >= 40, random.chance(55) {
      return binary(&bytes, &random)
    }
    if format == .xml, random.chance(55) {
      return xml(&bytes, &random)
    }
    return generic(&bytes, &random)
  }

  package static let interestingBytes: [UInt8] = [
    0x00, 0xFF, 0x7F, 0x80, 0x0F, 0xF0, 0x3C, 0x26, 0x3E,
  ]

  // MARK: Any bytes

  package static func generic(_ bytes: inout [UInt8], _ random: inout SplitMix64) -> String {
    guard !bytes.isEmpty else {
      bytes = [random.pick(interestingBytes)]
      return "one byte"
    }
    switch random.below(7) {
    case 0:
      let length = random.below(bytes.count)
      bytes.removeLast(bytes.count - length)
      return "truncated to \(length)"
    case 1:
      let flips = 1 + random.below(8)
      for _ in 0..<flips {
        bytes[random.below(bytes.count)] ^= 1 << UInt8(random.below(8))
      }
      return "\(flips) bit flips"
    case 2:
      let position = random.below(bytes.count + 1)
      let inserted = (0..<(1 + random.below(16))).map { _ in
        UInt8(truncatingIfNeeded: random.next())
      }
      bytes.insert(contentsOf: inserted, at: position)
      return "\(inserted.count) bytes inserted at \(position)"
    case 3:
      let start = random.below(bytes.count)
      let end = min(bytes.count, start + 1 + random.below(32))
      bytes.removeSubrange(start..<end)
      return "bytes \(start)..<\(end) deleted"
    case 4:
      let start = random.below(bytes.count)
      let end = min(bytes.count, start + 1 + random.below(64))
      let span = bytes[start..<end]
      let position = random.below(bytes.count + 1)
      bytes.insert(contentsOf: span, at: position)
      return "bytes \(start)..<\(end) duplicated at \(position)"
    case 5:
      let position = random.below(bytes.count)
      bytes[position] = random.pick(interestingBytes)
      return "byte \(position) set to \(bytes[position])"
    default:
      let position = random.below(bytes.count)
      let end = min(bytes.count, position + 1 + random.below(8))
      for index in position..<end { bytes[index] = 0xFF }
      return "bytes \(position)..<\(end) set to 0xFF"
    }
  }

  // MARK: Binary

  package static let edgeValues: [UInt64] = [
    0, 1, 2, 3, 7, 8, 9, 31, 32, 255, 256, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF, 0x1_0000_0000,
    0x7FFF_FFFF_FFFF_FFFF, 0x8000_0000_0000_0000, .max,
  ]

  /// Markers of every kind, with the counts and sizes that need care: fill, sized integers and
  /// reals, a set (0xC), an unused nibble, and containers whose count follows (0xF).
  package static let markers: [UInt8] = [
    0x00, 0x08, 0x09, 0x0C, 0x0F, 0x10, 0x13, 0x14, 0x15, 0x17, 0x1F, 0x22, 0x23, 0x24, 0x33,
    0x3F, 0x40, 0x4F, 0x50, 0x5F, 0x60, 0x6F, 0x70, 0x80, 0x87, 0x8F, 0x90, 0xA0, 0xAF, 0xB0,
    0xC0, 0xC1, 0xCF, 0xD0, 0xD1, 0xDF, 0xE0, 0xF0, 0xFF,
  ]

  private static func setBigEndian(
    _ value: UInt64, _ size: Int, at offset: Int, in bytes: inout [UInt8]
  ) {
    for index in 0..<size where offset + index < bytes.count && offset + index >= 0 {
      bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - index)))
    }
  }

  private static func readBigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64? {
    guard size >= 1, size <= 8, offset >= 0, offset + size <= bytes.count else { return nil }
    return bytes[offset..<offset + size].reduce(0) { $0 << 8 | UInt64($1) }
  }

  /// Where the objects start, from the offset table, when the trailer makes sense.
  private static func objectOffsets(_ bytes: [UInt8]) -> [Int] {
    let trailer = bytes.count - 32
    let offsetSize = Int(bytes[trailer + 6])
    guard (1...8).contains(offsetSize),
      let count = readBigEndian(bytes, at: trailer + 8, size: 8),
      let table = readBigEndian(bytes, at: trailer + 24, size: 8),
      count < 100_000, table < UInt64(trailer)
    else { return [] }
    return (0..<Int(count)).compactMap { index in
      readBigEndian(bytes, at: Int(table) + index * offsetSize, size: offsetSize).flatMap {
        $0 < UInt64(trailer) ? Int($0) : nil
      }
    }
  }

  package static func binary(_ bytes: inout [UInt8], _ random: inout SplitMix64) -> String {
    let trailer = bytes.count - 32
    switch random.below(6) {
    case 0:
      // A trailer field at an edge value.
      let fields: [(String, Int, Int)] = [
        ("offset size", trailer + 6, 1), ("reference size", trailer + 7, 1),
        ("object count", trailer + 8, 8), ("top object", trailer + 16, 8),
        ("offset table offset", trailer + 24, 8),
      ]
      let (name, offset, size) = random.pick(fields)
      var value = random.pick(edgeValues)
      if random.chance(30) { value = UInt64(trailer) &+ UInt64(random.below(5)) &- 2 }
      setBigEndian(value, size, at: offset, in: &bytes)
      return "trailer \(name) = \(value)"
    case 1:
      // An offset table entry pointing elsewhere.
      let offsetSize = Int(bytes[trailer + 6])
      guard (1...8).contains(offsetSize),
        let table = readBigEndian(bytes, at: trailer + 24, size: 8), table < UInt64(trailer),
        let count = readBigEndian(bytes, at: trailer + 8, size: 8), count > 0, count < 100_000
      else { return generic(&bytes, &random) }
      let entry = Int(table) + random.below(Int(count)) * offsetSize
      let value =
        random.chance(50) ? random.pick(edgeValues) : UInt64(random.below(bytes.count + 4))
      setBigEndian(value, offsetSize, at: entry, in: &bytes)
      return "offset table entry at \(entry) = \(value)"
    case 2, 3:
      // An object's marker replaced.
      let offsets = objectOffsets(bytes)
      guard !offsets.isEmpty else { return generic(&bytes, &random) }
      let offset = random.pick(offsets)
      bytes[offset] = random.pick(markers)
      return "marker at \(offset) = \(bytes[offset])"
    case 4:
      // A huge declared count or length: the marker's count follows as an 8-byte integer.
      let offsets = objectOffsets(bytes)
      guard !offsets.isEmpty else { return generic(&bytes, &random) }
      let offset = random.pick(offsets)
      let kind = random.pick([0x4, 0x5, 0x6, 0x7, 0xA, 0xC, 0xD] as [UInt8])
      let count = random.pick(edgeValues.filter { $0 > 8 })
      var header: [UInt8] = [kind << 4 | 0x0F, 0x13]
      header += (0..<8).map { UInt8(truncatingIfNeeded: count >> (8 * UInt64(7 - $0))) }
      let end = min(trailer, offset + header.count)
      bytes.replaceSubrange(offset..<max(offset, end), with: header.prefix(end - offset))
      return "object at \(offset) declares \(count) (kind \(kind))"
    default:
      // The header damaged: a different version or magic.
      let position = 6 + random.below(2)
      bytes[position] = random.pick([0x30, 0x31, 0x3F, 0x00, 0x78] as [UInt8])
      return "version byte \(position) = \(bytes[position])"
    }
  }

  // MARK: XML

  package static let snippets: [String] = [
    "<!--", "-->", "<!-- a -- b -->", "<!-- unterminated", "<![CDATA[", "]]>", "<![CDATA[x]]>",
    "<![CDATA[ unterminated", "<key a=\">", " a='", " a=b", " xmlns:x=\"y\"",
    "<key a=\"1\" a=\"2\">",
    "&amp;", "&#0;", "&#1;", "&#xD800;", "&#x110000;", "&#65;", "&unknown;", "&", "<", ">",
    "</dict>", "<dict>", "<array>", "</array>", "</plist>", "<plist>", "<?xml version=\"1.0\"?>",
    "\u{FEFF}", "\0", "\r\n", "<integer>99999999999999999999999</integer>",
    "<integer>-0x</integer>", "<real>nan</real>", "<real>1e400</real>",
    "<date>2024-13-32T25:61:61Z</date>", "<data>!!!</data>", "<string>", "</string>",
    "<true/>", "<false></false>", "<key/>", "<key>k</key>", "<?pi data?>",
    "<!DOCTYPE plist [<!ENTITY a \"b\">]>", "<!ENTITY x SYSTEM \"file:///etc/passwd\">",
    "&x;", "é", "\u{00}\u{01}", "\u{7F}", "<dict/>", "<array/>", "<uid>1</uid>",
  ]

  package static let tagNames = [
    "string", "integer", "real", "true", "false", "date", "data", "array", "dict", "key", "plist",
  ]

  package static func xml(_ bytes: inout [UInt8], _ random: inout SplitMix64) -> String {
    switch random.below(5) {
    case 0, 1:
      let snippet = random.pick(snippets)
      // Half the time between two tags, where markup is expected, rather than anywhere.
      let tagEnds = bytes.indices.filter { bytes[$0] == 0x3E }
      let position =
        random.chance(50) && !tagEnds.isEmpty
        ? random.pick(tagEnds) + 1 : random.below(bytes.count + 1)
      bytes.insert(contentsOf: Array(snippet.utf8), at: position)
      return "inserted \(snippet.debugDescription) at \(position)"
    case 2:
      // A tag renamed (one end only, or both).
      let text = String(decoding: bytes, as: UTF8.self)
      let from = random.pick(tagNames)
      let to = random.pick(tagNames + ["strin", "Integer", "x"])
      guard let range = text.range(of: "<\(from)") else { return generic(&bytes, &random) }
      bytes = Array(text.replacingCharacters(in: range, with: "<\(to)").utf8)
      return "<\(from) renamed <\(to)"
    case 3:
      // Attribute damage right after a tag name.
      let opens = bytes.indices.filter { bytes[$0] == 0x3C }
      guard !opens.isEmpty else { return generic(&bytes, &random) }
      var position = random.pick(opens) + 1
      while position < bytes.count, bytes[position] != 0x3E, bytes[position] != 0x2F,
        bytes[position] != 0x20
      {
        position += 1
      }
      let junk = random.pick([" a", " a=", " a=\"", " a=\"<\"", " =\"x\"", " a=\"1\"b=\"2\"", "\""])
      bytes.insert(contentsOf: Array(junk.utf8), at: position)
      return "attribute \(junk.debugDescription) at \(position)"
    default:
      return reencoded(&bytes, &random)
    }
  }

  /// The text in UTF-16 or UTF-32, either byte order, with or without a byte-order mark.
  package static func reencoded(_ bytes: inout [UInt8], _ random: inout SplitMix64) -> String {
    let text = String(decoding: bytes, as: UTF8.self)
    let width = random.chance(60) ? 2 : 4
    let bigEndian = random.chance(50)
    let mark = random.chance(70)
    var output: [UInt8] = []
    func append(_ unit: UInt32) {
      let units = (0..<width).map { UInt8(truncatingIfNeeded: unit >> (8 * UInt32($0))) }
      output += bigEndian ? units.reversed() : units
    }
    if mark { append(0xFEFF) }
    if width == 2 {
      for unit in text.utf16 { append(UInt32(unit)) }
    } else {
      for scalar in text.unicodeScalars { append(scalar.value) }
    }
    bytes = output
    return "as UTF-\(width * 8)\(bigEndian ? "BE" : "LE")\(mark ? " with BOM" : "")"
  }
}

/// Generated documents that attack a reader's limits: deep nesting, entity expansion, huge counts.
package enum Hostile {
  package static func document(_ random: inout SplitMix64) -> (Data, String) {
    switch random.below(6) {
    case 0:
      // Dictionaries only up to 100 levels when closed: a value read deeper costs the round
      // trip's writer (Foundation hashes every nested dictionary) far more than the reader.
      let element = random.pick(["array", "dict"])
      let depth = random.pick(
        element == "array"
          ? [100, 511, 512, 513, 1_000, 5_000, 20_000] : [100, 513, 1_000, 20_000])
      let closed = random.chance(50)
      var text = "<?xml version=\"1.0\"?><plist>"
      let open = element == "array" ? "<array>" : "<dict><key>k</key>"
      text += String(repeating: open, count: depth) + "<true/>"
      if closed {
        text += String(repeating: element == "array" ? "</array>" : "</dict>", count: depth)
        text += "</plist>"
      }
      return (
        Data(text.utf8), "hostile: XML \(element)s \(depth) deep\(closed ? "" : ", unclosed")"
      )
    case 1:
      let levels = 2 + random.below(8)
      var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n<!ENTITY lol0 \"lol\">\n"
      for level in 1...levels {
        text +=
          "<!ENTITY lol\(level) \""
          + String(repeating: "&lol\(level - 1);", count: 10) + "\">\n"
      }
      text += "]>\n<plist><string>&lol\(levels);</string></plist>"
      return (Data(text.utf8), "hostile: billion laughs, \(levels) levels")
    case 2:
      let declaration = random.pick([
        "<!ENTITY x SYSTEM \"file:///etc/passwd\">", "<!ENTITY % p \"<!ENTITY x 'y'>\"> %p;",
        "<!ENTITY x \"&x;\">", "<!ENTITY x PUBLIC \"-//x\" \"http://example.com/x\">",
      ])
      let text = """
        <?xml version="1.0"?><!DOCTYPE plist [\(declaration)]>\
        <plist><dict><key>k</key><string>&x;</string></dict></plist>
        """
      return (Data(text.utf8), "hostile: entity \(declaration)")
    case 3:
      let index = random.below(nestedBinaries.count)
      return (nestedBinaries[index], "hostile: binary arrays \(nestedDepths[index]) deep")
    case 4:
      let index = random.below(sharedBinaries.count)
      return (
        sharedBinaries[index], "hostile: binary arrays sharing, 2^\(sharedLevels[index]) values"
      )
    default:
      let kind = random.pick([0xA, 0xD, 0x5, 0x6, 0x4, 0xC] as [UInt8])
      let count = random.pick(Mutations.edgeValues.filter { $0 > 14 })
      return (hugeCount(kind: kind, count: count), "hostile: kind \(kind) declaring \(count)")
    }
  }

  // Built once: the same bytes every time, and the deep ones are not cheap to build.
  package static let nestedDepths = [511, 512, 513, 1_000, 20_000]
  package static let nestedBinaries = nestedDepths.map(nestedBinary(depth:))
  package static let sharedLevels = [20, 32, 40]
  package static let sharedBinaries = sharedLevels.map(sharedBinary(levels:))

  /// A binary property list from objects (each a byte string), the last one the top object.
  package static func binary(objects: [[UInt8]], referenceSize: Int, top: Int) -> Data {
    var bytes = Array("bplist00".utf8)
    var offsets: [Int] = []
    for object in objects {
      offsets.append(bytes.count)
      bytes += object
    }
    let offsetSize = bytes.count < 0x100 ? 1 : bytes.count < 0x1_0000 ? 2 : 4
    let table = bytes.count
    for offset in offsets { bytes += bigEndian(UInt64(offset), offsetSize) }
    bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
    bytes += bigEndian(UInt64(objects.count), 8) + bigEndian(UInt64(top), 8)
    bytes += bigEndian(UInt64(table), 8)
    return Data(bytes)
  }

  package static func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
    (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
  }

  /// Object i is a one-element array holding object i + 1; the last is a string.
  package static func nestedBinary(depth: Int) -> Data {
    let referenceSize = depth < 0x100 ? 1 : depth < 0x1_0000 ? 2 : 4
    var objects: [[UInt8]] = (0..<depth).map { level -> [UInt8] in
      [0xA1] + bigEndian(UInt64(level + 1), referenceSize)
    }
    objects.append([0x51, 0x78])
    return binary(objects: objects, referenceSize: referenceSize, top: 0)
  }

  /// Object i is an array holding object i + 1 twice: 2^levels values from a few hundred bytes.
  package static func sharedBinary(levels: Int) -> Data {
    var objects: [[UInt8]] = (0..<levels).map { level -> [UInt8] in
      let next = UInt8(level + 1)
      return [0xA2, next, next]
    }
    objects.append([0x09])
    return binary(objects: objects, referenceSize: 1, top: 0)
  }

  /// A container or string declaring `count` elements or bytes, with only a few present.
  package static func hugeCount(kind: UInt8, count: UInt64) -> Data {
    let object: [UInt8] = [kind << 4 | 0x0F, 0x13] + bigEndian(count, 8) + [0x00, 0x00]
    return binary(objects: [object, [0x09]], referenceSize: 1, top: 0)
  }
}

/// Reports a crash during a fuzz run: a signal handler (on its own stack, so that a stack
/// overflow is caught too) writes the input being decoded to a file opened beforehand and names
/// the seed and iteration on standard error, then lets the signal take its course.
package enum CrashReporter {
  private static let signals = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]
  private static let capacity = 8 * 1024 * 1024

  nonisolated(unsafe) private static var buffer: UnsafeMutablePointer<UInt8>?
  nonisolated(unsafe) private static var digits: UnsafeMutablePointer<UInt8>?
  nonisolated(unsafe) private static var count = 0
  nonisolated(unsafe) private static var iteration = 0
  nonisolated(unsafe) private static var file: Int32 = -1
  nonisolated(unsafe) private static var filePath = ""
  nonisolated(unsafe) private static var prefix: [UInt8] = []
  nonisolated(unsafe) private static var suffix: [UInt8] = []
  nonisolated(unsafe) private static var previous: [Int32: sigaction] = [:]
  nonisolated(unsafe) private static var alternateStack: UnsafeMutableRawPointer?
  nonisolated(unsafe) private static var previousStack = stack_t()

  package static func install(seed: UInt64) {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("TypedDefaults-fuzz-crash-\(seed).plist").path
    filePath = path
    file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    buffer = .allocate(capacity: capacity)
    digits = .allocate(capacity: 20)
    prefix = Array("\nPropertyListFuzzTests: crashed at iteration ".utf8)
    suffix = Array(
      " (seed \(seed)); the input is in \(path); replay with TYPEDDEFAULTS_FUZZ_REPLAY=\(path)\n"
        .utf8)
    let stackSize = 256 * 1024
    alternateStack = .allocate(byteCount: stackSize, alignment: 16)
    var stack = stack_t()
    stack.ss_sp = alternateStack
    stack.ss_size = stackSize
    sigaltstack(&stack, &previousStack)
    for signal in signals {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { signal in CrashReporter.crashed(signal) }
      action.sa_flags = Int32(SA_ONSTACK)
      sigemptyset(&action.sa_mask)
      var old = sigaction()
      sigaction(signal, &action, &old)
      previous[signal] = old
    }
  }

  package static func uninstall() {
    for signal in signals {
      if var old = previous[signal] { sigaction(signal, &old, nil) }
    }
    previous = [:]
    sigaltstack(&previousStack, nil)
    alternateStack?.deallocate()
    alternateStack = nil
    buffer?.deallocate()
    buffer = nil
    digits?.deallocate()
    digits = nil
    if file >= 0 {
      close(file)
      unlink(filePath)  // no crash: nothing to keep
    }
    file = -1
  }

  /// Keeps a copy of the input about to be decoded.
  package static func current(_ data: Data, iteration: Int) {
    self.iteration = iteration
    guard let buffer, data.count <= capacity else {
      count = 0
      return
    }
    data.withUnsafeBytes { raw in
      if let base = raw.baseAddress {
        buffer.update(from: base.assumingMemoryBound(to: UInt8.self), count: raw.count)
      }
    }
    count = data.count
  }

  /// Only async-signal-safe calls: write, ftruncate, sigaction.
  private static func crashed(_ signal: Int32) {
    if file >= 0, let buffer {
      _ = ftruncate(file, 0)
      _ = write(file, buffer, count)
    }
    _ = prefix.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    if let digits {
      var value = iteration
      var index = 20
      repeat {
        index -= 1
        digits[index] = 0x30 + UInt8(value % 10)
        value /= 10
      } while value > 0 && index > 0
      _ = write(2, digits + index, 20 - index)
    }
    _ = suffix.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    // Let the signal do what it would have done: the previous handler, or the default.
    if var old = previous[signal] {
      sigaction(signal, &old, nil)
    } else {
      Foundation.signal(signal, SIG_DFL)
    }
  }
}

/// A minimal binary property-list writer for the generated seeds: dictionary keys sorted, no
/// shared objects, so the same value always gives the same bytes (Foundation's writer follows
/// the dictionaries' hash order, which changes from run to run).
package enum SeedEncoder {
  package static func binary(_ root: PropertyListValue) -> Data {
    var objects: [[UInt8]] = []
    let total = count(root)
    let referenceSize = total < 0x100 ? 1 : 2
    _ = encode(root, into: &objects, referenceSize: referenceSize)
    return Hostile.binary(objects: objects, referenceSize: referenceSize, top: 0)
  }

  private static func count(_ value: PropertyListValue) -> Int {
    switch value {
    case .array(let elements): 1 + elements.map(count).reduce(0, +)
    case .dictionary(let entries): 1 + entries.count + entries.values.map(count).reduce(0, +)
    default: 1
    }
  }

  private static func header(_ kind: UInt8, _ count: Int) -> [UInt8] {
    if count < 15 { return [kind << 4 | UInt8(count)] }
    return [kind << 4 | 0x0F] + integer(UInt64(count))
  }

  private static func integer(_ value: UInt64) -> [UInt8] {
    if value < 0x100 { return [0x10, UInt8(value)] }
    if value < 0x1_0000 { return [0x11] + Hostile.bigEndian(value, 2) }
    if value < 0x1_0000_0000 { return [0x12] + Hostile.bigEndian(value, 4) }
    return [0x13] + Hostile.bigEndian(value, 8)
  }

  /// Appends the value's object (and its children's) and returns its index.
  private static func encode(
    _ value: PropertyListValue, into objects: inout [[UInt8]], referenceSize: Int
  ) -> Int {
    let index = objects.count
    objects.append([])
    func reference(_ child: Int) -> [UInt8] { Hostile.bigEndian(UInt64(child), referenceSize) }
    switch value {
    case .string(let string):
      if string.utf8.allSatisfy({ $0 < 0x80 }) {
        objects[index] = header(0x5, string.utf8.count) + Array(string.utf8)
      } else {
        let units = Array(string.utf16)
        objects[index] =
          header(0x6, units.count) + units.flatMap { Hostile.bigEndian(UInt64($0), 2) }
      }
    case .integer(let integer):
      if let signed = integer.int64Value {
        objects[index] =
          signed >= 0
          ? self.integer(UInt64(signed)) : [0x13] + Hostile.bigEndian(UInt64(bitPattern: signed), 8)
      } else {
        objects[index] =
          [0x14] + [UInt8](repeating: 0, count: 8)
          + Hostile.bigEndian(integer.uint64Value ?? 0, 8)
      }
    case .real(let real):
      objects[index] = [0x23] + Hostile.bigEndian(real.bitPattern, 8)
    case .bool(let bool):
      objects[index] = [bool ? 0x09 : 0x08]
    case .date(let date):
      objects[index] = [0x33] + Hostile.bigEndian(date.timeIntervalSinceReferenceDate.bitPattern, 8)
    case .data(let data):
      objects[index] = header(0x4, data.count) + [UInt8](data)
    case .array(let elements):
      let children = elements.map { encode($0, into: &objects, referenceSize: referenceSize) }
      objects[index] = header(0xA, elements.count) + children.flatMap(reference)
    case .dictionary(let entries):
      let sorted = entries.sorted { $0.key < $1.key }
      let keys = sorted.map {
        encode(.string($0.key), into: &objects, referenceSize: referenceSize)
      }
      let values = sorted.map { encode($0.value, into: &objects, referenceSize: referenceSize) }
      objects[index] =
        header(0xD, sorted.count) + keys.flatMap(reference) + values.flatMap(reference)
    }
    return index
  }
}
