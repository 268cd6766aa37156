// DeploymentDemo: a small service's settings on one LayeredPlistStore with every layer a
// deployment uses (managed settings, the command line, the environment, a ConfigMap and a Secret
// mount, data.plist, a delivered file, a Settings.bundle, Info.plist), then a live ConfigMap
// update, validated before it is applied.

import Foundation
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsSchema

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// How long the demo waits for the store to see the ConfigMap update, in seconds.
let updateTimeout = 10.0

func run(_ options: Options) throws {
  let scratch =
    options.dataDirectory
    ?? FileManager.default.temporaryDirectory.appending(path: "DeploymentDemo-\(UUID())")
  try attempt("create the folder \(scratch.path)") {
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
  }
  defer { if options.dataDirectory == nil { try? FileManager.default.removeItem(at: scratch) } }

  // 1. What the deployment provides, written fresh on every run.
  let managedFile = scratch.appending(path: "managed/managed.plist")
  let dataFile = scratch.appending(path: "data.plist")
  let deliveredFile = scratch.appending(path: "deployment.plist")
  let settingsBundle = scratch.appending(path: "Settings.bundle")
  let infoPlist = scratch.appending(path: "Info.plist")
  try install(EmbeddedData.managedPlist, at: managedFile)
  // The trust rule: no one but the owner may write the file or its folder, whatever the umask.
  try attempt("protect \(managedFile.path)") {
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o755], ofItemAtPath: managedFile.deletingLastPathComponent().path)
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o644], ofItemAtPath: managedFile.path)
  }
  try install(EmbeddedData.dataPlist, at: dataFile)
  try install(EmbeddedData.deliveredPlist, at: deliveredFile)
  try install(EmbeddedData.settingsBundleRoot, at: settingsBundle.appending(path: "Root.plist"))
  try install(EmbeddedData.infoPlist, at: infoPlist)
  var configMap = try mount(EmbeddedData.configMap, at: scratch.appending(path: "config"))
  let secret = try mount(EmbeddedData.secret, at: scratch.appending(path: "secrets"))

  // 2. Diagnostics: a refused value arrives here, from the store's watch.
  let diagnostics = DiagnosticsInbox()
  SettingsDiagnostics.handler = { diagnostics.receive($0) }

  // 3. The sources, and the store with every layer in its default order.
  let keys = ServiceSettings(backend: InMemoryBackend()).allSettings.map(\.key)
  let arguments = CommandLineArgumentsSource(arguments: options.settingArguments, keys: keys)
  if let unknown = arguments.unrecognizedArguments.first {
    throw DemoError("unknown option \(unknown); see --help")
  }
  let environment = EnvironmentVariablesSource(
    prefix: "DEPLOYMENT_DEMO_", keys: keys,
    environment: EmbeddedData.environment.merging(ProcessInfo.processInfo.environment) { $1 })
  let store = try LayeredPlistStore(
    persistentFile: dataFile,
    layers: LayeredPlistStore.standardLayers(
      managed: ManagedSettingsSource(file: managedFile, trustedOwner: getuid()),
      arguments: arguments,
      environment: environment,
      directories: [
        DirectorySource(directory: configMap.directory, layer: "config"),
        DirectorySource(directory: secret.directory, layer: "secrets", holdsSecrets: true),
      ],
      deliveredFile: deliveredFile,
      settingsBundle: SettingsBundleSource(bundle: settingsBundle),
      bundledFile: infoPlist),
    options: .init(watchesFiles: true))
  let settings = ServiceSettings(backend: store)

  let production = ManagedSettingsSource.defaultFile(forIdentifier: EmbeddedData.identifier)
  print("DeploymentDemo: one LayeredPlistStore with every layer, highest priority first")
  print()
  if let directory = options.dataDirectory {
    print("Files in \(directory.path):")
  } else {
    print("Files in a temporary folder, removed at the end (--data-dir PATH keeps them):")
  }
  printRow("managed", "managed/managed.plist, trusted as yours, so the demo runs without root")
  printRow("", "(in production: \(production.path), owned by root)")
  printRow("runtime", "this process only (nothing set)")
  printRow("arguments", "\(arguments)")
  printRow("environment", "\(environment)")
  printRow("", "(DEPLOYMENT_DEMO_MAX_CONNECTIONS=32 embedded, as a container's env: sets it)")
  printRow("persistent", "data.plist")
  printRow("config", "config/, a ConfigMap mount (..data -> ..v1)")
  printRow("secrets", "secrets/, a Secret mount (..data -> ..v1)")
  printRow("delivered", "deployment.plist")
  printRow("settingsBundle", "Settings.bundle/Root.plist")
  printRow("bundled", "Info.plist")
  print()

  // 4. Every setting, with its value and the layer it came from.
  printSettings(settings, in: store)
  print()
  explain("maxConnections", in: store)
  print()

  // 5. A managed key can't be written, through any path.
  let isForced = settings.$telemetryEnabled.isForced
  print("telemetryEnabled is managed: settings.$telemetryEnabled.isForced = \(isForced)")
  do {
    try settings.$telemetryEnabled.set(true)
    throw DemoError("the managed key telemetryEnabled was written")
  } catch let error as SettingsError {
    print("  try settings.$telemetryEnabled.set(true): refused, \(error.code)")
    print("    \(error)")
  }
  print("  telemetryEnabled = \(settings.telemetryEnabled)")
  print()

  // 6. Kubernetes updates the ConfigMap: a bad volume, a good log level. The store's watch sees
  // it; the demo waits for the refusal and, unless a higher layer (an option, a variable) sets
  // logLevel, for the new log level's change event.
  let logLevelApplied = DispatchSemaphore(value: 0)
  let observation = settings.$logLevel.observe { level in
    if level == .debug { logLevelApplied.signal() }
  }
  defer { observation.cancel() }
  let configWinsLogLevel = store.layer(forKey: "logLevel") == "config"
  print("Kubernetes updates the ConfigMap (..data -> ..v2): volume 1.5, logLevel debug")
  try attempt("update the ConfigMap") { try configMap.update(to: EmbeddedData.updatedConfigMap) }
  guard let refused = diagnostics.firstRejection(ofKey: "volume", within: updateTimeout) else {
    throw DemoError("the store refused no volume within \(Int(updateTimeout)) s of the update")
  }
  if configWinsLogLevel, logLevelApplied.wait(timeout: .now() + updateTimeout) != .success {
    throw DemoError("the store saw no new logLevel within \(Int(updateTimeout)) s of the update")
  }
  print("  applied: " + layerAndEffective("logLevel", settings.logLevel, in: store))
  print("  refused: \(refused)")
  print("  read:    " + layerAndEffective("volume", settings.volume, in: store))
  print()
  explain("volume", in: store)
}

