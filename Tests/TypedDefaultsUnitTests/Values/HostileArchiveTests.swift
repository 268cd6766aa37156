import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults
@testable import TypedDefaultsTesting

/// `BreakItLink.init(coder:)` calls: how many ran, how deeply they nested now and at most.
let breakItLinkDecodes = Locked<(total: Int, current: Int, deepest: Int)>((0, 0, 0))
/// How many times `BreakItOutsider.init(coder:)` ran.
let breakItOutsiderDecodes = Locked(0)

/// A linked object: it decodes the next link and a leaf with `decodeObject(of:forKey:)`, as a
/// model holding other models does, and counts its decodes.
final class BreakItLink: NSObject, NSSecureCoding, ArchivedObjectClasses, Sendable {
  static var supportsSecureCoding: Bool { true }
  static var classesInArchive: [AnyClass] { [ArchivedSample.self, NSDate.self] }
  let next: BreakItLink?
  let leaf: ArchivedSample?
  let date: Date?

  init(next: BreakItLink?, leaf: ArchivedSample? = nil, date: Date? = nil) {
    self.next = next
    self.leaf = leaf
    self.date = date
  }

  func encode(with coder: NSCoder) {
    coder.encode(next, forKey: "next")
    coder.encode(leaf, forKey: "leaf")
    coder.encode(date.map { $0 as NSDate }, forKey: "date")
  }

  init?(coder: NSCoder) {
    breakItLinkDecodes.withLock {
      $0.total += 1
      $0.current += 1
      $0.deepest = max($0.deepest, $0.current)
    }
    defer { breakItLinkDecodes.withLock { $0.current -= 1 } }
    let classes: [AnyClass] = [BreakItLink.self, ArchivedSample.self, NSDate.self]
    next = coder.decodeObject(of: classes, forKey: "next") as? BreakItLink
    leaf = coder.decodeObject(of: classes, forKey: "leaf") as? ArchivedSample
    date = coder.decodeObject(of: classes, forKey: "date") as? Date
  }
}

/// A secure-coding class no setting here allows: its `init(coder:)` must never run.
final class BreakItOutsider: NSObject, NSSecureCoding, Sendable {
  static var supportsSecureCoding: Bool { true }
  override init() {}
  func encode(with coder: NSCoder) {}
  init?(coder: NSCoder) {
    breakItOutsiderDecodes.withLock { $0 += 1 }
  }
}

/// An object that lists Foundation classes whose decoders on Linux trap on hostile fields.
final class BreakItNote: NSObject, NSSecureCoding, ArchivedObjectClasses, Sendable {
  static var supportsSecureCoding: Bool { true }
  static var classesInArchive: [AnyClass] { [NSString.self, NSError.self, NSDictionary.self] }
  let text: String
  init(text: String) { self.text = text }
  func encode(with coder: NSCoder) { coder.encode(text as NSString, forKey: "text") }
  init?(coder: NSCoder) {
    guard let text = coder.decodeObject(of: Self.classesInArchive, forKey: "text") as? String
    else { return nil }
    self.text = text
  }
}

/// A keyed archive assembled object by object, written as `NSKeyedArchiver` would.
private struct HandMadeArchive {
  var objects: [PropertyListValue] = ["$null"]

  static func ref(_ index: Int) -> PropertyListValue {
    ["CF$UID": .integer(.init(Int64(index)))]
  }

  mutating func add(_ object: PropertyListValue) -> Int {
    objects.append(object)
    return objects.count - 1
  }

  /// A class description for `cls`, whose name the archive may also list as a hint.
  mutating func addClass(_ cls: AnyClass, hints: [AnyClass] = []) -> PropertyListValue {
    let name = PropertyListValue.string(NSStringFromClass(cls))
    var description: [String: PropertyListValue] = ["$classname": name, "$classes": [name]]
    if !hints.isEmpty {
      description["$classhints"] = .array(hints.map { .string(NSStringFromClass($0)) })
    }
    return Self.ref(add(.dictionary(description)))
  }

  /// `count` links, each one's `next` the following one, the last's `next` `end`; returns the
  /// first's index.
  mutating func chain(
    _ count: Int, linkClass: PropertyListValue, end: Int = 0,
    extra: [String: PropertyListValue] = [:]
  ) -> Int {
    var next = end
    for _ in 0..<count {
      var fields = extra
      fields["$class"] = linkClass
      fields["next"] = Self.ref(next)
      next = add(.dictionary(fields))
    }
    return next
  }

  /// A binary property list of the archive; references are written as real UIDs by going
  /// through XML, where Foundation reads `["CF$UID": n]` as one.
  func data(root: Int) throws -> Data {
    let archive: PropertyListValue = [
      "$archiver": "NSKeyedArchiver", "$version": 100_000,
      "$top": ["root": Self.ref(root)], "$objects": .array(objects),
    ]
    let xml = try PropertyListSerialization.data(
      fromPropertyList: FoundationBridge.object(from: archive), format: .xml, options: 0)
    let object = try PropertyListSerialization.propertyList(from: xml, format: nil)
    return try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
  }
}

