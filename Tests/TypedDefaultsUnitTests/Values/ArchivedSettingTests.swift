import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults
@testable import TypedDefaultsTesting

/// Another secure-coding class: what a substituted archive holds (top-level, as Foundation on
/// Linux archives only top-level classes).
final class ArchivedIntruder: NSObject, NSSecureCoding, Sendable {
  static var supportsSecureCoding: Bool { true }
  let name: String

  init(name: String) { self.name = name }

  func encode(with coder: NSCoder) { coder.encode(name as NSString, forKey: "name") }

  init?(coder: NSCoder) {
    guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
    self.name = name as String
  }
}

/// A class that conforms to `NSSecureCoding` but says it doesn't support it.
final class ArchivedInsecure: NSObject, NSSecureCoding, Sendable {
  static var supportsSecureCoding: Bool { false }
  let name: String
  init(name: String) { self.name = name }
  func encode(with coder: NSCoder) { coder.encode(name as NSString, forKey: "name") }
  init?(coder: NSCoder) {
    guard let name = coder.decodeObject(forKey: "name") as? String else { return nil }
    self.name = name
  }
}

/// A class only the name-mapping test uses, since the mapping it sets is process-wide.
final class ArchivedRemapped: NSObject, NSSecureCoding, Sendable {
  static var supportsSecureCoding: Bool { true }
  let name: String
  init(name: String) { self.name = name }
  func encode(with coder: NSCoder) { coder.encode(name as NSString, forKey: "name") }
  init?(coder: NSCoder) {
    guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
    self.name = name as String
  }
}

/// An object holding another archived object, which it declares.
final class ArchivedPlaylist: NSObject, NSSecureCoding, ArchivedObjectClasses, Sendable {
  static var supportsSecureCoding: Bool { true }
  static var classesInArchive: [AnyClass] { [ArchivedSample.self] }
  let title: String
  let first: ArchivedSample

  init(title: String, first: ArchivedSample) {
    self.title = title
    self.first = first
  }

  func encode(with coder: NSCoder) {
    coder.encode(title as NSString, forKey: "title")
    coder.encode(first, forKey: "first")
  }

  init?(coder: NSCoder) {
    guard let title = coder.decodeObject(of: NSString.self, forKey: "title"),
      let first = coder.decodeObject(
        of: [ArchivedPlaylist.self, ArchivedSample.self], forKey: "first")
        as? ArchivedSample
    else { return nil }
    self.title = title as String
    self.first = first
  }
}

private struct AccountSettings: SettingsGroup {
  @Setting var token: Archived<ArchivedSample>?
  @Setting var fallback = Archived(ArchivedSample(name: "default", count: 0))
  @Setting var playlist: Archived<ArchivedPlaylist>?
}

private func archive(_ object: NSObject) throws -> Data {
  try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
}

/// `Archived`: `NSSecureCoding` objects stored as keyed archives, decoded only as the declared
/// classes, with hostile bytes refused before `NSKeyedUnarchiver` sees them.
@Suite struct ArchivedSettingTests {
  @Test(arguments: BackendFactory.all)
  func anArchivedObjectIsStoredAsTheDataNSKeyedArchiverWritesAndReadsBack(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withInstance { instance in
      let settings = AccountSettings(backend: instance.backend)
      settings.token = Archived(ArchivedSample(name: "Ann – 日本", count: 42))
      let stored = try #require(instance.backend.value(forKey: "token")?.dataValue)
      // The bytes are an ordinary secure keyed archive: Foundation reads them directly.
      let direct = try NSKeyedUnarchiver.unarchivedObject(
        ofClass: ArchivedSample.self, from: stored)
      #expect(direct?.name == "Ann – 日本")
      let reloaded = AccountSettings(backend: try instance.reload())
      #expect(reloaded.token?.object.name == "Ann – 日本")
      #expect(reloaded.token?.object.count == 42)
      settings.token = nil
      #expect(instance.backend.value(forKey: "token") == nil)
    }
  }

  @Test func dataAnObjectiveCAppArchivedReads() throws {
    let backend = InMemoryBackend([
      "token": .data(try archive(ArchivedSample(name: "legacy", count: 7)))
    ])
    #expect(AccountSettings(backend: backend).token?.object.name == "legacy")
  }

