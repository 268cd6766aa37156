import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsSchema
import TypedDefaultsTestSupport

@testable import TypedDefaults

// MARK: - Fixture models

/// A `Codable` struct with no shape of its own: the schema takes the shape of its default.
private struct WindowFrame: Codable, SettingValue, Equatable {
  var width: Int
  var height: Int
}

/// A `Codable` struct whose fields store different kinds.
private struct Profile: Codable, SettingValue, Equatable {
  var name: String
  var age: Int
}

private struct OtherTypesSettings: SettingsGroup {
  @Setting var level = SchemaLevel.low
  @Setting var frame = WindowFrame(width: 640, height: 480)
  @Setting var profile = Profile(name: "Ada", age: 36)
  @Setting var raw: PropertyListValue = ["a": 1]
  @Setting var codecs: [SchemaCodec] = [.aac]
  @Setting var uuids: [UUID] = []
  @Setting("token", default: "s3cr3t", secret: true) var token: String
  @Setting(secret: true) var pin: Int?
}

/// A group that declares its own prefix, used whatever the property is called.
private struct DownloadSettings: SettingsGroup {
  static let keyPrefix = "downloads."
  @Setting(help: "Download on Wi-Fi only.") var wifiOnly = true
}

private struct EqualizerSettings: SettingsGroup {
  @Setting(in: -12...12) var bass = 0
}

private struct NestedPlaybackSettings: SettingsGroup {
  @Setting var autoplay = true
  var equalizer = EqualizerSettings()
}

/// A struct model with a prefix and nested groups.
private struct AppSettings: SettingsGroup {
  static let keyPrefix = "com.example.app."
  @Setting var theme = "dark"
  var playback = NestedPlaybackSettings()
  var offline = DownloadSettings()
}

/// A class model with a prefix and nested groups, and a subclass that adds a setting.
private class ClassAppSettings: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting or a group of them.
  override class var keyPrefix: String { "com.example.class." }
  @Setting var theme = "light"
  var playback = NestedPlaybackSettings()
  var offline = DownloadSettings()
}

private final class SubclassedAppSettings: ClassAppSettings, @unchecked Sendable {
  @Setting("launches") var launchCount = 0
}

/// A secret with allowed values, beside a plain setting with some.
private struct SecretChoiceSettings: SettingsGroup {
  @Setting("code", default: "alpha-7", allowedValues: ["alpha-7", "bravo-9"], secret: true)
  var code: String
  @Setting("codec", default: "aac", allowedValues: ["aac", "opus"]) var codec: String
}

/// `SettingsContainer.schema` and `SettingSchema` (issue 22): the shape, default and accepted
/// values each declaration gives, keys with every prefix, and `problem(with:)`.
@Suite struct SettingsSchemaTests {
  /// A secret's allowed values were exported (JSON Schema's `enum`, the Markdown reference, the
  /// managed app configuration's `<values>`).
  @Test func aSecretsAllowedValuesAreInNoExport() throws {
    let schema = SecretChoiceSettings(backend: InMemoryBackend()).schema
    let exports: [(String, String)] = [
      ("JSON Schema", String(decoding: schema.jsonSchema(), as: UTF8.self)),
      ("Markdown", schema.markdownReference()),
      ("managed app configuration", schema.managedAppConfiguration(bundleIdentifier: "com.x")),
      ("Settings.bundle", String(decoding: try schema.settingsBundleData(), as: UTF8.self)),
    ]
    for (name, text) in exports {
      #expect(!text.contains("alpha-7") && !text.contains("bravo-9"), "\(name): \(text)")
      #expect(text.contains("opus"), "\(name) lists a plain setting's allowed values")
    }
    let read = try SettingsSchema(jsonSchema: schema.jsonSchema())
    #expect(read["code"]?.isSecret == true)
    #expect(read["code"]?.allowedValues == nil)
    #expect(schema.markdownReference().contains("| one of its secret allowed values |"))
  }

  typealias Shape = SettingSchema.Shape

  /// One expected row: key, Swift type name, shape, optional flag, default, allowed values.
  struct Row: Equatable, CustomStringConvertible {
    var key: String
    var typeName: String
    var shape: Shape
    var isOptional = false
    var defaultValue: PropertyListValue?
    var allowedValues: [PropertyListValue]?

    var description: String {
      "\(key): \(typeName) \(shape) optional=\(isOptional) default=\(String(describing: defaultValue))"
        + " allowed=\(String(describing: allowedValues))"
    }

