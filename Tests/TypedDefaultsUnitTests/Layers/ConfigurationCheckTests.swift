import Foundation
import Testing
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsTestSupport

private struct CheckedSettings: SettingsGroup {
  @Setting(in: 1...65535) var port = 8080
  @Setting var logLevel = CheckedLogLevel.info
  @Setting(secret: true) var token = ""
}

private struct TimeoutSettings: SettingsGroup {
  @Setting("request-timeout") var requestTimeout = 30
}

private enum CheckedLogLevel: String, SettingValue, CaseIterable {
  case debug, info, warning
}

/// The one place a service asks "is my configuration as declared?" (issue 37, item 5).
@Suite struct ConfigurationCheckTests {
  private func makeStore(
    arguments: [String] = [], environment: [String: String] = [:],
    in directory: TemporaryDirectory
  ) throws -> LayeredPlistStore {
    try serviceStore(
      keys: CheckedSettings(backend: InMemoryBackend()).allSettings.map(\.key),
      arguments: arguments, environment: environment, in: directory)
  }

  @Test func aConfigurationAsDeclaredPassesTheCheck() throws {
    let directory = try TemporaryDirectory()
    let store = try makeStore(environment: ["SVC_PORT": "9000"], in: directory)
    _ = CheckedSettings(backend: store)
    #expect(store.configurationProblems().isEmpty)
    try store.checkConfiguration()
  }

