import Foundation
import TypedDefaults
import TypedDefaultsLayers

/// A failure the demo reports as one line on standard error.
struct DemoError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// The command line, parsed by hand.
struct Options {
  static let usage = """
    usage: LayeredConfigDemo [--data-dir PATH] [--bundled PATH] [--reset] [--schema] [--help]

    Layered configuration (runtime > persistent data.plist > delivered JF-info.plist > bundled
    Info.plist) on LayeredPlistStore. Run it twice: the first run writes data.plist, later runs
    read it back.

      --data-dir PATH  where data.plist and the sample files live (default: the environment
                       variable LAYERED_CONFIG_DEMO_DIR, else the per-user data folder,
                       ~/.local/share/LayeredConfigDemo on Linux)
      --bundled PATH   use this Info.plist as the bundled layer instead of the embedded sample
      --reset          delete data.plist, so the next run is a first run again
      --schema         print the configuration's schema (JSON Schema, draft 2020-12) and exit
      --help           show this help
    """

  var dataDirectory: URL?
  var bundledFile: URL?
  var reset = false
  var schema = false
  var help = false

  init(_ arguments: [String]) throws(DemoError) {
    var remaining = arguments[...]
    func path(after option: String) throws(DemoError) -> URL {
      guard let path = remaining.popFirst(), !path.isEmpty else {
        throw DemoError("\(option) needs a path; see --help")
      }
      return URL(fileURLWithPath: path)
    }
    while let argument = remaining.popFirst() {
      switch argument {
      case "--data-dir": dataDirectory = try path(after: argument)
      case "--bundled": bundledFile = try path(after: argument)
      case "--reset": reset = true
      case "--schema": schema = true
      case "--help", "-h": help = true
      default: throw DemoError("unknown argument '\(argument)'; see --help")
      }
    }
  }

  /// The data directory: `--data-dir`, else `$LAYERED_CONFIG_DEMO_DIR`, else the per-user data
  /// folder ``StandardLocation/data`` gives (Application Support on Apple platforms,
  /// `$XDG_DATA_HOME` or `~/.local/share` elsewhere), created if missing.
  func resolvedDataDirectory() throws -> URL {
    if let dataDirectory { return dataDirectory }
    if let path = ProcessInfo.processInfo.environment["LAYERED_CONFIG_DEMO_DIR"], !path.isEmpty {
      return URL(fileURLWithPath: path)
    }
    return try StandardLocation.data.directory(for: "LayeredConfigDemo")
  }
}
