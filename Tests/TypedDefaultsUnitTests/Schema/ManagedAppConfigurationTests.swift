import Foundation
import Testing
import TypedDefaultsSchema
import TypedDefaultsTestSupport

@testable import TypedDefaults

// MARK: - Fixture models

/// A small model with one setting of each kind the format has, one it can't express, a secret
/// and an optional.
private struct ConfigurationSettings: SettingsGroup {
  @Setting("volume", default: 0.8, in: 0...1, help: "Playback volume, 0 to 1.") var volume: Double
  @Setting(help: "Stream over cellular.") var cellular = false
  @Setting var codec = SchemaCodec.aac
  @Setting(in: 1...10) var retries = 3
  @Setting var hosts: [String] = ["a.example.com", "b.example.com"]
  @Setting var nickname: String?
  @Setting("token", default: "s3cr3t", secret: true) var token: String
  @Setting var icon = Data([1])
  @Setting var since = Date(timeIntervalSinceReferenceDate: 0)
  @Setting var ports: [Int] = []
}

/// Values the format's 32-bit integers can't hold, and shapes it can't express.
private struct WideSettings: SettingsGroup {
  @Setting(in: 0...UInt64.max) var big: UInt64 = .max
  @Setting(allowedValues: [1, 5_000_000_000]) var choice = 1
  @Setting var levels = SchemaLevel.low
  @Setting var flags: [Bool] = [true]
  @Setting var limits: [String: Int] = [:]
  @Setting var raw: PropertyListValue = ["a": "b"]
  @Setting var ratios: [Double] = [0.5, .infinity]
}

/// Text XML must escape, in a key, a help text and allowed values.
private struct EscapingSettings: SettingsGroup {
  @Setting("a&b\"c'd<e>", help: "Use <b> & \"quotes\" 'too' >\nline two\u{1}") var odd = "<&\">"
  @Setting(allowedValues: ["x&y", "<z>"]) var pick = "x&y"
}

/// `SettingsSchema.managedAppConfiguration(bundleIdentifier:version:)` (issue 22): the AppConfig
/// XML spec MDM vendors read, exact, parsed by Python's ElementTree, and escaped.
@Suite struct ManagedAppConfigurationTests {
  static let header = """
    <?xml version="1.0" encoding="UTF-8"?>
    <managedAppConfiguration xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
    xsi:noNamespaceSchemaLocation="https://storage.googleapis.com/appconfig-media/appconfigschema.xsd">

    """

  @Test func aSmallModelGivesTheExactSpec() {
    let spec = ConfigurationSettings(backend: InMemoryBackend()).schema
      .managedAppConfiguration(bundleIdentifier: "com.example.player", version: 3)
    let expected =
      Self.header + """
          <version>3</version>
          <bundleId>com.example.player</bundleId>
          <dict>
            <boolean keyName="cellular">
              <defaultValue>
                <value>false</value>
              </defaultValue>
            </boolean>
            <string keyName="codec">
              <defaultValue>
                <value>aac</value>
              </defaultValue>
              <constraint>
                <values>
                  <value>aac</value>
                  <value>opus</value>
                </values>
              </constraint>
            </string>
            <stringArray keyName="hosts">
              <defaultValue>
                <value>a.example.com</value>
                <value>b.example.com</value>
              </defaultValue>
            </stringArray>
            <string keyName="nickname">
              <constraint nullable="true"/>
            </string>
            <integerArray keyName="ports"/>
            <integer keyName="retries">
              <defaultValue>
                <value>3</value>
              </defaultValue>
              <constraint min="1" max="10"/>
            </integer>
            <date keyName="since">
              <defaultValue>
                <value>2001-01-01T00:00:00Z</value>
              </defaultValue>
            </date>
            <string keyName="token"/>
            <float keyName="volume">
              <defaultValue>
                <value>0.8</value>
              </defaultValue>
              <constraint min="0.0" max="1.0"/>
            </float>
          </dict>
          <presentation defaultLocale="en-US">
            <field keyName="cellular" type="checkbox">
              <label>
                <language value="en-US">cellular</language>
              </label>
              <description>
                <language value="en-US">Stream over cellular.</language>
              </description>
            </field>
            <field keyName="codec" type="select">
              <label>
                <language value="en-US">codec</language>
              </label>
              <options>
                <option value="aac">
                  <language value="en-US">aac</language>
                </option>
                <option value="opus">
                  <language value="en-US">opus</language>
                </option>
              </options>
            </field>
            <field keyName="hosts" type="list">
              <label>
                <language value="en-US">hosts</language>
              </label>
            </field>
            <field keyName="nickname" type="input">
              <label>
                <language value="en-US">nickname</language>
              </label>
            </field>
            <field keyName="ports" type="list">
              <label>
                <language value="en-US">ports</language>
              </label>
            </field>
            <field keyName="retries" type="input">
              <label>
                <language value="en-US">retries</language>
              </label>
            </field>
            <field keyName="since" type="datetime">
              <label>
                <language value="en-US">since</language>
              </label>
            </field>
            <field keyName="token" type="input">
              <label>
                <language value="en-US">token</language>
              </label>
            </field>
            <field keyName="volume" type="input">
              <label>
                <language value="en-US">volume</language>
              </label>
              <description>
                <language value="en-US">Playback volume, 0 to 1.</language>
              </description>
            </field>
          </presentation>
        </managedAppConfiguration>

        """
    #expect(spec == expected)
    #expect(!spec.contains("s3cr3t"))
  }

