import Foundation
import Testing
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsTestSupport

/// `EnvironmentVariablesSource`: the key-to-variable table, the prefix, conflicts and unknown
/// variables reported (never their values), and the keyless reverse rule.
@Suite struct EnvironmentVariablesSourceTests {
  @Test func eachKeyMapsToThePrefixAndItsWordsInUpperSnakeCase() {
    let table: [String: String] = [
      "volume": "PLAYER_VOLUME",
      "serverURL": "PLAYER_SERVER_URL",
      "httpTimeoutMS": "PLAYER_HTTP_TIMEOUT_MS",
      "URLSessionTimeout": "PLAYER_URL_SESSION_TIMEOUT",
      "recentURLs": "PLAYER_RECENT_URLS",
      "userIDsCount": "PLAYER_USER_IDS_COUNT",
      "HTTPServer": "PLAYER_HTTP_SERVER",
      "APIsecret": "PLAYER_AP_ISECRET",
      "oAuth2Token": "PLAYER_O_AUTH2_TOKEN",
      "http2Enabled": "PLAYER_HTTP2_ENABLED",
      "audio.eq.bass": "PLAYER_AUDIO_EQ_BASS",
      "allowsCellularPlayback": "PLAYER_ALLOWS_CELLULAR_PLAYBACK",
      "max  retries": "PLAYER_MAX_RETRIES",
      "ID": "PLAYER_ID",
    ]
    let source = EnvironmentVariablesSource(prefix: "PLAYER", keys: table.keys, environment: [:])
    #expect(source.variableNames == table)
    #expect(source.read().problems.isEmpty)
  }

  @Test func everySpellingOfAKeyMapsToTheSameVariable() {
    for key in ["ServerURL", "serverURL", "server.url", "server-url", "server_url", "SERVER_URL"] {
      let source = EnvironmentVariablesSource(
        prefix: "PLAYER", keys: [key], environment: ["PLAYER_SERVER_URL": "https://example.com"])
      #expect(source.variableNames == [key: "PLAYER_SERVER_URL"])
      #expect(source.read() == LayerContents(values: [key: "https://example.com"]))
    }
  }

  @Test func thePrefixIsTakenWithOrWithoutItsUnderscoreAndOtherwiseExactly() {
    let environment = ["PLAYER_VOLUME": "0.5", "player_VOLUME": "0.9"]
    for prefix in ["PLAYER", "PLAYER_"] {
      let source = EnvironmentVariablesSource(
        prefix: prefix, keys: ["volume"], environment: environment)
      #expect(source.prefix == "PLAYER_")
      #expect(source.read().values == ["volume": "0.5"])
      #expect(source.recordedSource == .environment(prefix: "PLAYER_", keys: ["volume"]))
    }
    let lower = EnvironmentVariablesSource(
      prefix: "player", keys: ["volume"], environment: environment)
    #expect(lower.read().values == ["volume": "0.9"])
  }

  @Test func valuesAreTextOfTheEnvironmentLayerAndVariablesOutsideThePrefixAreIgnored() {
    let source = EnvironmentVariablesSource(
      prefix: "PLAYER", keys: ["volume", "autoplay"],
      environment: ["PLAYER_VOLUME": "", "VOLUME": "1", "HOME": "/root", "PLAYERVOLUME": "2"])
    #expect(source.layer == .environment)
    #expect(source.valuesAreText)
    #expect(!source.isForced)
    #expect(source.read() == LayerContents(values: ["volume": ""]))
    let other = EnvironmentVariablesSource(
      prefix: "P", keys: [], environment: [:], layer: "deployment")
    #expect(other.layer == "deployment")
  }

  @Test func twoKeysWithOneVariableAreNeitherReadAndTheConflictIsReported() {
    let (source, diagnostics) = collectingDiagnostics {
      EnvironmentVariablesSource(
        prefix: "PLAYER", keys: ["serverURL", "server.url", "volume"],
        environment: ["PLAYER_SERVER_URL": "https://secret.example.com", "PLAYER_VOLUME": "1"])
    }
    let contents = source.read()
    #expect(contents.values == ["volume": "1"])
    let message =
      "The keys 'server.url', 'serverURL' all map to the environment variable PLAYER_SERVER_URL; none is read from it"
    #expect(contents.problems == [SettingsError(.conflictingKeys, reason: message)])
    #expect(source.variableNames == ["volume": "PLAYER_VOLUME"])
    #expect(diagnostics.map(\.kind) == [.keyCollision])
    #expect(diagnostics.first?.message == message)
  }

