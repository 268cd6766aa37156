import Dispatch
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

/// `watch domain [key …]`: prints each change to a domain as it happens, until interrupted.
enum WatchCommand: Command {
  static let verb = "watch"
  static let synopsis = "watch domain [key ...]"
  static let summary = "print each change to a domain as it happens, until stopped"
  static let help = """
    usage: settings watch domain [key ...]

    Watches a property-list file, a layered store folder or (on Linux) a UserDefaults suite and
    prints one line per change of a key's value as it happens, whoever makes it (another process, `settings write`, an editor),
    until stopped with Ctrl-C (SIGINT) or SIGTERM, which exit with status 0. Only the keys named
    are watched; with none, every key. The first line says the watch has started:

      watching ./store (stop with Ctrl-C)
      Theme: dark -> light [persistent]
      ServerURL: "https://a.example" -> "https://b.example" [delivered]
      Volume: 3 -> (none)
      NewKey: (none) -> 1 [persistent]

    Each line is the key, its old and new value (one line, old-style plist syntax; "(none)" when
    it has no value), and for a store folder the layer the new value now comes from. For a store
    folder, a change to data.plist or to any layer the app's store recorded is seen: its
    delivered and bundled files (wherever --delivered and --bundled put them), a mounted folder
    (a Kubernetes ..data swap included), a managed file; a layer holding secrets shows <secret>
    for both values, as does a key the app's schema declares secret (see `settings write
    --help`). A file or folder that doesn't exist yet is fine: its changes
    are seen once it is created. A file that becomes unreadable is reported as a warning and the
    last values are kept.

    A UserDefaults suite is watched through its file, $XDG_CONFIG_HOME/<suite>.plist on Linux:
    every save is seen, by an app using the library, by a program using plain UserDefaults (at
    its synchronize()), or by `settings write`. On Apple platforms, where the system keeps
    suites, `watch` refuses a suite (exit status 64): nothing tells a process when another
    changes one.

    Examples:
      settings watch ./store
      settings watch ~/project/config.plist ServerURL Theme
      settings watch com.example.player allowsCellularPlayback
    \(HelpText.domains)
    """

  static func run(_ arguments: inout Arguments) throws(Failure) {
    let domain = try arguments.domain()
    let keys = Array(arguments.rest())
    let store: LayeredPlistStore
    var layered = false
    // Stop on SIGINT and SIGTERM from the start, before the first line, so that a signal sent
    // as soon as it appears is handled. The handler only exits (`_exit` is async-signal-safe):
    // the watch never saves, so there is nothing to finish, and a dispatch signal source would be
    // registered asynchronously, missing a signal sent right after the first line.
    for signalNumber in [SIGINT, SIGTERM] {
      signal(signalNumber) { _ in _exit(0) }
    }
    switch domain.kind {
    case .suite(let suite):
      #if canImport(Darwin)
        throw Failure.usage(
          "watch: \(suite) is a UserDefaults suite, which can't be watched on this platform "
            + "(nothing tells a process when another changes a suite); watch a property-list "
            + "file or a store folder")
      #else
        // The suite's file, read as a plain property-list file: never saved, never moved.
        store = try open(persistent: Domain.suiteFile(suite))
      #endif
    case .file(let url):
      store = try open(persistent: url)
    case .layered(let files):
      store = try open(files)
      layered = true
    case .unresolved:
      throw Failure.usage(
        "watch: \(domain.name) names no store yet; say which to watch with --store layered or "
          + "--store defaults before the name")
    }
    let secrets = Set(try domain.schema()?.settings.filter(\.isSecret).map(\.key) ?? [])
    let printer = ChangePrinter(store: store, showsLayer: layered, declaredSecrets: secrets)
    let token =
      keys.isEmpty
      ? store.observeAllKeys { printer.print($0) } : store.observe(keys: keys) { printer.print($0) }
    // Watch only once the values changes are compared with are read: the first arming reloads,
    // so a change made in between is printed too.
    store.startWatching()
    try Output.write(
      "watching \(Output.escapingControlCharacters(domain.name)) (stop with Ctrl-C)\n")
    withExtendedLifetime(token) {
      dispatchMain()
    }
  }

