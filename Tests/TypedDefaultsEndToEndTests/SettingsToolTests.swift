import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsSchema
import TypedDefaultsTestSupport

@testable import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `settings` command-line tool (Sources/settings), run as a user runs it: every test checks
/// standard output, standard error and the exit status exactly.
///
/// Each test has its own folder, and its `HOME`, `XDG_CONFIG_HOME` and `XDG_DATA_HOME` inside it,
/// so no test sees or changes the user's suites or stores.
@Suite struct SettingsToolTests {
  let directory: TemporaryDirectory

  init() throws {
    directory = try TemporaryDirectory()
  }

  /// Where the tool finds `UserDefaults` suites in these tests.
  var configHome: URL { directory.file("config") }
  /// Where the tool finds apps' `LayeredPlistStore` folders in these tests.
  var dataHome: URL { directory.file("data") }
  /// `defaults`' message for a domain that doesn't exist, for an app's identifier: neither its
  /// layered store's folder nor its suite's file is there.
  func missingDomain(_ name: String, configHome: URL? = nil) -> String {
    "Domain \(name) does not exist (neither a LayeredPlistStore in "
      + "\(dataHome.appendingPathComponent(name).path) nor a UserDefaults suite "
      + "\((configHome ?? self.configHome).appendingPathComponent(name + ".plist").path))"
  }

  /// The tool's environment: a home of its own (not created), with the test's suites and stores
  /// folders.
  var toolEnvironment: [String: String] {
    [
      "XDG_CONFIG_HOME": configHome.path, "XDG_DATA_HOME": dataHome.path,
      "HOME": directory.file("home").path,
    ]
  }

  // MARK: - Running the tool

  /// Runs `settings` with `XDG_CONFIG_HOME` set to the test's own folder.
  func settings(
    _ arguments: [String],
    input: URL? = nil,
    environment: [String: String] = [:]
  ) throws -> ProcessResult {
    let environment = toolEnvironment.merging(environment) { $1 }
    return try runProduct(
      "settings", arguments, environment: environment, standardInput: input)
  }

  /// Runs `settings`, expecting success: exactly `output` on standard output, nothing on standard
  /// error.
  func expect(
    _ arguments: [String],
    prints output: String,
    input: URL? = nil,
    environment: [String: String] = [:],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let run = try settings(arguments, input: input, environment: environment)
    #expect(run.standardError == "", "\(arguments)", sourceLocation: sourceLocation)
    #expect(run.status == 0, "\(arguments)", sourceLocation: sourceLocation)
    #expect(run.standardOutput == output, "\(arguments)", sourceLocation: sourceLocation)
  }

