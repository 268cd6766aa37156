import Foundation
import Testing
import TypedDefaults
import TypedDefaultsSchema
import TypedDefaultsTestSupport

/// The example executables, run as a user runs them: twice, the second run reading what the first
/// saved.
@Suite struct ExampleTests {
  @Test func layeredConfigDemoShowsOnItsSecondRunWhatTheFirstSaved() throws {
    let directory = try TemporaryDirectory()
    let arguments = ["--data-dir", directory.url.path]
    let first = try runProduct("LayeredConfigDemo", arguments)
    #expect(first.status == 0, "\(first.standardError)")
    #expect(first.standardOutput.contains("FIRST RUN"))
    #expect(
      first.standardOutput.contains(
        "ServerURL                  URL            http://localhost:8080/v1         runtime"))

    let second = try runProduct("LayeredConfigDemo", arguments)
    #expect(second.status == 0, "\(second.standardError)")
    #expect(second.standardOutput.contains("LATER RUN"))
    #expect(second.standardOutput.contains("  LaunchCount = 1\n"))
    #expect(second.standardOutput.contains("  ServerURL = https://api-v2.example.com/v1\n"))
    #expect(second.standardOutput.contains("Runtime layer: 0 keys"))
    #expect(second.standardOutput.contains("config.$launchCount.update { $0 += 1 } -> 2"))
    // The first run wrote the theme for the next launch: it shows only in the second.
    #expect(first.standardOutput.contains("Theme this run: light\n"))
    #expect(second.standardOutput.contains("Theme this run: dark\n"))
  }

  @Test func theSettingsCommandLayeredConfigDemoPrintsSeesEveryLayer() throws {
    let directory = try TemporaryDirectory()
    let run = try runProduct("LayeredConfigDemo", ["--data-dir", directory.url.path])
    #expect(run.status == 0, "\(run.standardError)")
    let path = directory.url.path
    // No --delivered or --bundled: the tool finds the files the demo's store recorded.
    let arguments = ["explain", path, "RequestTimeout"]
    // The temporary folder's path needs no quoting, so the printed command is the plain words.
    #expect(
      run.standardOutput.contains(
        "  swift run settings \(arguments.dropLast().joined(separator: " ")) ServerURL\n"))
    let explained = try runProduct("settings", arguments)
    #expect(explained.standardError == "")
    #expect(explained.standardOutput.contains("delivered   \(path)/deployment/JF-info.plist  45"))
    #expect(explained.standardOutput.contains("<- wins"))
  }

  @Test(.enabled(if: TestPaths.hasSharedFixtures, "the shared plist fixtures are absent"))
  func layeredConfigDemoAcceptsARealInfoPlist() throws {
    let directory = try TemporaryDirectory()
    let infoPlist = TestPaths.sharedFixtures.appendingPathComponent("valid/rectangle__Info.plist")
    let run = try runProduct(
      "LayeredConfigDemo", ["--data-dir", directory.url.path, "--bundled", infoPlist.path])
    #expect(run.status == 0, "\(run.standardError)")
    #expect(
      run.standardOutput.contains(
        "CFBundleIdentifier         String         $(PRODUCT_BUNDLE_IDENTIFIER)"))
  }

  @Test func layeredConfigDemoReportsAMissingFileOnOneLine() throws {
    let directory = try TemporaryDirectory()
    let run = try runProduct(
      "LayeredConfigDemo",
      ["--data-dir", directory.url.path, "--bundled", "/nonexistent/Info.plist"])
    #expect(run.status != 0)
    #expect(run.standardError == "LayeredConfigDemo: no such file: /nonexistent/Info.plist\n")
  }

  /// DeploymentDemo in a fresh home, as CI runs it: every layer, the managed write refused, and a
  /// ConfigMap swap whose bad volume is refused while its good log level is applied.
  @Test func deploymentDemoRefusesTheManagedWriteAndTheBadSwapAndAppliesTheGoodValue() throws {
    let home = try TemporaryDirectory()
    let directory = try TemporaryDirectory()
    let run = try runProduct(
      "DeploymentDemo", ["--data-dir", directory.url.path, "--max-connections", "64"],
      environment: ["HOME": home.url.path])
    #expect(run.status == 0, "\(run.standardError)")
    #expect(run.standardError == "")
    let output = run.standardOutput
    let settings = [
      "  serverURL         URL       https://api.eu.example.net/v2  delivered\n",
      "  volume            Volume    0.5                            config\n",
      "  logLevel          LogLevel  info                           config\n",
      "  maxConnections    Int       64                             arguments\n",
      "  apiToken          String    <secret>                       secrets\n",
      "  telemetryEnabled  Bool      false                          managed (forced)\n",
    ]
    #expect(output.contains(settings.joined()))
    #expect(output.contains("  arguments      64   <- wins\n  environment    32\n"))
    #expect(
      output.contains(
        "  try settings.$telemetryEnabled.set(true): refused, forcedValue\n"
          + "    Cannot write 'telemetryEnabled': it is managed by the 'managed' layer, which can't "
          + "be overridden\n  telemetryEnabled = false\n"))
    #expect(
      output.contains(
        "  refused: layerValueRejected: The config layer's text '1.5' for 'volume' in '"
          + directory.file("config/volume").path + "' can't be read as Volume (1.5 is outside "
          + "0.0...1.0); the layer is passed over for it: the setting reads the settingsBundle "
          + "layer's value, 0.8\n"))
    #expect(
      output.contains(
        "  applied: config's logLevel = debug; settings.logLevel = debug (config layer)\n"))
    #expect(
      output.contains(
        "  read:    config's volume = -; settings.volume = 0.8 (settingsBundle layer)\n"))
    #expect(!output.contains("tok_live"))
    #expect(!run.standardError.contains("tok_live"))
    // --data-dir keeps the files: the ConfigMap mount after its swap.
    let data = directory.file("config/..data")
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: data.path) == "..v2")
  }

  /// Without arguments the environment's value wins, and the temporary folder is removed.
  @Test func deploymentDemoWithoutArgumentsReadsTheEnvironmentAndRemovesItsFolder() throws {
    let home = try TemporaryDirectory()
    let temporary = try TemporaryDirectory()
    let run = try runProduct(
      "DeploymentDemo", [], environment: ["HOME": home.url.path, "TMPDIR": temporary.url.path])
    #expect(run.status == 0, "\(run.standardError)")
    #expect(run.standardError == "")
    #expect(
      run.standardOutput.contains(
        "  maxConnections    Int       32                             environment\n"))
    #expect(run.standardOutput.contains("settings.logLevel = debug (config layer)\n"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.url.path) == [])
  }

  /// FleetDemo as CI runs it: three services, one write, each sees it.
  @Test(.requiresEtcd) func fleetDemoChangesEveryServiceWithOneWrite() throws {
    let temporary = try TemporaryDirectory()
    let run = try runProduct("FleetDemo", [], environment: ["TMPDIR": temporary.url.path])
    #expect(run.status == 0, "\(run.standardError)")
    let lines = run.standardOutput.split(separator: "\n").map(String.init)
    for number in 1...3 {
      #expect(
        lines.contains { $0.hasPrefix("service \(number) ready: maxBitrate = 4000, connected to ") }
      )
      #expect(
        lines.contains {
          $0.hasPrefix("service \(number): maxBitrate changed to 8000   (seen within ")
        })
    }
    #expect(lines.last == "fleet: all 3 services changed with one write")
    // Its etcd and the services' folders are gone.
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.url.path) == [])
  }

  @Test func hostAppDemoListsBothModelsAndResettingOneLeavesTheOther() throws {
    let run = try runProduct("HostAppDemo", [])
    #expect(run.status == 0, "\(run.standardError)")
    #expect(run.standardError == "")
    let output = run.standardOutput
    #expect(
      output.contains(
        "  volume                   volume                                         Double = 0.5  (default)\n"
      ))
    #expect(
      output.contains(
        "  playback.quality         com.example.playerkit.playback.quality         Quality = high\n"
      ))
    #expect(output.contains("  playerKit.volume = 1.0 (key com.example.playerkit.volume)\n"))
    #expect(
      output.contains(
        "After playerKit.resetAll(): the app's keys are untouched\n  theme = dark\n"
          + "  userName = Ann\n  volume = 0.3\n\n"))
    #expect(
      output.hasSuffix(
        "After app.resetAll(): PlayerKit's keys are untouched\n  com.example.playerkit.volume = 0.9\n\n"
      ))
  }

  /// `--write-schema`: the store saved with both models' schema beside it, which the settings
  /// tool checks writes against and reads help texts from (issue 22).
  @Test func hostAppDemoWritesItsSchemaAndTheSettingsToolChecksWritesAgainstIt() throws {
    let directory = try TemporaryDirectory()
    let folder = directory.file("app").path
    let run = try runProduct("HostAppDemo", ["--write-schema", folder])
    #expect(run.status == 0, "\(run.standardError)")
    #expect(
      run.standardOutput == """
        HostAppDemo: saved the app's store in \(folder)/data.plist
        and its schema, both models' settings, in \(folder)/data.plist.schema.json
        The settings tool now checks writes against it and shows each setting's help:
          swift run settings read \(folder)
          swift run settings write \(folder) com.example.playerkit.volume -float 1.5   # refused

        """)
    let refused = try runProduct(
      "settings", ["write", folder, "com.example.playerkit.volume", "-float", "1.5"])
    #expect(refused.status == 1)
    #expect(refused.standardOutput == "")
    #expect(
      refused.standardError
        == "settings: Cannot write 'com.example.playerkit.volume': 1.5 is greater than the "
        + "maximum, 1.0 (Playback volume, 0 to 1.)\n")
    let theme = try runProduct("settings", ["write", folder, "theme", "blue"])
    #expect(
      theme.standardError
        == "settings: Cannot write 'theme': blue is not one of the allowed values (light, dark) "
        + "(The app's color theme.)\n")
    let read = try runProduct("settings", ["read", folder])
    #expect(read.standardError == "")
    #expect(
      read.standardOutput.contains(
        """
            // Whether the next item starts on its own.
            "com.example.playerkit.playback.autoplay" = 1; // declared default
            // The quality to stream at: auto (chosen from the connection), high or low.
            "com.example.playerkit.playback.quality" = high;

        """))
    // The file both models' writeSchema() left is the schema --schema prints.
    let printed = try runProduct("HostAppDemo", ["--schema"])
    #expect(printed.status == 0)
    let schema = try runProduct("settings", ["schema", folder])
    #expect(schema.standardError == "")
    #expect(schema.standardOutput == printed.standardOutput)
  }

  @Test func hostAppDemoPrintsItsSchemaAsJSONSchema() throws {
    let run = try runProduct("HostAppDemo", ["--schema"])
    #expect(run.status == 0, "\(run.standardError)")
    #expect(run.standardError == "")
    #expect(
      try runProduct("HostAppDemo", ["--schema", "json"]).standardOutput == run.standardOutput)
    #expect(
      run.standardOutput.hasPrefix(
        "{\n  \"$schema\" : \"https://json-schema.org/draft/2020-12/schema\""))
    #expect(
      run.standardOutput.contains(
        """
            "com.example.playerkit.volume" : {
              "default" : 0.8,
              "description" : "Playback volume, 0 to 1.",
              "maximum" : 1,
              "minimum" : 0,
              "type" : "number",
              "x-typeddefaults-property" : "volume",
              "x-typeddefaults-type" : "Double"
            },
        """))
    let wrong = try runProduct("HostAppDemo", ["--schema", "yaml"])
    #expect(wrong.status == 64)
    #expect(
      wrong.standardError
        == "HostAppDemo: --schema takes json, bundle, appconfig or markdown, not 'yaml'\n")
  }

  /// The other formats of the exports: a Settings bundle's Root.plist, a managed app
  /// configuration spec, a Markdown reference.
  @Test func hostAppDemoPrintsItsSchemaInEachExportFormat() throws {
    let bundle = try runProduct("HostAppDemo", ["--schema", "bundle"])
    #expect(bundle.status == 0, "\(bundle.standardError)")
    let root = try PropertyListSerialization.propertyList(
      from: Data(bundle.standardOutput.utf8), format: nil)
    let specifiers = try #require((root as? [String: Any])?["PreferenceSpecifiers"] as? [Any])
    #expect(specifiers.count >= 8)
    let appConfig = try runProduct("HostAppDemo", ["--schema", "appconfig"])
    #expect(appConfig.status == 0, "\(appConfig.standardError)")
    #expect(appConfig.standardOutput.contains("  <bundleId>com.example.hostapp</bundleId>\n"))
    let markdown = try runProduct("HostAppDemo", ["--schema", "markdown"])
    #expect(markdown.status == 0, "\(markdown.standardError)")
    #expect(markdown.standardOutput.hasPrefix("# AppSettings\n"))
    #expect(
      markdown.standardOutput.contains(
        "| `com.example.playerkit.volume` | `Double` | `0.8` | 0.0...1.0 | Playback volume, 0 to 1. |\n"
      ))
    #expect(
      markdown.standardOutput.contains(
        "| `theme` | `String` | `light` | `light`, `dark` | The app's color theme. |\n"))
  }

  /// Checked by a real validator, python's `jsonschema`, with the script CI runs.
  @Test(
    .enabled(
      if: JSONSchemaValidator.isAvailable || JSONSchemaValidator.isRequired,
      "python3 with jsonschema is missing (python3 -m pip install jsonschema); with TYPEDDEFAULTS_REQUIRE_JSONSCHEMA=1 this test fails instead"
    ))
  func hostAppDemoSchemaIsValidDraft202012AndEveryDefaultValidates() throws {
    let run = try runProduct("HostAppDemo", ["--schema"])
    #expect(run.status == 0, "\(run.standardError)")
    let directory = try TemporaryDirectory()
    let schema = directory.file("schema.json")
    try Data(run.standardOutput.utf8).write(to: schema)
    let wrong = [
      #"{"com.example.playerkit.volume": 1.5}"#, #"{"theme": "blue"}"#,
      #"{"com.example.playerkit.playback.autoplay": "yes"}"#,
      #"{"com.example.playerkit.playback.recentlyPlayed": [3]}"#,
    ]
    let result = try JSONSchemaValidator.validate(schema, rejecting: wrong)
    #expect(
      result.standardOutput
        == "ok: the schema is valid, 8 defaults validate, 4 wrong instances rejected\n",
      "\(result.standardError)")
    #expect(result.status == 0)
  }

  /// Every other example's model, printed with `--schema`: a valid schema whose defaults all
  /// validate, and which refuses a wrong-typed and an out-of-range value of a declared key.
  @Test(
    .enabled(
      if: JSONSchemaValidator.isAvailable || JSONSchemaValidator.isRequired,
      "python3 with jsonschema is missing (python3 -m pip install jsonschema); with TYPEDDEFAULTS_REQUIRE_JSONSCHEMA=1 this test fails instead"
    ),
    arguments: [
      (
        "LayeredConfigDemo", 11,
        [#"{"RequestTimeout": 0.5}"#, #"{"Theme": "blue"}"#, #"{"LaunchCount": "1"}"#]
      ),
      ("UserDefaultsModelDemo", 7, [#"{"volume": "loud"}"#, #"{"preferredQuality": "8k"}"#]),
      // (The secret apiToken's default is never exported.)
      ("DeploymentDemo", 5, [#"{"maxConnections": 1.5}"#, #"{"logLevel": "loud"}"#]),
      ("FleetDemo", 2, [#"{"maxBitrate": 0}"#, #"{"greeting": 3}"#]),
    ])
  func everyExamplesSchemaIsValidAndEveryDefaultValidates(
    _ example: String, defaults: Int, wrong: [String]
  ) throws {
    let run = try runProduct(example, ["--schema"])
    #expect(run.status == 0, "\(run.standardError)")
    let directory = try TemporaryDirectory()
    let schema = directory.file("schema.json")
    try Data(run.standardOutput.utf8).write(to: schema)
    #expect(try SettingsSchema(jsonSchema: Data(run.standardOutput.utf8)).settings.count > 0)
    let result = try JSONSchemaValidator.validate(schema, rejecting: wrong)
    #expect(
      result.standardOutput
        == "ok: the schema is valid, \(defaults) defaults validate, \(wrong.count) wrong "
        + "instances rejected\n",
      "\(result.standardError)")
    #expect(result.status == 0)
  }

  /// On a suite and on the standard defaults (which on Linux saved nothing at all).
  @Test(arguments: [["--suite", "TypedDefaultsTests.demo"], ["--standard"]])
  func userDefaultsModelDemoReadsBackOnItsSecondRunWhatTheFirstChanged(
    _ arguments: [String]
  ) throws {
    let config = try TemporaryDirectory()
    let environment = ["XDG_CONFIG_HOME": config.url.path]
    let first = try runProduct("UserDefaultsModelDemo", arguments, environment: environment)
    #expect(first.status == 0, "\(first.standardError)")
    #expect(first.standardOutput.contains("FIRST RUN"))
    #expect(first.standardOutput.contains("  allowsCellularPlayback: Bool = false (default)\n"))

    let second = try runProduct("UserDefaultsModelDemo", arguments, environment: environment)
    #expect(second.status == 0, "\(second.standardError)")
    #expect(second.standardOutput.contains("LATER RUN"))
    #expect(second.standardOutput.contains("  allowsCellularPlayback: Bool = true\n"))
    #expect(second.standardOutput.contains("  name: String = Ada\n"))
    #expect(second.standardOutput.contains("  launchCount: Int = 1\n"))
  }

  @Test func userDefaultsModelDemoPlayerStopsWhenAnotherProcessTurnsCellularPlaybackOff() throws {
    let config = try TemporaryDirectory()
    let environment = ProcessInfo.processInfo.environment.merging(
      ["XDG_CONFIG_HOME": config.url.path]) { $1 }
    let suite = "TypedDefaultsTests.player"
    let on = try runProduct(
      "settings",
      ["write", "--store", "defaults", suite, "allowsCellularPlayback", "-bool", "true"],
      environment: ["XDG_CONFIG_HOME": config.url.path])
    #expect(on.status == 0, "\(on.standardError)")

    let player = Process()
    player.executableURL = TestPaths.productsDirectory.appendingPathComponent(
      "UserDefaultsModelDemo")
    player.arguments = ["--suite", suite, "--watch", "--timeout", "300"]
    player.environment = environment
    let output = Pipe()
    player.standardOutput = output
    try player.run()
    // Wait (bounded by the player's own timeout) until it plays, then change the switch.
    let reader = output.fileHandleForReading
    var printed = ""
    while !printed.contains("Player: playing over cellular") {
      let chunk = reader.availableData
      if chunk.isEmpty { break }
      printed += String(decoding: chunk, as: UTF8.self)
    }
    let off = try runProduct(
      "settings",
      ["write", "--store", "defaults", suite, "allowsCellularPlayback", "-bool", "false"],
      environment: ["XDG_CONFIG_HOME": config.url.path])
    #expect(off.status == 0, "\(off.standardError)")
    printed += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
    let playerEnding = player.waitForExit()
    #expect(playerEnding.status == 0, "\(printed)")
    #expect(
      printed.contains(
        "Player: allowsCellularPlayback turned off by another process: playback stopped.\n"))
  }
}

/// `.ci/validate-json-schema.py`, python's `jsonschema` on a schema: what CI runs on
/// `HostAppDemo --schema`.
enum JSONSchemaValidator {
  /// The script.
  static let script = TestPaths.projectRoot.appendingPathComponent(".ci/validate-json-schema.py")

  /// Whether python3 can import `jsonschema`.
  static let isAvailable: Bool = {
    let run = try? runExecutable(
      URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import jsonschema"])
    return run?.status == 0
  }()

  /// Whether CI asks for the check (`TYPEDDEFAULTS_REQUIRE_JSONSCHEMA=1`): the test then runs, and
  /// fails where python3 or jsonschema is missing, rather than being skipped.
  static var isRequired: Bool {
    ProcessInfo.processInfo.environment["TYPEDDEFAULTS_REQUIRE_JSONSCHEMA"] == "1"
  }

  /// Runs the script on a schema file; each of `wrong` (JSON text) must fail validation.
  static func validate(_ schema: URL, rejecting wrong: [String]) throws -> ProcessResult {
    let run = try runExecutable(
      URL(fileURLWithPath: "/usr/bin/env"),
      ["python3", script.path, schema.path] + wrong.flatMap { ["--reject", $0] })
    return ProcessResult(
      status: run.status, standardOutput: String(decoding: run.standardOutput, as: UTF8.self),
      standardError: String(decoding: run.standardError, as: UTF8.self))
  }
}
