import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsSchema
import TypedDefaultsTestSupport

@testable import TypedDefaults

// MARK: - Fixture models

private struct PlayerSettings: SettingsGroup {
  @Setting("volume", default: 0.8, in: 0...1, help: "Playback volume, 0 to 1.") var volume: Double
  @Setting("retries", in: 0..., help: "Retries before giving up.") var retries = 3
  @Setting("codec", default: "aac", allowedValues: ["aac", "opus"]) var codec: String
  @Setting("token", default: "t0", secret: true) var token: String
  @Setting("homepage") var homepage = URL(string: "https://example.com/a")!
  @Setting("lastOpened") var lastOpened: Date?
}

private final class AppModel: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting or a group of them.
  override class var keyPrefix: String { "app." }
  @Setting(help: "Launches so far.") var launchCount = 0
  var player = PlayerSettings()
}

/// What python's `jsonschema` says about a schema and instances: the schema's own validity
/// (draft 2020-12) and, for each instance, the errors found, as `path: message` lines.
private struct ValidatorReport: Decodable {
  var schemaError: String?
  var errors: [[String]]
}

/// Runs python's `jsonschema` on a schema and instances; `nil` (the test is skipped) where python3
/// or jsonschema is missing, unless `TYPEDDEFAULTS_REQUIRE_JSONSCHEMA=1` (CI), which fails then.
private func validate(_ schema: Data, instances: [Any]) throws -> ValidatorReport? {
  let folder = try TemporaryDirectory()
  try schema.write(to: folder.file("schema.json"))
  try JSONSerialization.data(withJSONObject: instances).write(to: folder.file("instances.json"))
  let script = """
    import json, sys
    try:
        import jsonschema
    except ImportError:
        print("NO-JSONSCHEMA"); sys.exit(0)
    schema = json.load(open(sys.argv[1])); instances = json.load(open(sys.argv[2]))
    report = {"schemaError": None, "errors": []}
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        report["schemaError"] = error.message
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for instance in instances:
        errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
        report["errors"].append(
            ["/".join(str(p) for p in e.absolute_path) + ": " + e.message for e in errors])
    print(json.dumps(report))
    """
  let result: (status: Int32, standardOutput: Data, standardError: Data)
  do {
    result = try runExecutable(
      URL(fileURLWithPath: "/usr/bin/env"),
      [
        "python3", "-c", script, folder.file("schema.json").path,
        folder.file("instances.json").path,
      ]
    )
  } catch {
    return try skipOrFail("python3 can't be started: \(error)")
  }
  let output = String(decoding: result.standardOutput, as: UTF8.self)
  if result.status != 0 {
    return try skipOrFail(
      "python3 failed: \(String(decoding: result.standardError, as: UTF8.self))")
  }
  if output.hasPrefix("NO-JSONSCHEMA") { return try skipOrFail("python's jsonschema is missing") }
  return try JSONDecoder().decode(ValidatorReport.self, from: result.standardOutput)
}

private func skipOrFail(_ why: String) throws -> ValidatorReport? {
  if ProcessInfo.processInfo.environment["TYPEDDEFAULTS_REQUIRE_JSONSCHEMA"] == "1" {
    Issue.record("\(why) (TYPEDDEFAULTS_REQUIRE_JSONSCHEMA=1)")
  }
  return nil
}

