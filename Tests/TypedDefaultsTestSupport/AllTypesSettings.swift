import Foundation
import TypedDefaults
import TypedDefaultsTesting

/// A string-backed enum setting type.
package enum Quality: String, SettingValue, CaseIterable {
  case auto, low, high
}

/// A Bool-backed enum setting type (Swift has no `enum X: Bool` syntax, so it is written out).
package enum Switch: RawRepresentable, SettingValue {
  case off, on

  package init?(rawValue: Bool) {
    self = rawValue ? .on : .off
  }

  package var rawValue: Bool {
    switch self {
    case .off: false
    case .on: true
    }
  }
}

/// One setting of every built-in setting type, for round-trip tests.
package struct AllTypesSettings: SettingsGroup {
  @Setting package var bool = false
  @Setting package var int = 0
  @Setting package var int8: Int8 = 0
  @Setting package var int16: Int16 = 0
  @Setting package var int32: Int32 = 0
  @Setting package var int64: Int64 = 0
  @Setting package var uint: UInt = 0
  @Setting package var uint8: UInt8 = 0
  @Setting package var uint16: UInt16 = 0
  @Setting package var uint32: UInt32 = 0
  @Setting package var uint64: UInt64 = 0
  @Setting package var double = 0.0
  @Setting package var float: Float = 0
  @Setting package var string = ""
  @Setting package var date = Date(timeIntervalSinceReferenceDate: 0)
  @Setting package var data = Data()
  @Setting package var url = URL(fileURLWithPath: "/")
  @Setting package var optional: Int? = nil
  @Setting package var array: [String] = []
  @Setting package var dictionary: [String: Int] = [:]
  @Setting package var quality = Quality.auto
  @Setting package var onOff = Switch.off
  @Setting package var set: Set<Int> = []
  @Setting package var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
  @Setting package var range: Range<Int> = 0..<0
  @Setting package var closedRange: ClosedRange<Int> = 0...0
  @Setting package var dateRange: ClosedRange<Date> = Date.distantPast...Date.distantFuture
  @Setting package var archived: Archived<ArchivedSample>?

  package init() {}

  /// A plain copy of every value, to compare.
  package struct Values: Equatable {
    package var bool: Bool
    package var int: Int
    package var int8: Int8
    package var int16: Int16
    package var int32: Int32
    package var int64: Int64
    package var uint: UInt
    package var uint8: UInt8
    package var uint16: UInt16
    package var uint32: UInt32
    package var uint64: UInt64
    package var double: Double
    package var float: Float
    package var string: String
    package var date: Date
    package var data: Data
    package var url: URL
    package var optional: Int?
    package var array: [String]
    package var dictionary: [String: Int]
    package var quality: Quality
    package var onOff: Switch
    package var set: Set<Int>
    package var uuid: UUID
    package var range: Range<Int>
    package var closedRange: ClosedRange<Int>
    package var dateRange: ClosedRange<Date>
    package var archived: Archived<ArchivedSample>?

    /// Every type at an extreme value (and whole-second dates, which every format keeps exactly).
    package static let extremes = Values(
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

  package var values: Values {
    Values(
      bool: bool, int: int, int8: int8, int16: int16, int32: int32, int64: int64, uint: uint,
      uint8: uint8, uint16: uint16, uint32: uint32, uint64: uint64, double: double, float: float,
      string: string, date: date, data: data, url: url, optional: optional, array: array,
      dictionary: dictionary, quality: quality, onOff: onOff, set: set, uuid: uuid, range: range,
      closedRange: closedRange, dateRange: dateRange, archived: archived
    )
  }

  package func assign(_ values: Values) {
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
