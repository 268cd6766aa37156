import Foundation

/// The command line, parsed by hand, once.
struct LaunchOptions: Sendable {
  static let usage = """
    usage: UserDefaultsModelDemo [--suite NAME | --standard] [--reset]
                                 [--watch [--timeout SECONDS]] [--schema] [--help]

    A video player's settings as a typed SettingsModel singleton over a UserDefaults suite.
    Run it twice: the first run shows the defaults and changes some settings; later runs read
    them back from the suite and change them again.

      --suite NAME  the UserDefaults suite to use (default: com.example.videoplayer)
      --standard    use the standard defaults (UserDefaults.standard) instead of a suite
      --reset       remove every setting from the suite (resetAll()) and exit
      --watch       run as a player that reacts to other processes' changes: it plays while
                    allowsCellularPlayback is on and stops, and exits, when another process
                    (`settings write --store defaults NAME allowsCellularPlayback -bool false`)
                    turns it off
      --timeout S   with --watch: give up, with exit status 1, after S seconds (default 600)
      --schema      print the settings' schema (JSON Schema, draft 2020-12) and exit
      --help        show this help
    """

  /// The options of this process.
  ///
  /// `VideoPlayerSettings.shared` is created from them.
  static let current = LaunchOptions(Array(CommandLine.arguments.dropFirst()))

  var suiteName = "com.example.videoplayer"
  /// Whether `--standard` asked for `UserDefaultsBackend.standard` instead of the suite.
  var standard = false
  var reset = false
  var watch = false
  /// How long `--watch` waits for the switch, in seconds.
  var timeout = 600.0
  var schema = false
  var help = false
  /// What was wrong with the command line, if anything.
  var error: String?

  init(_ arguments: [String]) {
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      switch argument {
      case "--suite":
        guard let name = remaining.popFirst(), !name.isEmpty else {
          error = "--suite needs a name; see --help"
          return
        }
        suiteName = name
      case "--standard": standard = true
      case "--reset": reset = true
      case "--watch": watch = true
      case "--timeout":
        guard let text = remaining.popFirst(), let seconds = Double(text), seconds > 0 else {
          error = "--timeout needs a positive number of seconds; see --help"
          return
        }
        timeout = seconds
      case "--schema": schema = true
      case "--help", "-h": help = true
      default:
        error = "unknown argument '\(argument)'; see --help"
        return
      }
    }
  }
}
