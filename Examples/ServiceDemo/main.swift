// ServiceDemo: a service started as a container starts one: its settings from the command line,
// `SVC_*` environment variables and a mounted ConfigMap folder over its own data.plist, a
// fail-fast configuration check, a write saved when the container runtime sends SIGTERM, and no
// writable home needed (its state folder is systemd's STATE_DIRECTORY, or XDG_DATA_HOME).
//
//   ServiceDemo --config DIR [--requests N] [SETTING OPTIONS]

import Foundation
import TypedDefaults
import TypedDefaultsLayers

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The service's settings.
struct ServiceSettings: SettingsGroup {
  @Setting(in: 1...65535, help: "The port to listen on.") var port = 8080
  @Setting(help: "How much the service logs.") var logLevel = LogLevel.info
  @Setting(in: 0.1...60.0, help: "Seconds before a request is given up.") var requestTimeout = 5.0
  @Setting(in: 1...1024) var maxConnections = 16
  @Setting(secret: true) var apiToken = ""
  @Setting(help: "Requests served, over every run.") var requestsServed = 0
}

/// How much the service logs.
enum LogLevel: String, SettingValue, CaseIterable {
  case debug, info, warning, error
}

/// Writes a line to standard output at once (a supervisor, or CI, waits for "ready").
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Ends the process with a one-line message on standard error.
func fail(_ message: String, status: Int32 = 1) -> Never {
  FileHandle.standardError.write(Data("ServiceDemo: \(message)\n".utf8))
  exit(status)
}

// The demo's own options, read here; the arguments layer is told they are the demo's, and
// leaves them (and their values) alone.
let arguments = Array(CommandLine.arguments.dropFirst())
let ownOptions: Set<String> = ["--config", "--requests"]
/// The value after the demo's option `name`.
func option(_ name: String) -> String? {
  guard let index = arguments.firstIndex(of: name) else { return nil }
  guard index + 1 < arguments.count else { fail("\(name) needs a value") }
  return arguments[index + 1]
}
guard let configFolder = option("--config") else {
  fail("usage: ServiceDemo --config DIR [--requests N] [SETTING OPTIONS]")
}
let requests = Int(option("--requests") ?? "3") ?? 3

// Diagnostics, one line each, on standard error.
SettingsDiagnostics.handler = SettingsDiagnostics.standardErrorHandler

do {
  // Where data.plist goes: found, not created (a service that only reads never needs it).
  let folder = try StandardLocation.data.directory(for: "service-demo")
  let keys = ServiceSettings(backend: InMemoryBackend()).allSettings.map(\.key)
  let commandLine = CommandLineArgumentsSource(
    arguments: arguments, keys: keys, appOptionsTakingAValue: ownOptions,
    takesPositionalArguments: false)
  let store = try LayeredPlistStore(
    persistentFile: folder.appending(path: "data.plist"),
    layers: [
      .runtime, .source(commandLine),
      .source(EnvironmentVariablesSource(prefix: "SVC_", keys: keys)),
      .persistent,
      .source(DirectorySource(directory: URL(fileURLWithPath: configFolder), layer: "config")),
    ],
    options: .init(autosave: .debounced(seconds: 30)))
  let settings = ServiceSettings(backend: store)

  // Fail fast: every problem, by layer and key, then EX_CONFIG.
  do {
    try store.checkConfiguration()
  } catch {
    fail("\(error)", status: 78)
  }
  // A stop by SIGTERM (or Control-C) saves first, then ends the process as the signal would.
  LayeredPlistStore.saveOnTermination()

  say("ServiceDemo: port \(settings.port) (\(store.layer(forKey: "port")?.name ?? "default"))")
  say("  logLevel \(settings.logLevel), requestTimeout \(settings.requestTimeout) s")
  say("  state in \(folder.path)")
  // Serve: each request counted; the debounced save would come 30 s after the last one.
  for _ in 0..<requests { settings.requestsServed += 1 }
  say("ready: \(settings.requestsServed) requests served in all")
  // Until SIGTERM.
  while true { sleep(60) }
} catch {
  fail("\(error)")
}