  /// Runs `settings`, expecting it to fail with `status` and exactly one line,
  /// `settings: <message>`, on standard error, and nothing on standard output.
  func expect(
    _ arguments: [String],
    failsWith message: String,
    status: Int32 = 1,
    input: URL? = nil,
    environment: [String: String] = [:],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let run = try settings(arguments, input: input, environment: environment)
    #expect(
      run.standardError == "settings: \(message)\n", "\(arguments)", sourceLocation: sourceLocation)
    #expect(run.status == status, "\(arguments)", sourceLocation: sourceLocation)
    #expect(run.standardOutput == "", "\(arguments)", sourceLocation: sourceLocation)
  }

  /// Runs `settings`, expecting success with no output.
  func succeed(
    _ arguments: [String],
    input: URL? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    try expect(arguments, prints: "", input: input, sourceLocation: sourceLocation)
  }

  /// Runs `settings` through `/bin/sh` with its standard streams redirected first, as in
  /// `settings read dom > /dev/full` (`redirection` is `>/dev/full`) or with standard output
  /// closed (`>&-`); what still reaches the test's pipes is returned.
  func settings(_ arguments: [String], redirecting redirection: String) throws -> ProcessResult {
    let executable = TestPaths.productsDirectory.appendingPathComponent("settings").path
    let run = try runExecutable(
      URL(fileURLWithPath: "/bin/sh"),
      ["-c", "exec \"$0\" \"$@\" \(redirection)", executable] + arguments,
      environment: toolEnvironment)
    return ProcessResult(
      status: run.status,
      standardOutput: String(decoding: run.standardOutput, as: UTF8.self),
      standardError: String(decoding: run.standardError, as: UTF8.self))
  }

  /// A shared fixture, `valid/<name>` or `invalid/<name>`.
  static func fixture(_ path: String) -> URL {
    TestPaths.sharedFixtures.appendingPathComponent(path)
  }

  /// A copy of a shared fixture in the test's folder.
  func copyOfFixture(_ path: String, as name: String) throws -> URL {
    let copy = directory.file(name)
    try FileManager.default.copyItem(at: Self.fixture(path), to: copy)
    return copy
  }

  // MARK: - Help and the command line

  static let verbs = [
    "read", "read-type", "write", "delete", "domains", "list", "export", "import", "explain",
    "watch", "help",
  ]

  @Test func helpListsEveryVerbAndEveryVerbHasHelp() throws {
    let help = try settings(["--help"])
    #expect(help.status == 0)
    #expect(help.standardError == "")
    #expect(help.standardOutput.hasPrefix("usage: settings <verb> [arguments]"))
    for synopsis in [
      "read domain [key]", "read-type domain key", "write domain key value",
      "delete domain [key]", "domains", "list", "export domain (file | -)",
      "import domain (file | -)", "explain domain key", "watch domain [key ...]",
      "help [verb]",
    ] {
      #expect(help.standardOutput.contains("\n  \(synopsis) "), "\(synopsis)")
    }
    // The domain convention and the type flags are in the help.
    for text in ["data.plist", "JF-info.plist", "Info.plist", "$XDG_CONFIG_HOME", "-array-add"] {
      #expect(help.standardOutput.contains(text), "\(text)")
    }
    try expect(["-h"], prints: help.standardOutput)
    try expect(["help"], prints: help.standardOutput)

    for verb in Self.verbs {
      let verbHelp = try settings([verb, "--help"])
      #expect(verbHelp.status == 0, "\(verb)")
      #expect(verbHelp.standardError == "", "\(verb)")
      #expect(verbHelp.standardOutput.hasPrefix("usage: settings \(verb)"), "\(verb)")
      try expect(["help", verb], prints: verbHelp.standardOutput)
    }
    let writeHelp = try settings(["write", "-h"]).standardOutput
    for flag in [
      "-string", "-int", "-integer", "-float", "-bool", "-boolean", "-date", "-data", "-array",
      "-array-add", "-dict", "-dict-add",
    ] {
      #expect(writeHelp.contains(" \(flag) "), "\(flag)")
    }
  }

  @Test func commandLineMistakesAreOneLineUsageErrors() throws {
    let file = directory.file("a.plist").path
    try expect([], failsWith: "missing verb; run 'settings --help' for the list", status: 64)
    try expect(
      ["frobnicate", file],
      failsWith: "unknown verb 'frobnicate'; run 'settings --help' for the list",
      status: 64)
    try expect(
      ["help", "frobnicate"],
      failsWith: "unknown verb 'frobnicate'; run 'settings --help' for the list", status: 64)
    try expect(
      ["read"],
      failsWith: "read: missing domain (settings doesn't print every domain as defaults does; "
        + "'settings domains' lists them); usage: settings read domain [key]",
      status: 64)
    try expect(
      ["read", "-g", "key"],
      failsWith: "read: unknown option '-g'; a domain is a suite name, a .plist file or a store "
        + "folder (see 'settings --help')",
      status: 64)
    try expect(
      ["read", file, "key", "extra"],
      failsWith: "read: unexpected argument 'extra'; usage: settings read domain [key]",
      status: 64)
    try expect(
      ["read-type", file],
      failsWith: "read-type: missing key; usage: settings read-type domain key",
      status: 64)
    try expect(
      ["write", file, "key"],
      failsWith: "write: missing value; usage: settings write domain key value", status: 64)
    try expect(
      ["write", file, "key", "-integr", "5"],
      failsWith: "unknown type flag '-integr'; to write text starting with '-', use -string",
      status: 64)
    try expect(
      ["write", file, "key", "-5"],
      failsWith: "unknown type flag '-5'; to write text starting with '-', use -string",
      status: 64)
    try expect(
      ["write", file, "key", "two", "words"],
      failsWith:
        "write: unexpected argument 'words'; quote a value that holds spaces, or use -array",
      status: 64)
    try expect(
      ["write", file, "key", "-int"], failsWith: "-int needs a value", status: 64)
    try expect(
      ["write", file, "key", "-int", "5", "6"],
      failsWith: "write: unexpected argument '6'; quote a value that holds spaces, or use -array",
      status: 64)
    try expect(
      ["write", file, "key", "-dict", "a", "1", "b"],
      failsWith: "-dict: the key 'b' has no value; give key value pairs", status: 64)
    try expect(
      ["domains", "extra"],
      failsWith: "domains: unexpected argument 'extra'; usage: settings domains",
      status: 64)
    try expect(
      ["export", file],
      failsWith: "export: missing file (or - for standard output); "
        + "usage: settings export domain (file | -)",
      status: 64)
    // None of these created the file.
    #expect(!FileManager.default.fileExists(atPath: file))
  }

  @Test func helpTakesAtMostAVerbAndRefusesAnythingElse() throws {
    let readHelp = try settings(["read", "--help"]).standardOutput
    try expect(["--help", "read"], prints: readHelp)
    try expect(["-h", "read"], prints: readHelp)
    try expect(
      ["--help", "extra"],
      failsWith: "unknown verb 'extra'; run 'settings --help' for the list", status: 64)
    try expect(
      ["-h", "read", "extra"],
      failsWith: "help: unexpected argument 'extra'; usage: settings help [verb]", status: 64)
    try expect(
      ["help", "read", "extra"],
      failsWith: "help: unexpected argument 'extra'; usage: settings help [verb]", status: 64)
  }

  @Test func nearMissTypeFlagsGetASuggestion() throws {
    let file = directory.file("a.plist").path
    let hint = "(to write text starting with '-', use -string)"
    for (flag, meant) in [
      ("-double", "-float"), ("-real", "-float"), ("-number", "-float"), ("-str", "-string"),
      ("-text", "-string"), ("-dictionary", "-dict"), ("-list", "-array"), ("-bytes", "-data"),
      ("-hex", "-data"), ("-datetime", "-date"), ("-Float", "-float"), ("--int", "-int"),
    ] {
      try expect(
        ["write", file, "fontSize", flag, "3.5"],
        failsWith: "unknown type flag '\(flag)'; did you mean \(meant)? \(hint)", status: 64)
    }
    try expect(
      ["write", file, "sizes", "-array", "-double", "3.5"],
      failsWith: "unknown type flag '-double' in -array; did you mean -float? \(hint)",
      status: 64)
    // No suggestion for a flag out of place, or one that is nothing like a type flag.
    try expect(
      ["write", file, "sizes", "-array", "-array", "1"],
      failsWith:
        "unknown type flag '-array' in -array; to write text starting with '-', use -string",
      status: 64)
    try expect(
      ["write", file, "size", "--", "1"],
      failsWith: "unknown type flag '--'; to write text starting with '-', use -string",
      status: 64)
    // The long forms are flags already.
    try succeed(["write", file, "size", "-integer", "3"])
    try succeed(["write", file, "on", "-boolean", "yes"])
    try expect(["read", file], prints: "{\n    on = 1;\n    size = 3;\n}\n")
  }

  @Test func aKeyThatIsATypeFlagIsAUsageError() throws {
    let file = directory.file("a.plist").path
    try expect(
      ["write", file, "-bool", "true"],
      failsWith: "write: '-bool' is a type flag, not a key; "
        + "usage: settings write domain key -bool value",
      status: 64)
    try expect(
      ["write", file, "-array", "a", "b"],
      failsWith: "write: '-array' is a type flag, not a key; "
        + "usage: settings write domain key -array value …",
      status: 64)
    try expect(
      ["write", file, "-dict-add", "a", "b"],
      failsWith: "write: '-dict-add' is a type flag, not a key; "
        + "usage: settings write domain key -dict-add key value …",
      status: 64)
    #expect(!FileManager.default.fileExists(atPath: file))
    // A key may still start with '-'.
    try succeed(["write", file, "-verbose", "-bool", "true"])
    try expect(["read", file, "-verbose"], prints: "1\n")
  }

  @Test func controlCharactersInErrorsAreEscaped() throws {
    // A file's bytes, quoted by the parser's message: ESC would start a terminal escape.
    let escape = directory.file("escape.plist")
    try Data("\u{1B}[31mred".utf8).write(to: escape)
    try expect(
      ["read", escape.path],
      failsWith: "Cannot read the property list at '\(escape.path)': "
        + "Unexpected character \\u{1B} at line 1")
    // An argument: every C0 character (line breaks too), DEL and C1, kept on one line.
    let file = directory.file("a.plist").path
    try succeed(["write", file, "k", "v"])
    try expect(
      ["read", file, "a\u{7}b\nc\td\u{7F}e\u{85}f\u{9B}g\u{2028}h"],
      failsWith: "The domain/default pair of (\(file), "
        + "a\\u{7}b\\u{A}c\\u{9}d\\u{7F}e\\u{85}f\\u{9B}g\\u{2028}h) does not exist")
    // Other text is as it is.
    try expect(
      ["read", file, "caf\u{e9} \u{1F600}"],
      failsWith: "The domain/default pair of (\(file), caf\u{e9} \u{1F600}) does not exist")
  }

  // MARK: - Reading real files

  @Test(.enabled(if: TestPaths.hasSharedFixtures, "the shared plist fixtures are absent"))
  func readsAnXMLInfoPlist() throws {
    let file = Self.fixture("valid/netnewswire__iOS_Info.plist").path
    let expected = try String(
      contentsOf: TestPaths.ownFixtures.appendingPathComponent(
        "settings-read-netnewswire__iOS_Info.txt"),
      encoding: .utf8)
    try expect(["read", file], prints: expected)
    try expect(["read", file, "CFBundleName"], prints: "$(PRODUCT_NAME)\n")
    try expect(["read", file, "ITSAppUsesNonExemptEncryption"], prints: "0\n")
    try expect(["read-type", file, "ITSAppUsesNonExemptEncryption"], prints: "Type is boolean\n")
    try expect(
      ["read", file, "CFBundleURLTypes"],
      prints: """
        (
            {
                CFBundleTypeRole = Viewer;
                CFBundleURLName = "com.ranchero.NetNewsWire-Evergreen.iOS.feed";
                CFBundleURLSchemes = (
                    feed,
                    feeds
                );
            },
            {
                CFBundleTypeRole = Viewer;
                CFBundleURLName = "com.ranchero.NetNewsWire-Evergreen.iOS";
                CFBundleURLSchemes = (
                    netnewswire
                );
            }
        )

        """)
    try expect(
      ["read", file, "NoSuchKey"],
      failsWith: "The domain/default pair of (\(file), NoSuchKey) does not exist")
  }

  @Test(.enabled(if: TestPaths.hasSharedFixtures, "the shared plist fixtures are absent"))
  func readsABinaryPlistWithDatesAndBooleans() throws {
    let file = Self.fixture("valid/biplist__BFPersistentEventInfo.plist").path
    try expect(
      ["read", file],
      prints: """
        {
            eventCountsDictionary = {
            };
            firstLaunchDate = "0001-12-30 00:00:00 +0000";
            hasTappedNever = 0;
            hasTappedNotNow = 0;
            hasTappedRate = 0;
            lastShownRatePromptDate = "0001-12-30 00:00:00 +0000";
        }

        """)
    try expect(["read", file, "firstLaunchDate"], prints: "0001-12-30 00:00:00 +0000\n")
    try expect(["read-type", file, "firstLaunchDate"], prints: "Type is date\n")
  }

  @Test(.enabled(if: TestPaths.hasSharedFixtures, "the shared plist fixtures are absent"))
  func readsAnOpenStepPlist() throws {
    let file = Self.fixture("valid/dd-plist__test1-ascii.plist").path
    try expect(
      ["read", file],
      prints: """
        {
            array = (
                YES,
                NO,
                87,
                "3.14159"
            );
            data = {length = 9, bytes = 0x000000041041082082};
            date = "2011-11-28T09:21:30Z";
            "key&B" = "value&B";
            keyA = valueA;
        }

        """)
    // OpenStep has strings, arrays, dictionaries and data only.
    try expect(["read-type", file, "array"], prints: "Type is array\n")
    try expect(["read-type", file, "date"], prints: "Type is string\n")
    try expect(["read", file, "key&B"], prints: "value&B\n")
  }

  @Test func readPrintsTheRootOfAFileWhateverItsTypeAndStringsAsTheyAre() throws {
    let file = directory.file("array.plist")
    try PropertyListFile(url: file).write(
      ["plain", "two words", "caf\u{e9}", "", .integer(-1), .real(0.25), .data(Data([0, 255]))],
      format: .binary)
    try expect(
      ["read", file.path],
      prints: """
        (
            plain,
            "two words",
            "caf\\U00e9",
            "",
            "-1",
            "0.25",
            {length = 2, bytes = 0x00ff}
        )

        """)
    let message = try #require(
      throwsSettingsError { _ = try PropertyListFile(url: file).readDictionary() })
    try expect(["read", file.path, "key"], failsWith: message.description)
    try expect(["write", file.path, "key", "value"], failsWith: message.description)
  }

  // MARK: - Writing every type

  /// A domain kind the write tests run on.
  enum Kind: String, CaseIterable, Sendable {
    case file, folder, suite
    /// A layered store named by its app's identifier, in the standard data folder.
    case app
  }

  /// The domain argument for a kind, created empty.
  func domain(_ kind: Kind) throws -> String {
    switch kind {
    case .file:
      return directory.file("settings.plist").path
    case .folder:
      let folder = directory.file("store")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      return folder.path
    case .suite:
      try FileManager.default.createDirectory(at: configHome, withIntermediateDirectories: true)
      try PropertyListFile(
        url: configHome.appendingPathComponent("TypedDefaultsTests.settings.plist")
      )
      .write([:])
      return "TypedDefaultsTests.settings"
    case .app:
      let folder = dataHome.appendingPathComponent("TypedDefaultsTests.app")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try PropertyListFile(url: folder.appendingPathComponent("data.plist")).write([:])
      return "TypedDefaultsTests.app"
    }
  }

  /// A `write` value, what `read domain key` prints for it, its `read-type`, and how it shows
  /// in `read domain` (quoted unless only letters and digits; containers indented).
  struct WriteCase: Sendable, CustomTestStringConvertible {
    let value: [String]
    let read: String
    let type: String
    let inDomain: String

    init(_ value: [String], _ read: String, _ type: String, inDomain: String? = nil) {
      self.value = value
      self.read = read
      self.type = type
      self.inDomain = inDomain ?? read.replacingOccurrences(of: "\n", with: "\n    ")
    }

    var testDescription: String { value.joined(separator: " ") }

    static let all: [WriteCase] = [
      .init(["-string", "hello world"], "hello world", "string", inDomain: #""hello world""#),
      .init(["-string", "-dash"], "-dash", "string", inDomain: #""-dash""#),
      .init(["-string", "line\nbreak"], "line\nbreak", "string", inDomain: #""line\nbreak""#),
      .init(["-int", "-42"], "-42", "integer", inDomain: #""-42""#),
      .init(["-int", "+7"], "7", "integer"),
      .init(["-integer", "18446744073709551615"], "18446744073709551615", "integer"),
      .init(["-float", "0.5"], "0.5", "float", inDomain: #""0.5""#),
      .init(["-float", "-2"], "-2", "float", inDomain: #""-2""#),
      .init(["-float", "1e-3"], "0.001", "float", inDomain: #""0.001""#),
      .init(["-float", "1e20"], "1e+20", "float", inDomain: #""1e+20""#),
      .init(["-bool", "YES"], "1", "boolean"),
      .init(["-bool", "no"], "0", "boolean"),
      .init(["-boolean", "TRUE"], "1", "boolean"),
      .init(["-boolean", "false"], "0", "boolean"),
      .init(
        ["-date", "2026-11-30T15:32:33Z"], "2026-11-30 15:32:33 +0000", "date",
        inDomain: #""2026-11-30 15:32:33 +0000""#),
      .init(
        ["-date", "2026-11-30 17:32:33 +0200"], "2026-11-30 15:32:33 +0000", "date",
        inDomain: #""2026-11-30 15:32:33 +0000""#),
      .init(
        ["-date", "2026-11-30"], "2026-11-30 00:00:00 +0000", "date",
        inDomain: #""2026-11-30 00:00:00 +0000""#),
      .init(["-data", "cafe0042"], "{length = 4, bytes = 0xcafe0042}", "data"),
      .init(
        ["-data", "<00010203 04050607 08090a0b 0c0d0e0f 10111213 14151617 18191a1b 1c1d1e1f>"],
        "{length = 32, bytes = 0x00010203 04050607 08090a0b 0c0d0e0f ... 18191a1b 1c1d1e1f }",
        "data"),
      .init(
        ["-array", "a", "b c", "-int", "3", "-bool", "yes"],
        "(\n    a,\n    \"b c\",\n    3,\n    1\n)", "array"),
      .init(
        ["-array", "caf\u{e9}", "line\nbreak", "tab\there", "quote\"back\\slash", ""],
        #"(\#n    "caf\U00e9",\#n    "line\nbreak",\#n    "tab\there",\#n"#
          + #"    "quote\"back\\slash",\#n    ""\#n)"#,
        "array"),
      .init(["-array"], "(\n)", "array"),
      .init(
        ["-dict", "name", "Ada", "size", "-int", "3", "two words", "-float", "0.25"],
        "{\n    name = Ada;\n    size = 3;\n    \"two words\" = \"0.25\";\n}", "dictionary"),
      .init(["-dict"], "{\n}", "dictionary"),
      .init(["hello"], "hello", "string"),
      .init(["two words"], "two words", "string", inDomain: #""two words""#),
      .init(["(1, 2)"], "(\n    1,\n    2\n)", "array"),
      .init(
        ["{a = 1; b = (x, \"y z\");}"],
        "{\n    a = 1;\n    b = (\n        x,\n        \"y z\"\n    );\n}", "dictionary"),
      .init(["<0fa1>"], "{length = 2, bytes = 0x0fa1}", "data"),
      .init(["\"quoted\""], "quoted", "string"),
      .init(["{a=1}"], "{a=1}", "string", inDomain: #""{a=1}""#),
    ]
  }

  @Test(arguments: WriteCase.all, Kind.allCases)
  func everyWriteRoundTripsThroughRead(_ write: WriteCase, on kind: Kind) throws {
    let domain = try domain(kind)
    try succeed(["write", domain, "key"] + write.value)
    try expect(["read", domain, "key"], prints: write.read + "\n")
    try expect(["read-type", domain, "key"], prints: "Type is \(write.type)\n")
    try expect(["read", domain], prints: "{\n    key = \(write.inDomain);\n}\n")
  }

  @Test(arguments: Kind.allCases)
  func arrayAddAndDictAddExtendWhatIsThere(on kind: Kind) throws {
    let domain = try domain(kind)
    try succeed(["write", domain, "list", "-array-add", "a"])
    try succeed(["write", domain, "list", "-array-add", "b", "-int", "2"])
    try expect(["read", domain, "list"], prints: "(\n    a,\n    b,\n    2\n)\n")
    try succeed(["write", domain, "map", "-dict-add", "a", "1"])
    try succeed(["write", domain, "map", "-dict-add", "b", "-bool", "true", "a", "one"])
    try expect(["read", domain, "map"], prints: "{\n    a = one;\n    b = 1;\n}\n")
    try succeed(["write", domain, "text", "hello"])
    try expect(
      ["write", domain, "text", "-array-add", "x"],
      failsWith: "-array-add: 'text' holds a string, not an array; nothing was changed")
    try expect(
      ["write", domain, "list", "-dict-add", "k", "v"],
      failsWith: "-dict-add: 'list' holds an array, not a dictionary; nothing was changed")
    try expect(["read", domain, "text"], prints: "hello\n")
  }

  @Test func wrongValuesAreOneLineErrorsAndChangeNothing() throws {
    let file = directory.file("a.plist").path
    // An XML file keeps its format, and with it XML's rules.
    try PropertyListFile(url: URL(fileURLWithPath: file)).write(["kept": 1], format: .xml)
    let before = try Data(contentsOf: URL(fileURLWithPath: file))
    // A value its type flag doesn't take is a command line that is wrong: exit status 64.
    try expect(
      ["write", file, "n", "-int", "abc"], failsWith: "-int: 'abc' is not an integer", status: 64)
    try expect(
      ["write", file, "n", "-int", "18446744073709551616"],
      failsWith: "-int: '18446744073709551616' is not in the integer range "
        + "(-9223372036854775808 to 18446744073709551615)",
      status: 64)
    try expect(
      ["write", file, "n", "-float", "half"], failsWith: "-float: 'half' is not a number",
      status: 64)
    try expect(
      ["write", file, "n", "-bool", "maybe"],
      failsWith: "-bool: 'maybe' is not a boolean (yes, no, true, false, 1 or 0)", status: 64)
    try expect(
      ["write", file, "n", "-date", "tomorrow"],
      failsWith: "-date: 'tomorrow' is not a date "
        + "(2026-11-30T15:32:33Z, 2026-11-30 15:32:33 +0000 or 2026-11-30)",
      status: 64)
    try expect(
      ["write", file, "n", "-date", "2026-02-30"],
      failsWith: "-date: '2026-02-30' is not a date "
        + "(2026-11-30T15:32:33Z, 2026-11-30 15:32:33 +0000 or 2026-11-30)",
      status: 64)
    try expect(
      ["write", file, "n", "-data", "abc"],
      failsWith:
        "-data: 'abc' is not hexadecimal data (an even number of hex digits, such as 0fa1)",
      status: 64)
    try expect(
      ["write", file, "n", "-array", "-int", "x"], failsWith: "-int: 'x' is not an integer",
      status: 64)
    // The library refuses what XML can't hold, naming the key.
    try expect(
      ["write", file, "n", "-string", "a\u{1}b"],
      failsWith: "Cannot store the value for 'n': A string holds the control character U+0001, "
        + "which XML can't hold")
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
  }

  @Test func numbersThatDontFitTheirFlagAreRefusedNotRounded() throws {
    let file = directory.file("a.plist").path
    // A doubled sign is no integer at all, not one out of range.
    try expect(
      ["write", file, "n", "-int", "--5"], failsWith: "-int: '--5' is not an integer", status: 64)
    try expect(
      ["write", file, "n", "-int", "+-5"], failsWith: "-int: '+-5' is not an integer", status: 64)
    // A finite number past a float's range isn't stored as infinity.
    for text in ["1e309", "-1E309", "0x1p5000"] {
      try expect(
        ["write", file, "n", "-float", text],
        failsWith: "-float: '\(text)' is out of the range of a float", status: 64)
    }
    #expect(!FileManager.default.fileExists(atPath: file))
    // Infinity asked for by name still is.
    try succeed(["write", file, "n", "-float", "inf"])
    try expect(["read", file, "n"], prints: "inf\n")
    try succeed(["write", file, "n", "-float", "-Infinity"])
    try expect(["read", file, "n"], prints: "-inf\n")
    try succeed(["write", file, "n", "-float", "1.7976931348623157e308"])
    try expect(["read-type", file, "n"], prints: "Type is float\n")
  }

  @Test func aLiteralNestedTooDeeplyIsAnErrorNotAString() throws {
    let file = directory.file("deep.plist").path
    func nested(_ depth: Int) -> String {
      String(repeating: "(", count: depth) + String(repeating: ")", count: depth)
    }
    try succeed(["write", file, "k", nested(511)])
    try expect(["read-type", file, "k"], prints: "Type is array\n")
    let before = try Data(contentsOf: URL(fileURLWithPath: file))
    // The library refuses 512 levels under a key; its reader refuses 513 and CoreFoundation's
    // parser, deeper still, reports a syntax error: all the same error, none stored as text.
    for depth in [512, 513, 514, 1000, 5000] {
      try expect(
        ["write", file, "k", nested(depth)],
        failsWith: "Cannot store the value for 'k': It is nested more than 511 levels deep, "
          + "deeper than can be read back")
    }
    try expect(
      ["write", file, "k", "{a = " + nested(600) + ";}"],
      failsWith: "Cannot store the value for 'k': It is nested more than 511 levels deep, "
        + "deeper than can be read back")
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    // Text that doesn't parse as a literal is still a string, deep parentheses in quotes too.
    try succeed(["write", file, "k", "(a b)"])
    try expect(["read-type", file, "k"], prints: "Type is string\n")
    let quoted = "(\"" + String(repeating: "(", count: 600) + "\")"
    try succeed(["write", file, "k", quoted])
    try expect(
      ["read", file, "k"], prints: "(\n    \"\(String(repeating: "(", count: 600))\"\n)\n")
  }

  // MARK: - Deleting

  @Test(arguments: Kind.allCases)
  func deleteRemovesAKeyOrEveryKey(on kind: Kind) throws {
    let domain = try domain(kind)
    try succeed(["write", domain, "a", "1"])
    try succeed(["write", domain, "b", "-int", "2"])
    try succeed(["delete", domain, "a"])
    try expect(["read", domain], prints: "{\n    b = 2;\n}\n")
    try expect(
      ["delete", domain, "a"], failsWith: "The domain/default pair of (\(domain), a) does not exist"
    )
    try expect(
      ["read", domain, "a"], failsWith: "The domain/default pair of (\(domain), a) does not exist")
    try succeed(["delete", domain])
    if kind == .suite {
      // UserDefaults removes a suite's file once the suite is empty: the domain is gone, as
      // after `defaults delete domain`.
      try expect(["read", domain], failsWith: missingDomain(domain))
    } else {
      try expect(["read", domain], prints: "{\n}\n")
    }
  }

  @Test func deletingFromADomainThatDoesNotExistFails() throws {
    let file = directory.file("missing.plist").path
    try expect(["delete", file], failsWith: "Domain \(file) does not exist")
    try expect(["delete", file, "k"], failsWith: "Domain \(file) does not exist")
    try expect(["read", file], failsWith: "Domain \(file) does not exist")
    try expect(["read", file, "k"], failsWith: "Domain \(file) does not exist")
    try expect(["read-type", file, "k"], failsWith: "Domain \(file) does not exist")
    try expect(["explain", file, "k"], failsWith: "Domain \(file) does not exist")
    try expect(
      ["delete", "TypedDefaultsTests.none"],
      failsWith: missingDomain("TypedDefaultsTests.none"))
    #expect(!FileManager.default.fileExists(atPath: file))
  }

  @Test func deletingEveryKeyWritesNothingWhenThereIsNothingToDelete() throws {
    // A store folder with only its bundled file: no data.plist (nor lock file) appears.
    let folder = directory.file("bundle-only")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try PropertyListFile(url: folder.appendingPathComponent("Info.plist")).write(["Theme": "light"])
    try succeed(["delete", folder.path])
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["Info.plist"])
    try expect(["read", folder.path], prints: "{\n    Theme = light;\n}\n")
    // An empty plist file is left byte for byte.
    let empty = directory.file("empty.plist")
    try PropertyListFile(url: empty).write([:], format: .binary)
    let before = try Data(contentsOf: empty)
    try succeed(["delete", empty.path])
    #expect(try Data(contentsOf: empty) == before)
    #expect(!FileManager.default.fileExists(atPath: empty.path + ".lock"))
  }

  // MARK: - Export and import

  @Test func exportAndImportRoundTripThroughFilesAndPipes() throws {
    let source = directory.file("source.plist").path
    try succeed(["write", source, "name", "Ada"])
    try succeed(["write", source, "count", "-int", "3"])
    try succeed(["write", source, "when", "-date", "2026-11-30T15:32:33Z"])
    try succeed(["write", source, "list", "-array", "a", "-float", "0.5"])
    let shown = try settings(["read", source]).standardOutput

    // To a file: a binary plist, as `defaults export` writes.
    let exported = directory.file("exported.plist")
    try succeed(["export", source, exported.path])
    #expect(try Data(contentsOf: exported).starts(with: Data("bplist00".utf8)))
    let copy = directory.file("copy.plist").path
    try succeed(["import", copy, exported.path])
    try expect(["read", copy], prints: shown)

    // To standard output: XML, which reads back equal.
    let xml = try settings(["export", source, "-"])
    #expect(xml.status == 0)
    #expect(xml.standardError == "")
    #expect(xml.standardOutput.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"))
    let saved = directory.file("stdout.plist")
    try Data(xml.standardOutput.utf8).write(to: saved)
    #expect(
      try PropertyListFile(url: saved).readDictionary()
        == PropertyListFile(url: URL(fileURLWithPath: source)).readDictionary())

    // From standard input, merged into what the domain holds.
    let merged = directory.file("merged.plist").path
    try succeed(["write", merged, "name", "Grace"])
    try succeed(["write", merged, "other", "kept"])
    try succeed(["import", merged, "-"], input: saved)
    try expect(
      ["read", merged],
      prints: """
        {
            count = 3;
            list = (
                a,
                "0.5"
            );
            name = Ada;
            other = kept;
            when = "2026-11-30 15:32:33 +0000";
        }

        """)
  }

  @Test func importRefusesARootThatIsNotADictionary() throws {
    let array = directory.file("array.plist")
    try PropertyListFile(url: array).write(["a", "b"])
    let target = directory.file("target.plist").path
    let message = try #require(
      throwsSettingsError { _ = try PropertyListFile(url: array).readDictionary() })
    try expect(["import", target, array.path], failsWith: message.description)
    try expect(
      ["import", target, "-"],
      failsWith: "The property list at '<stdin>' has the wrong root type: "
        + "The root is an array, not a dictionary",
      input: array)
    let missing = directory.file("missing.plist").path
    try expect(
      ["import", target, missing],
      failsWith: "Cannot read the property list at '\(missing)': No such file")
    #expect(!FileManager.default.fileExists(atPath: target))
  }

  @Test func anEmptyFilePathIsAUsageError() throws {
    let source = directory.file("source.plist").path
    try succeed(["write", source, "k", "v"])
    try expect(
      ["export", source, ""],
      failsWith: "export: the file path is empty; usage: settings export domain (file | -)",
      status: 64)
    try expect(
      ["import", source, ""],
      failsWith: "import: the file path is empty; usage: settings import domain (file | -)",
      status: 64)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        == ["source.plist", "source.plist.lock"])
  }

  @Test func importFromStandardInputStopsPastTheSizeLimit() throws {
    let limit = PropertyListFile.defaultMaximumSize
    let target = directory.file("target.plist").path
    // Far more than the limit (a sparse file): refused, naming standard input, nothing written.
    let huge = directory.file("huge")
    #expect(FileManager.default.createFile(atPath: huge.path, contents: nil))
    let handle = try FileHandle(forWritingTo: huge)
    try handle.truncate(atOffset: UInt64(4 * limit))
    try handle.close()
    let tooLarge =
      "The property list at '<stdin>' is too large: "
      + "It is over the limit of \(limit) bytes"
    try expect(["import", target, "-"], failsWith: tooLarge, input: huge)
    // One byte over: refused; exactly the limit: read.
    var xml = try PropertyListFile.encode(["k": "v"], format: .xml)
    xml.append(Data(repeating: UInt8(ascii: " "), count: limit - xml.count))
    let exact = directory.file("exact.plist")
    try xml.write(to: exact)
    let over = directory.file("over.plist")
    try (xml + Data(" ".utf8)).write(to: over)
    try expect(["import", target, "-"], failsWith: tooLarge, input: over)
    #expect(!FileManager.default.fileExists(atPath: target))
    try succeed(["import", target, "-"], input: exact)
    try expect(["read", target], prints: "{\n    k = v;\n}\n")
  }

  // MARK: - Layered store folders

  /// A store folder with all three files: Info.plist (XML), JF-info.plist (OpenStep) and
  /// data.plist (binary).
  func layeredFolder() throws -> URL {
    let folder = directory.file("store")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try PropertyListFile(url: folder.appendingPathComponent("Info.plist")).write(
      ["ServerURL": "https://api.example.com", "Theme": "light", "Timeout": 30], format: .xml)
    try Data(#"{ ServerURL = "https://jf.example.net"; Timeout = 60; }"#.utf8)
      .write(to: folder.appendingPathComponent("JF-info.plist"))
    try PropertyListFile(url: folder.appendingPathComponent("data.plist")).write(
      ["LaunchCount": 1], format: .binary)
    return folder
  }

  @Test func explainShowsEachLayerOfAStoreFolderAndWhichWins() throws {
    let store = try layeredFolder().path
    try succeed(["write", store, "ServerURL", "https://api-v2.example.com"])
    try expect(
      ["explain", store, "ServerURL"],
      prints: """
        ServerURL
          persistent  data.plist     "https://api-v2.example.com"   <- wins
          delivered   JF-info.plist  "https://jf.example.net"
          bundled     Info.plist     "https://api.example.com"

        """)
    try expect(
      ["explain", store, "Timeout"],
      prints: """
        Timeout
          persistent  data.plist     -
          delivered   JF-info.plist  60   <- wins
          bundled     Info.plist     30

        """)
    try expect(
      ["read", store],
      prints: """
        {
            LaunchCount = 1;
            ServerURL = "https://api-v2.example.com";
            Theme = light;
            Timeout = 60;
        }

        """)
    // data.plist stayed binary; the read-only files are untouched.
    let data = try Data(contentsOf: URL(fileURLWithPath: store + "/data.plist"))
    #expect(data.starts(with: Data("bplist00".utf8)))

    // Deleting the persistent value reveals the delivered one; a bundled value can't be deleted.
    try succeed(["delete", store, "ServerURL"])
    try expect(["read", store, "ServerURL"], prints: "https://jf.example.net\n")
    try expect(
      ["delete", store, "Theme"],
      failsWith: "Cannot delete 'Theme' from \(store): its value comes from the bundled layer "
        + "(Info.plist), which is read-only")
    try expect(
      ["explain", store, "Nope"],
      failsWith: "The domain/default pair of (\(store), Nope) does not exist")
  }

  @Test func readOnlyLayerFilesCanLiveOutsideTheStoreFolder() throws {
    // An app's layout: data.plist in its data folder, Info.plist in its bundle, the delivered
    // file in its deployment folder (LayeredConfigDemo's layout).
    let folder = directory.file("app-data")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try PropertyListFile(url: folder.appendingPathComponent("data.plist")).write(["Theme": "dark"])
    let bundled = directory.file("Info.plist")
    try PropertyListFile(url: bundled).write(["ServerURL": "https://api.example.com", "Port": 80])
    let delivered = directory.file("JF-info.plist")
    try PropertyListFile(url: delivered).write(["ServerURL": "https://jf.example.net"])
    let options = ["--delivered", delivered.path, "--bundled", bundled.path]

    try expect(
      ["explain"] + options + [folder.path, "ServerURL"],
      prints: """
        ServerURL
          persistent  data.plist\(String(repeating: " ", count: delivered.path.count - 10))  -
          delivered   \(delivered.path)  "https://jf.example.net"   <- wins
          bundled     \(bundled.path)\(String(repeating: " ", count: delivered.path.count - bundled.path.count))  "https://api.example.com"

        """)
    try expect(["read", "--bundled", bundled.path, folder.path, "Port"], prints: "80\n")
    try expect(
      ["delete"] + options + [folder.path, "Port"],
      failsWith: "Cannot delete 'Port' from \(folder.path): its value comes from the bundled "
        + "layer (\(bundled.path)), which is read-only")
    // Mistakes: the options after the domain, for a domain that isn't a folder, or naming no file.
    try expect(
      ["explain", folder.path, "ServerURL", "--bundled", bundled.path],
      failsWith:
        "explain: --bundled goes before the domain: settings explain --bundled FILE domain …",
      status: 64)
    try expect(
      ["read", "--bundled", bundled.path, "com.example.app"],
      failsWith: "read: --delivered and --bundled apply to a layered store, and "
        + "com.example.app is not one (a folder is named by a path, such as ./store, or an "
        + "app's identifier with --store layered)",
      status: 64)
    try expect(
      ["read", "--bundled", directory.file("nope.plist").path, folder.path],
      failsWith: "read: --bundled: there is no file at \(directory.file("nope.plist").path)")
    try expect(["read", "--bundled"], failsWith: "read: --bundled needs a file path", status: 64)
  }

  @Test func explainMarksMissingLayerFilesAndSingleLayerDomains() throws {
    let folder = directory.file("bundle-only")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try PropertyListFile(url: folder.appendingPathComponent("Info.plist")).write(["Theme": "light"])
    try expect(
      ["explain", folder.path, "Theme"],
      prints: """
        Theme
          persistent  data.plist     (no file)
          delivered   JF-info.plist  (no file)
          bundled     Info.plist     light   <- wins

        """)

    let file = directory.file("one.plist").path
    try succeed(["write", file, "Theme", "dark"])
    try expect(
      ["explain", file, "Theme"],
      prints: "Theme\n  file        \(file)  dark   <- wins (its only layer)\n")

    try succeed([
      "write", "--store", "defaults", "TypedDefaultsTests.explain", "Volume", "-float", "0.5",
    ])
    let suiteFile = configHome.appendingPathComponent("TypedDefaultsTests.explain.plist").path
    try expect(
      ["explain", "TypedDefaultsTests.explain", "Volume"],
      prints: "Volume\n  suite       \(suiteFile)  \"0.5\"   <- wins (its only layer)\n")

    let empty = directory.file("empty")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    try expect(
      ["read", empty.path],
      failsWith: "Domain \(empty.path) does not exist (there is no data.plist in the folder, and "
        + "no JF-info.plist or Info.plist)")
  }

  // MARK: - Files that can't be read are never changed

  static let corruptFixtures = [
    "invalid/go-plist__text_missing_semicolon_in_dictionary.plist",
    "invalid/biplist__empty_file.plist",
    "invalid/swift-foundation__xmlErrors_Mismatched_close_tag.plist",
    "invalid/go-plist__bplist_too_short.plist",
    "invalid/go-plist__bplist_array_self_referential.plist",
  ]

  @Test(
    .enabled(if: TestPaths.hasSharedFixtures, "the shared plist fixtures are absent"),
    arguments: corruptFixtures)
  func aCorruptFileIsReportedAndLeftByteForByte(_ fixture: String) throws {
    let file = try copyOfFixture(fixture, as: "corrupt.plist")
    let original = try Data(contentsOf: file)
    let error = try #require(throwsSettingsError { _ = try PropertyListFile(url: file).read() })
    for arguments in [
      ["read", file.path], ["read", file.path, "key"], ["write", file.path, "key", "value"],
      ["delete", file.path, "key"], ["delete", file.path], ["import", file.path, file.path],
      ["export", file.path, "-"], ["explain", file.path, "key"],
    ] {
      try expect(arguments, failsWith: error.description)
    }
    #expect(try Data(contentsOf: file) == original)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["corrupt.plist"])
  }

  @Test(.enabled(if: TestPaths.hasSharedFixtures, "the shared plist fixtures are absent"))
  func aCorruptDataPlistOrSuiteIsReportedAndLeftByteForByte() throws {
    let store = try layeredFolder()
    let dataPlist = store.appendingPathComponent("data.plist")
    try FileManager.default.removeItem(at: dataPlist)
    try FileManager.default.copyItem(
      at: Self.fixture("invalid/go-plist__text_truncated_dictionary.plist"), to: dataPlist)
    let original = try Data(contentsOf: dataPlist)
    let error = try #require(
      throwsSettingsError { _ = try PropertyListFile(url: dataPlist).read() })
    for arguments in [
      ["read", store.path], ["write", store.path, "key", "value"], ["delete", store.path],
      ["explain", store.path, "Theme"],
    ] {
      try expect(arguments, failsWith: error.description)
    }
    #expect(try Data(contentsOf: dataPlist) == original)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: store.path).sorted()
        == ["Info.plist", "JF-info.plist", "data.plist"])

    try FileManager.default.createDirectory(at: configHome, withIntermediateDirectories: true)
    let suiteFile = configHome.appendingPathComponent("TypedDefaultsTests.corrupt.plist")
    try FileManager.default.copyItem(
      at: Self.fixture("invalid/biplist__empty_file.plist"), to: suiteFile)
    let suiteError = try #require(
      throwsSettingsError { _ = try PropertyListFile(url: suiteFile).read() })
    for arguments in [
      ["read", "TypedDefaultsTests.corrupt"],
      ["write", "TypedDefaultsTests.corrupt", "key", "value"],
    ] {
      try expect(arguments, failsWith: suiteError.description)
    }
    #expect(try Data(contentsOf: suiteFile).isEmpty)
    // Nothing but the file: the tool refuses it before any backend opens (or locks) the suite.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: configHome.path).sorted()
        == ["TypedDefaultsTests.corrupt.plist"])
  }

  @Test func aPathThatIsNotAReadableFileIsReported() throws {
    let fifo = directory.file("fifo.plist")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    let message = "Cannot read the property list at '\(fifo.path)': It is not a regular file"
    try expect(["read", fifo.path], failsWith: message)
    try expect(["write", fifo.path, "k", "v"], failsWith: message)
    try expect(["import", directory.file("t.plist").path, fifo.path], failsWith: message)

    let folder = directory.file("folder")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try expect(
      ["import", directory.file("t.plist").path, folder.path],
      failsWith: "Cannot read the property list at '\(folder.path)': It is a directory")
    let nowhere = directory.file("no/such/folder/x.plist").path
    try expect(
      ["write", nowhere, "k", "v"],
      failsWith: "Cannot write the property list at '\(nowhere)': "
        + "The folder '\(directory.file("no/such/folder").path)' does not exist")
  }

  // MARK: - An app's identifier

  /// Opens the store an app opens at launch, as the README shows: `data.plist` in
  /// `StandardLocation.data`'s folder for the identifier (the tool's `XDG_DATA_HOME`), with a
  /// delivered and a bundled file elsewhere.
  ///
  /// The folder exists (an earlier run saved, which creates it), so the store records its layers
  /// there as it opens.
  func openAppStore(_ identifier: String) throws -> LayeredPlistStore {
    let folder = try StandardLocation.data.directory(
      for: identifier, environment: ["XDG_DATA_HOME": dataHome.path])
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let delivered = directory.file("etc/JF-info.plist")
    let bundled = directory.file("opt/Info.plist")
    for file in [delivered, bundled] {
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    }
    try PropertyListFile(url: delivered).write(["playbackSpeed": 1.5, "ServerURL": "https://jf"])
    try PropertyListFile(url: bundled).write(["playbackSpeed": 1.0, "skipSeconds": 30])
    return try LayeredPlistStore(
      persistentFile: folder.appendingPathComponent("data.plist"), deliveredFile: delivered,
      bundledFile: bundled, options: .init(savesAtExit: false))
  }

  @Test func aBareNameReadsAndWritesTheLayeredStoreItsAppUses() throws {
    let store = try openAppStore("com.example.podcast")
    // The tool sees the layers the app sees, with no --delivered or --bundled.
    try expect(["read", "com.example.podcast", "playbackSpeed"], prints: "1.5\n")
    try expect(
      ["read", "com.example.podcast"],
      prints: "{\n    ServerURL = \"https://jf\";\n    playbackSpeed = \"1.5\";\n"
        + "    skipSeconds = 30;\n}\n")
    let delivered = directory.file("etc/JF-info.plist").path
    let bundled = directory.file("opt/Info.plist").path
    let padding = String(repeating: " ", count: delivered.count - "data.plist".count)
    try expect(
      ["explain", "com.example.podcast", "playbackSpeed"],
      prints: """
        playbackSpeed
          persistent  data.plist\(padding)  (no file)
          delivered   \(delivered)  "1.5"   <- wins
          bundled     \(bundled)\(String(repeating: " ", count: delivered.count - bundled.count))  1

        """)
    // The README's write reaches the app, and creates no suite.
    try succeed(["write", "com.example.podcast", "playbackSpeed", "-float", "3"])
    #expect(!FileManager.default.fileExists(atPath: configHome.path))
    try store.reload()
    #expect(store.value(forKey: "playbackSpeed") == .real(3))
    #expect(store.layer(forKey: "playbackSpeed") == .persistent)
    try expect(
      ["delete", "com.example.podcast", "skipSeconds"],
      failsWith: "Cannot delete 'skipSeconds' from com.example.podcast: its value comes from the "
        + "bundled layer (\(bundled)), which is read-only")
  }

  @Test func aStoreRecordsItsReadOnlyLayerFilesForTheTool() throws {
    let store = try openAppStore("com.example.podcast")
    let record = LayeredPlistStore.layerRecordFile(ofPersistentFile: store.persistentFile.url)
    #expect(record.lastPathComponent == "data.plist.layers")
    #expect(
      try LayeredPlistStore.recordedLayerFiles(ofPersistentFile: store.persistentFile.url)
        == LayeredPlistStore.LayerFiles(
          delivered: directory.file("etc/JF-info.plist"), bundled: directory.file("opt/Info.plist"))
    )
    // Opening it again with the same files leaves the record alone; other files replace it.
    func inode() throws -> Int? {
      try FileManager.default.attributesOfItem(atPath: record.path)[.systemFileNumber] as? Int
    }
    let before = try inode()
    _ = try openAppStore("com.example.podcast")
    #expect(try inode() == before)
    _ = try LayeredPlistStore(
      persistentFile: store.persistentFile.url, options: .init(savesAtExit: false))
    _ = try LayeredPlistStore(
      persistentFile: store.persistentFile.url, bundledFile: directory.file("opt/Info.plist"),
      options: .init(savesAtExit: false))
    #expect(
      try LayeredPlistStore.recordedLayerFiles(ofPersistentFile: store.persistentFile.url)
        == LayeredPlistStore.LayerFiles(bundled: directory.file("opt/Info.plist")))
    // The tool follows the record: no delivered layer now.
    try expect(["read", "com.example.podcast", "playbackSpeed"], prints: "1\n")
  }

  @Test func aNameThatNamesNoStoreIsAnErrorNotANewFile() throws {
    try expect(
      ["write", "com.example.podcast", "playbackSpeed", "-float", "3"],
      failsWith: "com.example.podcast names no store yet: there is neither a LayeredPlistStore "
        + "in \(dataHome.appendingPathComponent("com.example.podcast").path) nor a UserDefaults "
        + "suite \(configHome.appendingPathComponent("com.example.podcast.plist").path); to "
        + "create one, say which with --store layered or --store defaults before the name",
      status: 64)
    try expect(
      ["read", "com.example.podcast"], failsWith: missingDomain("com.example.podcast"))
    #expect(!FileManager.default.fileExists(atPath: dataHome.path))
    #expect(!FileManager.default.fileExists(atPath: configHome.path))
    // Named, it is created where the app will look.
    try succeed([
      "write", "--store", "layered", "com.example.podcast", "playbackSpeed", "-float", "3",
    ])
    let folder = dataHome.appendingPathComponent("com.example.podcast")
    #expect(
      try PropertyListFile(url: folder.appendingPathComponent("data.plist")).readDictionary()
        == ["playbackSpeed": 3.0])
    #expect(
      try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
        == 0o700)
    try expect(["read", "com.example.podcast", "playbackSpeed"], prints: "3\n")
    try succeed(["write", "--store", "defaults", "com.example.player", "volume", "-int", "2"])
    try expect(["read", "com.example.player", "volume"], prints: "2\n")
    // The config folder didn't exist: the backend's save made it, as corelibs does, for its owner.
    #expect(
      try FileManager.default.attributesOfItem(atPath: configHome.path)[.posixPermissions] as? Int
        == 0o700)
    #expect(
      !FileManager.default.fileExists(
        atPath: dataHome.appendingPathComponent("com.example.player").path))
  }

  @Test func aNameThatNamesTwoStoresIsAnErrorListingBoth() throws {
    _ = try openAppStore("com.example.podcast")
    try succeed(["write", "--store", "defaults", "com.example.podcast", "volume", "-int", "2"])
    let folder = dataHome.appendingPathComponent("com.example.podcast").path
    let suite = configHome.appendingPathComponent("com.example.podcast.plist").path
    try expect(
      ["read", "com.example.podcast"],
      failsWith: "read: com.example.podcast names two stores: the LayeredPlistStore in "
        + "\(folder) and the UserDefaults suite \(suite); say which with --store layered or "
        + "--store defaults before the name, or name the folder or file by its path",
      status: 64)
    try expect(
      ["write", "com.example.podcast", "volume", "-int", "3"],
      failsWith: "write: com.example.podcast names two stores: the LayeredPlistStore in "
        + "\(folder) and the UserDefaults suite \(suite); say which with --store layered or "
        + "--store defaults before the name, or name the folder or file by its path",
      status: 64)
    try expect(["read", "--store", "defaults", "com.example.podcast", "volume"], prints: "2\n")
    try expect(
      ["read", "--store", "layered", "com.example.podcast", "playbackSpeed"], prints: "1.5\n")
    try expect(
      ["read", "--store", "bogus", "com.example.podcast"],
      failsWith: "read: --store takes layered or defaults, not 'bogus'", status: 64)
    try expect(
      ["read", "--store", "layered", folder],
      failsWith: "read: --store applies to an app's identifier, and \(folder) is a path, which "
        + "names its store itself",
      status: 64)
  }

  // MARK: - UserDefaults suites

  @Test func suitesLiveInXDGConfigHomeAndAreListed() throws {
    try expect(["domains"], prints: "")
    try expect(["list"], prints: "")
    try succeed(["write", "--store", "defaults", "TypedDefaultsTests.b", "name", "Ada"])
    try succeed(["write", "--store", "defaults", "TypedDefaultsTests.a", "volume", "-float", "0.5"])
    try succeed(["write", "TypedDefaultsTests.a", "languages", "-array", "en-US", "fr"])
    try expect(["domains"], prints: "TypedDefaultsTests.a, TypedDefaultsTests.b\n")
    try expect(["list"], prints: "TypedDefaultsTests.a\nTypedDefaultsTests.b\n")
    try expect(
      ["read", "TypedDefaultsTests.a"],
      prints: """
        {
            languages = (
                "en-US",
                fr
            );
            volume = "0.5";
        }

        """)
    // The suite's file is where UserDefaults keeps it, and holds the typed values.
    let file = configHome.appendingPathComponent("TypedDefaultsTests.a.plist")
    #expect(
      try PropertyListFile(url: file).readDictionary()
        == ["volume": .real(0.5), "languages": ["en-US", "fr"]])
    try expect(
      ["read", "TypedDefaultsTests.a", "nope"],
      failsWith: "The domain/default pair of (TypedDefaultsTests.a, nope) does not exist")
    try expect(
      ["read", "TypedDefaultsTests.c"], failsWith: missingDomain("TypedDefaultsTests.c"))
  }

  @Test func suitesFollowHOMEWhenXDGConfigHomeIsNotSet() throws {
    let home = directory.file("home")
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    let environment = ["XDG_CONFIG_HOME": "", "HOME": home.path]
    try expect(
      ["write", "--store", "defaults", "TypedDefaultsTests.home", "k", "v"], prints: "",
      environment: environment)
    try expect(["domains"], prints: "TypedDefaultsTests.home\n", environment: environment)
    #expect(
      try PropertyListFile(
        url: home.appendingPathComponent(".config/TypedDefaultsTests.home.plist")
      )
      .readDictionary() == ["k": "v"])
  }

  @Test func domainsListsOnlyNamesThatWorkAsSuiteNames() throws {
    try FileManager.default.createDirectory(at: configHome, withIntermediateDirectories: true)
    // `weird.plist` would name a file here, `-dash` an option, ` ` nothing.
    for name in [
      "TypedDefaultsTests.ok", "weird.plist", "-dash", " ", ".hidden", ".", "TypedDefaultsTests.b",
    ] {
      try PropertyListFile(url: configHome.appendingPathComponent(name + ".plist")).write([
        "k": "v"
      ])
    }
    try expect(["domains"], prints: "TypedDefaultsTests.b, TypedDefaultsTests.ok\n")
    try expect(["list"], prints: "TypedDefaultsTests.b\nTypedDefaultsTests.ok\n")
    // What is listed reads as a suite.
    try expect(["read", "TypedDefaultsTests.ok", "k"], prints: "v\n")
  }

  @Test func aBlankSuiteNameIsRefused() throws {
    try expect(
      ["write", " ", "k", "v"], failsWith: "write: the domain name ' ' is only whitespace",
      status: 64)
    try expect(
      ["read", "\t"], failsWith: "read: the domain name '\\u{9}' is only whitespace", status: 64)
    try expect(["write", "", "k", "v"], failsWith: "write: the domain name is empty", status: 64)
    #expect(!FileManager.default.fileExists(atPath: configHome.path))
  }

  /// A suite name with a newline made a file with a newline in its name.
  @Test func aSuiteNameWithAControlCharacterIsRefusedAndMakesNoFile() throws {
    try expect(
      ["write", "bad\nname", "k", "v"],
      failsWith:
        "write: the domain name 'bad\\u{A}name' is not a valid name: it holds a control character "
        + "(U+000A)",
      status: 64)
    try expect(
      ["read", "tab\tname"],
      failsWith:
        "read: the domain name 'tab\\u{9}name' is not a valid name: it holds a control character "
        + "(U+0009)",
      status: 64)
    #expect(!FileManager.default.fileExists(atPath: configHome.path))
  }

  // MARK: - Several processes

  /// Runs `settings` from `workers` threads at once, `runs` times each, with the arguments
  /// `arguments(worker, run)`; returns the runs that didn't succeed silently.
  func runConcurrently(
    workers: Int, runs: Int, _ arguments: @Sendable (Int, Int) -> [String]
  ) -> [String] {
    let failures = Locked<[String]>([])
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
      for run in 0..<runs {
        let arguments = arguments(worker, run)
        do {
          let result = try settings(arguments)
          if result.status != 0 || result.standardError != "" || result.standardOutput != "" {
            failures.withLock {
              $0.append("\(arguments): \(result.status) \(result.standardError)")
            }
          }
        } catch {
          failures.withLock { $0.append("\(arguments): \(error)") }
        }
      }
    }
    return failures.withLock { $0 }
  }

  @Test func concurrentWritesToOneFileLoseNothing() throws {
    let file = directory.file("shared.plist")
    let workers = 4
    let keysPerWorker = 25
    let failures = runConcurrently(workers: workers, runs: keysPerWorker) { worker, index in
      ["write", file.path, "w\(worker)-k\(index)", "-int", "\(worker * 100 + index)"]
    }
    #expect(failures == [])
    var expected: [String: PropertyListValue] = [:]
    for worker in 0..<workers {
      for index in 0..<keysPerWorker {
        expected["w\(worker)-k\(index)"] = .integer(.init(Int64(worker * 100 + index)))
      }
    }
    #expect(try PropertyListFile(url: file).readDictionary() == expected)
    try expect(["read", file.path, "w3-k24"], prints: "324\n")
    // Only the file and its lock file, never deleted so every process locks the same inode.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        == ["shared.plist", "shared.plist.lock"])
  }

  @Test func readingASuiteThatDoesNotExistLeavesNoFileBehind() throws {
    try FileManager.default.createDirectory(at: configHome, withIntermediateDirectories: true)
    try expect(
      ["read", "TypedDefaultsTests.typo"],
      failsWith: missingDomain("TypedDefaultsTests.typo"))
    try expect(
      ["read", "TypedDefaultsTests.typo", "k"],
      failsWith: missingDomain("TypedDefaultsTests.typo"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: configHome.path) == [])
  }

  @Test func concurrentWritesToOneSuiteLoseNothing() throws {
    // corelibs rewrites a suite file in place, unlocked: without the tool's own lock, a process
    // reading it mid-write saw it empty and saved only its key, losing the others.
    let suite = "TypedDefaultsTests.concurrent"
    try succeed(["write", "--store", "defaults", suite, "before", "-int", "1"])
    let failures = runConcurrently(workers: 4, runs: 5) { worker, index in
      ["write", suite, "w\(worker)-k\(index)", "-int", "\(worker * 10 + index)"]
    }
    #expect(failures == [])
    var expected: [String: PropertyListValue] = ["before": 1]
    for worker in 0..<4 {
      for index in 0..<5 {
        expected["w\(worker)-k\(index)"] = .integer(.init(Int64(worker * 10 + index)))
      }
    }
    let file = configHome.appendingPathComponent("\(suite).plist")
    #expect(try PropertyListFile(url: file).readDictionary() == expected)
  }

  @Test func concurrentArrayAddAndDictAddLoseNothing() throws {
    let file = directory.file("lists.plist").path
    let failures = runConcurrently(workers: 4, runs: 5) { worker, index in
      index % 2 == 0
        ? ["write", file, "list", "-array-add", "-int", "\(worker * 10 + index)"]
        : ["write", file, "map", "-dict-add", "w\(worker)-\(index)", "-int", "\(index)"]
    }
    #expect(failures == [])
    let saved = try #require(try PropertyListFile(url: URL(fileURLWithPath: file)).readDictionary())
    let list = try #require(saved["list"]?.arrayValue).compactMap(\.intValue).sorted()
    #expect(list == [0, 2, 4, 10, 12, 14, 20, 22, 24, 30, 32, 34])
    #expect(saved["map"]?.dictionaryValue?.count == 8)
  }

  @Test func exportNeverReplacesADeviceAndNeverPrintsMalformedXML() throws {
    let file = directory.file("binary.plist")
    try PropertyListFile(url: file).write(["ctl": "\u{1}z", "ok": 1], format: .binary)
    try expect(
      ["export", file.path, "/dev/null"],
      failsWith: "Cannot write the property list at '/dev/null': It is not a regular file (a "
        + "device or a FIFO)")
    #expect(
      try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType
        == .typeCharacterSpecial)
    // Binary holds the control character; XML on standard output can't.
    try expect(
      ["export", file.path, "-"],
      failsWith: "Cannot write a property list holding this value at '-': A string at "
        + "[\"ctl\"] holds the control character U+0001, which XML can't hold")
  }

  @Test(.enabled(if: TestPaths.hasSharedFixtures, "the shared plist fixtures are absent"))
  func aBinaryArchiveWithUIDsIsNotRewritten() throws {
    for name in ["cpython__TESTDATA_KEYED_ARCHIVE.plist", "karabiner__Sparkle_SUStatus.nib.plist"] {
      let file = directory.file(name)
      try FileManager.default.copyItem(at: Self.fixture("valid/\(name)"), to: file)
      let before = try Data(contentsOf: file)
      try expect(
        ["write", file.path, "x", "-int", "1"],
        failsWith: "Cannot write '\(file.path)': it holds NSKeyedArchiver UIDs (an archive, not "
          + "settings), which settings can't write back as they are; it is left unchanged")
      #expect(try Data(contentsOf: file) == before)
    }
  }

  // MARK: - Domains by path

  @Test func aPathMayLeaveOutPlistAsWithDefaults() throws {
    let base = directory.file("prefs").path
    try succeed(["write", base, "k", "v"])
    #expect(FileManager.default.fileExists(atPath: base + ".plist"))
    try expect(["read", base, "k"], prints: "v\n")
    try expect(["read", base + ".plist", "k"], prints: "v\n")
  }

  @Test func aDomainEndingInSlashMustBeAnExistingFolder() throws {
    let missing = directory.file("newdir").path + "/"
    let message = "there is no folder at \(missing); create it to start a store there"
    for arguments in [
      ["write", missing, "k", "v"], ["read", missing], ["read", missing, "k"],
      ["read-type", missing, "k"], ["delete", missing], ["delete", missing, "k"],
      ["export", missing, "-"], ["import", missing, directory.file("x.plist").path],
      ["explain", missing, "k"],
    ] {
      try expect(arguments, failsWith: message)
    }
    let file = directory.file("file.plist")
    try PropertyListFile(url: file).write(["k": "v"])
    try expect(
      ["write", file.path + "/", "k", "v"],
      failsWith: "there is no folder at \(file.path)/: it is a file (name it without the '/')")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["file.plist"])
    // An existing folder named with its '/' is a store.
    let store = directory.file("store")
    try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
    try succeed(["write", store.path + "/", "k", "v"])
    try expect(["read", store.path, "k"], prints: "v\n")
  }

  // MARK: - Output that can't be written

  /// Whether `/dev/full` (a device whose writes fail with ENOSPC) is there: Linux.
  static let hasDevFull = FileManager.default.fileExists(atPath: "/dev/full")

  @Test(.enabled(if: hasDevFull, "/dev/full is Linux's"))
  func aFullStandardOutputIsAnErrorNotACrash() throws {
    let file = directory.file("a.plist").path
    try succeed(["write", file, "k", "v"])
    let message = "settings: cannot write to standard output: No space left on device\n"
    for arguments in [
      ["read", file], ["read", file, "k"], ["read-type", file, "k"], ["export", file, "-"],
      ["explain", file, "k"], ["--help"], ["help", "read"], ["write", "--help"],
    ] {
      let run = try settings(arguments, redirecting: ">/dev/full")
      #expect(run.status == 1, "\(arguments)")
      #expect(run.standardError == message, "\(arguments)")
    }
    // With standard error gone too, nothing can be said: exit status 1 alone.
    for redirection in [">/dev/full 2>/dev/full", ">/dev/full 2>&-"] {
      let run = try settings(["read", file], redirecting: redirection)
      #expect(run.status == 1, "\(redirection)")
      #expect(run.standardError == "", "\(redirection)")
    }
  }

  @Test func aClosedStandardOutputIsAnErrorNotOutputElsewhere() throws {
    let store = directory.file("store")
    try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
    try succeed(["write", store.path, "k", "v"])
    let files = try FileManager.default.contentsOfDirectory(atPath: store.path).sorted()
    let data = try Data(contentsOf: store.appendingPathComponent("data.plist"))
    for arguments in [["read", store.path], ["read", store.path, "k"], ["--help"]] {
      let run = try settings(arguments, redirecting: ">&-")
      #expect(run.status == 1, "\(arguments)")
      #expect(
        run.standardError == "settings: cannot write to standard output: Bad file descriptor\n",
        "\(arguments)")
      #expect(run.standardOutput == "", "\(arguments)")
    }
    // Nothing was written into the store's files instead.
    #expect(try FileManager.default.contentsOfDirectory(atPath: store.path).sorted() == files)
    #expect(try Data(contentsOf: store.appendingPathComponent("data.plist")) == data)
    // A closed standard error doesn't stop a command that succeeds, nor hide its result.
    let quiet = try settings(["read", store.path, "k"], redirecting: "2>&-")
    #expect(quiet.status == 0)
    #expect(quiet.standardOutput == "v\n")
    let failing = try settings(["read", store.path, "nope"], redirecting: "2>&-")
    #expect(failing.status == 1)
    #expect(failing.standardOutput == "")
  }
}

/// The `SettingsError` a call throws, or `nil` if it doesn't.
private func throwsSettingsError(_ body: () throws -> Void) -> SettingsError? {
  do {
    try body()
    return nil
  } catch {
    return error as? SettingsError
  }
}
