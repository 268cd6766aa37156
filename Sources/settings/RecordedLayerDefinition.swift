import Foundation
import TypedDefaults
import TypedDefaultsEtcd
import TypedDefaultsLayers

// The tool's reading of the layers an app's store recorded beside its data.plist
// (`LayeredPlistStore.recordedLayers(ofPersistentFile:)`): each recorded layer opened again as a
// layer definition. It lives here, not in the library, because only the tool opens another
// process's store from its record, and it needs every kind of source, the fleet layer's
// included (TypedDefaultsEtcd), which no app that merely records its layers should link.

extension LayeredPlistStore.LayerDefinition {
  /// What a store records of a layer (`recordedLayers(ofPersistentFile:)`), opened again: how
  /// the `settings` tool, opening a store's folder, reads the layers the app reads.
  ///
  /// - `Layer/runtime` and `Layer/persistent` are themselves.
  /// - A `RecordedLayerSource/propertyListFile(path:)` on the `Layer/delivered` or
  ///   `Layer/bundled` layer is `delivered(_:)` or `bundled(_:)` (read with the store's
  ///   `Options/maximumFileSize`, as the app's store reads it); on any other layer, a
  ///   `PropertyListFileSource` filling that layer.
  /// - `RecordedLayerSource/directory(path:holdsSecrets:)` is a `DirectorySource` filling the
  ///   layer, its `holdsSecrets` kept, so the layer's values stay `<secret>` in `explain`.
  /// - `RecordedLayerSource/managed(path:trustedOwner:)` is a `ManagedSettingsSource` of the
  ///   file, trusting the owner the app's source trusted, so the file is read only if the app
  ///   would read it; its keys are forced, as in the app.
  /// - `RecordedLayerSource/settingsBundle(path:)` is a `SettingsBundleSource`.
  /// - `RecordedLayerSource/etcd(endpoints:prefix:user:lastKnownGoodFile:)` is an
  ///   `EtcdSource` of the endpoints and prefix, with the user and the password of the
  ///   `TYPEDDEFAULTS_ETCD_PASSWORD` variable of `environment` if the app's source had a user
  ///   (the password is never recorded), and the app's last known good file, which it reads when
  ///   no endpoint answers and never writes (it is the app's).
  /// - `RecordedLayerSource/environment(prefix:keys:)` is an `EnvironmentVariablesSource`
  ///   of the prefix, and of the keys if the app's source had them, so variables map to keys as
  ///   they did in the app; it reads `environment`, **the environment of the process opening
  ///   the store** (the tool's), since another process's environment can't be seen.
  ///
  /// A layer without a recorded source has no definition: the command-line arguments of the
  /// app's launch (`CommandLineArgumentsSource`), the managed app configuration of an Apple
  /// platform, a source of your own. A process opening the store again can't read what the app
  /// read there, and should say so. Only `Layer/delivered` and `Layer/bundled` without a
  /// source are defined, as empty layers shown as `(no file)`: what the app's store had when it
  /// was opened without that file (`init(persistentFile:deliveredFile:bundledFile:options:)`).
  /// A `ManagedSettingsSource` or `SettingsBundleSource` recorded on a layer other than its
  /// own (a record edited by hand) has none either.
  ///
  /// Nothing is read until a store is opened with the definition.
  ///
  /// - Parameters:
  ///   - recorded: A layer as the store recorded it.
  ///   - environment: The variables an environment source reads, by name: this process's
  ///     environment by default.
  ///
  /// The initializer fails (`nil`) if the layer can't be opened again (see above).
  package init?(
    recorded: LayeredPlistStore.RecordedLayer,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    let layer = recorded.layer
    guard let source = recorded.source else {
      switch layer {
      case .runtime: self = .runtime
      case .persistent: self = .persistent
      case .delivered, .bundled: self.init(kind: .absent(layer))
      default: return nil
      }
      return
    }
    guard !layer.isWritable else { return nil }
    switch source {
    case .propertyListFile(let path):
      let url = URL(fileURLWithPath: path)
      if layer == .delivered || layer == .bundled {
        self.init(kind: .file(url, layer))
      } else {
        self = .source(PropertyListFileSource(file: url, layer: layer))
      }
    case .directory(let path, let holdsSecrets):
      self = .source(
        DirectorySource(
          directory: URL(fileURLWithPath: path, isDirectory: true), layer: layer,
          holdsSecrets: holdsSecrets))
    case .environment(let prefix, let keys):
      if let keys {
        self = .source(
          EnvironmentVariablesSource(
            prefix: prefix, keys: keys, environment: environment, layer: layer))
      } else {
        self = .source(
          EnvironmentVariablesSource(prefix: prefix, environment: environment, layer: layer))
      }
    case .managed(let path, let trustedOwner):
      guard layer == .managed else { return nil }
      self = .source(
        ManagedSettingsSource(
          file: URL(fileURLWithPath: path), trustedOwner: trustedOwner))
    case .settingsBundle(let path):
      guard layer == .settingsBundle else { return nil }
      self = .source(SettingsBundleSource(bundle: URL(fileURLWithPath: path, isDirectory: true)))
    case .etcd(let endpoints, let prefix, let user, let lastKnownGoodFile):
      let credentials = user.map { user in
        EtcdSource.Credentials(
          user: user, password: environment[EtcdSource.passwordVariable] ?? "")
      }
      self = .source(
        EtcdSource(
          endpoints: endpoints.compactMap(URL.init(string:)), prefix: prefix,
          credentials: credentials, layer: layer,
          lastKnownGoodFile: lastKnownGoodFile.map { URL(fileURLWithPath: $0) },
          options: EtcdSource.Options(), savesLastKnownGood: false))
    }
  }
}
