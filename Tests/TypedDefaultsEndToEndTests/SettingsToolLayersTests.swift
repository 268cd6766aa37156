import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The tool opening a store folder whose app recorded every kind of layer: it shows what the app
/// sees (but the layers it can't open, which it names), without `--delivered`.
extension SettingsToolTests {
  /// An app's store folder and the files its layers read.
  struct LayeredApp {
    let folder: URL
    let persistent: URL
    let delivered: URL
    let secrets: URL
    let managed: URL
    /// The app's store, opened in the test process.
    let store: LayeredPlistStore
  }

  /// Opens the store an app opens: a managed file trusted to this user, the app's command-line
  /// arguments (`--theme blue`), environment variables `DEMO_*` of the app's keys (the app's
  /// `DEMO_VOLUME` is 0.9), `data.plist` holding `theme = dark`, a Secret mount in the
  /// Kubernetes layout holding `token`, and a delivered file.
  func openLayeredApp() throws -> LayeredApp {
    let folder = directory.file("app")
    let delivered = directory.file("deploy/JF-info.plist")
    let secrets = directory.file("secrets")
    let managed = directory.file("etc/managed.plist")
    for made in [
      folder, delivered.deletingLastPathComponent(), managed.deletingLastPathComponent(),
    ] {
      try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
    }
    try PropertyListFile(url: delivered).write(
      ["volume": 0.5, "theme": "light", "serverURL": "https://jf.example"])
    try PropertyListFile(url: managed).write(["maxBitrate": 128])
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: managed.path)
    try mountSecrets(version: "..2026_01", token: "s3cr3t", in: secrets)
    let keys = ["volume", "theme", "serverURL", "maxBitrate", "token"]
    let store = try LayeredPlistStore(
      persistentFile: folder.appendingPathComponent("data.plist"),
      layers: LayeredPlistStore.standardLayers(
        managed: ManagedSettingsSource(file: managed, trustedOwner: getuid()),
        arguments: CommandLineArgumentsSource(arguments: ["--theme", "blue"], keys: keys),
        environment: EnvironmentVariablesSource(
          prefix: "DEMO", keys: keys, environment: ["DEMO_VOLUME": "0.9"]),
        directories: [DirectorySource(directory: secrets, layer: "secrets", holdsSecrets: true)],
        deliveredFile: delivered),
      options: .init(savesAtExit: false))
    try store.setValue("dark", forKey: "theme")
    try store.save()
    // The app sees its arguments' theme and its own environment's volume.
    #expect(store.value(forKey: "theme") == "blue")
    #expect(store.value(forKey: "volume") == "0.9")
    return LayeredApp(
      folder: folder, persistent: store.persistentFile.url, delivered: delivered,
      secrets: secrets, managed: managed, store: store)
  }

  /// Mounts (or swaps in) a version of a Secret as Kubernetes does: the files in a folder of
  /// their own, `..data` a link to it, replaced by a rename, and `token` a link through it.
  func mountSecrets(version: String, token: String, in secrets: URL) throws {
    let files = FileManager.default
    try files.createDirectory(
      at: secrets.appendingPathComponent(version), withIntermediateDirectories: true)
    try Data(token.utf8).write(to: secrets.appendingPathComponent("\(version)/token"))
    let link = secrets.appendingPathComponent("..data_tmp")
    try files.createSymbolicLink(atPath: link.path, withDestinationPath: version)
    #expect(rename(link.path, secrets.appendingPathComponent("..data").path) == 0)
    let token = secrets.appendingPathComponent("token")
    if (try? files.destinationOfSymbolicLink(atPath: token.path)) == nil {
      try files.createSymbolicLink(atPath: token.path, withDestinationPath: "..data/token")
    }
  }

  /// A table row of `settings explain`: the layer, where its values come from, the value.
  func row(_ layer: String, _ origin: String, width: Int, _ value: String) -> String {
    "  " + layer.padding(toLength: 12, withPad: " ", startingAt: 0) + " "
      + origin.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value
  }

  @Test func aStoreFolderShowsEveryRecordedLayerAsTheAppSeesIt() throws {
    let app = try openLayeredApp()
    let folder = app.folder.path
    // The tool's own environment: the app's can't be seen.
    let environment = ["DEMO_VOLUME": "0.3"]
    try expect(
      ["read", folder],
      prints: """
        {
            maxBitrate = 128;
            serverURL = "https://jf.example";
            theme = dark;
            token = "<secret>";
            volume = "0.3";
        }

        """, environment: environment)
    try expect(["read", folder, "volume"], prints: "0.3\n", environment: environment)
    try expect(["read", folder, "token"], prints: "<secret>\n", environment: environment)

    let width = app.delivered.path.count
    func explained(_ key: String, _ values: [String]) -> String {
      let origins = [
        app.managed.path, "-", "$DEMO_*", "data.plist", app.secrets.path, app.delivered.path,
      ]
      let layers = ["managed", "arguments", "environment", "persistent", "secrets", "delivered"]
      return ([key] + zip(zip(layers, origins), values).map { row($0.0, $0.1, width: width, $1) })
        .joined(separator: "\n") + "\n"
    }
    let unseen = "(not visible to the tool)"
    try expect(
      ["explain", folder, "volume"],
      prints: explained("volume", ["-", unseen, #""0.3"   <- wins"#, "-", "-", #""0.5""#]),
      environment: environment)
    try expect(
      ["explain", folder, "theme"],
      prints: explained("theme", ["-", unseen, "-", "dark   <- wins", "-", "light"]),
      environment: environment)
    try expect(
      ["explain", folder, "token"],
      prints: explained("token", ["-", unseen, "-", "-", "<secret>   <- wins", "-"]),
      environment: environment)
    try expect(
      ["explain", folder, "maxBitrate"],
      prints: explained(
        "maxBitrate", ["128   <- wins (managed: can't be changed)", unseen, "-", "-", "-", "-"]),
      environment: environment)
    // Without the tool's variable, the delivered value wins; the secret never shows.
    try expect(["read", folder, "volume"], prints: "0.5\n")
    for arguments in [["read", folder], ["explain", folder, "token"], ["read", folder, "token"]] {
      let run = try settings(arguments, environment: environment)
      #expect(!run.standardOutput.contains("s3cr3t") && !run.standardError.contains("s3cr3t"))
    }
    // A key only a layer the tool can't see might hold.
    try expect(
      ["explain", folder, "nope"],
      failsWith: "The domain/default pair of (\(folder), nope) does not exist in the layers the "
        + "tool can see (not visible to it: arguments)")
    // --delivered still replaces the recorded delivered file.
    let other = directory.file("other.plist")
    try PropertyListFile(url: other).write(["volume": 0.75])
    try expect(["read", "--delivered", other.path, folder, "volume"], prints: "0.75\n")
  }

  @Test func aKeyTheManagedLayerForcesCantBeWrittenOrDeleted() throws {
    let app = try openLayeredApp()
    let folder = app.folder.path
    let before = try Data(contentsOf: app.persistent)
    let forced =
      "its value is forced by the managed layer (\(app.managed.path)), which can't be "
      + "overridden; nothing was changed"
    try expect(
      ["write", folder, "maxBitrate", "-int", "256"],
      failsWith: "Cannot write 'maxBitrate': " + forced)
    try expect(
      ["write", folder, "maxBitrate", "-array-add", "1"],
      failsWith: "Cannot write 'maxBitrate': " + forced)
    try expect(
      ["delete", folder, "maxBitrate"], failsWith: "Cannot delete 'maxBitrate': " + forced)
    #expect(try Data(contentsOf: app.persistent) == before)
    // Other keys are written as ever; deleting every key leaves the forced one alone.
    try succeed(["write", folder, "volume", "-float", "0.25"])
    try expect(["read", folder, "volume"], prints: "0.25\n")
    try succeed(["delete", folder])
    try expect(["read", folder, "theme"], prints: "light\n")
    try expect(["read", folder, "maxBitrate"], prints: "128\n")
    // The tool never rewrote the app's record.
    #expect(
      try LayeredPlistStore.recordedLayers(ofPersistentFile: app.persistent)?.map(\.layer) == [
        .managed, .runtime, .arguments, .environment, .persistent, "secrets", .delivered,
      ])
  }

  @Test func aRecordTheToolCantReadIsAClearError() throws {
    let folder = directory.file("later")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let record = LayeredPlistStore.layerRecordFile(
      ofPersistentFile: folder.appendingPathComponent("data.plist"))
    try PropertyListFile(url: record).write(
      [
        "layers": [
          ["name": "runtime"], ["name": "persistent"],
          ["name": "cloud", "source": ["kind": "cloudKit", "container": "iCloud.example"]],
        ]
      ], format: .xml)
    let message =
      "Cannot read the property list at '\(record.path)': the source of the 'cloud' layer has "
      + "the kind 'cloudKit', which this version of TypedDefaults can't open (it opens "
      + "'propertyListFile', 'directory', 'environment', 'managed', 'settingsBundle', 'etcd')"
    for arguments in [
      ["read", folder.path], ["explain", folder.path, "k"], ["write", folder.path, "k", "v"],
      ["watch", folder.path],
    ] {
      try expect(arguments, failsWith: message)
    }
    #expect(
      !FileManager.default.fileExists(atPath: folder.appendingPathComponent("data.plist").path))
  }

  /// Runs `settings watch` with `arguments` (at most 60 s) while `body` makes changes, each
  /// followed by a call of the function it is given, which reads the tool's output until a line
  /// appears; returns everything the tool printed once stopped.
  func watching(
    _ arguments: [String], _ body: (_ readUntil: (String) -> Void) throws -> Void
  ) throws -> String {
    let watch = Process()
    watch.executableURL = TestPaths.productsDirectory.appendingPathComponent("settings")
    watch.arguments = ["watch"] + arguments
    watch.environment = toolEnvironment
    let output = Pipe()
    watch.standardOutput = output
    try watch.run()
    // Bounded: a watch that never prints is stopped, which ends the reads below.
    let stop = DispatchWorkItem { watch.terminate() }
    DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: stop)
    let reader = output.fileHandleForReading
    var printed = ""
    func read(until line: String) {
      while !printed.contains(line) {
        let chunk = reader.availableData
        if chunk.isEmpty { return }
        printed += String(decoding: chunk, as: UTF8.self)
      }
    }
    read(until: "(stop with Ctrl-C)\n")
    try body(read(until:))
    stop.cancel()
    watch.terminate()
    printed += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
    let watchEnding = watch.waitForExit()
    #expect(watchEnding.status == 0)
    return printed
  }

  @Test func watchReportsChangesOfTheRecordedSources() throws {
    let app = try openLayeredApp()
    let printed = try watching([app.folder.path, "token", "maxBitrate"]) { read in
      try mountSecrets(version: "..2026_02", token: "n3w-s3cr3t", in: app.secrets)
      read("[secrets]\n")
      try PropertyListFile(url: app.managed).write(["maxBitrate": 256])
      read("[managed]\n")
    }
    #expect(
      printed == """
        watching \(app.folder.path) (stop with Ctrl-C)
        token: <secret> -> <secret> [secrets]
        maxBitrate: 128 -> 256 [managed]

        """)
  }
}
