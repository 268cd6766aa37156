import Foundation
import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A ``LayerSource`` reading settings from environment variables that share a prefix, for
/// deployments configured by their environment (containers, CI, `systemd` units).
///
/// ```swift
/// let settings = PlayerSettings()
/// let environment = EnvironmentVariablesSource(
///   prefix: "PLAYER", keys: settings.allSettings.map(\.key))
/// // PLAYER_SERVER_URL=https://example.com  →  serverURL
/// ```
///
/// ## Names
///
/// A key's variable is the prefix, then `_` (added unless the prefix ends with one; the prefix is
/// otherwise used exactly as given), then the key's words in upper case joined by `_`. A key
/// splits into words at every ASCII character other than a letter or digit, and where its case
/// changes, acronyms (and their plurals) kept whole and digits kept with the word before them:
///
/// | key | variable (prefix `PLAYER`) |
/// |---|---|
/// | `volume` | `PLAYER_VOLUME` |
/// | `serverURL`, `ServerURL`, `server.url`, `server-url`, `server_url` | `PLAYER_SERVER_URL` |
/// | `httpTimeoutMS` | `PLAYER_HTTP_TIMEOUT_MS` |
/// | `URLSessionTimeout` | `PLAYER_URL_SESSION_TIMEOUT` |
/// | `recentURLs`, `userIDsCount` | `PLAYER_RECENT_URLS`, `PLAYER_USER_IDS_COUNT` |
/// | `oAuth2Token` | `PLAYER_O_AUTH2_TOKEN` |
/// | `http2Enabled` | `PLAYER_HTTP2_ENABLED` |
/// | `audio.eq.bass` | `PLAYER_AUDIO_EQ_BASS` |
///
/// Variable names are matched exactly, case included (`PLAYER_server_url` is no key's).
///
/// ## Problems
///
/// Nothing is dropped silently; each of these is a ``LayerContents/problems`` entry (which the
/// store reports as a diagnostic and keeps in ``LayeredPlistStore/recoveredProblems``):
///
/// - two keys with one variable (`serverURL` and `server.url`): neither is read from it
///   (``SettingsError/Code/conflictingKeys``, naming both keys and the variable; also reported
///   once, as a ``SettingsDiagnostic/Kind/keyCollision``, when the source is made);
/// - a key holding a character that isn't ASCII, or no letter or digit: it has no variable
///   (``SettingsError/Code/unnamableKey``);
/// - a variable with the prefix that is no key's: reported by name
///   (``SettingsError/Code/unknownEnvironmentVariable``), its value never shown, since it may be
///   a secret. With an empty prefix no variable is reported: every variable of the process would.
/// - Kubernetes' service links, set in every container of a namespace for each Service in it, are
///   recognised and neither read nor reported when their names have the prefix: for a Service
///   named like the prefix (`svc`: `SVC_SERVICE_HOST`, `SVC_SERVICE_PORT`,
///   `SVC_PORT=tcp://10.0.0.1:80`, `SVC_PORT_80_TCP…`) or beginning with it (`svc-db`:
///   `SVC_DB_SERVICE_HOST`, `SVC_DB_PORT=tcp://…`), once its `…_SERVICE_HOST` is set. A
///   variable that is a setting's and a link's (`SVC_DATABASE_PORT` for `database.port`, beside
///   a Service `svc-database`) is read unless it holds a link's `tcp://address:port`.
///   Name the prefix after the app rather than its Services to avoid them.
/// - a variable of the process whose value isn't UTF-8 (Foundation gives its bytes with each bad
///   sequence replaced by U+FFFD): not read, as any unreadable layer value, so the layers below
///   give the key's value; reported by name (``SettingsError/Code/layerValueUnreadable``), its
///   value never shown.
///
/// ## Without keys
///
/// Made without keys (``init(prefix:environment:layer:)``), the source reads every variable with
/// the prefix, under the key its name gives in lower camel case: `PLAYER_SERVER_URL` →
/// `serverUrl`, `PLAYER_ALLOWS_CELLULAR_PLAYBACK` → `allowsCellularPlayback`. Camel case, because
/// a setting's key is by default its property's name; but a variable's name has lost the case
/// of an acronym (`serverURL`), so give the keys whenever a key holds one, or `.`, `-` or `_`.
///
/// Values are text (``valuesAreText``): the store reads each as the type the model declares for
/// the key, with the rules of ``PropertyListValue/init(parsing:as:)-(_,SettingValue.Type)``. Values never appear in the
/// source's description or problems.
///
/// The environment is read once, when the source is made; the source doesn't watch it.
///
/// Thread-safety: immutable after `init`; `Sendable`, safe to read from any thread.
public final class EnvironmentVariablesSource: LayerSource, CustomStringConvertible {
  /// The layer this source fills: ``LayeredPlistStore/Layer/environment`` unless given.
  public let layer: LayeredPlistStore.Layer
  /// The prefix of the variables read, ending with `_` (empty for none).
  public let prefix: String
  /// The variable each key the source was given is read from, by key.
  ///
  /// Keys with no variable (a conflict, a character that isn't ASCII) are left out; empty for a
  /// source made without keys.
  public let variableNames: [String: String]

