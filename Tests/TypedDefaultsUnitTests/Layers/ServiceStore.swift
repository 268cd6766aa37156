import Foundation
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsTestSupport

/// The store a service opens in the service tests: command-line arguments over `SVC_*`
/// environment variables over `data.plist`, and a delivered file below them when one is given.
///
/// - Parameters:
///   - keys: The declared keys the arguments and the environment are read for.
///   - arguments: The command line, without the program's name.
///   - environment: The variables the environment layer reads.
///   - delivered: A delivered property list, the lowest layer, or `nil` for none.
///   - directory: Where `data.plist` is kept.
/// - Returns: The store, saving nothing at exit.
/// - Throws: What opening the store throws.
func serviceStore(
  keys: [String], arguments: [String] = [], environment: [String: String] = [:],
  delivered: URL? = nil, in directory: TemporaryDirectory
) throws -> LayeredPlistStore {
  var layers: [LayeredPlistStore.LayerDefinition] = [
    .runtime,
    .source(CommandLineArgumentsSource(arguments: arguments, keys: keys)),
    .source(EnvironmentVariablesSource(prefix: "SVC_", keys: keys, environment: environment)),
    .persistent,
  ]
  if let delivered { layers.append(.delivered(delivered)) }
  return try LayeredPlistStore(
    persistentFile: directory.file("data.plist"), layers: layers,
    options: .init(savesAtExit: false))
}