  @Test func theCheckListsEveryProblemByLayerAndKey() throws {
    let directory = try TemporaryDirectory()
    try PropertyListSerialization.data(
      fromPropertyList: ["logLevel": "verbose"], format: .xml, options: 0
    ).write(to: directory.file("data.plist"))
    let store = try makeStore(
      arguments: ["--colour", "blue", "--port=1", "--port=70000"],
      environment: ["SVC_PORT": "abc", "SVC_TOKEN": "hunter2", "SVC_LOG_LEVEL": "loud"],
      in: directory)
    let (_, diagnostics) = collectingDiagnostics { CheckedSettings(backend: store) }
    let problems = store.configurationProblems()
    #expect(
      problems.map(\.layer) == [
        .arguments, .arguments, .arguments, .environment, .environment, .persistent,
      ])
    #expect(problems.map(\.key) == ["port", nil, "port", "logLevel", "port", "logLevel"])
    #expect(
      problems.map(\.kind) == [
        .layerValueRejected, .layerSourceProblem, .layerSourceProblem, .layerValueRejected,
        .layerValueRejected, .typeMismatch,
      ])
    #expect(
      problems.last?.message
        == "The persistent layer ('\(directory.file("data.plist").path)') holds verbose for "
        + "'logLevel', which can't be read as CheckedLogLevel (verbose is not a raw value of "
        + "CheckedLogLevel (one of debug, info, warning)); the setting reads its default")
    // Every refused value was also reported as it was found.
    #expect(diagnostics.filter { $0.kind == .layerValueRejected }.count == 3)
    #expect(!problems.contains { $0.message.contains("hunter2") })
    // The check throws them all, one a line.
    #expect(throws: LayeredPlistStore.ConfigurationError.self) { try store.checkConfiguration() }
    do {
      try store.checkConfiguration()
    } catch {
      #expect(error.problems == problems)
      #expect(
        "\(error)".hasPrefix(
          "The configuration of \(store.name) is not as declared (6 problems):\n  [arguments] "))
    }
  }

  @Test func aRepeatedOptionIsNotSaidToBeLeftOut() throws {
    let directory = try TemporaryDirectory()
    var opened: LayeredPlistStore?
    let ((), diagnostics) = collectingDiagnostics {
      opened = try? makeStore(arguments: ["--port=1", "--port=2"], in: directory)
    }
    let store = try #require(opened)
    _ = CheckedSettings(backend: store)
    let message = "'port': The setting is given 2 times (--port, --port); the last is used"
    #expect(diagnostics.map(\.message) == [message])
    #expect(store.configurationProblems().map(\.message) == [message])
  }

  @Test func aMountedFileThatNamesNoSettingIsAProblemOfTheConfigurationCheck() throws {
    let directory = try TemporaryDirectory()
    let configMap = try KubernetesMount(
      at: directory.file("config"), ["port": "9000\n", "logLevl": "debug\n", "unknownKey": "x"])
    try Data("hidden".utf8).write(to: configMap.directory.appendingPathComponent(".hidden"))
    let secret = try KubernetesMount(
      at: directory.file("secrets"), ["token": "hunter2", "tokn": "hunter3\n"])
    let config = DirectorySource(directory: configMap.directory, layer: "config")
    let secrets = DirectorySource(
      directory: secret.directory, layer: "secrets", holdsSecrets: true)
    let keys = CheckedSettings(backend: InMemoryBackend()).allSettings.map(\.key)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: LayeredPlistStore.standardLayers(
        environment: EnvironmentVariablesSource(
          prefix: "SVC", keys: keys, environment: ["SVC_BOGUS": "1"]),
        directories: [secrets, config]),
      options: .init(savesAtExit: false))
    let unknownVariable = LayeredPlistStore.ConfigurationProblem(
      kind: .layerSourceProblem, key: nil, layer: .environment,
      message: "The environment variable SVC_BOGUS has the prefix SVC_ but names no setting")
    // Before a model declares its keys there is nothing to compare the files with.
    #expect(store.configurationProblems() == [unknownVariable])

    _ = CheckedSettings(backend: store)
    let problems = store.configurationProblems()
    #expect(
      problems == [
        unknownVariable,
        .init(
          kind: .layerSourceProblem, key: "tokn", layer: "secrets",
          message: "The file '\(secret.directory.path)/tokn' names no setting; did you mean "
            + "'token'?"),
        .init(
          kind: .layerSourceProblem, key: "logLevl", layer: "config",
          message: "The file '\(configMap.directory.path)/logLevl' names no setting; did you "
            + "mean 'logLevel'?"),
        .init(
          kind: .layerSourceProblem, key: "unknownKey", layer: "config",
          message: "The file '\(configMap.directory.path)/unknownKey' names no setting"),
      ])
    // Kubernetes' own entries and dotfiles are never named; a file's contents never shown.
    #expect(!problems.contains { $0.message.contains("..") || $0.message.contains(".hidden") })
    #expect(!problems.contains { $0.message.contains("hunter") || $0.message.contains("debug") })
    do {
      try store.checkConfiguration()
      Issue.record("The check passed")
    } catch {
      #expect(
        "\(error)"
          == "The configuration of \(store.name) is not as declared (4 problems):\n  "
          + problems.map(\.description).joined(separator: "\n  "))
      #expect(
        error.problems.map(\.description).last
          == "[config] The file '\(configMap.directory.path)/unknownKey' names no setting")
    }
  }

  @Test func aMountedFileRenamedToADeclaredKeyIsNoProblemOnceTheMountIsSwapped() async throws {
    let directory = try TemporaryDirectory()
    let mount = try KubernetesMount(at: directory.file("config"), ["logLevl": "debug\n"])
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [
        .runtime, .persistent,
        .source(DirectorySource(directory: mount.directory, layer: "config")),
      ],
      options: .init(savesAtExit: false, watchesFiles: true))
    let settings = CheckedSettings(backend: store)
    #expect(store.configurationProblems().map(\.key) == ["logLevl"])
    try mount.write(["logLevel": "debug\n"])
    await eventually("the store reads the swapped mount") { settings.logLevel == .debug }
    #expect(store.configurationProblems() == [])
  }

  @Test func aMountedFileIsComparedWithTheDeclaredKeysAsTheStoreNormalizesThem() throws {
    let directory = try TemporaryDirectory()
    let mount = try KubernetesMount(
      at: directory.file("config"), ["request_timeout": "5", "request_timout": "6"])
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [
        .runtime, .persistent,
        .source(DirectorySource(directory: mount.directory, layer: "config")),
      ],
      options: .init(savesAtExit: false, keyNormalization: .underscoresToHyphens))
    let settings = TimeoutSettings(backend: store)
    #expect(settings.requestTimeout == 5)
    #expect(
      store.configurationProblems() == [
        .init(
          kind: .layerSourceProblem, key: "request_timout", layer: "config",
          message: "The file '\(mount.directory.path)/request_timout' names no setting; did you "
            + "mean 'request-timeout'?")
      ])
  }
}
