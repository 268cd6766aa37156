import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsSchema
import TypedDefaultsTestSupport

@testable import TypedDefaults

// MARK: - Fixture models

/// The cases the player model doesn't cover: a negative integer range, a real without a full
/// range, a UUID, a Boolean whose allowed values leave one out, an enum with `Int` raw values, a
/// secret number, and shapes the Settings app can't edit.
private struct MoreBundleSettings: SettingsGroup {
  @Setting(in: -12...12, help: "Bass, in dB.") var bass = 0
  @Setting(in: ...60.0) var delay = 5.0
  @Setting var ratio = 0.5
  @Setting var installation = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))
  @Setting(allowedValues: [true]) var accepted = true
  @Setting var level = SchemaLevel.high
  @Setting(secret: true) var pin = 1234
  @Setting var icon = Data([1, 2])
  @Setting var limits: [String: Int] = ["upload": 10]
  @Setting("bell", help: "Rings \u{7}") var bell = false
}

/// The documented keys of each specifier type (Apple's Settings Application Schema Reference),
/// and those each type requires.
private let documentedKeys: [String: (all: Set<String>, required: Set<String>)] = [
  "PSGroupSpecifier": (["Type", "Title", "FooterText"], ["Type"]),
  "PSToggleSwitchSpecifier": (
    ["Type", "Title", "Key", "DefaultValue", "TrueValue", "FalseValue"],
    ["Type", "Title", "Key", "DefaultValue"]
  ),
  "PSSliderSpecifier": (
    [
      "Type", "Key", "DefaultValue", "MinimumValue", "MaximumValue", "MinimumValueImage",
      "MaximumValueImage",
    ],
    ["Type", "Key", "DefaultValue", "MinimumValue", "MaximumValue"]
  ),
  "PSTextFieldSpecifier": (
    [
      "Type", "Title", "Key", "DefaultValue", "IsSecure", "KeyboardType",
      "AutocapitalizationType", "AutocorrectionType",
    ],
    ["Type", "Key"]
  ),
  "PSMultiValueSpecifier": (
    [
      "Type", "Title", "Key", "DefaultValue", "Values", "Titles", "ShortTitles",
      "DisplaySortedByTitle",
    ],
    ["Type", "Title", "Key", "Values", "Titles"]
  ),
]

private let keyboardTypes: Set<PropertyListValue> = [
  "Alphabet", "NumbersAndPunctuation", "NumberPad", "URL", "EmailAddress",
]

/// `SettingsSchema.settingsBundle()` (issue 22): an iOS Settings bundle's `Root.plist` with the
/// specifier each setting's shape and range call for, read by plistlib and by
/// `SettingsBundleSource`.
@Suite struct SettingsBundleExportTests {
  static let prefix = "com.example.player."

  static func specifiers(_ root: PropertyListValue) -> [[String: PropertyListValue]] {
    guard case .dictionary(let dictionary) = root,
      case .array(let items)? = dictionary["PreferenceSpecifiers"]
    else { return [] }
    return items.compactMap { item in
      if case .dictionary(let specifier) = item { specifier } else { nil }
    }
  }

  @Test func aModelGivesTheExactSpecifiers() {
    let root = SchemaPlayerSettings(backend: InMemoryBackend()).schema.settingsBundle()
    let key = { (name: String) in PropertyListValue.string(Self.prefix + name) }
    let expected: PropertyListValue = [
      "StringsTable": "Root",
      "PreferenceSpecifiers": [
        [
          "Type": "PSTextFieldSpecifier", "Title": "The API token.", "Key": key("apiToken"),
          "IsSecure": true, "KeyboardType": "Alphabet", "AutocapitalizationType": "None",
          "AutocorrectionType": "No",
        ],
        [
          "Type": "PSMultiValueSpecifier", "Title": "The audio codec.", "Key": key("codec"),
          "DefaultValue": "aac", "Values": ["aac", "opus"], "Titles": ["aac", "opus"],
        ],
        // lastPlayed (a date) is left out.
        [
          "Type": "PSTextFieldSpecifier", "Title": key("nickname"), "Key": key("nickname"),
          "KeyboardType": "Alphabet",
        ],
        [
          "Type": "PSToggleSwitchSpecifier", "Title": "Skip the silence between tracks.",
          "Key": key("playback.skipsSilence"), "DefaultValue": false,
        ],
        [
          "Type": "PSGroupSpecifier", "Title": "Playback volume, 0 to 1.",
          "FooterText": "0.0...1.0",
        ],
        [
          "Type": "PSSliderSpecifier", "Key": key("playback.volume"), "DefaultValue": 0.8,
          "MinimumValue": 0.0, "MaximumValue": 1.0,
        ],
        ["Type": "PSGroupSpecifier"],
        [
          "Type": "PSMultiValueSpecifier", "Title": "Video quality.", "Key": key("quality"),
          "DefaultValue": "auto", "Values": ["auto", "hd", "sd"], "Titles": ["auto", "hd", "sd"],
        ],
        // recentSearches (an array) is left out.
        [
          "Type": "PSTextFieldSpecifier", "Title": "Retries before giving up.",
          "Key": key("retries"), "DefaultValue": "3", "KeyboardType": "NumberPad",
        ],
        [
          "Type": "PSTextFieldSpecifier", "Title": "The server to stream from.",
          "Key": key("server"), "DefaultValue": "https://example.com/a", "KeyboardType": "URL",
          "AutocapitalizationType": "None", "AutocorrectionType": "No",
        ],
      ],
    ]
    #expect(root == expected)
  }

