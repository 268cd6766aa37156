import Foundation
import TypedDefaults
import TypedDefaultsEtcd
import TypedDefaultsLayers
import TypedDefaultsTestSupport

/// What the etcd source's suites share: fast reconnection options, and the store an app opens
/// with its fleet layer below `data.plist`.
enum EtcdTesting {
  /// Options that reconnect within 50–200 ms, so a test of a restart doesn't wait long.
  ///
  /// - Parameter timeout: Seconds for each request: a bound, never waited for on success.
  /// - Returns: The options.
  static func quickOptions(timeout: Double) -> EtcdSource.Options {
    var options = EtcdSource.Options()
    options.timeout = timeout
    options.reconnectDelay = 0.05...0.2
    return options
  }

  /// A store in `directory` layering `source` below its `data.plist`, not saving at exit.
  static func store(
    _ source: EtcdSource, in directory: TemporaryDirectory
  ) throws -> LayeredPlistStore {
    try LayeredPlistStore(
      persistentFile: directory.file("data.plist"),
      layers: [.runtime, .persistent, .source(source)],
      options: LayeredPlistStore.Options(savesAtExit: false))
  }
}
