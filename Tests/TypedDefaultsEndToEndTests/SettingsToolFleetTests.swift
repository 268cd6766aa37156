import Foundation
import Testing
import TypedDefaults
import TypedDefaultsEtcd
import TypedDefaultsLayers
import TypedDefaultsTestSupport

/// The tool on a store folder whose app layers an etcd prefix (issue #20): `read`, `explain` and
/// `watch` see the fleet's values as the app does, from the server while it answers and from the
/// last known good file when it doesn't.
extension SettingsToolTests {
  @Suite(.requiresEtcd) struct Fleet {
    let tool: SettingsToolTests
    let server: EtcdServer
    let folder: URL
    let prefix = "/config/com.example.tool/"

    init() throws {
      tool = try SettingsToolTests()
      server = try EtcdServer()
      folder = tool.directory.file("app")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try server.put(prefix + "maxBitrate", "8000")
      try server.put(prefix + "greeting", "bonjour")
      // The app opens its store once: it records its layers beside data.plist.
      let fleet = EtcdSource(
        endpoints: [server.endpoint], prefix: prefix,
        lastKnownGoodFile: folder.appendingPathComponent("fleet.plist"))
      let store = try LayeredPlistStore(
        persistentFile: folder.appendingPathComponent("data.plist"),
        layers: [.runtime, .persistent, .source(fleet)], options: .init(savesAtExit: false))
      try store.setValue("hello", forKey: "greeting")
      try store.save()
    }

    private var origin: String { "etcd \(server.endpoint.absoluteString)\(prefix)" }

    @Test func readAndExplainShowTheFleetsValues() throws {
      try tool.expect(["read", folder.path, "maxBitrate"], prints: "8000\n")
      let width = origin.count
      try tool.expect(
        ["explain", folder.path, "maxBitrate"],
        prints: """
          maxBitrate
            \(tool.pad("persistent", "data.plist", width)) -
            \(tool.pad("fleet", origin, width)) 8000   <- wins

          """)
      // The user's own value wins over the fleet's.
      try tool.expect(
        ["explain", folder.path, "greeting"],
        prints: """
          greeting
            \(tool.pad("persistent", "data.plist", width)) hello   <- wins
            \(tool.pad("fleet", origin, width)) bonjour

          """)
      // With the server gone, the last known good values, and the tool says so.
      server.kill()
      let offline = try tool.settings(["read", folder.path, "maxBitrate"])
      #expect(offline.standardOutput == "8000\n")
      #expect(
        offline.standardError.hasPrefix(
          "settings: warning: '\(server.endpoint.absoluteString)': Cannot connect to "),
        "\(offline.standardError)")
      #expect(offline.standardError.contains("the layer holds the last known good values, saved "))
      let explained = try tool.settings(["explain", folder.path, "maxBitrate"]).standardOutput
      #expect(
        explained.contains("8000   <- wins   (offline: the last known good values, saved "),
        "\(explained)")
    }

    /// With the app's schema, a fleet value the service refuses is shown passed over, never as
    /// read (issue 37, item 6).
    @Test func aFleetValueTheServiceRefusesIsShownPassedOverNotAsRead() throws {
      let schema = SettingsSchema(
        title: "Fleet",
        settings: [
          SettingSchema(
            key: "maxBitrate", typeName: "Int", shape: .integer, defaultValue: 320,
            minimum: 1, maximum: 5000)
        ])
      try schema.write(nextTo: folder.appendingPathComponent("data.plist"))
      let read = try tool.settings(["read", folder.path, "maxBitrate"])
      #expect(read.standardOutput == "320 (declared default)\n")
      #expect(
        read.standardError
          == "settings: warning: The fleet layer's text '8000' for 'maxBitrate' (EtcdSource(fleet: "
          + "'\(prefix)' at \(server.endpoint.absoluteString))) is not allowed (the setting accepts "
          + "in 1...5000); the layer is passed over for it: no other layer holds the key, so the "
          + "setting reads its default\n")
      let explained = try tool.settings(["explain", folder.path, "maxBitrate"]).standardOutput
      let width = max(origin.count, "data.plist.schema.json".count)
      #expect(
        explained == """
          maxBitrate (Int, 1...5000)
            \(tool.pad("persistent", "data.plist", width)) -
            \(tool.pad("fleet", origin, width)) 8000   <- passed over: is not allowed (the setting accepts in 1...5000)
            \(tool.pad("declared", "data.plist.schema.json", width)) 320   <- wins (declared default)

          """)
    }

    @Test func watchPrintsEachChangeOfTheFleet() throws {
      let printed = try tool.watching([folder.path, "maxBitrate"]) { read in
        try server.put(prefix + "maxBitrate", "9000")
        read("[fleet]\n")
      }
      #expect(
        printed == """
          watching \(folder.path) (stop with Ctrl-C)
          maxBitrate: 8000 -> 9000 [fleet]

          """)
    }
  }

  /// A row of `explain`'s table for a store folder: the layer, its origin padded to `width`.
  func pad(_ layer: String, _ origin: String, _ width: Int) -> String {
    layer.padding(toLength: 11, withPad: " ", startingAt: 0) + " "
      + origin.padding(toLength: width, withPad: " ", startingAt: 0) + " "
  }
}