  /// The values read, by key.
  private let values: [String: PropertyListValue]
  /// What couldn't be read, in a fixed order.
  private let problems: [SettingsError]

  /// `true`: every value is an environment variable's text.
  public var valuesAreText: Bool { true }

  /// The keys the source was made with, sorted, or `nil` for a source made without keys.
  private let declaredKeys: [String]?

  /// ``RecordedLayerSource/environment(prefix:keys:)`` with the source's prefix and the keys it
  /// was made with (sorted; `nil` for a source made without keys), so that a tool opening the
  /// store's folder maps variables to keys as this source does.
  public var recordedSource: RecordedLayerSource? {
    .environment(prefix: prefix, keys: declaredKeys)
  }

  /// The variables of `keys`, with a prefix, from an environment.
  ///
  /// - Parameters:
  ///   - prefix: The variables' prefix, with or without the trailing `_` (`PLAYER`, `PLAYER_`),
  ///     used exactly as given otherwise; empty to read the keys' names alone.
  ///   - keys: The keys to read (a model's `allSettings.map(\.key)`).
  ///   - environment: The variables, by name: the process's environment by default.
  ///   - layer: The layer the values fill; ``LayeredPlistStore/Layer/environment`` by default.
  public init(
    prefix: String,
    keys: some Sequence<String>,
    environment: [String: String] = ProcessInfo.processInfo.environment,
    layer: LayeredPlistStore.Layer = .environment
  ) {
    let prefix = Self.normalized(prefix)
    let services = Self.linkedServices(in: environment)
    self.prefix = prefix
    self.layer = layer
    let declaredKeys = Set(keys).sorted()
    self.declaredKeys = declaredKeys
    var problems: [SettingsError] = []
    var keysByVariable: [String: [String]] = [:]
    for key in declaredKeys {
      guard let name = KeyWords.upperSnakeCase(key) else {
        problems.append(
          SettingsError(
            .unnamableKey, key: key,
            reason:
              "The key has no environment variable: it holds a character that isn't ASCII, or no letter or digit"
          ))
        continue
      }
      keysByVariable[prefix + name, default: []].append(key)
    }
    var variableNames: [String: String] = [:]
    var values: [String: PropertyListValue] = [:]
    for (variable, keys) in keysByVariable.sorted(by: { $0.key < $1.key }) {
      guard keys.count == 1, let key = keys.first else {
        let reason =
          "The keys \(keys.map { "'\($0)'" }.joined(separator: ", ")) all map to the environment variable \(variable); none is read from it"
        problems.append(SettingsError(.conflictingKeys, reason: reason))
        SettingsDiagnostics.report(
          SettingsDiagnostic(
            kind: .keyCollision, key: keys.first, backend: "environment variables \(prefix)*",
            message: reason))
        continue
      }
      variableNames[key] = variable
      if let value = environment[variable],
        !Self.isServiceLink(variable, value: value, prefix: prefix, services: services)
      {
        if let problem = Self.problem(ofVariable: variable, key: key, given: value) {
          problems.append(problem)
        } else {
          values[key] = .string(value)
        }
      }
    }
    if !prefix.isEmpty {
      for variable in environment.keys.sorted()
      where variable.hasPrefix(prefix) && keysByVariable[variable] == nil
        && !Self.isServiceLink(
          variable, value: environment[variable] ?? "", prefix: prefix, services: services)
      {
        problems.append(
          SettingsError(
            .unknownEnvironmentVariable,
            reason:
              "The environment variable \(variable) has the prefix \(prefix) but names no setting"))
      }
    }
    self.variableNames = variableNames
    self.values = values
    self.problems = problems
  }

