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
}
