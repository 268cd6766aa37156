import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

// MARK: - Fixture types

/// A struct stored as a property-list dictionary.
private struct Profile: Codable, SettingValue, Equatable {
  var name: String
  var age: Int
  var nickname: String?
  var joined: Date
  var avatar: Data
  var homepage: URL
  var scores: [Double]
}

/// Version 1 of a stored struct...
private struct ContactV1: Codable, SettingValue, Equatable {
  var name: String
}

/// ...and version 2, with a new non-optional field.
private struct ContactV2: Codable, SettingValue, Equatable {
  var name: String
  var age: Int
}

/// A single-value Codable wrapping a String.
private struct Username: Codable, SettingValue, Equatable {
  var rawName: String
  init(_ name: String) { rawName = name }
  init(from decoder: any Decoder) throws {
    rawName = try decoder.singleValueContainer().decode(String.self)
  }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawName)
  }
}

/// A single-value Codable wrapping a Date.
private struct Timestamp: Codable, SettingValue, Equatable {
  var date: Date
  init(_ date: Date) { self.date = date }
  init(from decoder: any Decoder) throws {
    date = try decoder.singleValueContainer().decode(Date.self)
  }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(date)
  }
}

/// A single-value Codable wrapping an Int.
private struct Count: Codable, SettingValue, Equatable {
  var value: Int
  init(_ value: Int) { self.value = value }
  init(from decoder: any Decoder) throws {
    value = try decoder.singleValueContainer().decode(Int.self)
  }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(value)
  }
}

/// An enum with a String raw value that is also Codable: stored as its raw value.
private enum Theme: String, Codable, SettingValue, CaseIterable {
  case light, dark, system
}

/// An enum with an Int raw value that is also Codable.
private enum Priority: Int, Codable, SettingValue {
  case low = 1, high = 9
}

/// An enum with associated values: stored as its Codable structure.
private enum Shape: Codable, SettingValue, Equatable {
  case circle(radius: Double)
  case rectangle(width: Int, height: Int)
}

/// A type stored as a JSON string, as sindresorhus/Defaults stores Codable values.
private struct LegacyProfile: Codable, JSONEncodedSettingValue, Equatable {
  var name: String
  var age: Int
}

/// A type whose value can't be a property list.
private struct Sparse: Codable, SettingValue, Equatable {
  var values: [Int?]
}

private struct CodableSettings: SettingsGroup {
  @Setting var profile = Profile.sample
  @Setting var contacts: [String: ContactV2] = [:]
  @Setting var username = Username("guest")
  @Setting var lastSeen = Timestamp(Date(timeIntervalSinceReferenceDate: 0))
  @Setting var count = Count(0)
  @Setting var theme = Theme.system
  @Setting var priority = Priority.low
  @Setting var shape = Shape.circle(radius: 1)
  @Setting var legacy = LegacyProfile(name: "", age: 0)
  @Setting var sparse = Sparse(values: [])
}

extension Profile {
  static let sample = Profile(
    name: "Ann", age: 7, nickname: nil, joined: Date(timeIntervalSinceReferenceDate: 700_000_000),
    avatar: Data([1, 2, 3]), homepage: URL(string: "https://example.com/ann")!, scores: [1.5, -2])
}

// MARK: - Tests

