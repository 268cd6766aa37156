import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// The conversion table of `SettingValue`: how each stored kind reads as each Swift type.
@Suite struct ValueConversionTests {
  @Test func boolReadsBoolsTheIntegersOneAndZeroAndFoundationsBooleanStrings() {
    #expect(Bool(propertyListValue: true) == true)
    #expect(Bool(propertyListValue: 1) == true)
    #expect(Bool(propertyListValue: 0) == false)
    #expect(Bool(propertyListValue: 2) == nil)
    #expect(Bool(propertyListValue: 1.0) == true)
    #expect(Bool(propertyListValue: 0.5) == nil)
    for yes in ["YES", "yes", "true", "TRUE", "1"] {
      #expect(Bool(propertyListValue: .string(yes)) == true)
    }
    for no in ["NO", "no", "false", "False", "0"] {
      #expect(Bool(propertyListValue: .string(no)) == false)
    }
    #expect(Bool(propertyListValue: "maybe") == nil)
    #expect(Bool(propertyListValue: .date(Date())) == nil)
  }

  @Test func integersReadExactlyAndNeverWrapOrTruncate() {
    #expect(Int(propertyListValue: 42) == 42)
    #expect(Int(propertyListValue: 42.0) == 42)
    #expect(Int(propertyListValue: 12.5) == nil)
    #expect(Int(propertyListValue: true) == 1)
    #expect(Int(propertyListValue: "42") == 42)
    #expect(Int(propertyListValue: "42abc") == nil)
    #expect(Int(propertyListValue: " 42") == nil)
    #expect(UInt8(propertyListValue: 255) == 255)
    #expect(UInt8(propertyListValue: 256) == nil)
    #expect(Int8(propertyListValue: -129) == nil)
    #expect(UInt(propertyListValue: -1) == nil)
    #expect(Int64(propertyListValue: .integer(.init(UInt64.max))) == nil)
    #expect(UInt64(propertyListValue: .integer(.init(UInt64.max))) == .max)
    #expect(Int(propertyListValue: .real(.infinity)) == nil)
    #expect(Int(propertyListValue: .real(.nan)) == nil)
  }

  @Test func numericStringsThatOverflowOrUnderflowAreRefused() {
    #expect(Double(propertyListValue: "1e400") == nil)
    #expect(Double(propertyListValue: "inf") == .infinity)
    #expect(Float(propertyListValue: "1e40") == nil)
    #expect(Float(propertyListValue: 1e-50) == nil)
    #expect(Float(propertyListValue: 0.0) == 0)
  }

  @Test func doubleReadsRealsExactIntegersBoolsAndNumericStrings() {
    #expect(Double(propertyListValue: 42) == 42.0)
    #expect(Double(propertyListValue: 0.1) == 0.1)
    #expect(Double(propertyListValue: .integer(.init(Int64(1) << 53 + 1))) == nil)
    #expect(Double(propertyListValue: false) == 0)
    #expect(Double(propertyListValue: "2.5") == 2.5)
    #expect(Double(propertyListValue: "x") == nil)
  }

  @Test func floatRoundTripsBitForBitAndRefusesOutOfRangeReals() throws {
    let value: Float = 12.34
    let stored = try #require(value.propertyListValue())
    #expect(stored == .real(Double(value)))
    #expect(Float(propertyListValue: stored)?.bitPattern == value.bitPattern)
    #expect(Float(propertyListValue: 0.8) == 0.8)
    #expect(Float(propertyListValue: 1e300) == nil)
    #expect(Float(propertyListValue: .real(.infinity)) == .infinity)
    #expect(Float(propertyListValue: .integer(.init(Int64(1) << 24 + 1))) == nil)
  }

  @Test func stringReadsStringsAndIntegersOnly() {
    #expect(String(propertyListValue: "a") == "a")
    #expect(String(propertyListValue: 42) == "42")
    #expect(String(propertyListValue: .integer(.init(UInt64.max))) == "18446744073709551615")
    #expect(String(propertyListValue: 4.5) == nil)
    #expect(String(propertyListValue: true) == nil)
  }

