import Foundation
import TypedDefaultsLayers

/// A failure the demo reports as one line on standard error.
struct DemoError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// The demo's own options; every other argument is the service's, for the arguments layer.
struct Options {
  static let usage = """
    usage: DeploymentDemo [--data-dir PATH] [--schema] [--help] [SETTING OPTIONS]

    A service's settings on one LayeredPlistStore with every layer: managed > runtime >
    arguments > environment > persistent (data.plist) > config and secrets mounts > delivered >
    settingsBundle > bundled (Info.plist). Prints each setting's value and layer, explains one,
    has a managed key's write refused, and swaps the ConfigMap to a bad volume and a good log
    level while it watches.

      --data-dir PATH    where the demo writes its files (default: a temporary folder, removed
                         at the end)
      --schema           print the service settings' schema (JSON Schema, draft 2020-12) and
                         exit
      --help             show this help

    Setting options fill the arguments layer: --max-connections 64, --log-level=debug,
    --server-url URL, --volume 0.3, --telemetry-enabled. DEPLOYMENT_DEMO_* environment
    variables (DEPLOYMENT_DEMO_LOG_LEVEL=error) fill the environment layer.
    """

  var dataDirectory: URL?
  var help = false
  var schema = false
  /// The arguments left for the service's settings, in order.
  var settingArguments: [String] = []

  init(_ arguments: [String]) throws(DemoError) {
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      switch argument {
      case "--data-dir":
        guard let path = remaining.popFirst(), !path.isEmpty else {
          throw DemoError("--data-dir needs a path; see --help")
        }
        dataDirectory = URL(fileURLWithPath: path)
      case "--help", "-h":
        help = true
      case "--schema":
        schema = true
      default:
        settingArguments.append(argument)
      }
    }
  }
}