/// JSON Schema export (draft 2020-12) and its reading back; the exports checked by a real
/// validator, python's `jsonschema` (issue 22).
@Suite struct JSONSchemaTests {
  @Test func theExportOfAModelIsExact() throws {
    let schema = PlayerSettings(backend: InMemoryBackend()).schema
    let json = String(decoding: schema.jsonSchema(), as: UTF8.self)
    #expect(
      json == """
        {
          "$schema" : "https://json-schema.org/draft/2020-12/schema",
          "properties" : {
            "codec" : {
              "default" : "aac",
              "enum" : [
                "aac",
                "opus"
              ],
              "type" : "string",
              "x-typeddefaults-property" : "codec",
              "x-typeddefaults-type" : "String"
            },
            "homepage" : {
              "default" : "https://example.com/a",
              "format" : "uri-reference",
              "type" : "string",
              "x-typeddefaults-property" : "homepage",
              "x-typeddefaults-type" : "URL"
            },
            "lastOpened" : {
              "format" : "date-time",
              "type" : "string",
              "x-typeddefaults-optional" : true,
              "x-typeddefaults-property" : "lastOpened",
              "x-typeddefaults-type" : "Date?"
            },
            "retries" : {
              "default" : 3,
              "description" : "Retries before giving up.",
              "minimum" : 0,
              "type" : "integer",
              "x-typeddefaults-property" : "retries",
              "x-typeddefaults-type" : "Int"
            },
            "token" : {
              "type" : "string",
              "x-typeddefaults-property" : "token",
              "x-typeddefaults-secret" : true,
              "x-typeddefaults-type" : "String"
            },
            "volume" : {
              "default" : 0.8,
              "description" : "Playback volume, 0 to 1.",
              "maximum" : 1,
              "minimum" : 0,
              "type" : "number",
              "x-typeddefaults-property" : "volume",
              "x-typeddefaults-type" : "Double"
            }
          },
          "title" : "PlayerSettings",
          "type" : "object"
        }
        """)
  }

  @Test func aSchemaReadBackFromItsExportIsTheSame() throws {
    let models: [SettingsSchema] = [
      AllTypesSettings(backend: InMemoryBackend()).schema,
      PlayerSettings(backend: InMemoryBackend()).schema,
      AppModel(backend: InMemoryBackend()).schema,
    ]
    for schema in models {
      let read = try SettingsSchema(jsonSchema: schema.jsonSchema())
      // Secrets' defaults are never exported, so they never come back.
      #expect(read == schema)
      for (mine, theirs) in zip(schema.settings, read.settings) where mine != theirs {
        Issue.record("\(mine) became \(theirs)")
      }
    }
  }

  @Test func theValidatorAcceptsTheSchemaAndEveryDefault() throws {
    let schemas = [
      AllTypesSettings(backend: InMemoryBackend()).schema,
      PlayerSettings(backend: InMemoryBackend()).schema,
      AppModel(backend: InMemoryBackend()).schema,
    ]
    for schema in schemas {
      // One instance per setting with a default (each alone), then all defaults together.
      let defaults = schema.settings.compactMap { setting in
        setting.defaultValue.map { (setting.key, SettingsSchema.jsonValue(of: $0)) }
      }
      let instances: [Any] =
        defaults.map { [$0.0: $0.1] } + [Dictionary(defaults, uniquingKeysWith: { $1 })]
      guard let report = try validate(schema.jsonSchema(), instances: instances) else { return }
      #expect(report.schemaError == nil)
      #expect(report.errors.allSatisfy { $0.isEmpty }, "\(schema.title): \(report.errors)")
      #expect(report.errors.count == instances.count)
    }
  }

  @Test func theValidatorNamesAStoredValueOfTheWrongTypeOrOutOfRange() throws {
    let backend = InMemoryBackend()
    let model = AppModel(backend: backend)
    try backend.setValue(.string("yes"), forKey: "app.launchCount")
    try backend.setValue(.real(1.5), forKey: "app.player.volume")
    try backend.setValue(.string("mp3"), forKey: "app.player.codec")
    // (python's jsonschema checks `uri` only with the rfc3987 package; the library checks it.)
    try backend.setValue(.string("https://example.com"), forKey: "app.player.homepage")
    try backend.setValue(.integer(2), forKey: "someone.elses")
    let store = Dictionary(
      uniqueKeysWithValues: backend.keys.compactMap { key in
        backend.storedValue(forKey: key).map { (key, SettingsSchema.jsonValue(of: $0)) }
      })
    guard let report = try validate(model.schema.jsonSchema(), instances: [store]) else { return }
    #expect(
      report.errors == [
        [
          "app.launchCount: 'yes' is not of type 'integer'",
          "app.player.codec: 'mp3' is not one of ['aac', 'opus']",
          "app.player.volume: 1.5 is greater than the maximum of 1",
        ]
      ])
    // The library's own check agrees, key by key.
    let schema = model.schema
    #expect(schema.problem(with: .string("yes"), forKey: "app.launchCount") != nil)
    #expect(
      schema.problem(with: .string("yes"), forKey: "app.launchCount")
        == "a string where an integer is declared (Int)")
    #expect(
      schema.problem(with: .real(1.5), forKey: "app.player.volume")
        == "1.5 is greater than the maximum, 1.0")
    #expect(
      schema.problem(with: .string("mp3"), forKey: "app.player.codec")
        == "mp3 is not one of the allowed values (aac, opus)")
    #expect(
      schema.problem(with: .string("not a url"), forKey: "app.player.homepage")
        == "'not a url' is not an absolute URL (URL)")
    #expect(schema.problem(with: .integer(2), forKey: "someone.elses") == nil)
  }

  @Test func aCorruptOrForeignDocumentIsACorruptFileError() {
    for bytes in ["", "{", "[1, 2]", #"{"properties": 3}"#, #"{"properties": {"a": 1}}"#] {
      #expect(throws: SettingsError.self, "\(bytes)") {
        _ = try SettingsSchema(jsonSchema: Data(bytes.utf8))
      }
    }
    // A hand-written schema with a default of the wrong kind keeps the key, without the default.
    let schema = try? SettingsSchema(
      jsonSchema: Data(#"{"properties": {"a": {"type": "integer", "default": "x"}, "b": {}}}"#.utf8)
    )
    #expect(schema?["a"]?.shape == .integer && schema?["a"]?.defaultValue == nil)
    #expect(schema?["b"]?.shape == .any)
  }

  /// An `enum` none of whose members had the declared type was read as an empty list of allowed
  /// values, and the tool refused every write of the key.
  @Test func anEnumWithNoMemberOfTheDeclaredTypeIsIgnoredWithADiagnostic() throws {
    let folder = try TemporaryDirectory()
    let store = folder.file("data.plist")
    let document = #"""
      {"properties": {
        "quality": {"type": "integer", "x-typeddefaults-type": "Quality", "enum": ["low", "high"]},
        "empty": {"type": "string", "enum": []},
        "codec": {"type": "string", "enum": ["aac", 3, "opus"]}
      }}
      """#
    try Data(document.utf8).write(to: SettingsSchema.fileURL(nextTo: store))
    let (schema, diagnostics) = try collectingDiagnostics {
      try SettingsSchema(contentsOfFileNextTo: store)
    }
    let path = SettingsSchema.fileURL(nextTo: store).path
    #expect(schema?["quality"]?.allowedValues == nil)
    #expect(schema?.problem(with: 2, forKey: "quality") == nil)
    #expect(schema?["empty"]?.allowedValues == nil)
    #expect(schema?.problem(with: "anything", forKey: "empty") == nil)
    // A member of another kind is left out; the others still restrict the key.
    #expect(schema?["codec"]?.allowedValues == ["aac", "opus"])
    #expect(schema?.problem(with: "mp3", forKey: "codec") != nil)
    #expect(
      diagnostics.sorted { ($0.key ?? "") < ($1.key ?? "") }.map(\.message) == [
        "The enum of 'empty' in the schema at '\(path)' has no member of its type (String); it "
          + "is ignored: every value of the type is allowed",
        "The enum of 'quality' in the schema at '\(path)' has no member of its type (Quality); "
          + "it is ignored: every value of the type is allowed",
      ])
    #expect(diagnostics.allSatisfy { $0.kind == .typeMismatch })
  }

  @Test func writeSchemaPutsItNextToTheStoreAndKeepsOtherModelsKeys() throws {
    let folder = try TemporaryDirectory()
    let store = try LayeredPlistStore(persistentFile: folder.file("data.plist"))
    let app = AppModel(backend: store)
    try app.writeSchema()
    let url = folder.file("data.plist.schema.json")
    #expect(SettingsSchema.fileURL(nextTo: folder.file("data.plist")) == url)
    let written = try #require(try SettingsSchema(contentsOfFileNextTo: folder.file("data.plist")))
    #expect(written == app.schema)
    // A second model on the same store adds its keys and keeps the first model's.
    let library = PlayerSettings(backend: store.scoped(to: "kit."))
    try library.writeSchema()
    let merged = try #require(try SettingsSchema(contentsOfFileNextTo: folder.file("data.plist")))
    #expect(merged.title == "AppModel")
    #expect(merged["app.launchCount"]?.help == "Launches so far.")
    #expect(merged["kit.volume"]?.maximum == .real(1))
    #expect(merged["app.player.volume"]?.maximum == .real(1))
    #expect(merged.settings.count == app.schema.settings.count + library.schema.settings.count)
  }

  @Test func writeSchemaOnTheStandardDefaultsInAFreshHomeCreatesTheConfigFolder() throws {
    // The path a user takes first: no ~/.config yet. The standard domain's file is found the way
    // corelibs finds it, in a child process whose XDG_CONFIG_HOME doesn't exist.
    let home = try TemporaryDirectory()
    let config = home.file("fresh/config")
    let result = try runProduct(
      "SettingsProbe", ["first-hour", "write-schema"], environment: ["XDG_CONFIG_HOME": config.path]
    )
    #expect(result.status == 0, "\(result.standardError)")
    let files = try FileManager.default.contentsOfDirectory(atPath: config.path)
    let schemaFile = try #require(files.first { $0.hasSuffix(".plist.schema.json") })
    let schema = try SettingsSchema(
      jsonSchema: Data(contentsOf: config.appendingPathComponent(schemaFile)))
    #expect(schema["launchCount"]?.help == "Launches so far.")
  }

  @Test func writeSchemaOnASuitePutsItBesideTheSuiteFile() throws {
    let suite = TemporarySuite()
    let model = PlayerSettings(backend: suite.backend)
    try model.writeSchema()
    let url = URL(fileURLWithPath: suite.fileURL.path + ".schema.json")
    defer { try? FileManager.default.removeItem(at: url) }
    #expect(try SettingsSchema(contentsOfFileNextTo: suite.fileURL) == model.schema)
  }

  @Test func modelsWritingTheirSchemasAtOnceEachKeepTheOthersKeys() throws {
    let folder = try TemporaryDirectory()
    let store = try LayeredPlistStore(persistentFile: folder.file("data.plist"))
    let app = AppModel(backend: store)
    let library = PlayerSettings(backend: store.scoped(to: "kit."))
    for _ in 0..<20 {
      try? FileManager.default.removeItem(at: folder.file("data.plist.schema.json"))
      DispatchQueue.concurrentPerform(iterations: 2) { index in
        try? (index == 0 ? app.writeSchema() : library.writeSchema())
      }
      let merged = try #require(try SettingsSchema(contentsOfFileNextTo: store.persistentFile.url))
      #expect(merged.settings.count == app.schema.settings.count + library.schema.settings.count)
    }
  }

  @Test func aDanglingLinkInTheSchemaFilesPlaceCreatesNoFolderElsewhere() throws {
    let folder = try TemporaryDirectory()
    let store = try LayeredPlistStore(persistentFile: folder.file("data.plist"))
    try FileManager.default.createSymbolicLink(
      atPath: folder.file("data.plist.schema.json").path,
      withDestinationPath: folder.file("elsewhere/deep/x.json").path)
    #expect(throws: SettingsError.self) { try AppModel(backend: store).writeSchema() }
    #expect(!FileManager.default.fileExists(atPath: folder.file("elsewhere").path))
  }

  /// The error of a schema file that can't be written called the JSON file a property list
  /// (issue 37, item 7).
  @Test func aSchemaFileThatCantBeWrittenIsCalledAJSONFileNotAPropertyList() throws {
    let folder = try TemporaryDirectory()
    let store = try LayeredPlistStore(persistentFile: folder.file("data.plist"))
    let schemaFile = folder.file("data.plist.schema.json")
    try FileManager.default.createDirectory(at: schemaFile, withIntermediateDirectories: false)
    let written = #expect(throws: SettingsError.self) {
      try AppModel(backend: store).schema.write(nextTo: store.persistentFile.url)
    }
    #expect(
      written?.description
        == "Cannot write the JSON file at '\(schemaFile.path)': It is a directory")
    let error = #expect(throws: SettingsError.self) { try AppModel(backend: store).writeSchema() }
    #expect(
      error?.description.hasPrefix("Cannot read the JSON file at '\(schemaFile.path)': ") == true,
      "\(String(describing: error))")
    // A property list is still called one.
    #expect(
      SettingsError(.fileNotWritable, path: "/a/data.plist", reason: "r").description
        == "Cannot write the property list at '/a/data.plist': r")
  }

  @Test func aCodableStructsFieldsAreNotGuessedFromItsDefault() throws {
    struct Profile: Codable, SettingValue, Equatable {
      var name = "guest"
      var age: Int?
    }
    struct Account: SettingsGroup {
      @Setting var profile = Profile()
      @Setting var friends: [Profile] = [Profile()]
    }
    let backend = InMemoryBackend()
    let account = Account(backend: backend)
    account.profile = Profile(name: "Ada", age: 36)
    account.friends = [Profile(name: "Bo", age: 3)]
    let schema = account.schema
    #expect(schema["profile"]?.shape == .dictionary(of: .any))
    #expect(schema["friends"]?.shape == .array(of: .any))
    for key in ["profile", "friends"] {
      let stored = try #require(backend.storedValue(forKey: key))
      #expect(schema.problem(with: stored, forKey: key) == nil, "\(key)")
    }
  }

  @Test func nanIsOutsideEveryNumericRange() {
    let schema = PlayerSettings(backend: InMemoryBackend()).schema
    #expect(
      schema.problem(with: .real(.nan), forKey: "volume")
        == "nan is not a number, so it is outside the range (0.0...1.0)")
    #expect(schema.problem(with: .real(0.5), forKey: "volume") == nil)
  }

  @Test func aSchemaFileThatCantBeReadIsReportedWithItsPathAndKept() throws {
    let folder = try TemporaryDirectory()
    let store = try LayeredPlistStore(persistentFile: folder.file("data.plist"))
    let url = folder.file("data.plist.schema.json")
    try Data("{ not json".utf8).write(to: url)
    #expect {
      try AppModel(backend: store).writeSchema()
    } throws: { error in
      (error as? SettingsError)?.code == .corruptFile && (error as? SettingsError)?.path == url.path
    }
    #expect(try Data(contentsOf: url) == Data("{ not json".utf8))
    #expect(throws: SettingsError.self) {
      try AppModel(backend: InMemoryBackend()).writeSchema()
    }
  }
}