  @Test func urlReadsWhatItWritesWithOrWithoutAScheme() {
    #expect(URL(propertyListValue: "https://example.com/x") == URL(string: "https://example.com/x"))
    #expect(URL(propertyListValue: "/tmp/a b") == URL(fileURLWithPath: "/tmp/a b"))
    #expect(URL(propertyListValue: "~/Documents")?.path.hasSuffix("/Documents") == true)
    // A URL without a scheme reads back as written (URL(string: "www.example.com")).
    #expect(URL(propertyListValue: "relative/path") == URL(string: "relative/path"))
    #expect(URL(propertyListValue: "www.example.com") == URL(string: "www.example.com"))
    #expect(URL(propertyListValue: "") == nil)
    // File URLs are stored as paths (what UserDefaults.url(forKey:) reads), others as strings.
    #expect(URL(fileURLWithPath: "/tmp/x").propertyListValue() == "/tmp/x")
    #expect(
      URL(string: "https://example.com/a?b")?.propertyListValue() == "https://example.com/a?b")
  }

  @Test func datesAndDataReadOnlyTheirOwnKind() {
    let date = Date(timeIntervalSinceReferenceDate: 5)
    #expect(Date(propertyListValue: .date(date)) == date)
    #expect(Date(propertyListValue: "2020-01-01T00:00:00Z") == nil)
    #expect(Data(propertyListValue: .data(Data([1]))) == Data([1]))
    #expect(Data(propertyListValue: "AQ==") == nil)
  }

  @Test func collectionsReadOnlyWhenEveryElementReads() {
    #expect([Int](propertyListValue: [1, 2.0, "3"]) == [1, 2, 3])
    #expect([Int](propertyListValue: [1, "two"]) == nil)
    #expect([String: Double](propertyListValue: ["a": 1]) == ["a": 1.0])
    #expect([String: Double](propertyListValue: ["a": "x"]) == nil)
    #expect([String](propertyListValue: ["a": "b"]) == nil)
  }

  @Test func optionalReadsLikeItsWrappedTypeAndNilRemoves() throws {
    #expect(Int?(propertyListValue: 3) == .some(3))
    #expect(Int?(propertyListValue: "x") == nil)
    #expect(try (nil as Int?).propertyListValue() == nil)
    #expect(try (false as Bool?).propertyListValue() == false)
  }

  @Test func rawRepresentableTypesStoreTheirRawValue() throws {
    #expect(try Quality.high.propertyListValue() == "high")
    #expect(Quality(propertyListValue: "low") == .low)
    #expect(Quality(propertyListValue: "ultra") == nil)
    #expect(try Switch.on.propertyListValue() == true)
    #expect(Switch(propertyListValue: 0) == .off)
  }

  @Test func everyIntegerWidthRoundTripsAtItsExtremes() throws {
    func roundTrip<T: FixedWidthInteger & SettingValue>(_ type: T.Type) throws {
      for value in [T.min, T.max, 0] {
        let stored = try #require(try value.propertyListValue())
        #expect(T(propertyListValue: stored) == value, "\(T.self) \(value)")
      }
    }
    try roundTrip(Int.self)
    try roundTrip(Int8.self)
    try roundTrip(Int16.self)
    try roundTrip(Int32.self)
    try roundTrip(Int64.self)
    try roundTrip(UInt.self)
    try roundTrip(UInt8.self)
    try roundTrip(UInt16.self)
    try roundTrip(UInt32.self)
    try roundTrip(UInt64.self)
  }
}

@Suite struct PropertyListValueTests {
  @Test func integersCoverInt64MinThroughUInt64Max() {
    let minimum = PropertyListValue.Integer(Int64.min)
    let maximum = PropertyListValue.Integer(UInt64.max)
    #expect(minimum < 0 && 0 < maximum)
    #expect(minimum.description == "-9223372036854775808")
    #expect(maximum.description == "18446744073709551615")
    #expect(maximum.int64Value == nil)
    #expect(minimum.uint64Value == nil)
    #expect(PropertyListValue.Integer(UInt64(5)) == PropertyListValue.Integer(Int64(5)))
    #expect(PropertyListValue.Integer(exactly: -1 as Int8) == -1)
    #expect(Int8(exactly: PropertyListValue.Integer(200)) == nil)
  }

  @Test func kindsAreDistinct() {
    let values: [PropertyListValue] = [
      1, 1.0, true, "1", [1], ["1": 1], .data(Data([1])),
      .date(Date(timeIntervalSinceReferenceDate: 1)),
    ]
    #expect(Set(values).count == values.count)
    #expect(Set(values.map(\.kind)) == Set(PropertyListValue.Kind.allCases))
  }

  @Test func descriptionIsOldStyleTextWithUnambiguousBooleans() {
    let value: PropertyListValue = [
      "name": "Player one", "volume": 0.5, "on": true, "tags": ["a", "b c"],
    ]
    #expect(
      value.description == #"{name = "Player one"; on = true; tags = (a, "b c"); volume = 0.5; }"#)
    #expect(PropertyListValue.bool(true).description != PropertyListValue.integer(1).description)
  }
}