  @Test func rangesKindsAndSecretsPickTheirSpecifiersAndUneditableShapesAreLeftOut() {
    let root = MoreBundleSettings(backend: InMemoryBackend()).schema.settingsBundle()
    let expected: [PropertyListValue] = [
      // A Boolean that accepts only `true`: a multi-value, so that `false` can't be picked.
      [
        "Type": "PSMultiValueSpecifier", "Title": "accepted", "Key": "accepted",
        "DefaultValue": true, "Values": [true], "Titles": ["true"],
      ],
      [
        "Type": "PSTextFieldSpecifier", "Title": "Bass, in dB.", "Key": "bass",
        "DefaultValue": "0", "KeyboardType": "NumbersAndPunctuation",
      ],
      // A help text the XML can't hold is still a title here (settingsBundleData() throws).
      [
        "Type": "PSToggleSwitchSpecifier", "Title": "Rings \u{7}", "Key": "bell",
        "DefaultValue": false,
      ],
      [
        "Type": "PSTextFieldSpecifier", "Title": "delay", "Key": "delay", "DefaultValue": "5.0",
        "KeyboardType": "NumbersAndPunctuation",
      ],
      // icon (data) is left out.
      [
        "Type": "PSTextFieldSpecifier", "Title": "installation", "Key": "installation",
        "DefaultValue": "00000000-0000-0000-0000-000000000001",
        "AutocapitalizationType": "None", "AutocorrectionType": "No",
      ],
      [
        "Type": "PSMultiValueSpecifier", "Title": "level", "Key": "level", "DefaultValue": 3,
        "Values": [1, 3], "Titles": ["1", "3"],
      ],
      // limits (a dictionary) is left out.
      [
        "Type": "PSTextFieldSpecifier", "Title": "pin", "Key": "pin", "IsSecure": true,
        "KeyboardType": "NumbersAndPunctuation", "AutocapitalizationType": "None",
        "AutocorrectionType": "No",
      ],
      [
        "Type": "PSTextFieldSpecifier", "Title": "ratio", "Key": "ratio", "DefaultValue": "0.5",
        "KeyboardType": "NumbersAndPunctuation",
      ],
    ]
    #expect(Self.specifiers(root).map(PropertyListValue.dictionary) == expected)
  }

  @Test func everySpecifierUsesOnlyDocumentedKeysAndHasTheRequiredOnes() {
    let schemas = [
      SchemaPlayerSettings(backend: InMemoryBackend()).schema,
      MoreBundleSettings(backend: InMemoryBackend()).schema,
      AllTypesSettings(backend: InMemoryBackend()).schema,
    ]
    var count = 0
    for schema in schemas {
      let root = schema.settingsBundle()
      guard case .dictionary(let dictionary) = root else {
        Issue.record("the root is not a dictionary")
        continue
      }
      #expect(Set(dictionary.keys) == ["PreferenceSpecifiers", "StringsTable"])
      for specifier in Self.specifiers(root) {
        count += 1
        guard case .string(let type)? = specifier["Type"], let keys = documentedKeys[type] else {
          Issue.record("undocumented type: \(specifier)")
          continue
        }
        #expect(Set(specifier.keys).isSubset(of: keys.all), "\(specifier)")
        // A required DefaultValue is absent only where the setting has none.
        let required = keys.required.subtracting(["DefaultValue"])
        #expect(required.isSubset(of: Set(specifier.keys)), "\(specifier)")
        if let keyboard = specifier["KeyboardType"] {
          #expect(keyboardTypes.contains(keyboard))
        }
      }
    }
    #expect(count == 10 + 8 + 19)
  }

