import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// Type-bridging bugs reported against settings libraries in the field, one test each, named
/// after the behaviour it pins.
///
/// Each runs on every backend, through a reload (a new store on the saved file, or a second process
/// reading the UserDefaults suite) where it matters.
@Suite(.tags(.regression)) struct TypeBridgingTests {
  private struct Numbers: SettingsGroup {
    @Setting var ratio = 0.0
    @Setting var gain: Float = 0
    @Setting var count = -1
    @Setting var label = ""
    @Setting var flag: Bool? = nil
    @Setting var enabled = false
    @Setting var onOff = Switch.off
  }

  @Test(arguments: BackendFactory.all)
  func anInteger42StoredUnderADoubleSettingReadsAs42Point0(_ factory: BackendFactory) async throws {
    try await factory.withInstance { instance in
      try instance.backend.setValue(42, forKey: "ratio")
      #expect(Numbers(backend: instance.backend).ratio == 42.0)
      #expect(Numbers(backend: try instance.reload()).ratio == 42.0)
    }
  }

  @Test(arguments: BackendFactory.all)
  func aFloat12Point34RoundTripsBitExactly(_ factory: BackendFactory) async throws {
    try await factory.withInstance { instance in
      let gain: Float = 12.34
      Numbers(backend: instance.backend).gain = gain
      #expect(Numbers(backend: instance.backend).gain.bitPattern == gain.bitPattern)
      let reloaded = try instance.reload()
      #expect(Numbers(backend: reloaded).gain.bitPattern == gain.bitPattern)
    }
  }

  /// Foundation's `string(forKey:)` returns nil for a number on macOS and its text on Linux.
  ///
  /// The library's rule, the same everywhere: an integer reads as its decimal digits, a real
  /// doesn't.
  @Test(arguments: BackendFactory.all)
  func aNumberReadByAStringSettingFollowsOneRuleOnEveryPlatform(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withInstance { instance in
      try instance.backend.setValue(8080, forKey: "label")
      #expect(Numbers(backend: try instance.reload()).label == "8080")
      try instance.backend.setValue(2.5, forKey: "label")
      #expect(Numbers(backend: try instance.reload()).label == "")
    }
  }

  @Test(arguments: BackendFactory.all)
  func anIntSettingStoring1And0ReadsBack1And0NeverTrueOrFalse(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withInstance { instance in
      let settings = Numbers(backend: instance.backend)
      for value in [1, 0] {
        settings.count = value
        let reloaded = try instance.reload()
        #expect(reloaded.value(forKey: "count") == .integer(.init(Int64(value))))
        #expect(Numbers(backend: reloaded).count == value)
      }
    }
  }

  @Test(arguments: BackendFactory.all)
  func anOptionalBoolStoringFalseReadsBackFalseNotNil(_ factory: BackendFactory) async throws {
    try await factory.withInstance { instance in
      Numbers(backend: instance.backend).flag = false
      let reloaded = try instance.reload()
      #expect(reloaded.value(forKey: "flag") == false)
      #expect(Numbers(backend: reloaded).flag == .some(false))
    }
  }

  @Test(arguments: BackendFactory.all)
  func anEnumWhoseRawValueIsBoolRoundTrips(_ factory: BackendFactory) async throws {
    try await factory.withInstance { instance in
      Numbers(backend: instance.backend).onOff = .on
      let reloaded = try instance.reload()
      #expect(reloaded.value(forKey: "onOff") == true)
      #expect(Numbers(backend: reloaded).onOff == .on)
    }
  }

  @Test func aDeliveredInteger1ReadsAsInt1AndAsBoolTrue() throws {
    let directory = try TemporaryDirectory()
    let delivered = directory.file("JF-info.plist")
    try Data(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <plist version="1.0"><dict><key>count</key><integer>1</integer>\
      <key>enabled</key><integer>1</integer><key>ratio</key><integer>1</integer></dict></plist>
      """.utf8
    ).write(to: delivered)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), deliveredFile: delivered)
    let settings = Numbers(backend: store)
    let (values, diagnostics) = collectingDiagnostics {
      (settings.count, settings.enabled, settings.ratio)
    }
    #expect(values.0 == 1)
    #expect(values.1 == true)  // the documented rule: the integers 1 and 0 read as Bool
    #expect(values.2 == 1.0)
    #expect(diagnostics.isEmpty)
  }

  @Test func anIntegerOtherThan1Or0ReadAsBoolIsTheDefaultAndADiagnostic() throws {
    let backend = InMemoryBackend(["enabled": 2])
    let (value, diagnostics) = collectingDiagnostics { Numbers(backend: backend).enabled }
    #expect(value == false)
    #expect(diagnostics.map(\.kind) == [.typeMismatch])
    #expect(backend.value(forKey: "enabled") == 2)
  }

  @Test func aModelWithEverySupportedTypeIsUsableFromSeveralTasks() async throws {
    let suite = TemporarySuite()
    let settings = AllTypesSettings(backend: suite.backend)
    let extremes = AllTypesSettings.Values.extremes
    await withTaskGroup(of: Void.self) { group in
      for task in 0..<8 {
        group.addTask {
          for round in 0..<50 {
            if (task + round).isMultiple(of: 2) {
              settings.assign(extremes)
            } else {
              _ = settings.values
            }
          }
        }
      }
    }
    #expect(settings.values == extremes)
  }
}