  @Test func whatThe32BitFormatCantHoldIsLeftOutAndUnexpressibleShapesAreSkipped() {
    let spec = WideSettings(backend: InMemoryBackend()).schema
      .managedAppConfiguration(bundleIdentifier: "com.example.wide")
    let dict = spec.components(separatedBy: "<dict>\n")[1].components(separatedBy: "  </dict>")[0]
    #expect(
      dict == """
            <integer keyName="big">
              <constraint min="0"/>
            </integer>
            <integer keyName="choice">
              <defaultValue>
                <value>1</value>
              </defaultValue>
            </integer>
            <integer keyName="levels">
              <defaultValue>
                <value>1</value>
              </defaultValue>
              <constraint>
                <values>
                  <value>1</value>
                  <value>3</value>
                </values>
              </constraint>
            </integer>
            <floatArray keyName="ratios">
              <defaultValue>
                <value>0.5</value>
                <value>INF</value>
              </defaultValue>
            </floatArray>

        """)
    #expect(spec.contains("<field keyName=\"choice\" type=\"input\">"))
    #expect(spec.contains("<field keyName=\"levels\" type=\"select\">"))
  }

  @Test func anEmptySchemaGivesAnEmptyDictAndNoPresentation() {
    let spec = SettingsSchema(title: "Empty", settings: [])
      .managedAppConfiguration(bundleIdentifier: "com.example.empty")
    #expect(
      spec == Self.header + """
          <version>1</version>
          <bundleId>com.example.empty</bundleId>
          <dict/>
        </managedAppConfiguration>

        """)
  }

  @Test func textAndAttributesAreEscaped() {
    let spec = EscapingSettings(backend: InMemoryBackend()).schema
      .managedAppConfiguration(bundleIdentifier: "com.example.a&b")
    #expect(spec.contains("<bundleId>com.example.a&amp;b</bundleId>"))
    #expect(spec.contains("<string keyName=\"a&amp;b&quot;c&apos;d&lt;e&gt;\">"))
    #expect(spec.contains("<value>&lt;&amp;&quot;&gt;</value>"))
    #expect(
      spec.contains(
        "<language value=\"en-US\">Use &lt;b&gt; &amp; &quot;quotes&quot; &apos;too&apos; &gt;\n"
          + "line two\u{FFFD}</language>"))
    #expect(spec.contains("<option value=\"x&amp;y\">"))
    #expect(spec.contains("<option value=\"&lt;z&gt;\">"))
    #expect(!spec.contains("\u{1}"))
  }

  // MARK: - Parsed by ElementTree

  /// Prints, as JSON, each key element (tag, keyName, defaults, constraint attributes, allowed
  /// values) and each field (keyName, type, label, description, option values) of a spec.
  static let reader = """
    import json, sys
    import xml.etree.ElementTree as ET
    root = ET.parse(sys.argv[1]).getroot()
    keys = []
    for element in root.find("dict"):
        constraint = element.find("constraint")
        keys.append({
            "tag": element.tag,
            "key": element.get("keyName"),
            "defaults": [v.text or "" for v in element.findall("defaultValue/value")],
            "constraint": dict(constraint.attrib) if constraint is not None else None,
            "values": [v.text or "" for v in element.findall("constraint/values/value")],
        })
    fields = []
    for field in root.find("presentation"):
        description = field.find("description/language")
        fields.append({
            "key": field.get("keyName"),
            "type": field.get("type"),
            "label": field.find("label/language").text,
            "description": description.text if description is not None else None,
            "options": [o.get("value") for o in field.findall("options/option")],
        })
    print(json.dumps({
        "root": root.tag,
        "version": root.find("version").text,
        "bundleId": root.find("bundleId").text,
        "locale": root.find("presentation").get("defaultLocale"),
        "keys": keys,
        "fields": fields,
    }))
    """

  struct Parsed: Decodable, Equatable {
    struct Key: Decodable, Equatable {
      var tag: String
      var key: String
      var defaults: [String]
      var constraint: [String: String]?
      var values: [String]
    }
    struct Field: Decodable, Equatable {
      var key: String
      var type: String
      var label: String
      var description: String?
      var options: [String]
    }
    var root: String
    var version: String
    var bundleId: String
    var locale: String
    var keys: [Key]
    var fields: [Field]
  }

  static func parse(_ spec: String) throws -> Parsed {
    let folder = try TemporaryDirectory()
    let file = folder.file("specfile.xml")
    try Data(spec.utf8).write(to: file)
    let (outcome, output) = try runPython(reader, [file.path])
    #expect(outcome == .exited(0))
    return try JSONDecoder().decode(Parsed.self, from: Data(output.utf8))
  }

  @Test func elementTreeFindsTheKeysTypesAndDefaults() throws {
    let schema = ConfigurationSettings(backend: InMemoryBackend()).schema
    let parsed = try Self.parse(
      schema.managedAppConfiguration(bundleIdentifier: "com.example.player", version: 2))
    #expect(parsed.root == "managedAppConfiguration")
    #expect(parsed.version == "2" && parsed.bundleId == "com.example.player")
    #expect(parsed.locale == "en-US")
    typealias Key = Parsed.Key
    #expect(
      parsed.keys == [
        Key(tag: "boolean", key: "cellular", defaults: ["false"], constraint: nil, values: []),
        Key(
          tag: "string", key: "codec", defaults: ["aac"], constraint: [:], values: ["aac", "opus"]),
        Key(
          tag: "stringArray", key: "hosts", defaults: ["a.example.com", "b.example.com"],
          constraint: nil, values: []),
        Key(
          tag: "string", key: "nickname", defaults: [], constraint: ["nullable": "true"],
          values: []),
        Key(tag: "integerArray", key: "ports", defaults: [], constraint: nil, values: []),
        Key(
          tag: "integer", key: "retries", defaults: ["3"], constraint: ["min": "1", "max": "10"],
          values: []),
        Key(
          tag: "date", key: "since", defaults: ["2001-01-01T00:00:00Z"], constraint: nil,
          values: []),
        Key(tag: "string", key: "token", defaults: [], constraint: nil, values: []),
        Key(
          tag: "float", key: "volume", defaults: ["0.8"], constraint: ["min": "0.0", "max": "1.0"],
          values: []),
      ])
    // Every setting the format can express is there, with its default as the schema has it
    // (the secret's withheld): each default reads back as the schema's.
    let expressible = schema.settings.filter { $0.key != "icon" }
    #expect(parsed.keys.map(\.key) == expressible.map(\.key))
    #expect(parsed.fields.map(\.key) == expressible.map(\.key))
    for (key, setting) in zip(parsed.keys, expressible) {
      let kind: PropertyListValue.TextKind? =
        switch key.tag {
        case "boolean": .bool
        case "integer", "integerArray": .integer
        case "float": .real
        case "date": .date
        default: .string
        }
      let values = try key.defaults.map { try PropertyListValue(parsing: $0, as: kind ?? .string) }
      let read: PropertyListValue? =
        key.tag.hasSuffix("Array") ? .array(values) : values.first
      let expected: PropertyListValue? =
        setting.defaultValue == .array([]) ? .array([]) : setting.defaultValue
      #expect(read == expected, "\(key.key)")
    }
    #expect(
      parsed.fields.map { [$0.key, $0.type] } == [
        ["cellular", "checkbox"], ["codec", "select"], ["hosts", "list"], ["nickname", "input"],
        ["ports", "list"], ["retries", "input"], ["since", "datetime"], ["token", "input"],
        ["volume", "input"],
      ])
    #expect(parsed.fields.map(\.label) == expressible.map(\.key))
    #expect(parsed.fields.map(\.description) == expressible.map(\.help))
    #expect(parsed.fields[1].options == ["aac", "opus"])
  }

  @Test func elementTreeReadsEscapedTextBackExactly() throws {
    let parsed = try Self.parse(
      EscapingSettings(backend: InMemoryBackend()).schema
        .managedAppConfiguration(bundleIdentifier: "com.example.a&b"))
    #expect(parsed.bundleId == "com.example.a&b")
    #expect(parsed.keys.map(\.key) == ["a&b\"c'd<e>", "pick"])
    #expect(parsed.keys[0].defaults == ["<&\">"])
    #expect(parsed.keys[1].values == ["x&y", "<z>"])
    #expect(parsed.fields[0].label == "a&b\"c'd<e>")
    #expect(parsed.fields[0].description == "Use <b> & \"quotes\" 'too' >\nline two\u{FFFD}")
    #expect(parsed.fields[1].options == ["x&y", "<z>"])
  }
}