/// Hostile archives against `Archived` on Linux, where secure coding is off and
/// `KeyedArchiveCheck` stands in for it: none may stop the process, construct a class that isn't
/// allowed, or be anything but the default with one diagnostic and the bytes untouched.
@Suite(.serialized, .tags(.breakIt)) struct HostileArchiveTests {
  /// Reads `data` as an `Archived<Object>` setting, expecting the default with one diagnostic
  /// containing `reason` and the stored bytes left as they were.
  private static func expectRefused<Object: NSObject & NSSecureCoding & Sendable>(
    _ data: Data, as _: Object.Type, reason: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let stored = PropertyListValue.data(data)
    let backend = InMemoryBackend(["value": stored])
    let setting = Setting<Archived<Object>?>("value", default: nil, backend: backend)
    let (read, diagnostics) = collectingDiagnostics { setting.wrappedValue }
    #expect(read == nil, sourceLocation: sourceLocation)
    #expect(diagnostics.count == 1, sourceLocation: sourceLocation)
    #expect(
      diagnostics.first?.message.contains(reason) == true,
      "\(diagnostics.first?.message.prefix(300) ?? "no diagnostic")", sourceLocation: sourceLocation
    )
    #expect(backend.value(forKey: "value") == stored, sourceLocation: sourceLocation)
  }

  #if !canImport(Darwin)
    /// Field case: chains of 200 links where each link of the root's chain also holds an array
    /// of the other chains' heads, deepest first.
    ///
    /// The check's walk reached each shared head early through that array, and so measured 200-odd
    /// levels; the unarchiver, following `next`, nested 200 per chain: 50 chains (830 KB) passed
    /// the check and overflowed the stack (SIGSEGV at about 1 KB a level). The check now measures
    /// the longest chain from the root.
    @Test func sharedObjectsCannotHideAChainLongerThanTheNestingLimit() throws {
      var archive = HandMadeArchive()
      let link = archive.addClass(BreakItLink.self)
      _ = archive.addClass(ArchivedSample.self)
      let heads = archive.add([])
      let second = archive.chain(200, linkClass: link)
      archive.objects[heads] = [HandMadeArchive.ref(second)]
      // Several keys to the array, so the walk surely takes one before `next` on an early link.
      let shortcuts = Dictionary(
        uniqueKeysWithValues: (0..<4).map { ("via\($0)", HandMadeArchive.ref(heads)) })
      let root = archive.chain(200, linkClass: link, end: second, extra: shortcuts)
      breakItLinkDecodes.withLock { $0 = (0, 0, 0) }
      Self.expectRefused(
        try archive.data(root: root), as: BreakItLink.self, reason: "nested more than 256 deep")
      #expect(breakItLinkDecodes.withLock { $0.total } == 0)

      // The limit itself still reads: a chain of 256 objects, the root included.
      var atLimit = HandMadeArchive()
      let limitLink = atLimit.addClass(BreakItLink.self)
      _ = atLimit.addClass(ArchivedSample.self)
      let limitRoot = atLimit.chain(KeyedArchiveCheck.maximumNesting, linkClass: limitLink)
      let read = Archived<BreakItLink>(propertyListValue: .data(try atLimit.data(root: limitRoot)))
      #expect(read != nil)
      #expect(breakItLinkDecodes.withLock { $0.deepest } == KeyedArchiveCheck.maximumNesting)
    }

    /// Field case: a type listing `NSString`, `NSError` or `NSDictionary` in `classesInArchive`
    /// let an archive reach their corelibs decoders, which trap: `NSString` with an integer
    /// `NS.string` (SIGABRT) or none (SIGILL), `NSError` without `NSDomain` (SIGILL),
    /// `NSDictionary` with one key and no objects (SIGSEGV, a read past the objects).
    @Test(arguments: ["NSString, an integer", "NSString, no string", "NSError", "NSDictionary"])
    func aFoundationClassWhoseLinuxDecoderTrapsCanNotBeListed(_ attack: String) throws {
      var archive = HandMadeArchive()
      let note = archive.addClass(BreakItNote.self)
      let inner: [String: PropertyListValue] =
        switch attack {
        case "NSString, an integer": ["$class": archive.addClass(NSString.self), "NS.string": 5]
        case "NSString, no string": ["$class": archive.addClass(NSString.self)]
        case "NSError": ["$class": archive.addClass(NSError.self), "NSCode": 3]
        default:
          ["$class": archive.addClass(NSDictionary.self), "NS.keys": [note], "NS.objects": []]
        }
      let text = archive.add(.dictionary(inner))
      let root = archive.add(["$class": note, "text": HandMadeArchive.ref(text)])
      Self.expectRefused(
        try archive.data(root: root), as: BreakItNote.self, reason: "stops the process on Linux")
      // Writing such a type is refused too, so nothing is stored that can't be read back.
      let setting = Setting<Archived<BreakItNote>?>(
        "note", default: nil, backend: InMemoryBackend())
      let error = #expect(throws: SettingsError.self) {
        try setting.set(Archived(BreakItNote(text: "a")))
      }
      #expect(error?.code == .valueNotRepresentable)
    }
  #endif

  /// The ways an archive can name a class besides an object's `$classname`: a hint, a class
  /// description reached as a value, an object naming a class without `$class`.
  ///
  /// None constructs the class, and those the check sees are refused.
  @Test func aClassThatIsNotAllowedIsNeverConstructed() throws {
    func archive(
      _ build: (inout HandMadeArchive, PropertyListValue) -> [String: PropertyListValue]
    ) throws -> Data {
      var archive = HandMadeArchive()
      let link = archive.addClass(BreakItLink.self)
      _ = archive.addClass(ArchivedSample.self)
      var root = build(&archive, link)
      root["$class"] = root["$class"] ?? link
      let index = archive.add(.dictionary(root))
      return try archive.data(root: index)
    }
    breakItOutsiderDecodes.withLock { $0 = 0 }
    // The outsider as a hint beside an allowed class name.
    Self.expectRefused(
      try archive { archive, _ in
        ["$class": archive.addClass(BreakItLink.self, hints: [BreakItOutsider.self])]
      }, as: BreakItLink.self, reason: "class hints the setting does not allow")
    // The outsider's object, with its class description, where a link is decoded.
    Self.expectRefused(
      try archive { archive, _ in
        let outsider = archive.add(["$class": archive.addClass(BreakItOutsider.self)])
        return ["next": HandMadeArchive.ref(outsider)]
      }, as: BreakItLink.self, reason: "BreakItOutsider, which the setting does not allow")
    // Values, not objects (no `$class` reference): the unarchiver returns them as dictionaries.
    let values = try archive { archive, _ in
      let description = archive.addClass(BreakItOutsider.self)
      let named = archive.add(["$classname": .string(NSStringFromClass(BreakItOutsider.self))])
      return ["next": description, "leaf": HandMadeArchive.ref(named)]
    }
    let read = try #require(Archived<BreakItLink>(propertyListValue: .data(values)))
    #expect(read.object.next == nil && read.object.leaf == nil)
    #expect(breakItOutsiderDecodes.withLock { $0 } == 0)
  }

  /// 40 levels of links, each level's `next` and `leaf` both the next level's link: 2^40 paths
  /// through 41 objects.
  ///
  /// The unarchiver decodes a shared object once, and the check walks each object once, so the read
  /// is immediate; a misplaced link where a leaf is decoded is `nil`.
  @Test func sharedObjectsAreDecodedOnceNotOncePerPath() throws {
    var archive = HandMadeArchive()
    let link = archive.addClass(BreakItLink.self)
    _ = archive.addClass(ArchivedSample.self)
    var below = 0
    for _ in 0..<40 {
      below = archive.add([
        "$class": link, "next": HandMadeArchive.ref(below), "leaf": HandMadeArchive.ref(below),
      ])
    }
    breakItLinkDecodes.withLock { $0 = (0, 0, 0) }
    let read = try #require(
      Archived<BreakItLink>(propertyListValue: .data(try archive.data(root: below))))
    #expect(breakItLinkDecodes.withLock { $0.total } == 40)
    #expect(read.object.next?.next != nil && read.object.leaf == nil)
  }

  /// A nested `NSDate`, which the link lists, reads; one whose `NS.time` is a string reads as
  /// the reference date, and an integer past `Int64.max` where an object is decoded as `nil`:
  /// what corelibs' decoders make of them, never a stopped process.
  @Test func aListedFoundationClassWithHostileFieldsDecodesOrIsTheDefault() throws {
    let date = Date(timeIntervalSinceReferenceDate: 12_345)
    let stored = try NSKeyedArchiver.archivedData(
      withRootObject: BreakItLink(next: nil, leaf: ArchivedSample(name: "l", count: 1), date: date),
      requiringSecureCoding: true)
    let read = try #require(Archived<BreakItLink>(propertyListValue: .data(stored)))
    #expect(read.object.date == date && read.object.leaf?.name == "l")

    for field in ["NS.time", "next"] {
      var archive = HandMadeArchive()
      let link = archive.addClass(BreakItLink.self)
      let hostileDate = archive.add(["$class": archive.addClass(NSDate.self), "NS.time": "soon"])
      var fields: [String: PropertyListValue] = [
        "$class": link, "date": HandMadeArchive.ref(hostileDate), "next": HandMadeArchive.ref(0),
        "leaf": HandMadeArchive.ref(0),
      ]
      if field == "next" { fields["next"] = .integer(.init(UInt64.max)) }
      let root = archive.add(.dictionary(fields))
      let data = try archive.data(root: root)
      let hostile = SettingsDiagnostics.withHandler({ _ in }) {
        Archived<BreakItLink>(propertyListValue: .data(data))
      }
      #expect(hostile?.object.next == nil)
      // The integer where `next` is decoded poisons the unarchiver: later decodes give nil.
      #expect(
        hostile?.object.date == (field == "next" ? nil : Date(timeIntervalSinceReferenceDate: 0)))
    }
  }
}
