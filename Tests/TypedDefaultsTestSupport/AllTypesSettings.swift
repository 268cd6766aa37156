import Foundation

@testable import TypedDefaults
@testable import TypedDefaultsTesting

/// A string-backed enum setting type.
enum Quality: String, SettingValue, CaseIterable {
  case auto, low, high
}

/// A Bool-backed enum setting type (Swift has no `enum X: Bool` syntax, so it is written out).
enum Switch: RawRepresentable, SettingValue {
  case off, on

  init?(rawValue: Bool) {
    self = rawValue ? .on : .off
  }

  var rawValue: Bool {
    switch self {
    case .off: false
    case .on: true
    }
  }
}

/// One setting of every built-in setting type, for round-trip tests.
struct AllTypesSettings: SettingsGroup {
  @Setting var bool = false
  @Setting var int = 0
  @Setting var int8: Int8 = 0
  @Setting var int16: Int16 = 0
  @Setting var int32: Int32 = 0
  @Setting var int64: Int64 = 0
  @Setting var uint: UInt = 0
  @Setting var uint8: UInt8 = 0
  @Setting var uint16: UInt16 = 0
  @Setting var uint32: UInt32 = 0
  @Setting var uint64: UInt64 = 0
  @Setting var double = 0.0
  @Setting var float: Float = 0
  @Setting var string = ""
  @Setting var date = Date(timeIntervalSinceReferenceDate: 0)
  @Setting var data = Data()
  @Setting var url = URL(fileURLWithPath: "/")
  @Setting var optional: Int? = nil
  @Setting var array: [String] = []
  @Setting var dictionary: [String: Int] = [:]
  @Setting var quality = Quality.auto
  @Setting var onOff = Switch.off
  @Setting var set: Set<Int> = []
  @Setting var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
  @Setting var range: Range<Int> = 0..<0
  @Setting var closedRange: ClosedRange<Int> = 0...0
  @Setting var dateRange: ClosedRange<Date> = Date.distantPast...Date.distantFuture
  @Setting var archived: Archived<ArchivedSample>?

  /// A plain copy of every value, to compare.
  struct Values: Equatable {
    var bool: Bool
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var double: Double
    var float: Float
    var string: String
    var date: Date
    var data: Data
    var url: URL
    var optional: Int?
    var array: [String]
    var dictionary: [String: Int]
    var quality: Quality
    var onOff: Switch
    var set: Set<Int>
    var uuid: UUID
    var range: Range<Int>
    var closedRange: ClosedRange<Int>
    var dateRange: ClosedRange<Date>
    var archived: Archived<ArchivedSample>?

    /// Every type at an extreme value (and whole-second dates, which every format keeps exactly).
    static let extremes = Values(
      bool: true, int: .min, int8: .min, int16: .max, int32: .min, int64: .max, uint: .max,
      uint8: .max, uint16: .max, uint32: .max, uint64: .max, double: -.greatestFiniteMagnitude,
      float: 12.34, string: "Mässig 🎬", date: Date(timeIntervalSinceReferenceDate: 786_000_000),
      data: Data([0, 0xFF]), url: URL(string: "https://example.com/a?b=c")!, optional: 0,
      array: ["a", "", "c"], dictionary: ["one": 1, "min": .min], quality: .high, onOff: .on,
      set: Set([Int.min, -1, 0, 1, Int.max] + Array(1_000..<3_000)),
      uuid: UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")!, range: Int.min..<Int.max,
      closedRange: Int.min...Int.max,
      dateRange: Date(
        timeIntervalSinceReferenceDate: -86_400)...Date(
          timeIntervalSinceReferenceDate: 786_000_000),
      archived: Archived(ArchivedSample(name: "Mässig 🎬", count: .max))
    )
  }

  var values: Values {
    Values(
      bool: bool, int: int, int8: int8, int16: int16, int32: int32, int64: int64, uint: uint,
      uint8: uint8, uint16: uint16, uint32: uint32, uint64: uint64, double: double, float: float,
      string: string, date: date, data: data, url: url, optional: optional, array: array,
      dictionary: dictionary, quality: quality, onOff: onOff, set: set, uuid: uuid, range: range,
      closedRange: closedRange, dateRange: dateRange, archived: archived
    )
  }

  func assign(_ values: Values) {
    bool = values.bool
    int = values.int
    int8 = values.int8
    int16 = values.int16
    int32 = values.int32
    int64 = values.int64
    uint = values.uint
    uint8 = values.uint8
    uint16 = values.uint16
    uint32 = values.uint32
    uint64 = values.uint64
    double = values.double
    float = values.float
    string = values.string
    date = values.date
    data = values.data
    url = values.url
    optional = values.optional
    array = values.array
    dictionary = values.dictionary
    quality = values.quality
    onOff = values.onOff
    set = values.set
    uuid = values.uuid
    range = values.range
    closedRange = values.closedRange
    dateRange = values.dateRange
    archived = values.archived
  }
}
