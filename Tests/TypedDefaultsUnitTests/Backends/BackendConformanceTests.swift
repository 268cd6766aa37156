import Foundation
import Testing
import TypedDefaultsTestSupport
import TypedDefaultsTesting

@testable import TypedDefaults

/// The contract of `SettingsBackend`, checked against every backend of the library and a scoped
/// view (`scoped(to:)`) of each: the public suite of TypedDefaultsTesting, and what only some
/// formats do.
@Suite struct BackendConformanceTests {
  /// Values covering every property-list kind, with extremes and nesting.
  static let samples = BackendConformance.sampleValues

  /// The public conformance suite (TypedDefaultsTesting), check by check, on every backend.
  @Test(arguments: BackendFactory.allWithScopedViews, BackendConformance.checks)
  func meetsTheBackendContract(
    _ factory: BackendFactory, _ check: BackendConformance.Check
  )
    async throws
  {
    try await factory.withInstance { instance in
      let failures = await check.run(
        makeBackend: { instance.backend }, reload: { _ in try instance.reload() })
      #expect(failures.isEmpty)
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

  /// The empty key was reported "can't store" by a model's check, yet stored and saved: every
  /// backend refuses it with a typed error and stores nothing (UserDefaults itself stores it).
  @Test(arguments: BackendFactory.allWithScopedViews)
  func theEmptyKeyIsRefusedAndNothingIsStored(_ factory: BackendFactory) async throws {
    try await factory.withInstance { instance in
      let backend = instance.backend
      try backend.setValue(1, forKey: "kept")
      let before = backend.dictionaryRepresentation()
      let single = #expect(throws: SettingsError.self) { try backend.setValue(2, forKey: "") }
      #expect(single?.code == .valueNotRepresentable)
      #expect(single?.description == "Cannot store the value for '': A key can't be empty")
      let batch = #expect(throws: SettingsError.self) {
        try backend.setValues(["": 2, "also": 3])
      }
      #expect(batch?.description == "Cannot store the value for '': A key can't be empty")
      // The read-modify-write forms too (a scoped view's empty key is its prefix in the base).
      let updated = #expect(throws: SettingsError.self) {
        try SettingsBackends.update(of: backend, forKey: "") { _ in 2 }
      }
      #expect(updated?.description == "Cannot store the value for '': A key can't be empty")
      let updatedValues = #expect(throws: SettingsError.self) {
        try SettingsBackends.updateValues(of: backend) { $0[""] = 2 }
      }
      #expect(updatedValues?.description == "Cannot store the value for '': A key can't be empty")
      #expect(backend.value(forKey: "") == nil)
      #expect(backend.dictionaryRepresentation() == before)
      let reloaded = try instance.reload()
      #expect(reloaded.value(forKey: "") == nil)
      #expect(reloaded.dictionaryRepresentation() == before)
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