  /// Every variable with a prefix, from an environment, under the key its name gives in lower
  /// camel case (`PLAYER_SERVER_URL` → `serverUrl`).
  ///
  /// - Parameters:
  ///   - prefix: The variables' prefix, with or without the trailing `_`; not empty (an empty
  ///     prefix reads nothing, since every variable of the process would be read).
  ///   - environment: The variables, by name: the process's environment by default.
  ///   - layer: The layer the values fill; ``LayeredPlistStore/Layer/environment`` by default.
  public init(
    prefix: String,
    environment: [String: String] = ProcessInfo.processInfo.environment,
    layer: LayeredPlistStore.Layer = .environment
  ) {
    let prefix = Self.normalized(prefix)
    let services = Self.linkedServices(in: environment)
    self.prefix = prefix
    self.layer = layer
    self.declaredKeys = nil
    self.variableNames = [:]
    var values: [String: PropertyListValue] = [:]
    var problems: [SettingsError] = []
    var variablesByKey: [String: [String]] = [:]
    if !prefix.isEmpty {
      for variable in environment.keys.sorted()
      where variable.hasPrefix(prefix)
        && !Self.isServiceLink(
          variable, value: environment[variable] ?? "", prefix: prefix, services: services)
      {
        let key = Self.key(forName: String(variable.dropFirst(prefix.count)))
        guard !key.isEmpty else {
          problems.append(
            SettingsError(
              .unknownEnvironmentVariable,
              reason: "The environment variable \(variable) names no setting after its prefix"))
          continue
        }
        variablesByKey[key, default: []].append(variable)
      }
    }
    for (key, variables) in variablesByKey.sorted(by: { $0.key < $1.key }) {
      guard variables.count == 1, let variable = variables.first else {
        problems.append(
          SettingsError(
            .conflictingKeys, key: key,
            reason:
              "The environment variables \(variables.joined(separator: ", ")) all name the key; none is read"
          ))
        continue
      }
      guard let value = environment[variable] else { continue }
      if let problem = Self.problem(ofVariable: variable, key: key, given: value) {
        problems.append(problem)
      } else {
        values[key] = .string(value)
      }
    }
    self.values = values
    self.problems = problems
  }

  /// Returns the variables read, as strings by key, and the problems found when the source was
  /// made (conflicts, unknown variables).
  ///
  /// - Returns: The values and problems; the same on every call.
  public func read() -> LayerContents {
    LayerContents(values: values, problems: problems)
  }

  /// The source's prefix and how many keys it read, never their values:
  /// `environment variables PLAYER_* (2 set)`.
  public var description: String {
    "environment variables \(prefix)* (\(values.count) set)"
  }

  /// The problem of a variable whose value, as given, is the process's variable of that name
  /// with bytes that aren't UTF-8, each bad sequence replaced by U+FFFD (as Foundation's
  /// `ProcessInfo.environment` gives it); `nil` for any other value.
  ///
  /// Only a value holding U+FFFD is looked up, so that an environment given as a dictionary is
  /// taken as given unless it is the process's mangled text.
  ///
  /// - Parameters:
  ///   - variable: The variable's name.
  ///   - key: The key it gives.
  ///   - given: Its value, as the environment given to the source holds it.
  /// - Returns: A ``SettingsError/Code/layerValueUnreadable`` problem naming the variable, never
  ///   its value; or `nil`.
  static func problem(ofVariable variable: String, key: String, given: String) -> SettingsError? {
    guard given.unicodeScalars.contains("\u{FFFD}"), let raw = getenv(variable),
      String(validatingCString: raw) == nil, String(cString: raw) == given
    else { return nil }
    return SettingsError(
      .layerValueUnreadable, key: key,
      reason: "The environment variable \(variable) holds bytes that aren't UTF-8")
  }

