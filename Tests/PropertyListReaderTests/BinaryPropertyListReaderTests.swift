import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// ``BinaryPropertyListReader``: exact values for every kind, exact reasons for every refusal,
/// and agreement with Foundation on the real binary files in the shared fixtures.
@Suite struct BinaryPropertyListReaderTests {
  // MARK: - Building files

  /// A binary property list from its objects' bytes, in order: object `i` is `objects[i]`.
  ///
  /// Offsets are 2 bytes; references are `referenceSize` bytes.
  private static func bplist(
    _ objects: [[UInt8]], top: Int = 0, referenceSize: Int = 1, count: Int? = nil,
    tableStart: Int? = nil, offsetSize: UInt8 = 2, version: String = "00"
  ) -> Data {
    var bytes = Array("bplist\(version)".utf8)
    var offsets: [Int] = []
    for object in objects {
      offsets.append(bytes.count)
      bytes += object
    }
    let table = bytes.count
    for offset in offsets {
      bytes += (0..<Int(offsetSize)).reversed().map { UInt8((offset >> ($0 * 8)) & 0xFF) }
    }
    bytes += [0, 0, 0, 0, 0, 0, offsetSize, UInt8(referenceSize)]
    bytes += be64(count ?? objects.count) + be64(top) + be64(tableStart ?? table)
    return Data(bytes)
  }

  private static func be64(_ value: Int) -> [UInt8] {
    (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
  }

  /// A 1-byte ASCII-string object.
  private static func ascii(_ text: String) -> [UInt8] {
    [0x50 | UInt8(text.utf8.count)] + Array(text.utf8)
  }

  private static func read(
    _ data: Data, salvaging: Bool = false
  ) throws(SettingsError)
    -> PropertyListReaders.Result
  {
    try BinaryPropertyListReader.read(data, path: "test.plist", salvagingEntries: salvaging)
  }

  /// The reason reading `data` fails with, checking it is a corruptFile error naming the path.
  private static func reason(_ data: Data) -> String? {
    do {
      let result = try read(data)
      Issue.record("Read \(result.root) instead of failing")
      return nil
    } catch {
      #expect(error.code == .corruptFile)
      #expect(error.path == "test.plist")
      #expect(error.key == nil)
      return error.reason
    }
  }

  private static func foundationBinary(_ object: Any) throws -> Data {
    try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
  }

  // MARK: - Values

  @Test func everyKindRoundTripsExactlyAtItsEdges() throws {
    let date = Date(timeIntervalSinceReferenceDate: 123_456_789.125)
    let object: [Any] = [
      NSNumber(value: Int64.min), NSNumber(value: Int64.max), NSNumber(value: UInt64.max), 0,
      -1, 255, 65_536, -0.0, Double.infinity, -Double.infinity, Double.leastNonzeroMagnitude, true,
      false, date,
      Date(timeIntervalSinceReferenceDate: -1e9), "", "plain", "é日本語", "🎉 astral 𝄞",
      Data(), Data([0, 1, 0xFF]), [Any](), [String: Any](),
      ["nested": [1, ["deep": "yes"]] as [Any]] as [String: Any],
    ]
    let result = try Self.read(Self.foundationBinary(object))
    let expected: PropertyListValue = [
      .integer(.init(Int64.min)), .integer(.init(Int64.max)), .integer(.init(UInt64.max)), 0, -1,
      255, 65_536, .real(-0.0), .real(.infinity), .real(-.infinity), .real(.leastNonzeroMagnitude),
      true, false,
      .date(date), .date(Date(timeIntervalSinceReferenceDate: -1e9)), "", "plain", "é日本語",
      "🎉 astral 𝄞", .data(Data()), .data(Data([0, 1, 0xFF])), [], .dictionary([:]),
      ["nested": [1, ["deep": "yes"]]],
    ]
    #expect(result.root == expected)
    #expect(result.unreadableEntries.isEmpty)
    guard case .array(let elements) = result.root, case .real(let negativeZero) = elements[7]
    else {
      Issue.record("Not an array of the expected shape")
      return
    }
    #expect(negativeZero.bitPattern == (-0.0 as Double).bitPattern)
  }

  @Test func nanKeepsItsBitPattern() throws {
    let quiet = Double.nan
    let payload = Double(bitPattern: 0x7FF8_0000_0000_1234)
    let result = try Self.read(
      Self.bplist([
        [0xA2, 1, 2], [0x23] + Self.be64(Int(bitPattern: UInt(quiet.bitPattern))),
        [0x23] + Self.be64(Int(bitPattern: UInt(payload.bitPattern))),
      ]))
    guard case .array(let elements) = result.root, elements.count == 2,
      case .real(let first) = elements[0], case .real(let second) = elements[1]
    else {
      Issue.record("Read \(result.root)")
      return
    }
    #expect(first.bitPattern == quiet.bitPattern)
    #expect(second.bitPattern == payload.bitPattern)
  }

  @Test func integersOfEverySizeAreReadExactly() throws {
    let objects: [[UInt8]] = [
      [0xA8, 1, 2, 3, 4, 5, 6, 7, 8],
      [0x10, 0xFF],
      [0x11, 0xFF, 0xFF],
      [0x12, 0xFF, 0xFF, 0xFF, 0xFF],
      [0x13] + Self.be64(-1),
      [0x14] + Self.be64(0) + Self.be64(-1),  // 16 bytes: UInt64.max
      [0x14] + Self.be64(-1) + Self.be64(Int(Int64.min)),  // 16 bytes: Int64.min
      [0x14] + Self.be64(-1) + Self.be64(-2),  // 16 bytes: -2
      [0x14] + Self.be64(0) + Self.be64(5),
    ]
    #expect(
      try Self.read(Self.bplist(objects)).root == [
        255, 65_535, 4_294_967_295, -1, .integer(.init(UInt64.max)), .integer(.init(Int64.min)),
        -2, 5,
      ])
  }

