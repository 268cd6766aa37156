import TypedDefaults

/// A ``LayerSource`` reading settings from the process's command-line arguments: `--server-url
/// https://example.com`, `--verbose`, or UserDefaults' own `-serverURL https://example.com` (the
/// key exactly as declared).
///
/// ```swift
/// let settings = PlayerSettings()
/// let arguments = CommandLineArgumentsSource(keys: settings.allSettings.map(\.key))
/// if !arguments.unrecognizedArguments.isEmpty { printUsage() }
/// ```
///
/// ## Forms
///
/// | argument | reads |
/// |---|---|
/// | `--server-url=https://example.com` | `serverURL` = `https://example.com` |
/// | `--server-url https://example.com` | the same |
/// | `-serverURL https://example.com` | the same: the key exactly as declared, as `UserDefaults`' argument domain takes it |
/// | `--verbose` (last, or another option follows) | `verbose` = `true`, a Boolean |
/// | `--no-verbose` | `verbose` = `false`, a Boolean (unless a key's option is itself `--no-verbose`) |
/// | `--` | ends the options: what follows is not read |
/// | `input.txt` (no dash) | nothing: positional arguments are the app's (``positionalArguments``) |
/// | `-v`, `-AppleLanguages (en)` (one dash, not a key) | nothing: short flags and other frameworks' argument-domain keys are left alone |
/// | `-serverURL=https://example.com` | nothing: reported (``SettingsError/Code/unknownArgument``), as neither form |
///
/// An option's name is the key's words in lower case joined by `-`, split as
/// ``EnvironmentVariablesSource`` splits them (`serverURL`, `server.url`, `server_url` →
/// `--server-url`; `httpTimeoutMS` → `--http-timeout-ms`). The argument after an option is its
/// value unless it is an option itself: it starts with `-`, and is neither `-` alone nor a number
/// (`--offset -5` reads `-5`). `-Key` always needs a value; a bare `--key` is the Boolean `true`,
/// for `Bool` settings: a setting of another type refuses it, and the store reports it, so
/// `--token -x9` (a value that starts with a dash) is never read as the token `true`; write
/// `--token=-x9`. A bare option followed by a positional argument (`--verbose input.txt`) takes
/// it as its value; write `--verbose=true input.txt`, or put the option last.
///
/// ## Problems
///
/// Nothing is dropped silently; each of these is a ``LayerContents/problems`` entry (which the
/// store reports as a diagnostic), and the arguments are listed in ``unrecognizedArguments`` so
/// an app can print its usage:
///
/// - an option starting with `--` that names no key (``SettingsError/Code/unknownArgument``);
///   the argument after it is left alone, as a positional one;
/// - `-Key=value` for a key (``SettingsError/Code/unknownArgument``): one dash takes the value
///   as the next argument, two take it after `=`;
/// - `-Key` with no value (``SettingsError/Code/missingArgumentValue``);
/// - a key given twice (``SettingsError/Code/repeatedArgument``): the last value is used, and
///   the problem says how many times and names the options given, the first three and how many
///   more if there are more than four (not in ``unrecognizedArguments``);
/// - two keys with one option name (``SettingsError/Code/conflictingKeys``): neither is read from
///   it (each still is from `-Key`).
///
/// - an argument that is neither an option nor an option's value, when the app says it takes no
///   positional arguments (`takesPositionalArguments: false`): one problem for them all, naming
///   their positions (at most five, then how many more).
///
/// ## The app's own options
///
/// An app's own options (`--help`, `-v`, `--output file`) are not settings. Rather than strip
/// them before making the source, name them: `appFlags` for those that take no value,
/// `appOptionsTakingAValue` for those that do (the next argument, or the text after `=`). They
/// are left alone, never reported, and an app flag before a positional argument
/// (`--verbose input.txt`) leaves it positional.
///
/// ```swift
/// let arguments = CommandLineArgumentsSource(
///   keys: settings.allSettings.map(\.key), appFlags: ["--help", "-v"],
///   appOptionsTakingAValue: ["--output"], takesPositionalArguments: false)
/// ```
///
/// Problems name arguments without their values (`--api-tokn=…` is reported as `--api-tokn`):
/// a value may be a secret.
///
/// Values are text (``valuesAreText``), read by the store as the type the model declares
/// (``PropertyListValue/init(parsing:as:)-(_,SettingValue.Type)``). Arguments never change, so the source doesn't
/// watch.
///
/// Thread-safety: immutable after `init`; `Sendable`, safe to read from any thread.
public final class CommandLineArgumentsSource: LayerSource, CustomStringConvertible {
  /// The layer this source fills: ``LayeredPlistStore/Layer/arguments`` unless given.
  public let layer: LayeredPlistStore.Layer
  /// The arguments the source couldn't use, in order, without their values: options naming no
  /// key (`--colour`, `-volume=…` as `-volume`), and options missing their value (`-volume` at
  /// the end).
  public let unrecognizedArguments: [String]