/// Writes one of the embedded files, creating its folder.
func install(_ contents: String, at url: URL) throws {
  try attempt("write \(url.path)") {
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(contents.utf8).write(to: url, options: .atomic)
  }
}

/// Lays out a mount's first version.
func mount(_ payload: [String: String], at directory: URL) throws -> KubernetesMount {
  do {
    return try KubernetesMount(at: directory, payload)
  } catch {
    throw DemoError("cannot mount \(directory.path): \(error.localizedDescription)")
  }
}

/// Runs a Foundation file operation, turning its error into one readable line.
func attempt(_ action: String, _ body: () throws -> Void) throws(DemoError) {
  do {
    try body()
  } catch {
    throw DemoError("cannot \(action): \(error.localizedDescription)")
  }
}

/// Prints every setting, with the layer its value comes from (the secret's value redacted).
func printSettings(_ settings: ServiceSettings, in store: LayeredPlistStore) {
  print("Settings (the highest layer holding a key wins; 'default' if none does):")
  for setting in settings.allSettings {
    let forced = store.isForced(forKey: setting.key) ? " (forced)" : ""
    print(
      "  " + setting.key.padded(to: 18) + setting.typeName.padded(to: 10)
        + setting.valueDescription.padded(to: 31) + layerName(setting.key, in: store) + forced)
  }
}

/// The name of the layer a key's value comes from, or `default`.
func layerName(_ key: String, in store: LayeredPlistStore) -> String {
  store.layer(forKey: key).map(String.init(describing:)) ?? "default"
}

/// The config layer's value of `key`, and the setting's: `config's volume = 0.5; settings.volume
/// = 0.5 (config layer)`.
func layerAndEffective(_ key: String, _ value: some Any, in store: LayeredPlistStore) -> String {
  let inConfig = store.explain(key).values["config"].map(String.init(describing:)) ?? "-"
  return "config's \(key) = \(inConfig); settings.\(key) = \(value) "
    + "(\(layerName(key, in: store)) layer)"
}

/// Prints the value each layer holds for `key`, and which one wins.
func explain(_ key: String, in store: LayeredPlistStore) {
  print("store.explain(\"\(key)\"):")
  print(store.explain(key))
}

func printRow(_ layer: String, _ text: String) {
  print("  " + layer.padded(to: 16) + text)
}

extension String {
  fileprivate func padded(to width: Int) -> String {
    padding(toLength: max(width, count), withPad: " ", startingAt: 0)
  }
}

do {
  let options = try Options(Array(CommandLine.arguments.dropFirst()))
  if options.help {
    print(Options.usage)
  } else if options.schema {
    print(
      String(
        decoding: ServiceSettings(backend: InMemoryBackend()).schema.jsonSchema(), as: UTF8.self))
  } else {
    try run(options)
  }
} catch {
  FileHandle.standardError.write(Data("DeploymentDemo: \(error)\n".utf8))
  exit(1)
}
