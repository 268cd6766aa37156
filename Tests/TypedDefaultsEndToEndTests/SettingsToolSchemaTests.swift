import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsSchema
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// A model as an app declares it: help texts, a range, allowed values, a secret, an optional.
private struct DeclaredSettings: SettingsGroup {
  @Setting("volume", default: 0.8, in: 0...1, help: "Playback volume, 0 to 1.") var volume: Double
  @Setting("autoplay", help: "Whether the next item starts on its own.") var autoplay = true
  @Setting("quality", default: "auto", allowedValues: ["auto", "high", "low"], help: "Quality.")
  var quality: String
  @Setting("retries", in: 0...) var retries = 3
  @Setting("recent", help: "Recently played.") var recent: [String] = []
  @Setting("token", default: "t0", secret: true, help: "The API token.") var token: String
  @Setting("lastOpened") var lastOpened: Date?
}

/// The tool where the app wrote its schema next to the store (issue 22): writes that don't fit
/// the declaration are refused with the setting's help text, reads and explains show help texts
/// and declared defaults; without a schema, nothing changes.
extension SettingsToolTests {
  /// The schema `DeclaredSettings` writes.
  fileprivate static let schema = DeclaredSettings(backend: InMemoryBackend()).schema

  /// A store folder holding `volume = 0.6`, `theme = dark` (a key the schema doesn't declare) and
  /// `token`, with the schema beside its data.plist, as `writeSchema()` leaves it (unless
  /// `withSchema` is off).
  fileprivate func declaredStore(withSchema: Bool = true) throws -> URL {
    let folder = directory.file("app")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let data = folder.appendingPathComponent("data.plist")
    try PropertyListFile(url: data).write(["volume": 0.6, "theme": "dark", "token": "s3cr3t"])
    if withSchema { try Self.schema.write(nextTo: data) }
    return folder
  }

  /// The bytes of a store folder's data.plist.
  fileprivate func storedBytes(_ folder: URL) throws -> Data {
    try Data(contentsOf: folder.appendingPathComponent("data.plist"))
  }