@Suite struct CodableSettingTests {
  @Test func aCodableStructIsStoredAsAPropertyListDictionary() throws {
    let backend = InMemoryBackend()
    let settings = CodableSettings(backend: backend)
    var profile = Profile.sample
    profile.nickname = "annie"
    settings.profile = profile
    #expect(
      backend.value(forKey: "profile") == [
        "name": "Ann", "age": 7, "nickname": "annie",
        "joined": .date(Date(timeIntervalSinceReferenceDate: 700_000_000)),
        "avatar": .data(Data([1, 2, 3])), "homepage": "https://example.com/ann",
        "scores": [1.5, -2.0],
      ])
    #expect(settings.profile == profile)
  }

  @Test func aNilOptionalPropertyIsLeftOutRatherThanStoredAsAPlaceholder() {
    let backend = InMemoryBackend()
    CodableSettings(backend: backend).profile = .sample
    let stored = backend.value(forKey: "profile")?.dictionaryValue
    #expect(stored?["nickname"] == nil)
    #expect(stored?.values.contains("$null") == false)
  }

  @Test func aPersonOpeningDataPlistSeesTheStructure() throws {
    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), options: .init(format: .xml))
    CodableSettings(backend: store).profile = .sample
    try store.save()
    let text = try String(contentsOf: directory.file("data.plist"), encoding: .utf8)
    #expect(text.contains("<key>profile</key>\n\t<dict>"))
    #expect(text.contains("<key>name</key>\n\t\t<string>Ann</string>"))
    #expect(text.contains("<key>age</key>\n\t\t<integer>7</integer>"))
  }

  /// Foundation's PropertyListEncoder refuses a bare scalar at the top level ("fragment").
  @Test func singleValueCodablesAreStoredAsScalars() {
    let backend = InMemoryBackend()
    let settings = CodableSettings(backend: backend)
    settings.username = Username("ann")
    settings.lastSeen = Timestamp(Date(timeIntervalSinceReferenceDate: 42))
    settings.count = Count(Int.min)
    #expect(backend.value(forKey: "username") == "ann")
    #expect(backend.value(forKey: "count") == .integer(.init(Int64.min)))
    #expect(settings.count == Count(Int.min))
    #expect(backend.value(forKey: "lastSeen") == .date(Date(timeIntervalSinceReferenceDate: 42)))
    #expect(settings.username == Username("ann"))
    #expect(settings.lastSeen == Timestamp(Date(timeIntervalSinceReferenceDate: 42)))
  }

  @Test func aRawRepresentableCodableEnumIsStoredAsItsRawValue() {
    let backend = InMemoryBackend()
    let settings = CodableSettings(backend: backend)
    settings.theme = .dark
    settings.priority = .high
    #expect(backend.value(forKey: "theme") == "dark")
    #expect(backend.value(forKey: "priority") == 9)
    #expect(settings.theme == .dark)
    #expect(settings.priority == .high)
  }

  @Test func anEnumWithAssociatedValuesIsStoredAsItsCodableStructure() {
    let backend = InMemoryBackend()
    let settings = CodableSettings(backend: backend)
    settings.shape = .rectangle(width: 3, height: 4)
    #expect(backend.value(forKey: "shape") == ["rectangle": ["width": 3, "height": 4]])
    #expect(settings.shape == .rectangle(width: 3, height: 4))
  }

  @Test func theJSONStrategyStoresAJSONStringAndReadsDefaultsData() throws {
    let suite = TemporarySuite()
    let settings = CodableSettings(backend: suite.backend)
    settings.legacy = LegacyProfile(name: "Ann", age: 7)
    #expect(suite.backend.value(forKey: "legacy") == #"{"age":7,"name":"Ann"}"#)
    // A value written by sindresorhus/Defaults: a JSON string in UserDefaults.
    suite.backend.userDefaults.set(#"{"name":"Bob","age":40}"#, forKey: "legacy")
    // On Linux the backend takes in raw UserDefaults writes of keys it holds at its next
    // reload() or synchronize(); on Apple platforms it reads UserDefaults directly.
    try suite.backend.reload()
    #expect(settings.legacy == LegacyProfile(name: "Bob", age: 40))
    // JSON stored as data reads too.
    try suite.backend.setValue(.data(Data(#"{"name":"Cy","age":1}"#.utf8)), forKey: "legacy")
    #expect(settings.legacy == LegacyProfile(name: "Cy", age: 1))
  }

  @Test func aValueThatCannotBeAPropertyListIsAClearErrorAtWriteTime() {
    let backend = InMemoryBackend()
    let settings = CodableSettings(backend: backend)
    let error = #expect(throws: SettingsError.self) {
      try settings.$sparse.set(Sparse(values: [1, nil]))
    }
    #expect(error?.code == .valueNotRepresentable)
    #expect(
      error?.description
        == "Cannot store the value for 'sparse': values[1]: nil can't be stored in an array: property lists have no null"
    )
    let (_, diagnostics) = collectingDiagnostics { settings.sparse = Sparse(values: [nil]) }
    #expect(diagnostics.map(\.kind) == [.writeFailed])
    #expect(backend.value(forKey: "sparse") == nil)
  }

  @Test func aStoredStructMissingANewRequiredFieldReadsAsTheDefaultAndSaysWhy() throws {
    let backend = InMemoryBackend(["contact": ["name": "Ann"]], name: "memory")
    struct V2Settings: SettingsGroup {
      @Setting var contact = ContactV2(name: "default", age: 0)
    }
    let settings = V2Settings(backend: backend)
    let (value, diagnostics) = collectingDiagnostics { settings.contact }
    #expect(value == ContactV2(name: "default", age: 0))
    #expect(diagnostics.count == 1)
    #expect(diagnostics.first?.message.contains("(age: Missing (a required key))") == true)
    #expect(backend.value(forKey: "contact") == ["name": "Ann"])
  }

  @Test(arguments: BackendFactory.all)
  func everyCodableFormRoundTripsThroughEveryBackend(_ factory: BackendFactory) async throws {
    try await factory.withInstance { instance in
      let settings = CodableSettings(backend: instance.backend)
      settings.profile = .sample
      settings.contacts = [
        "ann": ContactV2(name: "Ann", age: 7), "bob": ContactV2(name: "Bob", age: 40),
      ]
      settings.username = Username("ann")
      settings.lastSeen = Timestamp(Date(timeIntervalSinceReferenceDate: 42))
      settings.count = Count(Int.max)
      settings.theme = .dark
      settings.priority = .high
      settings.shape = .rectangle(width: 3, height: 4)
      settings.legacy = LegacyProfile(name: "Ann", age: 7)

      let reloaded = CodableSettings(backend: try instance.reload())
      #expect(reloaded.profile == .sample)
      #expect(reloaded.contacts == settings.contacts)
      #expect(reloaded.username == Username("ann"))
      #expect(reloaded.lastSeen == Timestamp(Date(timeIntervalSinceReferenceDate: 42)))
      #expect(reloaded.count == Count(Int.max))
      #expect(reloaded.theme == .dark)
      #expect(reloaded.priority == .high)
      #expect(reloaded.shape == .rectangle(width: 3, height: 4))
      #expect(reloaded.legacy == LegacyProfile(name: "Ann", age: 7))
    }
  }
}

@Suite struct PropertyListValueCodingTests {
  @Test func topLevelScalarsEncodeAndDecode() throws {
    let encoder = PropertyListValueEncoder()
    let decoder = PropertyListValueDecoder()
    #expect(try encoder.encode("text") == "text")
    #expect(try encoder.encode(42) == 42)
    #expect(try encoder.encode(UInt64.max) == .integer(.init(UInt64.max)))
    #expect(
      try encoder.encode(Date(timeIntervalSinceReferenceDate: 1))
        == .date(Date(timeIntervalSinceReferenceDate: 1)))
    #expect(try decoder.decode(String.self, from: "text") == "text")
    #expect(try decoder.decode(UInt64.self, from: .integer(.init(UInt64.max))) == .max)
  }

  @Test func nilIsOmittedFromDictionariesAndRefusedElsewhere() throws {
    let encoder = PropertyListValueEncoder()
    #expect(try encoder.encode(["a": 1, "b": nil] as [String: Int?]) == ["a": 1])
    #expect(throws: EncodingError.self) { try encoder.encode([1, nil] as [Int?]) }
    #expect(throws: EncodingError.self) { try encoder.encode(nil as Int?) }
  }

  @Test func decodingFollowsTheSettingsConversionRules() throws {
    let decoder = PropertyListValueDecoder()
    #expect(try decoder.decode(Double.self, from: 42) == 42.0)
    #expect(try decoder.decode(Int.self, from: 3.0) == 3)
    #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: 12.5) }
    #expect(throws: DecodingError.self) { try decoder.decode(UInt8.self, from: 256) }
    #expect(try decoder.decode([String: Int].self, from: ["a": 1]) == ["a": 1])
    #expect(try decoder.decode([Int: String].self, from: ["1": "one"]) == [1: "one"])
  }

  @Test func decodingErrorsNameThePath() {
    #expect(throws: DecodingError.self) {
      try PropertyListValueDecoder().decode(Profile.self, from: ["name": "Ann"])
    }
    let reason = Profile.readFailureReason(for: ["name": "Ann", "age": "old"])
    #expect(reason == "age: Expected Int, found a string (old)")
  }
}
