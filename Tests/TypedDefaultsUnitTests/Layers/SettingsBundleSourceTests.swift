import Foundation
import Testing
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsSchema
import TypedDefaultsTestSupport

/// `SettingsBundleSource` (issue #19): the `DefaultValue`s of an iOS `Settings.bundle`, typed,
/// through its child panes, with cycles, missing panes and keys defined twice reported.
@Suite struct SettingsBundleSourceTests {
  // MARK: - Fixtures (XML as Python's plistlib writes it, as Xcode's do)

  /// A realistic `Root.plist`: a group, a text field, two toggles (one with `TrueValue` and
  /// `FalseValue`), a slider, a multi-value, a title value, a text field without a default, and a
  /// child pane `Advanced`.
  static let root = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
      <key>StringsTable</key>
      <string>Root</string>
      <key>PreferenceSpecifiers</key>
      <array>
        <dict>
          <key>Type</key>
          <string>PSGroupSpecifier</string>
          <key>Title</key>
          <string>Account</string>
          <key>FooterText</key>
          <string>Signed in accounts sync.</string>
        </dict>
        <dict>
          <key>Type</key>
          <string>PSTextFieldSpecifier</string>
          <key>Title</key>
          <string>Name</string>
          <key>Key</key>
          <string>name_preference</string>
          <key>DefaultValue</key>
          <string>Guest</string>
          <key>IsSecure</key>
          <false/>
          <key>KeyboardType</key>
          <string>Alphabet</string>
          <key>AutocapitalizationType</key>
          <string>None</string>
          <key>AutocorrectionType</key>
          <string>No</string>
        </dict>
        <dict>
          <key>Type</key>
          <string>PSToggleSwitchSpecifier</string>
          <key>Title</key>
          <string>Enabled</string>
          <key>Key</key>
          <string>enabled_preference</string>
          <key>DefaultValue</key>
          <true/>
        </dict>
        <dict>
          <key>Type</key>
          <string>PSToggleSwitchSpecifier</string>
          <key>Title</key>
          <string>Legacy</string>
          <key>Key</key>
          <string>legacy_preference</string>
          <key>DefaultValue</key>
          <string>NO</string>
          <key>TrueValue</key>
          <string>YES</string>
          <key>FalseValue</key>
          <string>NO</string>
        </dict>
        <dict>
          <key>Type</key>
          <string>PSSliderSpecifier</string>
          <key>Key</key>
          <string>volume_preference</string>
          <key>DefaultValue</key>
          <real>0.5</real>
          <key>MinimumValue</key>
          <integer>0</integer>
          <key>MaximumValue</key>
          <integer>1</integer>
        </dict>
        <dict>
          <key>Type</key>
          <string>PSMultiValueSpecifier</string>
          <key>Title</key>
          <string>Quality</string>
          <key>Key</key>
          <string>quality_preference</string>
          <key>DefaultValue</key>
          <integer>2</integer>
          <key>Titles</key>
          <array>
            <string>Low</string>
            <string>Medium</string>
            <string>High</string>
          </array>
          <key>Values</key>
          <array>
            <integer>1</integer>
            <integer>2</integer>
            <integer>3</integer>
          </array>
        </dict>
        <dict>
          <key>Type</key>
          <string>PSTitleValueSpecifier</string>
          <key>Title</key>
          <string>Version</string>
          <key>Key</key>
          <string>version_preference</string>
          <key>DefaultValue</key>
          <string>1.0 (42)</string>
        </dict>
        <dict>
          <key>Type</key>
          <string>PSTextFieldSpecifier</string>
          <key>Title</key>
          <string>Nickname</string>
          <key>Key</key>
          <string>nickname_preference</string>
        </dict>
        <dict>
          <key>Type</key>
          <string>PSChildPaneSpecifier</string>
          <key>Title</key>
          <string>Advanced</string>
          <key>File</key>
          <string>Advanced</string>
        </dict>
      </array>
    </dict>
    </plist>
    """

  static let advanced = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
      <key>PreferenceSpecifiers</key>
      <array>
        <dict>
          <key>Type</key>
          <string>PSGroupSpecifier</string>
          <key>Title</key>
          <string>Network</string>
        </dict>
        <dict>
          <key>Type</key>
          <string>PSRadioGroupSpecifier</string>
          <key>Title</key>
          <string>Server</string>
          <key>Key</key>
          <string>server_preference</string>
          <key>DefaultValue</key>
          <string>eu</string>
          <key>Titles</key>
          <array>
            <string>Europe</string>
            <string>America</string>
          </array>
          <key>Values</key>
          <array>
            <string>eu</string>
            <string>us</string>
          </array>
        </dict>
        <dict>
          <key>Type</key>
          <string>PSToggleSwitchSpecifier</string>
          <key>Title</key>
          <string>Debug</string>
          <key>Key</key>
          <string>debug_preference</string>
          <key>DefaultValue</key>
          <false/>
        </dict>
        <dict>
          <key>Type</key>
          <string>PSChildPaneSpecifier</string>
          <key>Title</key>
          <string>Logging</string>
          <key>File</key>
          <string>Logging</string>
        </dict>
      </array>
    </dict>
    </plist>
    """