  @Test func aWriteThatDoesNotFitTheSchemaIsRefusedWithTheHelpText() throws {
    let folder = try declaredStore()
    let store = folder.path
    let before = try storedBytes(folder)
    for (arguments, message) in [
      // The issue's headline: a string into a Bool key. A bare value stays a string.
      (
        ["autoplay", "yes"],
        "'autoplay': a string where a bool is declared (Bool); did you mean -bool yes? "
          + "(Whether the next item starts on its own.)"
      ),
      (
        ["volume", "0.5"],
        "'volume': a string where a real is declared (Double); did you mean -float 0.5? "
          + "(Playback volume, 0 to 1.)"
      ),
      (
        ["volume", "-float", "1.5"],
        "'volume': 1.5 is greater than the maximum, 1.0 (Playback volume, 0 to 1.)"
      ),
      (
        ["quality", "medium"],
        "'quality': medium is not one of the allowed values (auto, high, low) (Quality.)"
      ),
      // No help text: the reason alone.
      (["retries", "-int", "-1"], "'retries': -1 is less than the minimum, 0"),
      (["retries", "-float", "2"], "'retries': a real where an integer is declared (Int)"),
      // Appending checks the array it makes.
      (
        ["recent", "-array-add", "-int", "3"],
        "'recent': element 0: an integer where a string is declared ([String]) "
          + "(Recently played.)"
      ),
      // A secret's value is never shown.
      (
        ["token", "-int", "12345"],
        "'token': the secret value doesn't fit its declaration (String) (The API token.)"
      ),
    ] {
      try expect(["write", store] + arguments, failsWith: "Cannot write \(message)")
    }
    #expect(try storedBytes(folder) == before)

    // What fits is written: an integer where a real is declared too, and undeclared keys.
    for arguments in [
      ["volume", "-float", "0.5"], ["volume", "-int", "1"], ["autoplay", "-bool", "no"],
      ["quality", "high"], ["recent", "-array-add", "Intro"], ["theme", "yes"],
      ["token", "n3w"],
    ] {
      try succeed(["write", store] + arguments)
    }
    #expect(
      try PropertyListFile(url: folder.appendingPathComponent("data.plist")).readDictionary()
        == [
          "volume": 1, "autoplay": false, "quality": "high", "recent": ["Intro"], "theme": "yes",
          "token": "n3w",
        ])
  }

  @Test func readShowsHelpTextsDeclaredDefaultsAndHidesSecrets() throws {
    let store = try declaredStore().path
    try expect(
      ["read", store],
      prints: """
        {
            // Whether the next item starts on its own.
            autoplay = 1; // declared default
            // Quality.
            quality = auto; // declared default
            // Recently played.
            recent = (
            ); // declared default
            retries = 3; // declared default
            theme = dark;
            // The API token.
            token = "<secret>";
            // Playback volume, 0 to 1.
            volume = "0.6";
        }

        """)
    try expect(["read", store, "volume"], prints: "0.6\n")
    try expect(["read", store, "autoplay"], prints: "1 (declared default)\n")
    try expect(["read", store, "token"], prints: "<secret>\n")
    // An optional setting declares no default: a key with no value, as without a schema.
    try expect(
      ["read", store, "lastOpened"],
      failsWith: "The domain/default pair of (\(store), lastOpened) does not exist")
    // A stored value that doesn't fit is marked: the app reads its default instead.
    try PropertyListFile(url: URL(fileURLWithPath: store).appendingPathComponent("data.plist"))
      .write(["autoplay": "yes", "retries": -2])
    try expect(
      ["read", store],
      prints: """
        {
            // Whether the next item starts on its own.
            autoplay = yes; // doesn't fit: a string where a bool is declared (Bool); the app reads its default
            // Quality.
            quality = auto; // declared default
            // Recently played.
            recent = (
            ); // declared default
            retries = "-2"; // doesn't fit: -2 is less than the minimum, 0; the app reads its default
            // Playback volume, 0 to 1.
            volume = "0.8"; // declared default
        }

        """)
  }

  @Test func explainShowsTheDeclarationAndTheDeclaredDefault() throws {
    let store = try declaredStore().path
    let layers = """
        delivered   JF-info.plist           (no file)
        bundled     Info.plist              (no file)

      """
    try expect(
      ["explain", store, "volume"],
      prints: """
        volume (Double, 0.0...1.0): Playback volume, 0 to 1.
          persistent  data.plist              "0.6"   <- wins

        """ + layers + "  declared    data.plist.schema.json  \"0.8\"\n")
    try expect(
      ["explain", store, "quality"],
      prints: """
        quality (String, one of auto, high, low): Quality.
          persistent  data.plist              -

        """ + layers + "  declared    data.plist.schema.json  auto   <- wins (declared default)\n")
    try expect(
      ["explain", store, "token"],
      prints: """
        token (String): The API token.
          persistent  data.plist              <secret>   <- wins

        """ + layers + "  declared    data.plist.schema.json  -\n")
    try expect(
      ["explain", store, "lastOpened"],
      prints: """
        lastOpened (Date?)
          persistent  data.plist              -

        """ + layers + "  declared    data.plist.schema.json  -\n")
    // A plist file: its one layer, then the schema's.
    let file = directory.file("c.plist")
    try PropertyListFile(url: file).write(["retries": 5])
    try Self.schema.write(nextTo: file)
    let schemaFile = file.path + ".schema.json"
    try expect(
      ["explain", file.path, "autoplay"],
      prints: """
        autoplay (Bool): Whether the next item starts on its own.
          file        \(file.path)              -
          declared    \(schemaFile)  1   <- wins (declared default)

        """)
    try expect(
      ["explain", file.path, "retries"],
      prints: """
        retries (Int, ≥ 0)
          file        \(file.path)              5   <- wins (its only layer)
          declared    \(schemaFile)  3

        """)
  }

  /// A secret's allowed values were listed by `explain` and in the refusal of a write; a schema
  /// an earlier version wrote still holds them in its `enum`.
  @Test func aSecretsAllowedValuesAreShownNeitherByExplainNorInARefusal() throws {
    let folder = directory.file("secret")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let data = folder.appendingPathComponent("data.plist")
    try PropertyListFile(url: data).write(["code": "alpha-7"])
    let schema = #"""
      {"properties": {"code": {"type": "string", "x-typeddefaults-type": "String",
        "x-typeddefaults-secret": true, "enum": ["alpha-7", "bravo-9"]}}}
      """#
    try Data(schema.utf8).write(to: SettingsSchema.fileURL(nextTo: data))
    try expect(
      ["write", folder.path, "code", "charlie-3"],
      failsWith: "Cannot write 'code': the secret value is not an allowed value (String)")
    try expect(
      ["explain", folder.path, "code"],
      prints: """
        code (String, one of its secret allowed values)
          persistent  data.plist              <secret>   <- wins
          delivered   JF-info.plist           (no file)
          bundled     Info.plist              (no file)
          declared    data.plist.schema.json  -

        """)
    // An allowed value is written.
    try succeed(["write", folder.path, "code", "bravo-9"])
  }

  @Test func settingsSchemaPrintsTheSchemaFileAsStored() throws {
    let folder = try declaredStore()
    let stored = try Data(contentsOf: folder.appendingPathComponent("data.plist.schema.json"))
    let printed = String(decoding: stored, as: UTF8.self) + "\n"
    try expect(["schema", folder.path], prints: printed)
    try expect(["schema", "--format", "json", folder.path], prints: printed)
    try expect(["schema", folder.path, "--format", "json"], prints: printed)
    try expect(
      ["schema", "--format", "markdown", folder.path],
      prints: """
        # DeclaredSettings

        | Key | Type | Default | Accepts | Description |
        | --- | --- | --- | --- | --- |
        | `autoplay` | `Bool` | `true` | — | Whether the next item starts on its own. |
        | `lastOpened` | `Date?` | — | — | — |
        | `quality` | `String` | `auto` | `auto`, `high`, `low` | Quality. |
        | `recent` | `[String]` | `()` | — | Recently played. |
        | `retries` | `Int` | `3` | ≥ 0 | — |
        | `token` | `String` | `<secret>` | — | The API token. |
        | `volume` | `Double` | `0.8` | 0.0...1.0 | Playback volume, 0 to 1. |

        """)
    try expect(
      ["schema", "--format", "yaml", folder.path],
      failsWith: "schema: --format takes json or markdown; usage: settings schema "
        + "[--format json|markdown] domain",
      status: 64)
    // Without one: where it would be, and how an app writes one.
    let plain = directory.file("plain.plist")
    try PropertyListFile(url: plain).write(["a": 1])
    try expect(
      ["schema", plain.path],
      failsWith: "No schema was written for \(plain.path) (there is no \(plain.path).schema.json); "
        + "an app writes one next to its store with try model.writeSchema()")
    try expect(["schema", "com.example.none"], failsWith: missingDomain("com.example.none"))
  }

  @Test func withoutASchemaEverythingWorksAsBefore() throws {
    let folder = try declaredStore(withSchema: false)
    let store = folder.path
    try succeed(["write", store, "autoplay", "yes"])
    try expect(
      ["read", store],
      prints: """
        {
            autoplay = yes;
            theme = dark;
            token = s3cr3t;
            volume = "0.6";
        }

        """)
    try expect(["read", store, "token"], prints: "s3cr3t\n")
    try expect(
      ["read", store, "quality"],
      failsWith: "The domain/default pair of (\(store), quality) does not exist")
    try expect(
      ["explain", store, "volume"],
      prints: """
        volume
          persistent  data.plist     "0.6"   <- wins
          delivered   JF-info.plist  (no file)
          bundled     Info.plist     (no file)

        """)
  }

  @Test func aCorruptSchemaIsAnErrorNamingItsPathAndChangesNothing() throws {
    let folder = try declaredStore()
    let store = folder.path
    let schemaFile = folder.appendingPathComponent("data.plist.schema.json")
    let before = try storedBytes(folder)
    try Data("[1, 2]".utf8).write(to: schemaFile)
    let message =
      "Cannot read the settings schema at '\(schemaFile.path)': The schema is not a JSON Schema "
      + "object with 'properties'"
    let backup = directory.file("backup.plist")
    try PropertyListFile(url: backup).write(["volume": 0.3])
    for arguments in [
      ["write", store, "volume", "-float", "0.5"], ["read", store], ["read", store, "volume"],
      ["explain", store, "volume"], ["import", store, backup.path], ["schema", store],
    ] {
      try expect(arguments, failsWith: message)
    }
    // Not JSON at all: the same start, the parser's words after it.
    try Data("{\"properties\": ".utf8).write(to: schemaFile)
    let run = try settings(["write", store, "volume", "-float", "0.5"])
    #expect(run.status == 1)
    #expect(
      run.standardError.hasPrefix(
        "settings: Cannot read the settings schema at '\(schemaFile.path)': The schema is not JSON: "
      ))
    #expect(
      run.standardError.hasSuffix("\n") && run.standardError.split(separator: "\n").count == 1)
    #expect(try storedBytes(folder) == before)
  }

  @Test func importWithASchemaRefusesEveryValueThatDoesNotFit() throws {
    let folder = try declaredStore()
    let store = folder.path
    let before = try storedBytes(folder)
    let backup = directory.file("backup.plist")
    try PropertyListFile(url: backup).write(["volume": 1.5, "autoplay": "yes", "theme": "light"])
    try expect(
      ["import", store, backup.path],
      failsWith: "Cannot import \(backup.path): 'autoplay': a string where a bool is declared "
        + "(Bool) (Whether the next item starts on its own.); 'volume': 1.5 is greater than the "
        + "maximum, 1.0 (Playback volume, 0 to 1.); nothing was changed")
    #expect(try storedBytes(folder) == before)
    try PropertyListFile(url: backup).write(["volume": 0.25, "autoplay": false, "theme": "light"])
    try succeed(["import", store, backup.path])
    try expect(["read", store, "volume"], prints: "0.25\n")
  }

  /// A suite's schema is `<suite file>.schema.json`, and names the suite before its first save.
  @Test func anAppIdentifierNamingItsLayeredStoreIsCheckedAgainstItsSchema() throws {
    // The form a user types first: the app's identifier, naming the store it keeps in the
    // standard data folder, with the schema the app wrote beside data.plist.
    let app = "com.example.declaredapp"
    let data = dataHome.appendingPathComponent(app).appendingPathComponent("data.plist")
    try FileManager.default.createDirectory(
      at: data.deletingLastPathComponent(), withIntermediateDirectories: true)
    try PropertyListFile(url: data).write(["volume": 0.6])
    try Self.schema.write(nextTo: data)
    try expect(
      ["write", app, "autoplay", "yes"],
      failsWith: "Cannot write 'autoplay': a string where a bool is declared (Bool); did you "
        + "mean -bool yes? (Whether the next item starts on its own.)")
    try succeed(["write", app, "autoplay", "-bool", "no"])
    try expect(["read", app, "autoplay"], prints: "0\n")
    try expect(["read", app, "retries"], prints: "3 (declared default)\n")
  }

  @Test func aSuiteSchemaBesideTheSuiteFileIsChecked() throws {
    let suite = "com.example.declared"
    let suiteFile = configHome.appendingPathComponent("\(suite).plist")
    try FileManager.default.createDirectory(at: configHome, withIntermediateDirectories: true)
    try Self.schema.write(nextTo: suiteFile)
    try expect(
      ["write", suite, "volume", "-float", "2"],
      failsWith: "Cannot write 'volume': 2.0 is greater than the maximum, 1.0 "
        + "(Playback volume, 0 to 1.)")
    #expect(!FileManager.default.fileExists(atPath: suiteFile.path))
    try succeed(["write", suite, "volume", "-float", "0.4"])
    try expect(["read", suite, "volume"], prints: "0.4\n")
    try expect(["read", suite, "quality"], prints: "auto (declared default)\n")
  }
}

/// A service's settings as a server team declares them (issue 37).
private struct ServiceSettings: SettingsGroup {
  @Setting("port", in: 1...65535) var port = 8080
  @Setting("requestTimeout", in: 0.5...60) var requestTimeout = 10.0
  @Setting("logLevel", default: "info", allowedValues: ["debug", "info", "warning"])
  var logLevel: String
}

/// `read` and `explain` show what the app reads (issue 37, item 6): with a schema, the tool's
/// store judges each layer's value as the app's store does.
extension SettingsToolTests {
  /// A service's store folder: environment variables `SVC_*`, a ConfigMap folder holding
  /// `requestTimeout = 20`, a delivered file holding `port = 9000`, and the schema.
  fileprivate func serviceStore() throws -> (folder: String, configMap: String) {
    let folder = directory.file("service")
    let configMap = directory.file("configmap")
    let delivered = directory.file("deploy/JF-info.plist")
    for made in [folder, configMap, delivered.deletingLastPathComponent()] {
      try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
    }
    try Data("20".utf8).write(to: configMap.appendingPathComponent("requestTimeout"))
    try PropertyListFile(url: delivered).write(["port": 9000])
    let keys = ["port", "requestTimeout", "logLevel"]
    let store = try LayeredPlistStore(
      persistentFile: folder.appendingPathComponent("data.plist"),
      layers: LayeredPlistStore.standardLayers(
        environment: EnvironmentVariablesSource(prefix: "SVC", keys: keys, environment: [:]),
        directories: [DirectorySource(directory: configMap, layer: "config")],
        deliveredFile: delivered),
      options: .init(savesAtExit: false))
    try store.setValue("debug", forKey: "logLevel")
    try store.save()
    try ServiceSettings(backend: InMemoryBackend()).schema.write(nextTo: store.persistentFile.url)
    return (folder.path, configMap.path)
  }

  @Test func readShowsTextLayersAsTheDeclaredTypesTheAppReads() throws {
    let (store, _) = try serviceStore()
    try expect(
      ["read", store],
      prints: """
        {
            logLevel = debug;
            port = 8081;
            requestTimeout = 20;
        }

        """, environment: ["SVC_PORT": "8081"])
    try expect(["read", store, "port"], prints: "8081\n", environment: ["SVC_PORT": "8081"])
    try expect(
      ["read-type", store, "port"], prints: "Type is integer\n", environment: ["SVC_PORT": "8081"])
  }

  @Test func readAndExplainShowALayersRefusedValueAsPassedOver() throws {
    let (store, configMap) = try serviceStore()
    let environment = ["SVC_PORT": "70000", "SVC_LOG_LEVEL": "loud"]
    let port =
      "The environment layer's text '70000' for 'port' (SVC_PORT) is not allowed (the setting "
      + "accepts in 1...65535); the layer is passed over for it: the setting reads the delivered "
      + "layer's value, 9000"
    let logLevel =
      "The environment layer's text 'loud' for 'logLevel' (SVC_LOG_LEVEL) is not allowed (the "
      + "setting accepts one of debug, info, warning); the layer is passed over for it: the "
      + "setting reads the persistent layer's value, debug"
    try expect(
      ["read", store],
      prints: """
        {
            logLevel = debug; // \(logLevel)
            port = 9000; // \(port)
            requestTimeout = 20;
        }

        """, environment: environment)
    // One key: the value alone on standard output, what was passed over a warning.
    let one = try settings(["read", store, "port"], environment: environment)
    #expect(one.standardOutput == "9000\n")
    #expect(one.standardError == "settings: warning: \(port)\n")
    #expect(one.status == 0)
    // explain marks the environment's value passed over, the delivered one winning.
    let delivered = directory.file("deploy/JF-info.plist").path
    let width = max(configMap.count, delivered.count, "data.plist.schema.json".count)
    func row(_ layer: String, _ origin: String, _ value: String) -> String {
      "  " + layer.padding(toLength: 12, withPad: " ", startingAt: 0) + " "
        + origin.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value
    }
    try expect(
      ["explain", store, "port"],
      prints: [
        "port (Int, 1...65535)",
        row(
          "environment", "$SVC_*",
          "70000   <- passed over: is not allowed (the setting accepts in 1...65535)"),
        row("persistent", "data.plist", "-"),
        row("config", configMap, "-"),
        row("delivered", delivered, "9000   <- wins"),
        row("declared", "data.plist.schema.json", "8080"),
      ].joined(separator: "\n") + "\n", environment: environment)
    // Text that isn't a number at all is passed over the same way.
    try expect(
      ["read", store, "requestTimeout"], prints: "20\n", environment: ["SVC_PORT": "8081"])
    let notANumber = try settings(
      ["read", store, "requestTimeout"], environment: ["SVC_REQUEST_TIMEOUT": "abc"])
    #expect(notANumber.standardOutput == "20\n")
    #expect(
      notANumber.standardError
        == "settings: warning: The environment layer's text 'abc' for 'requestTimeout' "
        + "(SVC_REQUEST_TIMEOUT) can't be read as Double (it is not a number); the layer is "
        + "passed over for it: the setting reads the config layer's value, 20.0\n")
  }
}