  /// Opens a plist file (or a suite's file) as a store that never saves and never moves a file,
  /// after checking it reads.
  private static func open(persistent: URL) throws(Failure) -> LayeredPlistStore {
    try check([persistent])
    return try Domain.openStore(persistent: persistent, layers: [.runtime, .persistent])
  }

  /// Opens a store folder's store with every layer the tool can open (its sources watched with
  /// it), after checking its property-list files read.
  private static func open(_ files: Domain.LayeredFiles) throws(Failure) -> LayeredPlistStore {
    try check(files.files)
    return try Domain.openStore(files)
  }

  private static func check(_ files: [URL]) throws(Failure) {
    try Failure.fromLibrary { () throws(SettingsError) in
      for file in files {
        _ = try PropertyListFile(url: file).readDictionary()
      }
    }
  }
}

/// Prints changes, one line each, remembering each key's last value to show the old one.
///
/// A value that comes from a layer holding secrets, or of a key the domain's schema declares
/// secret, prints as `<secret>`, as `explain` shows it; so does the old value of a key whose last
/// value was one.
private final class ChangePrinter: Sendable {
  /// Each key's last value, and the keys whose last value was secret.
  private struct Shown {
    var values: [String: PropertyListValue]
    var secretKeys: Set<String>
  }

  private let store: LayeredPlistStore
  private let showsLayer: Bool
  private let declaredSecrets: Set<String>
  private let shown: Locked<Shown>

  init(store: LayeredPlistStore, showsLayer: Bool, declaredSecrets: Set<String>) {
    self.store = store
    self.showsLayer = showsLayer
    self.declaredSecrets = declaredSecrets
    let values = store.dictionaryRepresentation()
    let secretKeys = values.keys.filter { key in
      declaredSecrets.contains(key) || Self.comesFromSecretLayer(key, in: store)
    }
    self.shown = Locked(Shown(values: values, secretKeys: Set(secretKeys)))
  }

  /// Whether the key's current value is secret: the schema declares it so, or it comes from a
  /// layer holding secrets.
  private func isSecret(_ key: String) -> Bool {
    declaredSecrets.contains(key) || Self.comesFromSecretLayer(key, in: store)
  }

  /// Whether the key's current value comes from a layer holding secrets.
  private static func comesFromSecretLayer(_ key: String, in store: LayeredPlistStore) -> Bool {
    let provenance = store.explain(key)
    return provenance.source.map(provenance.hidesValue(in:)) ?? false
  }

  func print(_ change: SettingsChange) {
    let isSecret = change.newValue != nil && self.isSecret(change.key)
    let (old, wasSecret) = shown.withLock { shown in
      let wasSecret = shown.secretKeys.contains(change.key)
      if isSecret {
        shown.secretKeys.insert(change.key)
      } else {
        shown.secretKeys.remove(change.key)
      }
      return (shown.values.updateValue(change.newValue, forKey: change.key), wasSecret)
    }
    guard old != change.newValue else { return }
    let placeholder = LayeredPlistStore.Provenance.secretPlaceholder
    var line =
      Output.escapingControlCharacters(change.key) + ": "
      + (wasSecret && old != nil ? placeholder : Self.render(old)) + " -> "
      + (isSecret ? placeholder : Self.render(change.newValue))
    if showsLayer, change.newValue != nil, let layer = store.layer(forKey: change.key) {
      line += " [\(Output.escapingControlCharacters(layer.name))]"
    }
    do {
      try Output.write(line + "\n")
    } catch {
      Output.error(error.message)
      exit(error.status)
    }
  }

  private static func render(_ value: PropertyListValue?) -> String {
    guard let value else { return "(none)" }
    return Output.escapingControlCharacters(OldStylePlist.inline(value))
  }
}

extension Dictionary where Value == PropertyListValue {
  /// Sets or removes a value, returning the old one.
  fileprivate mutating func updateValue(_ value: PropertyListValue?, forKey key: Key) -> Value? {
    if let value { return updateValue(value, forKey: key) }
    return removeValue(forKey: key)
  }
}