  @Test func everyValueTypeExportsWithoutCrashingAndTheUneditableOnesAreLeftOut() {
    let root = AllTypesSettings(backend: InMemoryBackend()).schema.settingsBundle()
    let listed = Self.specifiers(root).map { [$0["Key"], $0["Type"]] }
    #expect(
      listed
        == [
          ["bool", "PSToggleSwitchSpecifier"], ["double", "PSTextFieldSpecifier"],
          ["float", "PSTextFieldSpecifier"], ["int", "PSTextFieldSpecifier"],
          ["int16", "PSTextFieldSpecifier"], ["int32", "PSTextFieldSpecifier"],
          ["int64", "PSTextFieldSpecifier"], ["int8", "PSTextFieldSpecifier"],
          ["onOff", "PSToggleSwitchSpecifier"], ["optional", "PSTextFieldSpecifier"],
          ["quality", "PSMultiValueSpecifier"], ["string", "PSTextFieldSpecifier"],
          ["uint", "PSTextFieldSpecifier"], ["uint16", "PSTextFieldSpecifier"],
          ["uint32", "PSTextFieldSpecifier"], ["uint64", "PSTextFieldSpecifier"],
          ["uint8", "PSTextFieldSpecifier"], ["url", "PSTextFieldSpecifier"],
          ["uuid", "PSTextFieldSpecifier"],
        ].map { $0.map(Optional.some) })
  }

  @Test func aManagedSettingIsStillListed() throws {
    let folder = try TemporaryDirectory()
    let managed = ManagedSettingsSource(managedConfiguration: {
      ["com.example.player.retries": 9]
    })
    let store = try LayeredPlistStore(
      persistentFile: folder.file("data.plist"), layers: [.source(managed), .runtime, .persistent])
    let root = SchemaPlayerSettings(backend: store).schema.settingsBundle()
    #expect(root == SchemaPlayerSettings(backend: InMemoryBackend()).schema.settingsBundle())
  }

  @Test func aTitleXMLCantHoldMakesTheDataThrow() {
    let schema = MoreBundleSettings(backend: InMemoryBackend()).schema
    #expect(throws: SettingsError.self) { try schema.settingsBundleData() }
    do {
      _ = try schema.settingsBundleData()
    } catch {
      #expect(error.code == .valueNotRepresentable)
      #expect(error.path == "Root.plist")
    }
  }

  // MARK: - Read back

  /// Writes the player model's bundle as `Settings.bundle/Root.plist` in `folder`.
  static func writeBundle(in folder: TemporaryDirectory) throws -> URL {
    let bundle = folder.url.appendingPathComponent("Settings.bundle", isDirectory: true)
    try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
    let data = try SchemaPlayerSettings(backend: InMemoryBackend()).schema.settingsBundleData()
    try data.write(to: bundle.appendingPathComponent("Root.plist"))
    return bundle
  }

  @Test func theBundleOpensInPlistlibWithTheExpectedSpecifiers() throws {
    let folder = try TemporaryDirectory()
    let bundle = try Self.writeBundle(in: folder)
    let script = """
      import plistlib, sys
      with open(sys.argv[1], "rb") as f:
          root = plistlib.load(f, fmt=plistlib.FMT_XML)
      print("StringsTable", root["StringsTable"])
      for item in root["PreferenceSpecifiers"]:
          default = item.get("DefaultValue")
          print(item["Type"], item.get("Key", "-"), type(default).__name__, repr(default))
      """
    let (outcome, output) = try runPython(
      script, [bundle.appendingPathComponent("Root.plist").path])
    #expect(outcome == .exited(0))
    let p = Self.prefix
    #expect(
      output.split(separator: "\n").map(String.init) == [
        "StringsTable Root",
        "PSTextFieldSpecifier \(p)apiToken NoneType None",
        "PSMultiValueSpecifier \(p)codec str 'aac'",
        "PSTextFieldSpecifier \(p)nickname NoneType None",
        "PSToggleSwitchSpecifier \(p)playback.skipsSilence bool False",
        "PSGroupSpecifier - NoneType None",
        "PSSliderSpecifier \(p)playback.volume float 0.8",
        "PSGroupSpecifier - NoneType None",
        "PSMultiValueSpecifier \(p)quality str 'auto'",
        "PSTextFieldSpecifier \(p)retries str '3'",
        "PSTextFieldSpecifier \(p)server str 'https://example.com/a'",
      ])
  }

  @Test func settingsBundleSourceReadsBackEachExportedDefault() throws {
    let folder = try TemporaryDirectory()
    let bundle = try Self.writeBundle(in: folder)
    let contents = try SettingsBundleSource(bundle: bundle).read()
    let p = Self.prefix
    #expect(contents.problems.isEmpty)
    #expect(
      contents.values == [
        "\(p)codec": "aac", "\(p)playback.skipsSilence": false, "\(p)playback.volume": 0.8,
        "\(p)quality": "auto", "\(p)retries": "3", "\(p)server": "https://example.com/a",
      ])

    // On a store with the bundle as a layer, each listed setting reads the bundle's value, as
    // its type reads it (the text field's "3" as the Int 3), equal to its declared default.
    let store = try LayeredPlistStore(
      persistentFile: folder.file("data.plist"),
      layers: [.runtime, .persistent, .source(SettingsBundleSource(bundle: bundle))])
    let settings = SchemaPlayerSettings(backend: store)
    let fromBundle = settings.allSettings.filter { contents.values[$0.key] != nil }
    #expect(fromBundle.count == 6)
    for setting in fromBundle {
      #expect(setting.hasStoredValue, "\(setting.key)")
      #expect(!setting.readsDefaultValue, "\(setting.key)")
      #expect(setting.value == setting.defaultValue, "\(setting.key)")
    }
    #expect(settings.retries == 3)
  }
}