  @Test(arguments: BackendFactory.all)
  func aSubstitutedArchiveOfAnotherClassIsRefused(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let substituted = try archive(ArchivedIntruder(name: "evil"))
      try backend.setValue(.data(substituted), forKey: "token")
      try backend.setValue(.data(substituted), forKey: "fallback")
      let (read, diagnostics) = collectingDiagnostics { () -> (ArchivedSample?, ArchivedSample) in
        let settings = AccountSettings(backend: backend)
        return (settings.token?.object, settings.fallback.object)
      }
      #expect(read.0 == nil)
      #expect(read.1.name == "default")
      #expect(diagnostics.count == 2)
      for diagnostic in diagnostics {
        #expect(diagnostic.kind == .typeMismatch)
        #expect(diagnostic.message.contains("ArchivedIntruder"))
        #expect(diagnostic.message.contains("does not allow"))
      }
      #expect(backend.value(forKey: "token") == .data(substituted))
    }
  }

  @Test func anObjectWithADeclaredNestedClassRoundTrips() throws {
    let settings = AccountSettings(backend: InMemoryBackend())
    settings.playlist = Archived(
      ArchivedPlaylist(title: "Mix", first: ArchivedSample(name: "one", count: 1)))
    #expect(settings.playlist?.object.title == "Mix")
    #expect(settings.playlist?.object.first.name == "one")
  }

  #if !canImport(Darwin)
    private final class Hidden: NSObject, NSSecureCoding, Sendable {
      static var supportsSecureCoding: Bool { true }
      func encode(with coder: NSCoder) {}
      init?(coder: NSCoder) {}
      override init() {}
    }

    @Test func aClassFoundationOnLinuxCannotNameIsAWriteErrorNotACrash() throws {
      let setting = Setting<Archived<Hidden>?>("hidden", default: nil, backend: InMemoryBackend())
      let error = #expect(throws: SettingsError.self) { try setting.set(Archived(Hidden())) }
      #expect(error?.code == .valueNotRepresentable)
      #expect(error?.reason.contains("top-level class") == true)
      #expect(!setting.hasStoredValue)
    }
  #endif

  // MARK: - Hostile and malformed bytes

  /// A valid archive of `ArchivedSample`, as a property list to take apart.
  private static func sampleArchive() throws -> [String: PropertyListValue] {
    let data = try archive(ArchivedSample(name: "a", count: 3))
    return try #require(PropertyListFile.decode(data).root.dictionaryValue)
  }

  /// A valid archive of `ArchivedSample` with one field of its root object (object 1) replaced.
  private static func sampleWithRootField(
    _ field: String, set value: PropertyListValue
  ) throws
    -> PropertyListValue
  {
    var archive = try sampleArchive()
    var objects = try #require(archive["$objects"]?.arrayValue)
    var object = try #require(objects[1].dictionaryValue)
    object[field] = value
    objects[1] = .dictionary(object)
    archive["$objects"] = .array(objects)
    return .data(try encodeBinary(.dictionary(archive)))
  }

  /// A binary property list of `value`, with `["CF$UID": n]` written as real keyed-archiver
  /// references: through XML, where Foundation reads that form as a reference.
  private static func encodeBinary(_ value: PropertyListValue) throws -> Data {
    let xml = try PropertyListSerialization.data(
      fromPropertyList: FoundationBridge.object(from: value), format: .xml, options: 0)
    let object = try PropertyListSerialization.propertyList(from: xml, format: nil)
    return try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
  }

  static let malformed: [(String, @Sendable () throws -> PropertyListValue, String)] = [
    ("empty data", { .data(Data()) }, "not a keyed archive"),
    ("garbage bytes", { .data(Data([0xDE, 0xAD, 0xBE, 0xEF, 1, 2, 3])) }, "not a keyed archive"),
    ("a string", { "not data" }, "holds a string"),
    (
      "a truncated archive",
      { .data(try archive(ArchivedSample(name: "a", count: 3)).dropLast(20)) }, "not a readable"
    ),
    (
      "a binary plist that is not an archive", { .data(try encodeBinary(["a": 1])) },
      "not a keyed archive"
    ),
    (
      "an XML archive",
      {
        .data(
          try PropertyListSerialization.data(
            fromPropertyList: FoundationBridge.object(from: .dictionary(try sampleArchive())),
            format: .xml, options: 0))
      }, "binary property list"
    ),
    (
      "a reference past the objects",
      {
        try sampleWithRootField("name", set: ["CF$UID": 9_999])
      }, "points past"
    ),
    (
      "a nested reference to the root object",
      {
        // Decoding "name" as NSString would meet an ArchivedSample: corelibs stops the process.
        try sampleWithRootField("name", set: ["CF$UID": 1])
      }, "allows only its root class"
    ),
    (
      "a class description that is not one",
      {
        try sampleWithRootField("$class", set: ["CF$UID": 2])  // the string "a"
      }, "no valid class description"
    ),
    (
      "no root",
      {
        var archive = try sampleArchive()
        archive["$top"] = [:]
        return .data(try encodeBinary(.dictionary(archive)))
      }, "not a keyed archive"
    ),
    (
      "a root of the wrong type field",
      {
        try sampleWithRootField("name", set: 12)
      }, "could not decode"
    ),
  ]

  #if !canImport(Darwin)
    /// corelibs caches a decoded object only once its `init(coder:)` returns, so objects that
    /// refer to each other in a cycle recurse until the stack overflows: refused before decoding.
    @Test func objectsReferringToEachOtherInACycleAreRefusedNotACrash() throws {
      let data = try archive(
        ArchivedPlaylist(title: "mix", first: ArchivedSample(name: "a", count: 3)))
      var archive = try #require(PropertyListFile.decode(data).root.dictionaryValue)
      var objects = try #require(archive["$objects"]?.arrayValue)
      let root = try #require(
        archive["$top"]?.dictionaryValue?["root"]?.dictionaryValue?["CF$UID"]?.intValue)
      // The nested sample: the object that isn't the root and holds "count".
      let nested = try #require(
        objects.indices.first { $0 != root && objects[$0].dictionaryValue?["count"] != nil })
      var sample = try #require(objects[nested].dictionaryValue)
      sample["back"] = ["CF$UID": .integer(.init(Int64(root)))]
      objects[nested] = .dictionary(sample)
      archive["$objects"] = .array(objects)
      let stored = PropertyListValue.data(try Self.encodeBinary(.dictionary(archive)))
      let backend = InMemoryBackend(["playlist": stored])
      let (read, diagnostics) = collectingDiagnostics {
        AccountSettings(backend: backend).playlist
      }
      #expect(read == nil)
      #expect(diagnostics.first?.message.contains("refer to each other in a cycle") == true)
      #expect(backend.value(forKey: "playlist") == stored)
    }
  #endif

  /// An archive of an object declaring extra classes, with an allowed object put where its
  /// `init(coder:)` decodes a string: corelibs' secure unarchiver stopped the process there
  /// ("Value was of unexpected class"), so on Linux our own check stands in for secure coding.
  @Test func anAllowedObjectWhereAStringIsDecodedIsTheDefaultNotACrash() throws {
    let data = try archive(
      ArchivedPlaylist(title: "mix", first: ArchivedSample(name: "a", count: 3)))
    var archive = try #require(PropertyListFile.decode(data).root.dictionaryValue)
    var objects = try #require(archive["$objects"]?.arrayValue)
    let root = try #require(
      archive["$top"]?.dictionaryValue?["root"]?.dictionaryValue?["CF$UID"]?.intValue)
    var playlist = try #require(objects[root].dictionaryValue)
    let first: PropertyListValue = try #require(playlist["first"])
    playlist["title"] = first
    objects[root] = .dictionary(playlist)
    archive["$objects"] = .array(objects)
    let stored = PropertyListValue.data(try Self.encodeBinary(.dictionary(archive)))
    let backend = InMemoryBackend(["playlist": stored])
    let (read, diagnostics) = collectingDiagnostics {
      AccountSettings(backend: backend).playlist
    }
    #expect(read == nil)
    #expect(diagnostics.count == 1)
    #expect(diagnostics.first?.kind == .typeMismatch)
    #expect(backend.value(forKey: "playlist") == stored)
    // The untouched archive still reads, so the refusal is the substitution's doing.
    let original = try #require(Archived<ArchivedPlaylist>(propertyListValue: .data(data)))
    #expect(original.object.title == "mix" && original.object.first.name == "a")
  }

  @Test(arguments: 0..<malformed.count)
  func aMalformedArchiveIsTheDefaultWithADiagnosticNeverACrash(_ index: Int) throws {
    let (name, make, reason) = Self.malformed[index]
    let stored = try make()
    let backend = InMemoryBackend(["token": stored])
    let (read, diagnostics) = collectingDiagnostics { AccountSettings(backend: backend).token }
    #expect(read == nil, "\(name)")
    let diagnostic = try #require(diagnostics.first, "\(name)")
    #expect(diagnostic.message.contains(reason), "\(name): \(diagnostic.message.prefix(300))")
    #expect(backend.value(forKey: "token") == stored)
  }

  /// An archive of `ArchivedSample(name: "sample", count: 12)` as `NSKeyedArchiver` wrote it in
  /// one test process: the root's keys in the order `name`, `$class`, `count`.
  ///
  /// The order depends on the process's hash seed, and with it, which single-byte corruptions
  /// exist.
  static let archiveWithNameBeforeClass = Data(
    base64Encoded:
      "YnBsaXN0MDDUAQIDBAUWFxhYJG9iamVjdHNYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3CkBgcOD1UkbnVsbNMICQoLDA1Ub"
      + "mFtZVYkY2xhc3NVY291bnSAAoADEAxWc2FtcGxl0hAREhNaJGNsYXNzbmFtZVgkY2xhc3Nlc18QI1R5cGVkRGVmYXVsd"
      + "HNUZXN0aW5nLkFyY2hpdmVkU2FtcGxlohQVXxAjVHlwZWREZWZhdWx0c1Rlc3RpbmcuQXJjaGl2ZWRTYW1wbGVYTlNPY"
      + "mplY3QSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEZGlRyb290gAEIERojLTI3PURJUFZYWlxjaHN8oqXL1Nnr7vMAAAAAA"
      + "AABAQAAAAAAAAAbAAAAAAAAAAAAAAAAAAAA9Q==")!

  /// That archive with one bit flipped (byte 62, the root's first key reference, 8 to 9): the
  /// root now holds `$class` twice, first referring to the string "sample", then to the class
  /// description.
  ///
  /// CoreFoundation keeps the first, so corelibs' unarchiver met a class reference to a string and
  /// trapped (SIGILL, a force-unwrapped `nil` in `_decodeObject(_:)`), twice in full `swift test`
  /// runs and in about one run in five of the corruption test alone.
  static var archiveHoldingClassTwice: Data {
    var bytes = archiveWithNameBeforeClass
    bytes[62] ^= 0x01
    return bytes
  }

  @Test func anObjectHoldingItsClassKeyTwiceIsRefusedNotACrash() throws {
    let stored = PropertyListValue.data(Self.archiveHoldingClassTwice)
    let backend = InMemoryBackend(["token": stored])
    let (read, diagnostics) = collectingDiagnostics { AccountSettings(backend: backend).token }
    #expect(read == nil)
    let diagnostic = try #require(diagnostics.first)
    #expect(diagnostic.message.contains("reads the archive differently"))
    #expect(backend.value(forKey: "token") == stored)
    // The fixture is the archive the library writes for that object, less the one bit.
    let original = try #require(
      Archived<ArchivedSample>(propertyListValue: .data(Self.archiveWithNameBeforeClass)))
    #expect(original.object.name == "sample" && original.object.count == 12)
  }

  @Test(arguments: [false, true])
  func everySingleByteCorruptionOfAnArchiveReadsAsTheObjectOrTheDefault(
    _ fixedKeyOrder: Bool
  ) throws {
    // This process's archive, whose key order varies from run to run, and the recorded one
    // whose corruptions once trapped, so that every run covers them.
    let original =
      fixedKeyOrder
      ? Self.archiveWithNameBeforeClass : try archive(ArchivedSample(name: "sample", count: 12))
    let reads = Self.everySingleByteCorruption(of: original, readAs: ArchivedSample.self)
    for value in reads.compactMap({ $0 }) {
      // A corruption that still decodes gives an ArchivedSample, never another class.
      #expect(type(of: value.object) == ArchivedSample.self)
    }
    let decodedAsOriginal = reads.count {
      $0?.object.name == "sample" && $0?.object.count == 12
    }
    let refused = reads.count { $0 == nil }
    #expect(refused > 0)
    #expect(decodedAsOriginal + refused <= original.count * 3)
  }

  /// `original` with each byte in turn XORed with 0x01, 0x80 and 0xFF, each read as an
  /// `Archived<Object>` (`nil` where refused), diagnostics silenced.
  private static func everySingleByteCorruption<Object>(
    of original: Data, readAs _: Object.Type
  ) -> [Archived<Object>?] {
    SettingsDiagnostics.withHandler({ _ in }) {
      original.indices.flatMap { position in
        [UInt8(0x01), 0x80, 0xFF].map { mask in
          var bytes = original
          bytes[position] ^= mask
          return Archived<Object>(propertyListValue: .data(bytes))
        }
      }
    }
  }

  @Test func anArchiveOfAClassThatDoesNotSupportSecureCodingIsTheDefaultNotACrash() throws {
    let stored = PropertyListValue.data(
      try NSKeyedArchiver.archivedData(
        withRootObject: ArchivedInsecure(name: "old"), requiringSecureCoding: false))
    let backend = InMemoryBackend(["legacy": stored])
    let setting = Setting<Archived<ArchivedInsecure>?>("legacy", default: nil, backend: backend)
    let (read, diagnostics) = collectingDiagnostics { setting.wrappedValue }
    #expect(read == nil)
    #expect(diagnostics.first?.message.contains("does not support secure coding") == true)
    #expect(backend.value(forKey: "legacy") == stored)
  }

  #if !canImport(Darwin)
    /// Secure coding is off on Linux, so a process-wide class-name mapping pointing an allowed
    /// name at another class must not make the unarchiver construct that class.
    @Test func anAllowedClassNameMappedToAnotherClassIsRefused() throws {
      let stored = PropertyListValue.data(try archive(ArchivedRemapped(name: "r")))
      let setting = Setting<Archived<ArchivedRemapped>?>(
        "remapped", default: nil, backend: InMemoryBackend(["remapped": stored]))
      #expect(setting.wrappedValue?.object.name == "r")
      let name = NSStringFromClass(ArchivedRemapped.self)
      NSKeyedUnarchiver.setClass(ArchivedIntruder.self, forClassName: name)
      defer { NSKeyedUnarchiver.setClass(nil, forClassName: name) }
      let (read, diagnostics) = collectingDiagnostics { setting.wrappedValue }
      #expect(read == nil)
      #expect(diagnostics.first?.message.contains("mapped to another class") == true)
    }
  #endif

  @Test func everySingleByteCorruptionOfAnArchiveWithNestedObjectsReadsAsAPlaylistOrTheDefault()
    throws
  {
    // Two allowed classes, so a corruption can move either object anywhere in the other.
    let original = try archive(
      ArchivedPlaylist(title: "mix", first: ArchivedSample(name: "a", count: 3)))
    let reads = Self.everySingleByteCorruption(of: original, readAs: ArchivedPlaylist.self)
    for value in reads.compactMap({ $0 }) {
      #expect(type(of: value.object) == ArchivedPlaylist.self)
      #expect(type(of: value.object.first) == ArchivedSample.self)
    }
    #expect(reads.count { $0 == nil } > 0)
    #expect(reads.count == original.count * 3)
  }

  @Test func eightThreadsDecodingArchivesAtOnceReadEachTheirOwnValue() throws {
    // Each unarchiver has its own state, and corelibs' process-wide class-name table is behind a
    // lock: concurrent reads, good and refused, give exactly what one thread would.
    let good = try (0..<8).map { try archive(ArchivedSample(name: "thread \($0)", count: $0)) }
    let corrupt = Self.archiveHoldingClassTwice
    let mismatches = Locked(0)
    SettingsDiagnostics.withHandler({ _ in }) {
      DispatchQueue.concurrentPerform(iterations: 8) { thread in
        for round in 0..<200 {
          let value = Archived<ArchivedSample>(
            propertyListValue: .data(round.isMultiple(of: 4) ? corrupt : good[thread]))
          let expected = round.isMultiple(of: 4) ? nil : "thread \(thread)"
          if value?.object.name != expected || (value != nil && value?.object.count != thread) {
            mismatches.withLock { $0 += 1 }
          }
        }
      }
    }
    #expect(mismatches.withLock { $0 } == 0)
  }
}
