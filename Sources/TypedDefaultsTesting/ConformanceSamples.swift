import Foundation
import TypedDefaults

extension BackendConformance {
  /// Values covering every property-list kind, with extremes and nesting, by key: what the
  /// checks write.
  ///
  /// Use them in your own tests of a backend.
  public static var sampleValues: [String: PropertyListValue] { ConformanceSamples.values }
}

enum ConformanceSamples {
  static let values: [String: PropertyListValue] = [
    "string.empty": "",
    "string.ascii": "Player",
    "string.unicode": "Mässig, Maß – 日本語 – 🎬",
    "string.multiline": "line 1\nline 2\t<tab> & \"quotes\"",
    "integer.zero": 0,
    "integer.one": 1,
    "integer.negative": -42,
    "integer.int64Min": .integer(.init(Int64.min)),
    "integer.int64Max": .integer(.init(Int64.max)),
    "integer.uint64Max": .integer(.init(UInt64.max)),
    "integer.aboveInt64Max": .integer(.init(UInt64(Int64.max) + 1)),
    "real.zero": 0.0,
    "real.fraction": 0.8,
    "real.negative": -12.5,
    "real.pi": .real(.pi),
    "real.float": .real(Double(Float(12.34))),
    "real.greatest": .real(.greatestFiniteMagnitude),
    "real.leastNonzero": .real(.leastNonzeroMagnitude),
    "real.infinity": .real(.infinity),
    "real.negativeInfinity": .real(-.infinity),
    "bool.true": true,
    "bool.false": false,
    "date.referenceDate": .date(Date(timeIntervalSinceReferenceDate: 0)),
    "date.wholeSeconds": .date(Date(timeIntervalSinceReferenceDate: 786_000_000)),
    "date.before1970": .date(Date(timeIntervalSince1970: -1_000_000_000)),
    "data.empty": .data(Data()),
    "data.bytes": .data(Data([0, 1, 2, 0xFE, 0xFF])),
    "array.empty": [],
    "array.mixed": [1, "two", 3.5, true, [4], ["five": 5]],
    "dictionary.empty": [:],
    "dictionary.nested": [
      "a": ["b": ["c": [1, 2, 3]]], "d": .date(Date(timeIntervalSinceReferenceDate: 60)),
    ],
  ]
}

/// An object the conformance model stores as a keyed archive.
package final class ArchivedSample: NSObject, NSSecureCoding, Sendable {
  package static var supportsSecureCoding: Bool { true }
  package let name: String
  package let count: Int

  package init(name: String, count: Int) {
    self.name = name
    self.count = count
  }

  package func encode(with coder: NSCoder) {
    coder.encode(name as NSString, forKey: "name")
    coder.encode(count, forKey: "count")
  }

  package init?(coder: NSCoder) {
    guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
    self.name = name as String
    self.count = coder.decodeInteger(forKey: "count")
  }

  override package func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? ArchivedSample else { return false }
    return name == other.name && count == other.count
  }

  override package var hash: Int { name.hashValue ^ count }
}

/// A setting of each kind of type, at extremes, for the round-trip checks.
struct EveryTypeSettings: SettingsGroup {
  @Setting var bool = false
  @Setting var int = 0
  @Setting var uint64: UInt64 = 0
  @Setting var double = 0.0
  @Setting var string = ""
  @Setting var date = Date(timeIntervalSinceReferenceDate: 0)
  @Setting var data = Data()
  @Setting var optional: String?
  @Setting var array: [String] = []
  @Setting var dictionary: [String: Int] = [:]
  @Setting var set: Set<String> = []
  @Setting var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
  @Setting var closedRange: ClosedRange<Int> = 0...0
  @Setting var range: Range<Double> = 0..<1
  @Setting var archived: Archived<ArchivedSample>?

  struct Values: Equatable {
    var bool: Bool
    var int: Int
    var uint64: UInt64
    var double: Double
    var string: String
    var date: Date
    var data: Data
    var optional: String?
    var array: [String]
    var dictionary: [String: Int]
    var set: Set<String>
    var uuid: UUID
    var closedRange: ClosedRange<Int>
    var range: Range<Double>
    var archived: Archived<ArchivedSample>?

    static let defaults = EveryTypeSettings().declaredDefaults

    /// The other edge of each type: empty containers, the nil UUID, an empty range.
    static let edges = Values(
      bool: false, int: .max, uint64: 0, double: .leastNonzeroMagnitude, string: "",
      date: Date(timeIntervalSince1970: -1_000_000_000), data: Data(), optional: nil, array: [],
      dictionary: [:], set: [],
      uuid: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
      closedRange: -1...(-1), range: 5..<5, archived: Archived(ArchivedSample(name: "", count: 0))
    )

    static let extremes = Values(
      bool: true, int: .min, uint64: .max, double: -.greatestFiniteMagnitude,
      string: "Mässig 🎬", date: Date(timeIntervalSinceReferenceDate: 786_000_000),
      data: Data([0, 0xFF]), optional: "", array: ["a", "", "c"],
      dictionary: ["one": 1, "min": .min], set: Set((0..<500).map { "é\($0)" }),
      uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
      closedRange: Int.min...Int.max, range: -0.5..<(.greatestFiniteMagnitude),
      archived: Archived(ArchivedSample(name: "日本語", count: .min))
    )
  }

  /// The declared defaults, read from an unattached group's settings.
  var declaredDefaults: Values {
    Values(
      bool: $bool.defaultValue, int: $int.defaultValue, uint64: $uint64.defaultValue,
      double: $double.defaultValue, string: $string.defaultValue, date: $date.defaultValue,
      data: $data.defaultValue, optional: $optional.defaultValue, array: $array.defaultValue,
      dictionary: $dictionary.defaultValue, set: $set.defaultValue, uuid: $uuid.defaultValue,
      closedRange: $closedRange.defaultValue, range: $range.defaultValue,
      archived: $archived.defaultValue)
  }

  var values: Values {
    Values(
      bool: bool, int: int, uint64: uint64, double: double, string: string, date: date,
      data: data, optional: optional, array: array, dictionary: dictionary, set: set, uuid: uuid,
      closedRange: closedRange, range: range, archived: archived)
  }

  func assign(_ values: Values) {
    bool = values.bool
    int = values.int
    uint64 = values.uint64
    double = values.double
    string = values.string
    date = values.date
    data = values.data
    optional = values.optional
    array = values.array
    dictionary = values.dictionary
    set = values.set
    uuid = values.uuid
    closedRange = values.closedRange
    range = values.range
    archived = values.archived
  }
}