  static let logging = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
      <key>PreferenceSpecifiers</key>
      <array>
        <dict>
          <key>Type</key>
          <string>PSMultiValueSpecifier</string>
          <key>Title</key>
          <string>Log level</string>
          <key>Key</key>
          <string>log_level</string>
          <key>DefaultValue</key>
          <string>warning</string>
          <key>Titles</key>
          <array>
            <string>Error</string>
            <string>Warning</string>
          </array>
          <key>Values</key>
          <array>
            <string>error</string>
            <string>warning</string>
          </array>
        </dict>
      </array>
    </dict>
    </plist>
    """

  /// A `Settings.bundle` folder in `temporary` holding these panes (file names without `.plist`).
  func bundle(_ panes: [String: String], in temporary: TemporaryDirectory) throws -> URL {
    let bundle = temporary.file("Settings.bundle")
    try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
    for (name, text) in panes {
      try Data(text.utf8).write(to: bundle.appendingPathComponent(name + ".plist"))
    }
    return bundle
  }

  /// A pane of these specifiers (each the inside of a `<dict>`).
  static func pane(_ specifiers: String...) -> String {
    let items = specifiers.map { "<dict>\($0)</dict>" }.joined(separator: "\n")
    return String(
      decoding: xmlPropertyList(
        "<dict><key>PreferenceSpecifiers</key><array>\n\(items)\n</array></dict>"),
      as: UTF8.self)
  }

  /// A toggle with a key and a default.
  static func toggle(_ key: String, _ value: Bool) -> String {
    "<key>Type</key><string>PSToggleSwitchSpecifier</string><key>Key</key><string>\(key)</string>"
      + "<key>DefaultValue</key>\(value ? "<true/>" : "<false/>")"
  }

  /// A child pane leading to `file`.
  static func child(_ file: String) -> String {
    "<key>Type</key><string>PSChildPaneSpecifier</string><key>Title</key><string>\(file)</string>"
      + "<key>File</key><string>\(file)</string>"
  }

  // MARK: - Reading

  @Test func everySpecifiersDefaultValueIsReadTypedThroughTheChildPanes() throws {
    let temporary = try TemporaryDirectory()
    let url = try bundle(
      ["Root": Self.root, "Advanced": Self.advanced, "Logging": Self.logging], in: temporary)
    let source = SettingsBundleSource(bundle: url)
    let contents = try source.read()
    #expect(
      contents.values == [
        "name_preference": "Guest", "enabled_preference": true, "legacy_preference": "NO",
        "volume_preference": 0.5, "quality_preference": 2, "version_preference": "1.0 (42)",
        "server_preference": "eu", "debug_preference": false, "log_level": "warning",
      ])
    #expect(contents.problems.isEmpty)
    #expect(source.layer == .settingsBundle)
    #expect(!source.valuesAreText)
    #expect(!source.isForced)
    #expect(!source.holdsSecrets)
  }

  @Test func aMissingBundleOrRootPlistIsAnEmptyLayer() throws {
    let temporary = try TemporaryDirectory()
    let missing = SettingsBundleSource(bundle: temporary.file("Settings.bundle"))
    #expect(try missing.read() == LayerContents(values: [:]))
    let empty = try bundle([:], in: temporary)
    #expect(try SettingsBundleSource(bundle: empty).read() == LayerContents(values: [:]))
  }

  @Test func aCorruptRootPlistThrowsNamingIt() throws {
    let temporary = try TemporaryDirectory()
    let url = try bundle(["Root": "<?xml version=\"1.0\"?><plist><dict><key>"], in: temporary)
    let error = #expect(throws: SettingsError.self) {
      try SettingsBundleSource(bundle: url).read()
    }
    #expect(error?.code == .corruptFile)
    #expect(error?.path == url.appendingPathComponent("Root.plist").path)
  }

  @Test func aChildPaneCycleIsReportedAndEveryPaneReadOnce() throws {
    let temporary = try TemporaryDirectory()
    let url = try bundle(
      [
        "Root": Self.pane(Self.toggle("root", true), Self.child("A")),
        "A": Self.pane(Self.toggle("a", true), Self.child("B")),
        "B": Self.pane(Self.child("A"), Self.child("Root"), Self.toggle("b", false)),
      ], in: temporary)
    let contents = try SettingsBundleSource(bundle: url).read()
    #expect(contents.values == ["root": true, "a": true, "b": false])
    let b = url.appendingPathComponent("B.plist").path
    #expect(
      contents.problems == [
        SettingsError(
          .corruptFile, path: b,
          reason:
            "The child pane \"A\" (item 0) leads back to a pane being read (Root → A → B → A);"
            + " it is skipped"),
        SettingsError(
          .corruptFile, path: b,
          reason:
            "The child pane \"Root\" (item 1) leads back to a pane being read (Root → A → B → Root);"
            + " it is skipped"),
      ])
  }

  @Test func aPaneReachedTwoWaysIsReadOnceWithoutAProblem() throws {
    let temporary = try TemporaryDirectory()
    let url = try bundle(
      [
        "Root": Self.pane(Self.child("A"), Self.child("Shared")),
        "A": Self.pane(Self.child("Shared")),
        "Shared": Self.pane(Self.toggle("shared", true)),
      ], in: temporary)
    #expect(try SettingsBundleSource(bundle: url).read() == LayerContents(values: ["shared": true]))
  }

  @Test func aMissingOrCorruptChildPaneIsAProblemAndTheRestIsRead() throws {
    let temporary = try TemporaryDirectory()
    let url = try bundle(
      [
        "Root": Self.pane(
          Self.child("Missing"), Self.child("Corrupt"), Self.child("../../etc/passwd"),
          Self.toggle("root", true)),
        "Corrupt": "<plist><dict><key>PreferenceSpecifiers</key>",
      ], in: temporary)
    let contents = try SettingsBundleSource(bundle: url).read()
    #expect(contents.values == ["root": true])
    #expect(contents.problems.count == 3)
    #expect(
      contents.problems.first
        == SettingsError(
          .fileNotReadable, path: url.appendingPathComponent("Missing.plist").path,
          reason: "The child pane \"Missing\" of Root.plist (item 0) doesn't exist; it is skipped"))
    #expect(contents.problems.dropFirst().first?.code == .corruptFile)
    #expect(
      contents.problems.dropFirst().first?.path == url.appendingPathComponent("Corrupt.plist").path)
    #expect(
      contents.problems.last
        == SettingsError(
          .corruptFile, path: url.appendingPathComponent("Root.plist").path,
          reason:
            "The child pane \"../../etc/passwd\" (item 2) names a file outside the bundle;"
            + " it is skipped"))
  }

  @Test func aKeyDefinedTwiceKeepsItsFirstDefaultValueAndIsAProblem() throws {
    let temporary = try TemporaryDirectory()
    let url = try bundle(
      [
        "Root": Self.pane(Self.toggle("flag", true), Self.child("Child")),
        "Child": Self.pane(Self.toggle("flag", false)),
      ], in: temporary)
    let contents = try SettingsBundleSource(bundle: url).read()
    #expect(contents.values == ["flag": true])
    #expect(
      contents.problems == [
        SettingsError(
          .corruptFile, path: url.appendingPathComponent("Child.plist").path, key: "flag",
          reason:
            "The key is defined again (item 0); the first DefaultValue, in Root.plist, is kept")
      ])
  }

  @Test func malformedSpecifiersAreProblemsAndTheOthersAreRead() throws {
    let temporary = try TemporaryDirectory()
    let root = String(
      decoding: xmlPropertyList(
        """
        <dict><key>PreferenceSpecifiers</key><array>
        <string>not a specifier</string>
        <dict><key>Type</key><string>PSToggleSwitchSpecifier</string><key>Key</key><integer>7</integer><key>DefaultValue</key><true/></dict>
        <dict><key>Type</key><string>PSChildPaneSpecifier</string><key>Title</key><string>No file</string></dict>
        <dict><key>Key</key><string>untyped</string><key>DefaultValue</key><date>2026-12-02T08:05:00Z</date></dict>
        </array></dict>
        """), as: UTF8.self)
    let url = try bundle(["Root": root, "Other": Self.pane()], in: temporary)
    let contents = try SettingsBundleSource(bundle: url).read()
    #expect(contents.values == ["untyped": .date(Date(timeIntervalSince1970: 1_796_198_700))])
    let rootPath = url.appendingPathComponent("Root.plist").path
    #expect(
      contents.problems == [
        SettingsError(
          .corruptFile, path: rootPath,
          reason: "PreferenceSpecifiers item 0 is of kind string, not a dictionary"),
        SettingsError(
          .corruptFile, path: rootPath,
          reason: "The Key of PreferenceSpecifiers item 1 is of kind integer, not a string"),
        SettingsError(
          .corruptFile, path: rootPath,
          reason: "The PSChildPaneSpecifier item 2 has no File string; it is skipped"),
      ])
  }

  @Test func aDeepChainOfChildPanesStopsAtTheLimitWithAProblem() throws {
    let temporary = try TemporaryDirectory()
    var panes = ["Root": Self.pane(Self.child("P1"))]
    for n in 1...40 {
      panes["P\(n)"] = Self.pane(Self.toggle("k\(n)", true), Self.child("P\(n + 1)"))
    }
    let url = try bundle(panes, in: temporary)
    let contents = try SettingsBundleSource(bundle: url).read()
    #expect(contents.values.count == 31)
    #expect(contents.problems.count == 1)
    #expect(contents.problems.first?.reason.contains("deeper than 32 panes") == true)
  }

  @Test func theRecordedSourceIsTheBundlesAbsolutePath() throws {
    let temporary = try TemporaryDirectory()
    let source = SettingsBundleSource(
      bundle: temporary.url.appendingPathComponent("x/../Settings.bundle"))
    #expect(
      source.recordedSource
        == .settingsBundle(path: temporary.file("Settings.bundle").standardizedFileURL.path))
    #expect("\(source)".contains("Settings.bundle"))
  }
}
