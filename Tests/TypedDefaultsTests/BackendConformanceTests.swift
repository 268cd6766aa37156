import Foundation
import Testing

@testable import TypedDefaults

/// The contract of `SettingsBackend`, checked against every backend of the library and a scoped
/// view (`scoped(to:)`) of each.
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

  @Test(arguments: BackendFactory.allWithScopedViews)
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

  @Test(arguments: BackendFactory.allWithScopedViews)
  func notANumberReadsBackAsNotANumber(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      try backend.setValue(.real(.nan), forKey: "nan")
      let value = try #require(backend.value(forKey: "nan")?.doubleValue)
      #expect(value.isNaN)
    }
  }

  @Test(arguments: BackendFactory.allWithScopedViews)
  func missingKeyReadsNil(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      #expect(backend.value(forKey: "never.written") == nil)
    }
  }

  @Test(arguments: BackendFactory.allWithScopedViews)
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

  @Test(arguments: BackendFactory.allWithScopedViews)
  func removeValueRemovesTheKey(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      try backend.setValue(5, forKey: "k")
      backend.removeValue(forKey: "k")
      #expect(backend.value(forKey: "k") == nil)
      #expect(!backend.keys.contains("k"))
    }
  }

  @Test(arguments: BackendFactory.allWithScopedViews)
  func overwritingReplacesTheValueAndItsKind(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      try backend.setValue(1, forKey: "k")
      try backend.setValue("one", forKey: "k")
      #expect(backend.value(forKey: "k") == "one")
      try backend.setValue(["one": 1], forKey: "k")
      #expect(backend.value(forKey: "k") == ["one": 1])
    }
  }

  @Test(arguments: BackendFactory.allWithScopedViews)
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

  @Test(arguments: BackendFactory.allWithScopedViews)
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

  @Test(arguments: BackendFactory.allWithScopedViews)
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

  // MARK: - Durability: what the next launch reads

  @Test(arguments: BackendFactory.allWithScopedViews)
  func everyValueReadsTheSameAfterAReloadAsBeforeIt(_ factory: BackendFactory) async throws {
    try await factory.withInstance { instance in
      var written = Self.samples
      written["date.fraction"] = .date(Date(timeIntervalSinceReferenceDate: 786_000_000.75))
      written["date.fractionBefore2001"] = .date(Date(timeIntervalSinceReferenceDate: -10.25))
      written["nested.fractionalDate"] = [.date(Date(timeIntervalSinceReferenceDate: 0.5))]
      for (key, value) in written { try instance.backend.setValue(value, forKey: key) }
      let beforeReload = instance.backend.dictionaryRepresentation()

      let reloaded = try instance.reload()
      #expect(reloaded.dictionaryRepresentation() == beforeReload)

      // What was read before the reload is what was written, except what an XML file can't keep,
      // which the backend already stored the way the file gives it back.
      var expected = written
      if factory.storesXML {
        expected["date.fraction"] = .date(Date(timeIntervalSinceReferenceDate: 786_000_000))
        expected["date.fractionBefore2001"] = .date(Date(timeIntervalSinceReferenceDate: -11))
        expected["nested.fractionalDate"] = [.date(Date(timeIntervalSinceReferenceDate: 0))]
      }
      #expect(beforeReload == expected)
    }
  }

  @Test(arguments: BackendFactory.allWithScopedViews)
  func negativeZeroKeepsItsSignOnlyWhereTheFormatCan(_ factory: BackendFactory) async throws {
    try await factory.withInstance { instance in
      try instance.backend.setValue(.real(-0.0), forKey: "zero")
      let expectedSign: FloatingPointSign = factory.storesXML ? .plus : .minus
      #expect(instance.backend.value(forKey: "zero")?.doubleValue?.sign == expectedSign)
      #expect(try instance.reload().value(forKey: "zero")?.doubleValue?.sign == expectedSign)
    }
  }

  @Test(arguments: BackendFactory.allWithScopedViews)
  func aStringAnXMLFileWouldChangeIsRefusedThere(_ factory: BackendFactory) async throws {
    try await factory.withInstance { instance in
      let value: PropertyListValue = ["\u{FEFF}key": "\u{FEFF}starts with a byte-order mark"]
      if factory.storesXML {
        let error = #expect(throws: SettingsError.self) {
          try instance.backend.setValue(value, forKey: "bom")
        }
        #expect(error?.code == .valueNotRepresentable)
        #expect(error?.key == "bom")
        #expect(instance.backend.value(forKey: "bom") == nil)
      } else {
        try instance.backend.setValue(value, forKey: "bom")
        #expect(try instance.reload().value(forKey: "bom") == value)
      }
    }
  }

  @Test(arguments: BackendFactory.allWithScopedViews)
  func everySettingTypeRoundTripsAtItsExtremesThroughAReload(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withInstance { instance in
      let written = AllTypesSettings.Values.extremes
      AllTypesSettings(backend: instance.backend).assign(written)
      let reloaded = AllTypesSettings(backend: try instance.reload()).values
      #expect(reloaded == written)
      #expect(reloaded.float.bitPattern == written.float.bitPattern)
      #expect(reloaded.double.bitPattern == written.double.bitPattern)
    }
  }
}
