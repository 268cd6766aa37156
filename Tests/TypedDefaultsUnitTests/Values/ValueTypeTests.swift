import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

private struct CollectionSettings: SettingsGroup {
  @Setting var tags: Set<String> = []
  @Setting var ids: Set<Int> = [7]
  @Setting var qualities: Set<Quality> = []
  @Setting var device = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
  @Setting var lastDevice: UUID?
  @Setting var window: Range<Int> = 0..<10
  @Setting var volumes: ClosedRange<Double> = 0...1
  @Setting var all: ClosedRange<Int> = 0...0
}

/// `Set`, `UUID`, `Range` and `ClosedRange` settings: how each is stored, and what a bad stored
/// value reads as, on every backend.
@Suite struct ValueTypeTests {
  // MARK: - Set

  @Test(arguments: BackendFactory.all)
  func aSetIsStoredAsASortedArrayAndReadsBackEqual(_ factory: BackendFactory) async throws {
    try await factory.withInstance { instance in
      let settings = CollectionSettings(backend: instance.backend)
      settings.tags = ["zebra", "Äpfel", "apple", "日本", ""]
      #expect(instance.backend.value(forKey: "tags") == ["", "apple", "zebra", "Äpfel", "日本"])
      settings.ids = [3, -1, .max, .min, 0]
      #expect(
        instance.backend.value(forKey: "ids") == [
          .integer(.init(Int64.min)), -1, 0, 3, .integer(.init(Int64.max)),
        ])
      settings.qualities = [.low, .high, .auto]
      #expect(instance.backend.value(forKey: "qualities") == ["auto", "high", "low"])
      let reloaded = CollectionSettings(backend: try instance.reload())
      #expect(reloaded.tags == ["zebra", "Äpfel", "apple", "日本", ""])
      #expect(reloaded.ids == [3, -1, .max, .min, 0])
      #expect(reloaded.qualities == [.low, .high, .auto])
    }
  }

  @Test(arguments: BackendFactory.all)
  func anEmptyAndALargeSetRoundTrip(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let settings = CollectionSettings(backend: backend)
      settings.ids = []
      #expect(backend.value(forKey: "ids") == [])
      #expect(settings.ids.isEmpty)
      let large = Set((0..<20_000).map { $0 * 7919 % 100_003 })
      settings.ids = large
      #expect(settings.ids == large)
      #expect(backend.value(forKey: "ids")?.arrayValue?.count == large.count)
    }
  }

  @Test func theSameSetIsAlwaysStoredTheSameWay() throws {
    // Sets with the same elements, built in different orders, make identical stored arrays.
    let elements = (0..<300).map { "key-\($0 * 37 % 300)" }
    let stored = try Set(elements).propertyListValue()
    for seed in 1...5 {
      var shuffled = elements
      var generator = SplitMix64(seed: UInt64(seed))
      shuffled.shuffle(using: &generator)
      #expect(try Set(shuffled).propertyListValue() == stored)
    }
  }

  @Test func aStoredArrayInAnyOrderOrWithRepeatsReadsAsTheSameSet() {
    #expect(Set<Int>(propertyListValue: [3, 1, 2, 1, 3]) == [1, 2, 3])
    #expect(
      Set<String>(propertyListValue: ["b", "a"]) == Set<String>(propertyListValue: ["a", "b"]))
  }

  @Test func aSetWithAnUnreadableElementIsTheDefaultWithADiagnosticNamingIt() throws {
    let backend = InMemoryBackend(["ids": [1, "two", 3]])
    let (ids, diagnostics) = collectingDiagnostics { CollectionSettings(backend: backend).ids }
    #expect(ids == [7])
    let diagnostic = try #require(diagnostics.first)
    #expect(diagnostic.kind == .typeMismatch)
    #expect(diagnostic.message.contains("element 1"))
    #expect(backend.value(forKey: "ids") == [1, "two", 3])
  }

  @Test func theCanonicalOrderIsTotalAcrossKinds() {
    let values: [PropertyListValue] = [
      ["b": 1], ["a": 2], [2], [1, 2], .data(Data([1])), .date(Date(timeIntervalSince1970: 0)),
      "b", "a", .real(.nan), .real(-.infinity), 2.5, 3, -3, true, false,
    ]
    let sorted = values.sorted(by: PropertyListValue.canonicallyPrecedes)
    let expected: [PropertyListValue] = [
      false, true, -3, 3, .real(-.infinity), 2.5, .real(.nan), "a", "b",
      .date(Date(timeIntervalSince1970: 0)), .data(Data([1])), [1, 2], [2], ["a": 2], ["b": 1],
    ]
    #expect(sorted.map(\.kind) == expected.map(\.kind))
    #expect(
      sorted.filter { $0.doubleValue?.isNaN != true }
        == expected.filter { $0.doubleValue?.isNaN != true })
    for value in values { #expect(!PropertyListValue.canonicallyPrecedes(value, value)) }
  }

  // MARK: - UUID

  @Test(arguments: BackendFactory.all)
  func aUUIDIsStoredAsItsUppercaseStringAndReadsInEitherCase(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withInstance { instance in
      let settings = CollectionSettings(backend: instance.backend)
      let uuid = try #require(UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"))
      settings.device = uuid
      #expect(instance.backend.value(forKey: "device") == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
      #expect(CollectionSettings(backend: try instance.reload()).device == uuid)
      try instance.backend.setValue("e621e1f8-c36c-495a-93fc-0c247a3e6e5f", forKey: "device")
      #expect(settings.device == uuid)
      // The nil UUID is a UUID like any other, not "no value".
      let nilUUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
      settings.lastDevice = nilUUID
      #expect(
        instance.backend.value(forKey: "lastDevice") == "00000000-0000-0000-0000-000000000000")
      #expect(settings.lastDevice == nilUUID)
    }
  }

  @Test(arguments: [
    "", "E621E1F8C36C495A93FC0C247A3E6E5F", "{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}",
    "E621E1F8-C36C-495A-93FC-0C247A3E6E5", "not a uuid",
  ])
  func aStringThatIsNotAUUIDIsTheDefaultWithADiagnostic(_ stored: String) throws {
    let backend = InMemoryBackend(["lastDevice": .string(stored)])
    let (read, diagnostics) = collectingDiagnostics {
      CollectionSettings(backend: backend).lastDevice
    }
    #expect(read == nil)
    #expect(try #require(diagnostics.first).message.contains("not a UUID"))
  }

  @Test func sixteenBytesOfDataDoNotReadAsAUUID() {
    #expect(UUID(propertyListValue: .data(Data(repeating: 1, count: 16))) == nil)
  }

  // MARK: - Ranges

  @Test(arguments: BackendFactory.all)
  func rangesAreStoredAsTheirTwoBoundsAndRoundTripAtTheExtremes(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withInstance { instance in
      let settings = CollectionSettings(backend: instance.backend)
      settings.all = Int.min...Int.max
      #expect(
        instance.backend.value(forKey: "all") == [
          .integer(.init(Int64.min)), .integer(.init(Int64.max)),
        ])
      settings.window = 5..<5  // empty
      #expect(instance.backend.value(forKey: "window") == [5, 5])
      settings.volumes = 0.25...0.25
      let reloaded = CollectionSettings(backend: try instance.reload())
      #expect(reloaded.all == Int.min...Int.max)
      #expect(reloaded.window == 5..<5)
      #expect(reloaded.window.isEmpty)
      #expect(reloaded.volumes == 0.25...0.25)
    }
  }

  @Test func aRangeStoredTheWayCodableStoresOneReads() throws {
    // Swift's Codable conformance of a range is the same two-element array.
    let encoded = try PropertyListValueEncoder().encode(3..<9)
    #expect(encoded == [3, 9])
    #expect(Range<Int>(propertyListValue: encoded) == 3..<9)
  }

  static let badRanges: [(name: String, stored: PropertyListValue, reason: String)] = [
    ("reversed", [10, 2], "greater than the upper bound"),
    ("one element", [1], "has 1 element"),
    ("three elements", [1, 2, 3], "has 3 elements"),
    ("a bound of the wrong type", [1, "x"], "the upper bound"),
    ("a dictionary", ["lowerBound": 1, "upperBound": 2], "holds a dictionary"),
  ]

  @Test(arguments: 0..<badRanges.count)
  func aStoredRangeThatIsNotOneIsTheDefaultWithADiagnosticNeverACrash(_ index: Int) throws {
    let (name, stored, reason) = Self.badRanges[index]
    let backend = InMemoryBackend(["window": stored, "all": stored])
    let (values, diagnostics) = collectingDiagnostics { () -> (Range<Int>, ClosedRange<Int>) in
      let settings = CollectionSettings(backend: backend)
      return (settings.window, settings.all)
    }
    #expect(values.0 == 0..<10, "\(name)")
    #expect(values.1 == 0...0, "\(name)")
    #expect(diagnostics.count == 2)
    for diagnostic in diagnostics { #expect(diagnostic.message.contains(reason), "\(name)") }
    #expect(backend.value(forKey: "window") == stored)
  }

  @Test func aRangeOfNotANumberBoundsIsRefused() {
    #expect(ClosedRange<Double>(propertyListValue: [.real(.nan), 1]) == nil)
    #expect(Range<Double>(propertyListValue: [0, .real(.nan)]) == nil)
  }
}

@Suite struct PropertyListValueIntegerTests {
  @Test func anIntegerValueIsMadeFromAnIntVariable() {
    let count = 41
    let value: PropertyListValue = .integer(count + 1)
    #expect(value == .integer(42))
    #expect(value.intValue == 42)
    #expect(PropertyListValue.integer(Int.min) == .integer(PropertyListValue.Integer(Int64.min)))
    let values: [PropertyListValue] = [.integer(1), .integer(count)]
    #expect(
      values == [.integer(PropertyListValue.Integer(1)), .integer(PropertyListValue.Integer(41))])
  }
}
