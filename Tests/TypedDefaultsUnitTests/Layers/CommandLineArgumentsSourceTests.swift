import Testing
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsTestSupport

/// `CommandLineArgumentsSource`: every argument form, bare and negated flags, `--`, positional
/// arguments, and the problems (unknown options, missing values, repeats, conflicts) reported.
@Suite struct CommandLineArgumentsSourceTests {
  private let keys = ["serverURL", "verbose", "volume", "httpTimeoutMS"]

  private func source(_ arguments: [String]) -> CommandLineArgumentsSource {
    CommandLineArgumentsSource(arguments: arguments, keys: keys)
  }

  @Test func anOptionTakesItsValueAfterAnEqualsSignOrAsTheNextArgument() {
    #expect(
      source(["--server-url=https://a.example"]).read().values == ["serverURL": "https://a.example"]
    )
    #expect(
      source(["--server-url", "https://a.example"]).read().values == [
        "serverURL": "https://a.example"
      ])
    #expect(source(["--http-timeout-ms", "250"]).read().values == ["httpTimeoutMS": "250"])
    #expect(source(["--server-url="]).read().values == ["serverURL": ""])
    #expect(source(["--server-url=a=b"]).read().values == ["serverURL": "a=b"])
  }

  @Test func anOptionsNameIsTheKeysWordsInKebabCase() {
    let table = [
      "serverURL": "server-url", "server.url": "server-url", "server_url": "server-url",
      "httpTimeoutMS": "http-timeout-ms", "recentURLs": "recent-urls",
      "oAuth2Token": "o-auth2-token",
    ]
    for (key, option) in table {
      let source = CommandLineArgumentsSource(arguments: ["--\(option)=x"], keys: [key])
      #expect(source.read() == LayerContents(values: [key: "x"]), "\(key)")
    }
  }

  @Test func theUserDefaultsFormTakesTheKeyExactlyAsDeclared() {
    let contents = source(["-serverURL", "https://a.example", "-volume", "0.5"]).read()
    #expect(contents == LayerContents(values: ["serverURL": "https://a.example", "volume": "0.5"]))
    // `-ServerURL` is not the key `serverURL`: left alone, as another framework's.
    #expect(source(["-ServerURL", "x"]).read() == LayerContents(values: [:]))
  }

  @Test func aNegativeNumberOrADashAloneIsAValueNotAnOption() {
    #expect(source(["--volume", "-5"]).read().values == ["volume": "-5"])
    #expect(source(["-volume", "-0.5"]).read().values == ["volume": "-0.5"])
    #expect(source(["--server-url", "-"]).read().values == ["serverURL": "-"])
  }

  @Test func aBareOptionMeansTrueAndItsNoFormFalse() {
    #expect(source(["--verbose"]).read().values == ["verbose": true])
    #expect(
      source(["--verbose", "--volume=1"]).read().values == ["verbose": true, "volume": "1"])
    #expect(source(["--verbose", "--"]).read().values == ["verbose": true])
    #expect(source(["--no-verbose"]).read().values == ["verbose": false])
    // A key whose own option starts with no- is that key's.
    let own = CommandLineArgumentsSource(arguments: ["--no-cache"], keys: ["noCache", "cache"])
    #expect(own.read().values == ["noCache": true])
  }

  @Test func argumentsAfterTheDoubleDashAndPositionalArgumentsAreLeftAlone() {
    let source = source(["input.txt", "--volume", "1", "--", "--verbose", "--nonsense"])
    #expect(source.read() == LayerContents(values: ["volume": "1"]))
    #expect(source.unrecognizedArguments.isEmpty)
    #expect(self.source(["-v", "-AppleLanguages", "(en)"]).read() == LayerContents(values: [:]))
  }

  /// Positional arguments were ignored silently, and the app had to strip its own options
  /// before the source (issue 37, item 7): they are listed, reported once if the app takes
  /// none, and the app's own options are named rather than stripped.
  @Test func theAppsOwnOptionsAreLeftAloneAndPositionalArgumentsAreListed() {
    let arguments = [
      "--help", "-v", "--output", "out.txt", "--format=json", "--volume", "1", "in.txt",
      "--verbose", "--", "--nonsense", "hunter2",
    ]
    let source = CommandLineArgumentsSource(
      arguments: arguments, keys: keys, appFlags: ["--help", "-v"],
      appOptionsTakingAValue: ["--output", "--format"])
    #expect(source.read() == LayerContents(values: ["volume": "1", "verbose": true]))
    #expect(source.unrecognizedArguments.isEmpty)
    #expect(source.positionalArguments == ["in.txt", "--nonsense", "hunter2"])

    // An app that takes no positional arguments hears of them once, by position, never by text.
    let strict = CommandLineArgumentsSource(
      arguments: arguments, keys: keys, appFlags: ["--help", "-v"],
      appOptionsTakingAValue: ["--output", "--format"], takesPositionalArguments: false)
    #expect(
      strict.read().problems == [
        SettingsError(
          .unknownArgument,
          reason: "3 arguments at positions 8, 11, 12 are neither an option nor an option's "
            + "value, and the app takes no positional arguments")
      ])
    #expect(!strict.read().problems.contains { $0.description.contains("hunter2") })
    let many = CommandLineArgumentsSource(
      arguments: (1...7).map { "file\($0)" }, keys: keys, takesPositionalArguments: false)
    #expect(
      many.read().problems.map(\.reason) == [
        "7 arguments at positions 1, 2, 3, 4, 5 and 2 more are neither an option nor an "
          + "option's value, and the app takes no positional arguments"
      ])
    // Without the names, the app's options are unknown, as before.
    #expect(
      self.source(["--help", "--output", "out.txt"]).unrecognizedArguments == [
        "--help", "--output",
      ])
  }

  /// A repeated option's diagnostic said "the last is used; the layer was read without it" (issue
  /// 37, item 7): the store's report says only what is true.
  @Test func theStoresReportOfARepeatedOptionSaysTheLastIsUsedAndNothingElse() throws {
    let directory = try TemporaryDirectory()
    let (store, reported) = try collectingDiagnostics {
      try LayeredPlistStore(
        persistentFile: directory.file("data.plist"),
        layers: [
          .runtime, .source(source(["--volume", "1", "--volume", "2"])), .persistent,
        ],
        options: .init(savesAtExit: false))
    }
    #expect(store.value(forKey: "volume") == "2")
    #expect(
      reported.map(\.message) == [
        "'volume': The setting is given 2 times (--volume, --volume); the last is used"
      ])
  }

  @Test func anUnknownOptionIsReportedByNameWithoutItsValue() {
    let source = source(["--api-tokn=hunter2", "--colour", "red", "--verbose"])
    #expect(source.unrecognizedArguments == ["--api-tokn", "--colour"])
    let contents = source.read()
    #expect(contents.values == ["verbose": true])
    #expect(
      contents.problems == [
        SettingsError(.unknownArgument, reason: "The option --api-tokn names no setting"),
        SettingsError(.unknownArgument, reason: "The option --colour names no setting"),
      ])
    #expect(!contents.problems.contains { $0.description.contains("hunter2") })
    #expect(source.description == "command-line arguments (1 set)")
  }

  @Test func theKeyWrittenAfterTwoDashesIsUnknownWithAHint() {
    let contents = source(["--serverURL=x"]).read()
    #expect(contents.values.isEmpty)
    #expect(
      contents.problems == [
        SettingsError(
          .unknownArgument,
          reason: "The option --serverURL names no setting; write it --server-url or -serverURL")
      ])
  }

  @Test func theUserDefaultsFormWithNoValueIsAMissingValue() {
    for arguments in [["-volume"], ["-volume", "--verbose"]] {
      let source = source(arguments)
      #expect(source.unrecognizedArguments == ["-volume"])
      #expect(source.read().values["volume"] == nil)
      #expect(
        source.read().problems.first
          == SettingsError(
            .missingArgumentValue, key: "volume",
            reason: "The option -volume has no value; give one after it"))
    }
  }

  @Test func aRepeatedKeyUsesTheLastValueAndIsReported() {
    let source = source(["--volume=1", "-volume", "2", "--volume", "3"])
    let contents = source.read()
    #expect(contents.values == ["volume": "3"])
    #expect(
      contents.problems == [
        SettingsError(
          .repeatedArgument, key: "volume",
          reason: "The setting is given 3 times (--volume, -volume, --volume); the last is used")
      ])
    #expect(source.unrecognizedArguments.isEmpty)
  }

  /// 10,000 repeats of one option made a problem of 90 KB naming every one.
  @Test func aKeyGivenTenThousandTimesIsReportedInOneShortLineNamingTheFirstThree() {
    let arguments = ["-volume", "0"] + (1..<10_000).flatMap { ["--volume=\($0)"] }
    let contents = source(arguments).read()
    #expect(contents.values == ["volume": "9999"])
    #expect(
      contents.problems == [
        SettingsError(
          .repeatedArgument, key: "volume",
          reason: "The setting is given 10000 times (-volume, --volume, --volume and 9997 more); "
            + "the last is used")
      ])
    // Four are still named.
    #expect(
      source(["--volume=1", "-volume", "2", "--no-volume", "--volume", "3"]).read().problems.map(
        \.reason) == [
          "The setting is given 4 times (--volume, -volume, --no-volume, --volume); the last is used"
        ])
  }

  @Test func twoKeysWithOneOptionAreNeitherReadFromItButStillFromTheirOwnForm() {
    let source = CommandLineArgumentsSource(
      arguments: ["--server-url=a", "-server.url", "b"], keys: ["serverURL", "server.url"])
    let contents = source.read()
    #expect(contents.values == ["server.url": "b"])
    #expect(
      contents.problems == [
        SettingsError(
          .conflictingKeys,
          reason:
            "The keys 'server.url', 'serverURL' all have the option --server-url; none is read from it"
        ),
        SettingsError(.unknownArgument, reason: "The option --server-url names no setting"),
      ])
  }

  @Test func theSourceFillsTheArgumentsLayerWithTextAndRecordsNothing() {
    let source = source([])
    #expect(source.layer == .arguments)
    #expect(source.valuesAreText)
    #expect(source.recordedSource == nil)
    #expect(source.read() == LayerContents(values: [:]))
    let named = CommandLineArgumentsSource(arguments: [], keys: keys, layer: "flags")
    #expect(named.layer == "flags")
  }
}
