import Foundation
import Testing

@testable import TypedDefaults

/// The contract of `SettingsBackend`, checked against every backend of the library.
@Suite struct BackendConformanceTests {
  /// Values covering every property-list kind, with extremes and nesting.
  static let samples: [String: PropertyListValue] = [
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

  @Test(arguments: BackendFactory.all)
  func writtenValuesReadBackEqual(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      for (key, value) in Self.samples {
        try backend.setValue(value, forKey: key)
      }
      for (key, value) in Self.samples {
        #expect(backend.value(forKey: key) == value, "\(key)")
      }
    }
  }

  @Test(arguments: BackendFactory.all)
  func notANumberReadsBackAsNotANumber(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      try backend.setValue(.real(.nan), forKey: "nan")
      let value = try #require(backend.value(forKey: "nan")?.doubleValue)
      #expect(value.isNaN)
    }
  }

  @Test(arguments: BackendFactory.all)
  func missingKeyReadsNil(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      #expect(backend.value(forKey: "never.written") == nil)
    }
  }

  @Test(arguments: BackendFactory.all)
  func writingNilRemovesTheKey(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      try backend.setValue("x", forKey: "k")
      try backend.setValue(nil, forKey: "k")
      #expect(backend.value(forKey: "k") == nil)
      #expect(backend.dictionaryRepresentation()["k"] == nil)
      // Removing a missing key is not an error.
      try backend.setValue(nil, forKey: "k")
      backend.removeValue(forKey: "never.written")
    }
  }

  @Test(arguments: BackendFactory.all)
  func removeValueRemovesTheKey(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      try backend.setValue(5, forKey: "k")
      backend.removeValue(forKey: "k")
      #expect(backend.value(forKey: "k") == nil)
      #expect(!backend.keys.contains("k"))
    }
  }

  @Test(arguments: BackendFactory.all)
  func overwritingReplacesTheValueAndItsKind(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      try backend.setValue(1, forKey: "k")
      try backend.setValue("one", forKey: "k")
      #expect(backend.value(forKey: "k") == "one")
      try backend.setValue(["one": 1], forKey: "k")
      #expect(backend.value(forKey: "k") == ["one": 1])
    }
  }

  @Test(arguments: BackendFactory.all)
  func dictionaryRepresentationListsExactlyTheStoredKeys(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      #expect(backend.dictionaryRepresentation().isEmpty)
      try backend.setValue(1, forKey: "a")
      try backend.setValue("b", forKey: "b")
      try backend.setValue([true], forKey: "c")
      backend.removeValue(forKey: "b")
      #expect(backend.dictionaryRepresentation() == ["a": 1, "c": [true]])
      #expect(backend.keys == ["a", "c"])
    }
  }

  @Test(arguments: BackendFactory.all)
  func concurrentWritersLoseNothing(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let writers = 8
      let writesPerWriter = 200
      await withTaskGroup(of: Void.self) { group in
        for writer in 0..<writers {
          group.addTask {
            for index in 0..<writesPerWriter {
              try? backend.setValue(
                .integer(.init(Int64(index))), forKey: "w\(writer).k\(index % 20)")
              try? backend.setValue(.integer(.init(Int64(writer))), forKey: "shared")
              _ = backend.value(forKey: "w\((writer + 1) % writers).k\(index % 20)")
              _ = backend.dictionaryRepresentation().count
            }
          }
        }
      }
      for writer in 0..<writers {
        for slot in 0..<20 {
          // The last write to each slot was index 180 + slot.
          #expect(
            backend.value(forKey: "w\(writer).k\(slot)") == .integer(.init(Int64(180 + slot))))
        }
      }
      let shared = try #require(backend.value(forKey: "shared")?.intValue)
      #expect((0..<writers).contains(shared))
      #expect(backend.dictionaryRepresentation().count == writers * 20 + 1)
    }
  }

  @Test(arguments: BackendFactory.all)
  func everySettingTypeRoundTripsThroughTheBackend(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let settings = AllTypesSettings(backend: backend)
      let written = AllTypesSettings.Values.extremes
      settings.assign(written)
      #expect(settings.values == written)
      // A second model on the same backend reads what the first wrote.
      #expect(AllTypesSettings(backend: backend).values == written)
    }
  }
}
