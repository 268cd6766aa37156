// LayeredConfigDemo: the HuConfigration layered configuration (runtime > data.plist >
// JF-info.plist > Info.plist) on LayeredPlistStore, with the app's settings declared once as a
// typed SettingsGroup. Run it twice: the first run saves data.plist, later runs read it back.

import Foundation
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsSchema

func run(_ options: Options) throws {
  let directory = try options.resolvedDataDirectory()
  let dataFile = directory.appending(path: "data.plist")
  if options.reset { return try reset(dataFile) }

  // 1. The data directory, and the files a real app ships, written fresh on every run.
  try attempt("create the data directory \(directory.path)") {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }
  let bundledFile = options.bundledFile ?? directory.appending(path: "bundle/Info.plist")
  let deliveredFile = directory.appending(path: "deployment/JF-info.plist")
  if options.bundledFile == nil { try install(SamplePlists.infoPlist, at: bundledFile) }
  try install(SamplePlists.deliveredPlist, at: deliveredFile)

  // 2. Open the store, and the typed view of it.
  let store = try LayeredPlistStore(
    persistentFile: dataFile,
    deliveredFile: deliveredFile,
    bundledFile: bundledFile
  )
  // A missing file is an empty layer, but a path the user typed should exist.
  if let path = options.bundledFile?.path, !store.layersLoadedFromDisk.contains(.bundled) {
    throw DemoError("no such file: \(path)")
  }
  let isFirstRun = !store.layersLoadedFromDisk.contains(.persistent)
  let config = AppConfig(backend: store)
  // Next to data.plist, for the settings tool: it then refuses a write that doesn't fit.
  try config.writeSchema()

  print("LayeredConfigDemo: runtime > persistent (data.plist) > delivered > bundled (Info.plist)")
  print()
  print("Data directory: \(directory.path)")
  print("  bundled     \(bundledFile.path)" + (options.bundledFile == nil ? " (embedded)" : ""))
  print("  delivered   \(deliveredFile.path) (embedded)")
  print("  persistent  \(dataFile.path)" + (isFirstRun ? " (not created yet)" : ""))
  print("  schema      \(SettingsSchema.fileURL(nextTo: dataFile).path) (for the settings tool)")
  print()

  // 3. A first run receives configuration; a later run finds it in data.plist.
  if isFirstRun {
    print("FIRST RUN: no data.plist yet, so the persistent layer starts empty.")
    try receiveConfiguration(into: store)
  } else {
    print("LATER RUN: data.plist exists; the persistent layer holds what earlier runs saved:")
    printValues(store.dictionaryRepresentation(of: .persistent))
    let runtimeCount = store.dictionaryRepresentation(of: .runtime).count
    print("Runtime layer: \(runtimeCount) keys (the first run's override was never saved).")
  }
  print()
  print("Theme this run: \(config.theme)")
  if isFirstRun {
    // HuConfigration's "temp" writes: saved now, seen only from the next launch.
    try store.setValueForNextLaunch("dark", forKey: "Theme")
    print(
      "  store.setValueForNextLaunch(\"dark\", forKey: \"Theme\"): still \(config.theme) this run")
  }
  print()

  // 4. The app writes through its typed settings: writes go to the persistent layer.
  // update: read, add one and save under the file's lock, so no other process's count is lost.
  try config.$launchCount.update { $0 += 1 }
  print("App write: config.$launchCount.update { $0 += 1 } -> \(config.launchCount)")
  print()

  printSettings(config, in: store)
  print()
  print("Typed reads: config.serverURL.host = \(config.serverURL.host ?? "nil")")
  print("             config.requestTimeout = \(config.requestTimeout) seconds")
  print("             config.newPlayerEnabled = \(config.newPlayerEnabled)")
  print()
  explain("ServerURL", in: store)
  print()

  // 5. HuConfigration saves data.plist when the app goes to the background or quits.
  if try store.saveIfNeeded() {
    print("Saved \(dataFile.path) with store.saveIfNeeded().")
    print("Run again: the persistent values come back; runtime values never do.")
  } else {
    print("Nothing changed, so data.plist was not rewritten.")
  }
  print()
  // The store recorded where its delivered and bundled files are (data.plist.layers): the tool
  // finds them there.
  print("Inspect the store from a shell with the settings tool:")
  print("  swift run settings explain \(shellQuoted(directory.path)) ServerURL")
  print("  swift run settings read \(shellQuoted(directory.path))")
}

/// A path as a shell reads it back: as it is if it holds only safe characters, else in single
/// quotes.
func shellQuoted(_ text: String) -> String {
  let safe = text.unicodeScalars.allSatisfy {
    CharacterSet.alphanumerics.contains($0) || "/._-+,:@%".unicodeScalars.contains($0)
  }
  return safe ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
}

/// Simulates a first launch: the server delivers configuration, and a developer overrides one
/// value for this run only.
func receiveConfiguration(into store: LayeredPlistStore) throws {
  // The server's answer to "any new configuration?". Like HuConfigration's writeConfigWithKey:,
  // it goes to the persistent layer, where it beats the shipped files and is saved.
  let fromServer: [String: PropertyListValue] = [
    "ServerURL": "https://api-v2.example.com/v1",
    "FeatureNewPlayer": true,
    "LastConfigSync": .date(Date()),
  ]
  print("Server-delivered config -> persistent layer, store.applyServerConfiguration(_:):")
  try store.applyServerConfiguration(fromServer)
  printValues(fromServer)

  let override: PropertyListValue = "http://localhost:8080/v1"
  try store.setValue(override, forKey: "ServerURL", in: .runtime)
  print("Runtime override, this run only -> store.setValue(_:forKey:in: .runtime):")
  printValues(["ServerURL": override])
}

/// Prints every setting of the app's configuration, with the layer its value comes from.
func printSettings(_ config: AppConfig, in store: LayeredPlistStore) {
  print("Settings (the highest layer holding a key wins; 'default' if none does):")
  let settings = config.allSettings
  let keyWidth = settings.map(\.key.count).max() ?? 0
  for setting in settings {
    let value = setting.valueDescription
    let layer = store.layer(forKey: setting.key).map(String.init(describing:)) ?? "default"
    print(
      "  " + setting.key.padded(to: keyWidth), setting.typeName.padded(to: 14),
      value.padded(to: 32), layer)
  }
}

/// Prints the value each layer holds for `key`, and which one a read returns.
func explain(_ key: String, in store: LayeredPlistStore) {
  print("store.explain(\"\(key)\"): what each layer holds, and which one wins:")
  print(store.explain(key))
}

func printValues(_ values: [String: PropertyListValue]) {
  for (key, value) in values.sorted(by: { $0.key < $1.key }) { print("  \(key) = \(value)") }
}

func reset(_ dataFile: URL) throws {
  guard FileManager.default.fileExists(atPath: dataFile.path) else {
    return print("Nothing to reset: there is no \(dataFile.path)")
  }
  try attempt("delete \(dataFile.path)") { try FileManager.default.removeItem(at: dataFile) }
  print("Deleted \(dataFile.path): the next run is a first run.")
}

/// Writes one of the embedded sample files, creating its folder.
func install(_ contents: String, at url: URL) throws {
  try attempt("write \(url.path)") {
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(contents.utf8).write(to: url, options: .atomic)
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
      String(decoding: AppConfig(backend: InMemoryBackend()).schema.jsonSchema(), as: UTF8.self))
  } else {
    try run(options)
  }
} catch {
  FileHandle.standardError.write(Data("LayeredConfigDemo: \(error)\n".utf8))
  exit(1)
}