  /// The values read, by key.
  private let values: [String: PropertyListValue]
  /// What couldn't be read, in argument order after the keys' conflicts.
  private let problems: [SettingsError]

  /// `true`: every value is an argument's text, but for a bare option's Boolean (`--verbose`,
  /// `--no-verbose`).
  public var valuesAreText: Bool { true }

  /// The arguments that are not options, nor an option's value, in order: the app's positional
  /// arguments (`input.txt`), and every argument after `--`.
  ///
  /// The source never reads them; an app that takes none says so with
  /// `takesPositionalArguments: false`, and they are then a problem.
  public let positionalArguments: [String]

  /// The settings given in `arguments` for `keys`.
  ///
  /// - Parameters:
  ///   - arguments: The arguments, without the program's name: the process's by default.
  ///   - keys: The keys to read (a model's `allSettings.map(\.key)`).
  ///   - appFlags: The app's own options that take no value, as written (`--help`, `-v`):
  ///     left alone, never reported, so the app needn't strip them first.
  ///   - appOptionsTakingAValue: The app's own options that take a value, as written
  ///     (`--output`, `-o`): left alone with their value (the next argument, or after `=`).
  ///   - takesPositionalArguments: Whether the app takes positional arguments (the default);
  ///     if not, arguments that are neither options nor values are one
  ///     ``SettingsError/Code/unknownArgument`` problem, naming their positions, never their
  ///     text.
  ///   - layer: The layer the values fill; ``LayeredPlistStore/Layer/arguments`` by default.
  public init(
    arguments: [String] = Array(CommandLine.arguments.dropFirst()),
    keys: some Sequence<String>,
    appFlags: Set<String> = [],
    appOptionsTakingAValue: Set<String> = [],
    takesPositionalArguments: Bool = true,
    layer: LayeredPlistStore.Layer = .arguments
  ) {
    self.layer = layer
    let keys = Set(keys)
    var problems: [SettingsError] = []
    var keysByOption: [String: [String]] = [:]
    for key in keys.sorted() {
      guard let name = KeyWords.kebabCase(key) else {
        problems.append(
          SettingsError(
            .unnamableKey, key: key,
            reason:
              "The key has no --option: it holds a character that isn't ASCII, or no letter or digit; use -\(key)"
          ))
        continue
      }
      keysByOption[name, default: []].append(key)
    }
    var keyByOption: [String: String] = [:]
    for (name, named) in keysByOption.sorted(by: { $0.key < $1.key }) {
      guard named.count == 1, let key = named.first else {
        problems.append(
          SettingsError(
            .conflictingKeys,
            reason:
              "The keys \(named.map { "'\($0)'" }.joined(separator: ", ")) all have the option --\(name); none is read from it"
          ))
        continue
      }
      keyByOption[name] = key
    }

    var values: [String: PropertyListValue] = [:]
    var givenAs: [String: [String]] = [:]
    var order: [String] = []
    var unrecognized: [String] = []
    var positional: [(position: Int, argument: String)] = []
    var remaining = arguments[...]
    func isOption(_ argument: String) -> Bool {
      argument.hasPrefix("-") && argument != "-" && !TextParsing.isRealNumber(argument)
    }
    func takeValue() -> String? {
      guard let next = remaining.first, !isOption(next) else { return nil }
      return remaining.removeFirst()
    }
    func set(_ key: String, _ value: PropertyListValue, as option: String) {
      if givenAs[key] == nil { order.append(key) }
      givenAs[key, default: []].append(option)
      values[key] = value
    }
    while let position = remaining.indices.first, let argument = remaining.popFirst() {
      if argument == "--" {
        positional += zip(remaining.indices, remaining).map { ($0 + 1, $1) }
        break
      }
      // The app's own options, with the value of one that takes it.
      let written = String(argument.prefix { $0 != "=" })
      if appFlags.contains(written) { continue }
      if appOptionsTakingAValue.contains(written) {
        if written == argument, !remaining.isEmpty { remaining.removeFirst() }
        continue
      }
      if argument.hasPrefix("--") {
        let body = argument.dropFirst(2)
        let equals = body.firstIndex(of: "=")
        let name = String(body[..<(equals ?? body.endIndex)])
        let inline = equals.map { String(body[body.index(after: $0)...]) }
        if let key = keyByOption[name] {
          // A bare option is the Boolean `true`, not the text: a `String` setting refuses it.
          set(key, (inline ?? takeValue()).map(PropertyListValue.string) ?? true, as: "--" + name)
        } else if inline == nil, name.hasPrefix("no-"),
          let key = keyByOption[String(name.dropFirst(3))]
        {
          set(key, false, as: "--" + name)
        } else {
          var hint = ""
          if keys.contains(name), let kebab = KeyWords.kebabCase(name) {
            hint = "; write it --\(kebab) or -\(name)"
          }
          unrecognized.append("--" + name)
          problems.append(
            SettingsError(.unknownArgument, reason: "The option --\(name) names no setting" + hint))
        }
      } else if isOption(argument), keys.contains(String(argument.dropFirst())) {
        let key = String(argument.dropFirst())
        guard let value = takeValue() else {
          unrecognized.append(argument)
          problems.append(
            SettingsError(
              .missingArgumentValue, key: key,
              reason: "The option \(argument) has no value; give one after it"))
          continue
        }
        set(key, .string(value), as: argument)
      } else if isOption(argument), let equals = argument.firstIndex(of: "="),
        case let key = String(argument[argument.index(after: argument.startIndex)..<equals]),
        keys.contains(key)
      {
        // `-Key=value`: neither form; reported without its value, which may be a secret.
        let dashed = KeyWords.kebabCase(key).map { "--\($0)=… or " } ?? ""
        unrecognized.append("-" + key)
        problems.append(
          SettingsError(
            .unknownArgument, key: key,
            reason: "The option -\(key)= names no setting; write it \(dashed)-\(key) …"))
      } else if !isOption(argument) {
        positional.append((position + 1, argument))
      }
      // Anything else (`-v`, another framework's `-Key value`) is left alone.
    }
    if !takesPositionalArguments, !positional.isEmpty {
      // Positions only: an argument may be a secret. Six at most, so the line stays short.
      let positions = positional.map { String($0.position) }
      let named = Self.listed(positions, naming: 5)
      problems.append(
        SettingsError(
          .unknownArgument,
          reason: "\(positions.count == 1 ? "The argument" : "\(positions.count) arguments") at "
            + "\(positions.count == 1 ? "position" : "positions") \(named) "
            + "\(positions.count == 1 ? "is" : "are") neither an option nor an option's value, "
            + "and the app takes no positional arguments"))
    }
    for key in order {
      guard let options = givenAs[key], options.count > 1 else { continue }
      // At most four options named, so that a key given thousands of times makes one short line.
      let named = Self.listed(options, naming: 3)
      problems.append(
        SettingsError(
          .repeatedArgument, key: key,
          reason: "The setting is given \(options.count) times (\(named)); the last is used"))
    }
    self.values = values
    self.problems = problems
    self.unrecognizedArguments = unrecognized
    self.positionalArguments = positional.map(\.argument)
  }

  /// Items for a message, bounded: all of them if there are at most `count + 1`, else the first
  /// `count` and how many more (`a, b, c and 9997 more`).
  private static func listed(_ items: [String], naming count: Int) -> String {
    items.count <= count + 1
      ? items.joined(separator: ", ")
      : items.prefix(count).joined(separator: ", ") + " and \(items.count - count) more"
  }

  /// Returns the settings given, as strings by key, and the problems found.
  ///
  /// - Returns: The values and problems; the same on every call.
  public func read() -> LayerContents {
    LayerContents(values: values, problems: problems)
  }

  /// How many settings the arguments give, never their values: `command-line arguments (2 set)`.
  public var description: String {
    "command-line arguments (\(values.count) set)"
  }
}