  @Test func fourByteRealsAreWidenedExactly() throws {
    let float: Float = 1.1
    let bits = float.bitPattern
    let result = try Self.read(
      Self.bplist([
        [0xA2, 1, 2],
        [
          0x22, UInt8(bits >> 24), UInt8((bits >> 16) & 0xFF), UInt8((bits >> 8) & 0xFF),
          UInt8(bits & 0xFF),
        ],
        [0x22, 0x7F, 0x80, 0, 0],
      ]))
    #expect(result.root == [.real(Double(float)), .real(.infinity)])
  }

  @Test func uidsReadAsCFUIDDictionaries() throws {
    let result = try Self.read(
      Self.bplist([[0xA3, 1, 2, 3], [0x80, 5], [0x81, 1, 0], [0x83, 0xFF, 0xFF, 0xFF, 0xFF]]))
    #expect(
      result.root == [
        ["CF$UID": 5], ["CF$UID": 256], ["CF$UID": .integer(.init(UInt64(UInt32.max)))],
      ])
    #expect(
      Self.reason(Self.bplist([[0x84, 1, 0, 0, 0, 0]]))
        == "At byte 8: a UID of 4294967296, above the largest, 4294967295")
  }

  @Test func asciiStringBytesAbove0x7FAreLatin1AsCoreFoundationReadsThem() throws {
    let result = try Self.read(Self.bplist([[0x55, 0x41, 0xC2, 0xA9, 0x80, 0xFF]]))
    #expect(result.root == "AÂ©\u{80}ÿ")
    // Foundation agrees on every byte 0x80 ... 0xFF.
    let high = (0x80...0xFF).map { UInt8($0) }
    let file = Self.bplist([[0x5F, 0x10, 0x80] + high])
    let expected = String(String.UnicodeScalarView(high.map { Unicode.Scalar($0) }))
    #expect(try Self.read(file).root == .string(expected))
    let foundation = try PropertyListSerialization.propertyList(from: file, format: nil)
    #expect(foundation as? String == expected)
  }

  @Test func utf16StringsAreDecodedAndUnpairedSurrogatesRefused() throws {
    let text = "Aé🎉"
    let units = Array(text.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    #expect(try Self.read(Self.bplist([[0x64] + units])).root == .string(text))
    #expect(
      Self.reason(Self.bplist([[0x62, 0, 0x41, 0xD8, 0x3D]]))
        == "At byte 11: an unpaired high surrogate 0xD83D in a UTF-16 string")
    #expect(
      Self.reason(Self.bplist([[0x61, 0xDC, 0x00]]))
        == "At byte 9: an unpaired low surrogate 0xDC00 in a UTF-16 string")
  }

  @Test func aDuplicateKeyKeepsTheLastValue() throws {
    let file = Self.bplist([[0xD2, 1, 1, 2, 3], Self.ascii("k"), [0x10, 1], [0x10, 2]])
    #expect(try Self.read(file).root == ["k": 2])
  }

  @Test func sharedObjectsAreReadOnceAndCountedEachTime() throws {
    // [[0, 0], [0, 0]]: one array referred to twice, one integer referred to twice.
    let file = Self.bplist([[0xA2, 1, 1], [0xA2, 2, 2], [0x10, 0]])
    #expect(try Self.read(file).root == [[0, 0], [0, 0]])
    // 40 levels of arrays each holding the next twice: 2^40 values in a few hundred bytes.
    var objects: [[UInt8]] = (0..<40).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
    objects.append([0x10, 0])
    #expect(
      Self.reason(Self.bplist(objects))
        == "It expands to more than 1000000 values: objects referred to many times over")
  }

  // MARK: - Nesting and cycles

  /// An array of one element, object `index + 1`, with a 2-byte reference.
  private static func arrayReferring(to index: Int) -> [UInt8] {
    let next = UInt16(index + 1)
    return [0xA1, UInt8(next >> 8), UInt8(next & 0xFF)]
  }

  /// Arrays nested `levels` deep around the integer 0, with 2-byte references.
  private static func nested(_ levels: Int) -> Data {
    var objects: [[UInt8]] = (0..<levels).map(arrayReferring(to:))
    objects.append([0x10, 0])
    return bplist(objects, referenceSize: 2)
  }

  @Test func nestingIsReadToTheLimitAndRefusedOneLevelDeeper() throws {
    var expected: PropertyListValue = 0
    for _ in 0..<PropertyListReaders.maximumDepth { expected = [expected] }
    #expect(try Self.read(Self.nested(PropertyListReaders.maximumDepth)).root == expected)
    // The 513th array, object 512, starts at 8 + 512 × 3.
    #expect(
      Self.reason(Self.nested(PropertyListReaders.maximumDepth + 1))
        == "At byte 1544: the values nest deeper than 512 levels")
  }

  @Test func aSharedContainerCountsItsDepthWhereverItIsUsed() throws {
    // Object 2 starts a chain of 511 arrays. The root holds it at depth 1 (fine) and inside
    // object 1 at depth 2 (one level too deep).
    func file(sharedTwice: Bool) -> Data {
      var objects: [[UInt8]] = [
        sharedTwice ? [0xA2, 0, 2, 0, 1] : [0xA2, 0, 2, 0, 2], [0xA1, 0, 2],
      ]
      objects += (2..<513).map(Self.arrayReferring(to:))
      objects.append([0x10, 0])
      return Self.bplist(objects, referenceSize: 2)
    }
    #expect(throws: Never.self) { try Self.read(file(sharedTwice: false)) }
    #expect(
      Self.reason(file(sharedTwice: true)) == "At byte 16: the values nest deeper than 512 levels")
  }

  @Test func anArrayHoldingItselfIsRefused() {
    #expect(Self.reason(Self.bplist([[0xA1, 0]])) == "At byte 9: object 0 refers to itself")
    // Through a second level.
    #expect(
      Self.reason(Self.bplist([[0xA1, 1], [0xA1, 0]])) == "At byte 11: object 0 refers to itself")
  }

  @Test func aDictionaryValueReferringToItsDictionaryIsRefused() {
    #expect(
      Self.reason(Self.bplist([[0xD1, 1, 0], Self.ascii("k")]))
        == "At byte 10: object 0 refers to itself")
  }

  // MARK: - Refusals

  @Test func aSetIsRefusedWhereFoundationWouldCrash() {
    // A root array holding a set of one integer: PropertyListSerialization on Linux crashes.
    #expect(
      Self.reason(Self.bplist([[0xA1, 1], [0xC1, 2], [0x10, 1]]))
        == "At byte 10: a set (marker 0xC1), which no property-list type holds")
  }

  @Test func objectsNoPropertyListHoldsAreRefused() {
    #expect(
      Self.reason(Self.bplist([[0x00]]))
        == "At byte 8: a null (marker 0x00), which property lists can't hold")
    #expect(
      Self.reason(Self.bplist([[0x0F]]))
        == "At byte 8: a fill byte (marker 0x0F) where a value should be")
    #expect(Self.reason(Self.bplist([[0x70]])) == "At byte 8: an unknown object marker 0x70")
    #expect(Self.reason(Self.bplist([[0x05]])) == "At byte 8: an unknown object marker 0x05")
    #expect(Self.reason(Self.bplist([[0x34, 0]])) == "At byte 8: an unknown object marker 0x34")
    #expect(
      Self.reason(Self.bplist([[0x15] + [UInt8](repeating: 0, count: 32)]))
        == "At byte 8: an integer of 32 bytes (marker 0x15); integers are 1, 2, 4, 8 or 16 bytes")
    #expect(
      Self.reason(Self.bplist([[0x14] + Self.be64(1) + Self.be64(0)]))
        == "At byte 8: a 16-byte integer outside Int64.min ... UInt64.max, the range plists hold")
    #expect(
      Self.reason(Self.bplist([[0x14] + Self.be64(-1) + Self.be64(1)]))
        == "At byte 8: a 16-byte integer outside Int64.min ... UInt64.max, the range plists hold")
    #expect(
      Self.reason(Self.bplist([[0x21, 0, 0]]))
        == "At byte 8: a real of 2 bytes (marker 0x21); reals are 4 or 8 bytes")
    let nan = Int(bitPattern: UInt(Double.nan.bitPattern))
    #expect(
      Self.reason(Self.bplist([[0x33] + Self.be64(nan)]))
        == "At byte 8: a date of 'nan' seconds, which is not a finite time")
    let infinity = Int(bitPattern: UInt(Double.infinity.bitPattern))
    #expect(
      Self.reason(Self.bplist([[0x33] + Self.be64(infinity)]))
        == "At byte 8: a date of 'inf' seconds, which is not a finite time")
    #expect(
      Self.reason(Self.bplist([[0xD1, 1, 2], [0x10, 1], Self.ascii("v")]))
        == "At byte 9: a dictionary key refers to object 1, an integer, not a string")
  }

  @Test func lengthsAreCheckedAgainstTheBytesThere() {
    #expect(
      Self.reason(Self.bplist([[0x55, 0x41]]))
        == "At byte 8: an ASCII string of 5 bytes runs past the end of the objects at byte 10")
    #expect(
      Self.reason(Self.bplist([[0x4F, 0x13] + Self.be64(Int.max)]))
        == "At byte 8: data of \(Int.max) bytes runs past the end of the objects at byte 18")
    #expect(
      Self.reason(Self.bplist([[0x4F, 0x13] + Self.be64(-1)]))
        == "At byte 9: the length of data, -1, is negative")
    #expect(
      Self.reason(Self.bplist([[0xAF, 0x14] + [UInt8](repeating: 0, count: 16)]))
        == "At byte 9: the length of an array is an integer (marker 0x14), not a 1, 2, 4 or "
        + "8-byte integer")
    #expect(
      Self.reason(Self.bplist([[0x5F, 0x22, 0, 0, 0, 0]]))
        == "At byte 9: the length of an ASCII string is a real (marker 0x22), not a 1, 2, 4 or "
        + "8-byte integer")
    #expect(
      Self.reason(Self.bplist([[0xD3, 0, 0]]))
        == "At byte 8: a dictionary of 3 items runs past the end of the objects at byte 11")
    #expect(
      Self.reason(Self.bplist([[0x13, 0, 0]]))
        == "At byte 8: an 8-byte integer runs past the end of the objects at byte 11")
    #expect(
      Self.reason(Self.bplist([[0xA1, 7]]))
        == "At byte 9: an object reference 7 is past the last object (1 objects)")
  }

  @Test func theHeaderAndTrailerAreChecked() {
    let good: [[UInt8]] = [[0x09]]
    #expect(
      Self.reason(Data("bplist00".utf8))
        == "The file is 8 bytes long, too short for a binary property list: it needs at least 40 "
        + "(an 8-byte header and a 32-byte trailer)")
    #expect(
      Self.reason(Self.bplist(good, version: "15"))
        == "At byte 6: the version '15' is not '00', the only one there is")
    var notBplist = Self.bplist(good)
    notBplist[0] = 0x42
    #expect(Self.reason(notBplist) == "At byte 0: the header 'Bplist00' is not 'bplist00'")
    // The file is 8 + 1 + 2 + 32 = 43 bytes; the trailer starts at byte 11.
    var noOffsetSize = Self.bplist(good)
    noOffsetSize[17] = 0
    #expect(
      Self.reason(noOffsetSize)
        == "At byte 17: the offset size is 0, not 1 to 8 bytes")
    #expect(
      Self.reason(Self.bplist(good, referenceSize: 9))
        == "At byte 18: the object reference size is 9, not 1 to 8 bytes")
    #expect(
      Self.reason(Self.bplist(good, count: 0))
        == "At byte 19: the object count is 0; a property list has a root object")
    #expect(
      Self.reason(Self.bplist(good, count: 2))
        == "At byte 19: an offset table of 2 entries of 2 bytes from byte 9 runs past the "
        + "trailer at byte 11")
    #expect(
      Self.reason(Self.bplist(good, top: 1))
        == "At byte 27: the top object 1 is past the last object (1 objects)")
    #expect(
      Self.reason(Self.bplist(good, tableStart: 4))
        == "At byte 35: the offset table starts at byte 4, inside the header")
    #expect(
      Self.reason(Self.bplist(good, tableStart: 12))
        == "At byte 35: the offset table starts at byte 12, past the trailer at byte 11")
    #expect(
      Self.reason(Self.bplist(good, count: Int(bitPattern: UInt(UInt64.max))))
        == "At byte 19: an offset table of 18446744073709551615 entries of 2 bytes from byte 9 "
        + "runs past the trailer at byte 11")
    // An offset pointing into the header.
    var intoHeader = Self.bplist(good)
    intoHeader[10] = 3
    #expect(
      Self.reason(intoHeader)
        == "At byte 9: object 0 is at byte 3, outside the objects (bytes 8 to 8)")
  }

  @Test func referencesAndOffsetsMustBeWideEnough() {
    // 257 objects can't be addressed with 1-byte references.
    let objects = [[UInt8]](repeating: [0x09], count: 257)
    let file = Self.bplist(objects, referenceSize: 1)
    // 8 + 257 objects + 257 × 2 offset bytes = 779: the trailer.
    #expect(
      Self.reason(file) == "At byte 786: 1-byte object references can't address 257 objects")
    // 300 bytes of objects can't be addressed with 1-byte offsets.
    let long = Self.bplist(
      [[0x5F, 0x11, 0x01, 0x2C] + [UInt8](repeating: 0x41, count: 300)], offsetSize: 1)
    #expect(
      Self.reason(long) == "At byte 319: 1-byte offsets can't address the offset table at byte 312")
  }

  // MARK: - Salvaging

  @Test func salvagingLeavesOutOnlyTheUnreadableEntries() throws {
    let nan = Int(bitPattern: UInt(Double.nan.bitPattern))
    // {good: 1, bad: NaN date, loop: [itself], also: "x"}
    let file = Self.bplist([
      [0xD4, 1, 2, 3, 4, 5, 6, 7, 8],
      Self.ascii("good"), Self.ascii("bad"), Self.ascii("loop"), Self.ascii("also"),
      [0x10, 1], [0x33] + Self.be64(nan), [0xA1, 7], Self.ascii("x"),
    ])
    let result = try Self.read(file, salvaging: true)
    #expect(result.root == ["good": 1, "also": "x"])
    #expect(
      result.unreadableEntries == [
        SettingsError(
          .corruptFile, path: "test.plist", key: "bad",
          reason: "At byte 38: a date of 'nan' seconds, which is not a finite time"),
        SettingsError(
          .corruptFile, path: "test.plist", key: "loop",
          reason: "At byte 48: object 7 refers to itself"),
      ])
    // Without salvaging, the first bad entry fails the read.
    #expect(Self.reason(file) == "At byte 38: a date of 'nan' seconds, which is not a finite time")
  }

  @Test func salvagingStopsAtTheFirstUnreadableEntryPastTheLimit() throws {
    let limit = PropertyListReaders.maximumUnreadableEntries
    // {k0: null, k1: null, …}: `count` entries, each value a null no property list holds;
    // references of 2 bytes (object 0 the dictionary, then the keys, then the null).
    func file(count: Int) -> Data {
      func reference(_ index: Int) -> [UInt8] { [UInt8(index >> 8), UInt8(index & 0xFF)] }
      let dictionary =
        [0xDF, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
        + (1...count).flatMap(reference)
        + Array(repeating: reference(count + 1), count: count)
        .joined()
      return Self.bplist(
        [dictionary] + (0..<count).map { Self.ascii("k\($0)") } + [[0x00]], referenceSize: 2)
    }
    let salvaged = try Self.read(file(count: limit), salvaging: true)
    #expect(salvaged.root == [:])
    #expect(salvaged.unreadableEntries.count == limit)
    // The dictionary starts at byte 8 and its values at 12 + 2 × count: the 1,001st is the last
    // one read.
    let count = limit + 1
    #expect(
      throws: SettingsError(
        .corruptFile, path: "test.plist",
        reason: "At byte \(12 + 2 * count + 2 * limit): "
          + PropertyListReaders.tooManyUnreadableEntries)
    ) { try Self.read(file(count: count), salvaging: true) }
  }

  @Test func salvagingStillFailsOnABadKeyOrAnArrayRoot() throws {
    let badKey = Self.bplist([[0xD2, 1, 2, 3, 3], Self.ascii("ok"), [0x10, 1], [0x09]])
    #expect(throws: SettingsError.self) { try Self.read(badKey, salvaging: true) }
    let arrayRoot = Self.bplist([[0xA2, 1, 2], [0x09], [0x00]])
    #expect(throws: SettingsError.self) { try Self.read(arrayRoot, salvaging: true) }
    // A later readable value for a key replaces an earlier unreadable one.
    let replaced = Self.bplist([[0xD2, 1, 1, 2, 3], Self.ascii("k"), [0x00], [0x10, 4]])
    let result = try Self.read(replaced, salvaging: true)
    #expect(result.root == ["k": 4])
    #expect(result.unreadableEntries.isEmpty)
  }

  // MARK: - Real files

  private static func fixtures(_ folder: String) -> [URL] {
    let directory = TestPaths.sharedFixtures.appendingPathComponent(folder)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.sorted().map { directory.appendingPathComponent($0) }.filter { url in
      (try? Data(contentsOf: url))?.starts(with: Array("bplist".utf8)) == true
    }
  }

  @Test(
    .enabled(
      if: TestPaths.hasSharedFixtures,
      "The shared plist fixtures (../shared/fixtures/plists) are absent: skipping real files"))
  func everyValidBinaryFixtureReadsAsFoundationReadsIt() throws {
    let files = Self.fixtures("valid").filter { url in
      (try? Data(contentsOf: url))?.starts(with: Array("bplist00".utf8)) == true
    }
    #expect(files.count >= 10)
    for url in files {
      let data = try Data(contentsOf: url)
      let foundation = try FoundationBridge.value(
        from: PropertyListSerialization.propertyList(from: data, format: nil))
      let ours = try BinaryPropertyListReader.read(data, path: url.path)
      #expect(ours.root == foundation, "\(url.lastPathComponent)")
    }
  }

  @Test(
    .enabled(
      if: TestPaths.hasSharedFixtures,
      "The shared plist fixtures (../shared/fixtures/plists) are absent: skipping real files"))
  func everyInvalidBinaryFixtureEndsInAValueOrACorruptFileError() {
    let files = Self.fixtures("invalid")
    #expect(files.count >= 50)
    for url in files {
      guard let data = try? Data(contentsOf: url) else { continue }
      do {
        _ = try BinaryPropertyListReader.read(data, path: url.path)
      } catch {
        #expect(error.code == .corruptFile, "\(url.lastPathComponent)")
        #expect(error.reason.first?.isUppercase == true, "\(url.lastPathComponent)")
        #expect(error.reason.last != ".", "\(url.lastPathComponent)")
      }
    }
  }
}