    init(
      _ key: String, _ typeName: String, _ shape: Shape, optional: Bool = false,
      _ defaultValue: PropertyListValue?, allowed: [PropertyListValue]? = nil
    ) {
      self.key = key
      self.typeName = typeName
      self.shape = shape
      self.isOptional = optional
      self.defaultValue = defaultValue
      self.allowedValues = allowed
    }

    init(_ setting: SettingSchema) {
      self.init(
        setting.key, setting.typeName, setting.shape, optional: setting.isOptional,
        setting.defaultValue, allowed: setting.allowedValues)
    }
  }

  static let zeroUUID = "00000000-0000-0000-0000-000000000000"

  @Test func everyBuiltInValueTypeHasItsExactShapeAndDefault() {
    let schema = AllTypesSettings(backend: InMemoryBackend()).schema
    #expect(schema.title == "AllTypesSettings")
    let expected: [Row] = [
      Row("archived", "Archived<ArchivedSample>?", .data, optional: true, nil),
      Row("array", "[String]", .array(of: .string(format: nil)), .array([])),
      Row("bool", "Bool", .bool, false),
      Row("closedRange", "ClosedRange<Int>", .array(of: .integer), [0, 0]),
      Row(
        "data", "Data", .data, .data(Data())),
      Row(
        "date", "Date", .date, .date(Date(timeIntervalSinceReferenceDate: 0))),
      Row(
        "dateRange", "ClosedRange<Date>", .array(of: .date),
        [.date(.distantPast), .date(.distantFuture)]),
      Row("dictionary", "[String: Int]", .dictionary(of: .integer), .dictionary([:])),
      Row("double", "Double", .real, 0.0),
      Row("float", "Float", .real, 0.0),
      Row("int", "Int", .integer, 0),
      Row("int16", "Int16", .integer, 0),
      Row("int32", "Int32", .integer, 0),
      Row("int64", "Int64", .integer, 0),
      Row("int8", "Int8", .integer, 0),
      Row("onOff", "Switch", .bool, false),
      Row("optional", "Int?", .integer, optional: true, nil),
      Row("quality", "Quality", .string(format: nil), "auto", allowed: ["auto", "low", "high"]),
      Row("range", "Range<Int>", .array(of: .integer), [0, 0]),
      Row("set", "Set<Int>", .array(of: .integer), .array([])),
      Row("string", "String", .string(format: nil), ""),
      Row("uint", "UInt", .integer, 0),
      Row("uint16", "UInt16", .integer, 0),
      Row("uint32", "UInt32", .integer, 0),
      Row("uint64", "UInt64", .integer, 0),
      Row("uint8", "UInt8", .integer, 0),
      Row("url", "URL", .string(format: .url), "/"),  // a file URL is stored as its path
      Row("uuid", "UUID", .string(format: .uuid), .string(Self.zeroUUID)),
    ]
    let found = schema.settings.map(Row.init)
    #expect(found.map(\.key) == expected.map(\.key))
    for (row, want) in zip(found, expected) {
      #expect(row == want)
    }
    // An integer type narrower than a property list's integers bounds what it reads: the schema
    // says so, as a range nobody declared.
    let widths: [String: (PropertyListValue?, PropertyListValue?)] = [
      "int8": (-128, 127), "int16": (-32768, 32767), "int32": (-2_147_483_648, 2_147_483_647),
      "uint": (0, nil), "uint8": (0, 255), "uint16": (0, 65535), "uint32": (0, 4_294_967_295),
      "uint64": (0, nil),
    ]
    for setting in schema.settings {
      #expect(setting.propertyPath == setting.key)
      #expect(setting.help == nil)
      let width = widths[setting.key] ?? (nil, nil)
      #expect(setting.minimum == width.0 && setting.maximum == width.1, "\(setting.key)")
      #expect(!setting.isSecret && !setting.isManaged)
    }
    #expect(
      schema["int8"]?.problem(with: .integer(1000)) == "1000 is greater than the maximum, 127")
    #expect(schema["uint"]?.problem(with: .integer(-5)) == "-5 is less than the minimum, 0")
  }

  @Test func enumsCodableStructsAndPropertyListValuesTakeTheShapeTheyStore() {
    let schema = OtherTypesSettings(backend: InMemoryBackend()).schema
    let found = schema.settings.filter { $0.key != "raw" }.map(Row.init)
    #expect(
      found == [
        Row("codecs", "[SchemaCodec]", .array(of: .string(format: nil)), ["aac"]),
        // A Codable struct says nothing: its default's kind, a dictionary of any values (an
        // optional field absent from the default may hold anything)…
        Row("frame", "WindowFrame", .dictionary(of: .any), ["height": 480, "width": 640]),
        Row("level", "SchemaLevel", .integer, 1, allowed: [1, 3]),
        Row("pin", "Int?", .integer, optional: true, nil),
        // …here too.
        Row("profile", "Profile", .dictionary(of: .any), ["age": 36, "name": "Ada"]),
        // A secret's default is withheld.
        Row("token", "String", .string(format: nil), nil),
        Row("uuids", "[UUID]", .array(of: .string(format: .uuid)), .array([])),
      ])
    // A PropertyListValue setting stores any value, whatever its default's shape.
    #expect(schema["raw"]?.shape == .any)
    #expect(schema["raw"]?.problem(with: "text") == nil)
    #expect(schema["raw"]?.defaultValue == ["a": 1])
    #expect(schema["token"]?.isSecret == true)
    #expect(schema["pin"]?.isSecret == true)
    #expect(schema["raw"]?.isSecret == false)
    // The secret's value is in the model, not in its schema.
    #expect(!"\(schema)".contains("s3cr3t"))
  }

  @Test func helpRangesAndAllowedValuesAreInTheSchema() throws {
    let schema = SchemaPlayerSettings(backend: InMemoryBackend()).schema
    #expect(schema.title == "SchemaPlayerSettings")
    let volume = try #require(schema["com.example.player.playback.volume"])
    #expect(volume.help == "Playback volume, 0 to 1.")
    #expect(volume.minimum == 0.0 && volume.maximum == 1.0)
    #expect(volume.rangeDescription == "0.0...1.0")
    let retries = try #require(schema["com.example.player.retries"])
    #expect(retries.minimum == 0 && retries.maximum == nil)
    #expect(retries.rangeDescription == "≥ 0")
    #expect(retries.help == "Retries before giving up.")
    #expect(schema["com.example.player.quality"]?.allowedValues == ["auto", "hd", "sd"])
    #expect(schema["com.example.player.codec"]?.allowedValues == ["aac", "opus"])
    #expect(schema["com.example.player.apiToken"]?.defaultValue == nil)
    #expect(schema["com.example.player.apiToken"]?.help == "The API token.")
    #expect(schema["com.example.player.nickname"]?.rangeDescription == nil)
    #expect(schema["volume"] == nil)  // keys are full keys
  }

  @Test func aStructModelsNestedGroupsAndPrefixesGiveFullKeysAndPropertyPaths() {
    let schema = AppSettings(backend: InMemoryBackend()).schema
    #expect(schema.title == "AppSettings")
    #expect(
      schema.settings.map { [$0.key, $0.propertyPath ?? "-"] } == [
        ["com.example.app.downloads.wifiOnly", "offline.wifiOnly"],
        ["com.example.app.playback.autoplay", "playback.autoplay"],
        ["com.example.app.playback.equalizer.bass", "playback.equalizer.bass"],
        ["com.example.app.theme", "theme"],
      ])
    #expect(schema["com.example.app.playback.equalizer.bass"]?.minimum == -12)
    #expect(schema["com.example.app.downloads.wifiOnly"]?.help == "Download on Wi-Fi only.")
  }

  @Test func aClassModelAndItsSubclassGiveFullKeysAndPropertyPaths() {
    let schema = SubclassedAppSettings(backend: InMemoryBackend()).schema
    #expect(schema.title == "SubclassedAppSettings")
    #expect(
      schema.settings.map { [$0.key, $0.propertyPath ?? "-"] } == [
        ["com.example.class.downloads.wifiOnly", "offline.wifiOnly"],
        ["com.example.class.launches", "launchCount"],
        ["com.example.class.playback.autoplay", "playback.autoplay"],
        ["com.example.class.playback.equalizer.bass", "playback.equalizer.bass"],
        ["com.example.class.theme", "theme"],
      ])
    #expect(schema.settings.map(\.typeName) == ["Bool", "Int", "Bool", "Int", "String"])
  }

  @Test func aKeyTheBackendEnforcesIsManaged() throws {
    let folder = try TemporaryDirectory()
    let managed = ManagedSettingsSource(managedConfiguration: { ["com.example.app.theme": "red"] })
    let store = try LayeredPlistStore(
      persistentFile: folder.file("data.plist"),
      layers: [.source(managed), .runtime, .persistent])
    let schema = AppSettings(backend: store).schema
    #expect(schema.settings.filter(\.isManaged).map(\.key) == ["com.example.app.theme"])
    // The schema gives the declared default, not the enforced value.
    #expect(schema["com.example.app.theme"]?.defaultValue == "dark")
  }

  // MARK: - problem(with:)

  @Test func aValueOfTheWrongKindIsNamedWithTheDeclaredType() throws {
    let schema = SchemaPlayerSettings(backend: InMemoryBackend()).schema
    let volume = try #require(schema["com.example.player.playback.volume"])
    #expect(volume.problem(with: "loud") == "a string where a real is declared (Double)")
    #expect(volume.problem(with: true) == "a bool where a real is declared (Double)")
    #expect(volume.problem(with: 1) == nil)  // a real setting reads an integer exactly
    let retries = try #require(schema["com.example.player.retries"])
    #expect(retries.problem(with: 2.5) == "a real where an integer is declared (Int)")
    let searches = try #require(schema["com.example.player.recentSearches"])
    #expect(
      searches.problem(with: ["jazz", 3])
        == "element 1: an integer where a string is declared ([String])")
    #expect(
      searches.problem(with: "jazz") == "a string where an array of strings is declared ([String])"
    )
    let lastPlayed = try #require(schema["com.example.player.lastPlayed"])
    #expect(lastPlayed.problem(with: "2026-01-01") == "a string where a date is declared (Date)")
  }

  @Test func aValueOutsideTheRangeOrNotAllowedIsNamed() throws {
    let schema = SchemaPlayerSettings(backend: InMemoryBackend()).schema
    let volume = try #require(schema["com.example.player.playback.volume"])
    #expect(volume.problem(with: 1.5) == "1.5 is greater than the maximum, 1.0")
    #expect(volume.problem(with: -0.1) == "-0.1 is less than the minimum, 0.0")
    #expect(volume.problem(with: 2) == "2 is greater than the maximum, 1.0")
    #expect(volume.problem(with: 1.0) == nil && volume.problem(with: 0) == nil)
    let retries = try #require(schema["com.example.player.retries"])
    #expect(retries.problem(with: -1) == "-1 is less than the minimum, 0")
    #expect(retries.problem(with: .integer(.init(UInt64.max))) == nil)
    let quality = try #require(schema["com.example.player.quality"])
    #expect(quality.problem(with: "4k") == "4k is not one of the allowed values (auto, hd, sd)")
    #expect(
      quality.problem(with: "ultra hd")
        == "\"ultra hd\" is not one of the allowed values (auto, hd, sd)")
    let codec = try #require(schema["com.example.player.codec"])
    #expect(codec.problem(with: "mp3") == "mp3 is not one of the allowed values (aac, opus)")
    #expect(codec.problem(with: "opus") == nil)
    #expect(
      schema.problem(with: "mp3", forKey: "com.example.player.codec") == codec.problem(with: "mp3"))
    #expect(schema.problem(with: "anything", forKey: "com.example.player.undeclared") == nil)
  }

  @Test func aBadURLOrUUIDStringIsNamed() throws {
    let schema = SchemaPlayerSettings(backend: InMemoryBackend()).schema
    let server = try #require(schema["com.example.player.server"])
    #expect(server.problem(with: "example.com") == "'example.com' is not an absolute URL (URL)")
    #expect(server.problem(with: "https://example.com/b") == nil)
    // URL stores a file URL as its path, and reads a path (and `~/…`) back as a file URL.
    #expect(server.problem(with: "/var/tmp/a b") == nil)
    #expect(server.problem(with: "~/Music") == nil)
    #expect(server.problem(with: "") == "'' is not an absolute URL (URL)")
    let uuid = try #require(AllTypesSettings(backend: InMemoryBackend()).schema["uuid"])
    #expect(uuid.problem(with: "not-a-uuid") == "'not-a-uuid' is not a UUID (UUID)")
    #expect(uuid.problem(with: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") == nil)
    let uuids = try #require(OtherTypesSettings(backend: InMemoryBackend()).schema["uuids"])
    #expect(uuids.problem(with: ["x"]) == "element 0: 'x' is not a UUID ([UUID])")
  }

  @Test func everyDefaultOfARealisticModelFitsItsSchema() {
    let schemas = [
      SchemaPlayerSettings(backend: InMemoryBackend()).schema,
      AllTypesSettings(backend: InMemoryBackend()).schema,
      OtherTypesSettings(backend: InMemoryBackend()).schema,
      AppSettings(backend: InMemoryBackend()).schema,
      SubclassedAppSettings(backend: InMemoryBackend()).schema,
    ]
    var checked = 0
    for schema in schemas {
      for setting in schema.settings {
        guard let value = setting.defaultValue else { continue }
        #expect(setting.problem(with: value) == nil, "\(setting.key)")
        checked += 1
      }
    }
    #expect(checked == 49)
  }
}