  /// The names of the Services Kubernetes gave this container links to: every `<NAME>` whose
  /// `<NAME>_SERVICE_HOST` is set (`SVC_DB` for a Service `svc-db`).
  ///
  /// - Parameter environment: Every variable.
  /// - Returns: The names, without `_SERVICE_HOST`.
  static func linkedServices(in environment: [String: String]) -> Set<String> {
    let suffix = "_SERVICE_HOST"
    return Set(
      environment.keys.lazy.filter { $0.hasSuffix(suffix) && $0.count > suffix.count }
        .map { String($0.dropLast(suffix.count)) })
  }

  /// Whether a variable is one of the service links Kubernetes sets in every container of a
  /// namespace, for each Service in it, rather than the operator's setting: for a Service whose
  /// `<NAME>_SERVICE_HOST` is set (`svc-db` → `SVC_DB`), `<NAME>_SERVICE_HOST`,
  /// `<NAME>_SERVICE_PORT`, `<NAME>_SERVICE_PORT_<port name>`, `<NAME>_PORT_<n>_<TCP|UDP|SCTP>`
  /// and its `_PROTO`, `_PORT` and `_ADDR`, and `<NAME>_PORT` holding `tcp://<address>:<n>` (or
  /// `udp://`, `sctp://`).
  ///
  /// Such variables are neither read nor reported when their name has the prefix: a Service named
  /// like the app's prefix (`svc`), or beginning with it (`svc-db`, `svc-database`), is the usual
  /// case, not a mistake (each made four diagnostics at every start, and a fail-fast start failed
  /// on them). A declared key whose variable is also a link's name (`database.port` and a Service
  /// `svc-database`) is read only when the variable doesn't hold a link's address.
  ///
  /// - Parameters:
  ///   - variable: The variable's name, with the prefix.
  ///   - value: Its value.
  ///   - prefix: The prefix, with its trailing `_`.
  ///   - services: The linked Services' names (``linkedServices(in:)``).
  /// - Returns: Whether the variable is a service link.
  static func isServiceLink(
    _ variable: String, value: String, prefix: String, services: Set<String>
  ) -> Bool {
    guard !prefix.isEmpty, variable.hasPrefix(prefix), !services.isEmpty else { return false }
    // Each `_` of the variable may end a Service's name.
    var index = variable.startIndex
    while let separator = variable[index...].firstIndex(of: "_") {
      let service = String(variable[..<separator])
      let name = variable[variable.index(after: separator)...]
      if services.contains(service), isLink(name, value: value) { return true }
      index = variable.index(after: separator)
    }
    return false
  }

  /// Whether `name`, a variable's name after its Service's name and `_`, is a service link's
  /// with `value`.
  private static func isLink(_ name: Substring, value: String) -> Bool {
    if name == "SERVICE_HOST" || name == "SERVICE_PORT" || name.hasPrefix("SERVICE_PORT_") {
      return true
    }
    let protocols = ["TCP", "UDP", "SCTP"]
    if name == "PORT" {
      // tcp://10.0.0.1:80
      let parts = value.split(separator: ":", omittingEmptySubsequences: false)
      return parts.count >= 3 && protocols.contains(parts[0].uppercased())
        && parts[1].hasPrefix("//")
        && parts.last.map { !$0.isEmpty && $0.allSatisfy(\.isNumber) } == true
    }
    // PORT_80_TCP, PORT_80_TCP_PROTO, PORT_80_TCP_PORT, PORT_80_TCP_ADDR
    let words = name.split(separator: "_", omittingEmptySubsequences: false)
    guard words.count == 3 || words.count == 4, words[0] == "PORT",
      !words[1].isEmpty, words[1].allSatisfy(\.isNumber), protocols.contains(String(words[2]))
    else { return false }
    return words.count == 3 || ["PROTO", "PORT", "ADDR"].contains(String(words[3]))
  }

  /// The prefix with its trailing `_`.
  private static func normalized(_ prefix: String) -> String {
    prefix.isEmpty || prefix.hasSuffix("_") ? prefix : prefix + "_"
  }

  /// The lower-camel-case key of a variable name without its prefix: `SERVER_URL` → `serverUrl`.
  private static func key(forName name: String) -> String {
    let words = name.split(separator: "_").map { $0.lowercased() }
    guard let first = words.first else { return "" }
    return first + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
  }
}
