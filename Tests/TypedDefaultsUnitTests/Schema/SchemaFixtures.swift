import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

// Models and helpers shared by the schema and export tests.

/// An enum with `String` raw values whose cases are the allowed values.
enum SchemaCodec: String, SettingValue, CaseIterable {
  case aac, opus
}

/// An enum with `Int` raw values whose cases are the allowed values.
enum SchemaLevel: Int, SettingValue, CaseIterable {
  case low = 1
  case high = 3
}

/// A nested group: its keys take the property's name as their prefix.
struct SchemaPlaybackSettings: SettingsGroup {
  @Setting("volume", default: 0.8, in: 0...1, help: "Playback volume, 0 to 1.") var volume: Double
  @Setting(help: "Skip the silence between tracks.") var skipsSilence = false
}

/// A realistic model: a key prefix, a nested group, help text, ranges, allowed values, an enum,
/// a URL, a secret, an optional, a date and an array.
final class SchemaPlayerSettings: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting or a group of them.
  override class var keyPrefix: String { "com.example.player." }
  @Setting(in: 0..., help: "Retries before giving up.") var retries = 3
  @Setting(allowedValues: ["auto", "hd", "sd"], help: "Video quality.") var quality = "auto"
  @Setting(help: "The audio codec.") var codec = SchemaCodec.aac
  @Setting(help: "The server to stream from.") var server = URL(string: "https://example.com/a")!
  @Setting("apiToken", default: "", secret: true, help: "The API token.") var apiToken: String
  @Setting var nickname: String?
  @Setting var lastPlayed = Date(timeIntervalSinceReferenceDate: 0)
  @Setting var recentSearches: [String] = ["jazz"]
  var playback = SchemaPlaybackSettings()
}

/// Runs `python3 -c script arguments…` (found on `PATH` by `/usr/bin/env`) to completion and
/// returns its exit status and standard output; standard error is dropped.
func runPython(
  _ script: String, _ arguments: [String] = []
) throws -> (
  outcome: ChildProcess.Outcome, output: String
) {
  let folder = try TemporaryDirectory()
  let output = folder.file("stdout.txt")
  let descriptor = open(output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  defer { close(descriptor) }
  let outcome = ChildProcess.run(
    "/usr/bin/env", ["python3", "-c", script] + arguments,
    environment: ProcessInfo.processInfo.environment, standardOutput: descriptor, timeout: 60)
  let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
  return (outcome, text)
}