  @Test func aVariableWithThePrefixThatNamesNoKeyIsReportedWithoutItsValue() {
    let source = EnvironmentVariablesSource(
      prefix: "PLAYER", keys: ["volume"],
      environment: ["PLAYER_VOLUM": "hunter2", "PLAYER_volume": "hunter3", "PLAYER_VOLUME": "1"])
    let contents = source.read()
    #expect(contents.values == ["volume": "1"])
    #expect(
      contents.problems == [
        SettingsError(
          .unknownEnvironmentVariable,
          reason:
            "The environment variable PLAYER_VOLUM has the prefix PLAYER_ but names no setting"),
        SettingsError(
          .unknownEnvironmentVariable,
          reason:
            "The environment variable PLAYER_volume has the prefix PLAYER_ but names no setting"),
      ])
    for problem in contents.problems {
      #expect(!problem.description.contains("hunter"))
    }
  }

  /// Kubernetes' service links for a Service named like the prefix made four diagnostics at
  /// every start (issue 37, item 7): they are recognised, neither read nor reported.
  @Test func kubernetesServiceLinkVariablesUnderThePrefixAreNeitherReadNorReported() {
    let links = [
      "SVC_SERVICE_HOST": "10.0.0.1", "SVC_SERVICE_PORT": "80", "SVC_SERVICE_PORT_HTTP": "80",
      "SVC_PORT": "tcp://10.0.0.1:80", "SVC_PORT_80_TCP": "tcp://10.0.0.1:80",
      "SVC_PORT_80_TCP_PROTO": "tcp", "SVC_PORT_80_TCP_PORT": "80",
      "SVC_PORT_80_TCP_ADDR": "10.0.0.1", "SVC_PORT_53_UDP": "udp://10.0.0.1:53",
    ]
    let environment = links.merging(["SVC_LOG_LEVEL": "debug", "SVC_COLOUR": "red"]) { $1 }
    let unknownColour = SettingsError(
      .unknownEnvironmentVariable,
      reason: "The environment variable SVC_COLOUR has the prefix SVC_ but names no setting")
    let keyed = EnvironmentVariablesSource(
      prefix: "SVC", keys: ["port", "logLevel"], environment: environment
    ).read()
    #expect(keyed.values == ["logLevel": "debug"])
    #expect(keyed.problems == [unknownColour])
    let keyless = EnvironmentVariablesSource(prefix: "SVC", environment: environment).read()
    #expect(keyless.values == ["logLevel": "debug", "colour": "red"])
    #expect(keyless.problems == [])
    // The operator's own SVC_PORT is read, and without SVC_SERVICE_HOST nothing is a link.
    #expect(
      EnvironmentVariablesSource(
        prefix: "SVC", keys: ["port"], environment: links.merging(["SVC_PORT": "8081"]) { $1 }
      ).read().values == ["port": "8081"])
    let noService = EnvironmentVariablesSource(
      prefix: "SVC", keys: ["port"],
      environment: ["SVC_PORT": "tcp://10.0.0.1:80", "SVC_SERVICE_PORT": "80"]
    ).read()
    #expect(noService.values == ["port": "tcp://10.0.0.1:80"])
    #expect(noService.problems.count == 1)
  }

  /// Links of other Services whose names begin with the prefix (`svc-db`, `svc-database`), which
  /// a fail-fast start refused (issue 37's trial: creating a `<app>-db` Service made the next
  /// restart crash-loop), are neither read nor reported; a setting's variable that is also a
  /// link's name is read when it holds the operator's value, not a link's address.
  @Test func linksOfServicesWhoseNamesBeginWithThePrefixAreNeitherReadNorReported() {
    let links = [
      "SVC_DB_SERVICE_HOST": "10.0.0.2", "SVC_DB_SERVICE_PORT": "5432",
      "SVC_DB_PORT": "tcp://10.0.0.2:5432", "SVC_DB_PORT_5432_TCP": "tcp://10.0.0.2:5432",
      "SVC_DB_PORT_5432_TCP_ADDR": "10.0.0.2",
      "SVC_DATABASE_SERVICE_HOST": "10.0.0.3", "SVC_DATABASE_SERVICE_PORT": "5432",
      "SVC_DATABASE_PORT": "tcp://10.0.0.3:5432",
      "SVC_DATABASE_PORT_5432_TCP_PROTO": "tcp",
      "OTHER_SERVICE_HOST": "10.0.0.4", "OTHER_PORT": "tcp://10.0.0.4:80",
    ]
    let keyed = EnvironmentVariablesSource(
      prefix: "SVC", keys: ["database.port", "logLevel"],
      environment: links.merging(["SVC_LOG_LEVEL": "info"]) { $1 }
    ).read()
    #expect(keyed.values == ["logLevel": "info"])
    #expect(keyed.problems == [])
    let keyless = EnvironmentVariablesSource(prefix: "SVC", environment: links).read()
    #expect(keyless.values == [:])
    #expect(keyless.problems == [])
    let operators = EnvironmentVariablesSource(
      prefix: "SVC", keys: ["database.port"],
      environment: links.merging(["SVC_DATABASE_PORT": "6543"]) { $1 }
    ).read()
    #expect(operators.values == ["database.port": "6543"])
    #expect(operators.problems == [])
  }

  @Test func anEmptyPrefixReadsTheKeysNamesAndReportsNoOtherVariable() {
    let source = EnvironmentVariablesSource(
      prefix: "", keys: ["serverURL"], environment: ["SERVER_URL": "x", "PATH": "/bin"])
    #expect(source.read() == LayerContents(values: ["serverURL": "x"]))
  }

  @Test func aKeyWithNoASCIINameIsReportedNotGuessed() {
    let source = EnvironmentVariablesSource(
      prefix: "APP", keys: ["café", "..."], environment: ["APP_CAF": "x"])
    let problems = source.read().problems
    #expect(problems.map(\.code) == [.unnamableKey, .unnamableKey, .unknownEnvironmentVariable])
    #expect(problems.map(\.key) == ["...", "café", nil])
  }

  /// A value that isn't UTF-8 became U+FFFD, read as the value, with no problem reported.
  ///
  /// The child process sets its own variables from raw bytes (which no `[String: String]`
  /// environment can carry), then reads them through the source, with and without keys, and a
  /// store layering it.
  @Test func aValueThatIsNotUTF8IsNotReadAndIsAProblemNamingTheVariable() async throws {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      // "caf\xE9" (Latin-1), and a value that merely holds U+FFFD, which is read.
      let latin1: [CChar] = [0x63, 0x61, 0x66, CChar(bitPattern: 0xE9), 0]
      _ = latin1.withUnsafeBufferPointer { setenv("BYTESTEST_NAME", $0.baseAddress!, 1) }
      setenv("BYTESTEST_PORT", "8080", 1)
      setenv("BYTESTEST_NOTE", "a \u{FFFD} b", 1)
      var lines: [String] = []
      let keyed = EnvironmentVariablesSource(prefix: "BYTESTEST", keys: ["name", "port", "note"])
      let keyless = EnvironmentVariablesSource(prefix: "BYTESTEST")
      for contents in [keyed.read(), keyless.read()] {
        let values = contents.values.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }
        lines.append(values.joined(separator: " "))
        lines += contents.problems.map { "\($0.code) \($0.key ?? "-"): \($0.reason)" }
      }
      // In a store, the user's saved value shows through.
      let directory = try TemporaryDirectory()
      let data = directory.file("data.plist")
      try PropertyListFile(url: data).write(["name": "saved"])
      let (store, diagnostics) = try collectingDiagnostics {
        try LayeredPlistStore(
          persistentFile: data, layers: [.runtime, .source(keyed), .persistent],
          options: .init(savesAtExit: false))
      }
      lines.append("store: \(store.value(forKey: "name") ?? "nil")")
      lines += diagnostics.map { "\($0.kind): \($0.message)" }
      FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
    let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    let cause = "The environment variable BYTESTEST_NAME holds bytes that aren't UTF-8"
    let read = "note=\"a \u{FFFD} b\" port=8080\nlayerValueUnreadable name: \(cause)\n"
    #expect(
      output == read + read + "store: saved\n"
        + "layerSourceProblem: 'name': \(cause); the layer was read without it\n")
  }

  @Test func theDescriptionNeverShowsValues() {
    let source = EnvironmentVariablesSource(
      prefix: "PLAYER", keys: ["apiToken"], environment: ["PLAYER_API_TOKEN": "hunter2"])
    #expect(source.description == "environment variables PLAYER_* (1 set)")
    #expect(!String(reflecting: source).contains("hunter2"))
  }

  @Test func withoutKeysEveryPrefixedVariableIsReadUnderItsLowerCamelCaseKey() {
    let source = EnvironmentVariablesSource(
      prefix: "PLAYER_",
      environment: [
        "PLAYER_SERVER_URL": "https://example.com", "PLAYER_VOLUME": "0.5",
        "PLAYER_ALLOWS_CELLULAR_PLAYBACK": "yes", "PLAYER_": "x", "OTHER": "y",
      ])
    let contents = source.read()
    #expect(
      contents.values == [
        "serverUrl": "https://example.com", "volume": "0.5", "allowsCellularPlayback": "yes",
      ])
    #expect(
      contents.problems == [
        SettingsError(
          .unknownEnvironmentVariable,
          reason: "The environment variable PLAYER_ names no setting after its prefix")
      ])
    #expect(source.variableNames.isEmpty)
  }

  @Test func withoutKeysTwoVariablesNamingOneKeyAreNeitherRead() {
    let source = EnvironmentVariablesSource(
      prefix: "P", environment: ["P_SERVER_URL": "a", "P_SERVER__URL": "b", "P_server_url": "c"])
    let contents = source.read()
    #expect(contents.values.isEmpty)
    #expect(
      contents.problems == [
        SettingsError(
          .conflictingKeys, key: "serverUrl",
          reason:
            "The environment variables P_SERVER_URL, P_SERVER__URL, P_server_url all name the key; none is read"
        )
      ])
  }

  @Test func withoutKeysAnEmptyPrefixReadsNothing() {
    let source = EnvironmentVariablesSource(prefix: "", environment: ["PATH": "/bin"])
    #expect(source.read() == LayerContents(values: [:]))
  }
}
