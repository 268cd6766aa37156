import Foundation

extension LayeredPlistStore {
  /// One layer of a store as it is opened: the store's own ``Layer/runtime`` and
  /// ``Layer/persistent`` layers, a read-only property-list file, or a ``LayerSource``.
  ///
  /// Thread-safety: a value type, `Sendable`.
  public struct LayerDefinition: Sendable {
    enum Kind: Sendable {
      case runtime
      case persistent
      /// A read-only property-list file, read by a ``PropertyListFileSource`` with the store's
      /// ``Options/maximumFileSize``.
      case file(URL, Layer)
      /// A read-only layer without a source (the old initializer's delivered or bundled layer
      /// given no file): always empty, shown as `(no file)`.
      case absent(Layer)
      case source(any LayerSource)
    }

    let kind: Kind

    /// The layer it defines: the name ``LayeredPlistStore/explain(_:)`` shows for it.
    public var layer: Layer {
      switch kind {
      case .runtime: .runtime
      case .persistent: .persistent
      case .file(_, let layer), .absent(let layer): layer
      case .source(let source): source.layer
      }
    }

    /// The runtime layer: values for this process only, never saved.
    public static let runtime = LayerDefinition(kind: .runtime)
    /// The persistent layer: the store's `data.plist`, read-write.
    public static let persistent = LayerDefinition(kind: .persistent)

    /// A read-only layer filled by a source.
    ///
    /// - Parameter source: The source; its ``LayerSource/layer`` names the layer.
    /// - Returns: The layer.
    public static func source(_ source: any LayerSource) -> LayerDefinition {
      LayerDefinition(kind: .source(source))
    }

    /// The ``Layer/delivered`` layer: a read-only property list shipped with a deployment, read
    /// by a ``PropertyListFileSource`` with the store's ``Options/maximumFileSize``.
    ///
    /// - Parameter file: The file; it needn't exist (a missing file is an empty layer).
    /// - Returns: The layer.
    public static func delivered(_ file: URL) -> LayerDefinition {
      LayerDefinition(kind: .file(file, .delivered))
    }

    /// The ``Layer/bundled`` layer: a read-only `Info.plist`, read by a
    /// ``PropertyListFileSource`` with the store's ``Options/maximumFileSize``.
    ///
    /// - Parameter file: The file; it needn't exist (a missing file is an empty layer).
    /// - Returns: The layer.
    public static func bundled(_ file: URL) -> LayerDefinition {
      LayerDefinition(kind: .file(file, .bundled))
    }
  }
}

extension LayeredPlistStore.LayerDefinition {
  /// What a store records of a layer (``recordedLayers(ofPersistentFile:)``), opened again: how
  /// the `settings` tool, opening a store's folder, reads the layers the app reads.
  ///
  /// - ``Layer/runtime`` and ``Layer/persistent`` are themselves.
  /// - A ``RecordedLayerSource/propertyListFile(path:)`` on the ``Layer/delivered`` or
  ///   ``Layer/bundled`` layer is ``delivered(_:)`` or ``bundled(_:)`` (read with the store's
  ///   ``Options/maximumFileSize``, as the app's store reads it); on any other layer, a
  ///   ``PropertyListFileSource`` filling that layer.
  /// - ``RecordedLayerSource/directory(path:holdsSecrets:)`` is a ``DirectorySource`` filling the
  ///   layer, its `holdsSecrets` kept, so the layer's values stay `<secret>` in `explain`.
  /// - ``RecordedLayerSource/managed(path:trustedOwner:)`` is a ``ManagedSettingsSource`` of the
  ///   file, trusting the owner the app's source trusted, so the file is read only if the app
  ///   would read it; its keys are forced, as in the app.
  /// - ``RecordedLayerSource/settingsBundle(path:)`` is a ``SettingsBundleSource``.
  /// - ``RecordedLayerSource/etcd(endpoints:prefix:user:lastKnownGoodFile:)`` is an
  ///   ``EtcdSource`` of the endpoints and prefix, with the user and the password of the
  ///   `TYPEDDEFAULTS_ETCD_PASSWORD` variable of `environment` if the app's source had a user
  ///   (the password is never recorded), and the app's last known good file, which it reads when
  ///   no endpoint answers and never writes (it is the app's).
  /// - ``RecordedLayerSource/environment(prefix:keys:)`` is an ``EnvironmentVariablesSource``
  ///   of the prefix, and of the keys if the app's source had them, so variables map to keys as
  ///   they did in the app; it reads `environment`, **the environment of the process opening
  ///   the store** (the tool's), since another process's environment can't be seen.
  ///
  /// A layer without a recorded source has no definition: the command-line arguments of the
  /// app's launch (``CommandLineArgumentsSource``), the managed app configuration of an Apple
  /// platform, a source of your own. A process opening the store again can't read what the app
  /// read there, and should say so. Only ``Layer/delivered`` and ``Layer/bundled`` without a
  /// source are defined, as empty layers shown as `(no file)`: what the app's store had when it
  /// was opened without that file (``init(persistentFile:deliveredFile:bundledFile:options:)``).
  /// A ``ManagedSettingsSource`` or ``SettingsBundleSource`` recorded on a layer other than its
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
  public init?(
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

extension LayeredPlistStore {
  /// The layers of a store where real deployments keep settings, each at its default position,
  /// highest priority first: managed > runtime > arguments > environment > persistent >
  /// directories > delivered > settingsBundle > bundled.
  ///
  /// Why each sits where it does:
  ///
  /// - **managed** is above everything, even ``Layer/runtime``: an administrator's enforced
  ///   values (`UserDefaults`' forced values) can't be overridden, and their keys can't be
  ///   written (``LayeredPlistStore/isForced(forKey:)``).
  /// - **runtime** is this process's own choice of the moment, above what it was launched with.
  /// - **arguments** and **environment** are per-launch operator choices, above the app's saved
  ///   values, as `UserDefaults`' `NSArgumentDomain` sits above the app's domain; arguments,
  ///   given for one run, beat the environment, set for a session.
  /// - **persistent** (`data.plist`) is what the app and its user saved.
  /// - **directories** (a ConfigMap or Secret mounted as one file per key) are deployment
  ///   configuration like the delivered file, so below the app's own `data.plist`, in the order
  ///   given.
  /// - **delivered** is the plist shipped with a deployment.
  /// - **settingsBundle** holds a `Settings.bundle`'s `DefaultValue`s, registration-style
  ///   defaults, just above `Info.plist`.
  /// - **bundled** (`Info.plist`) is the lowest.
  ///
  /// Layers passed as `nil` are left out. To place layers otherwise, pass your own list to
  /// ``init(persistentFile:layers:options:)``, editing this one or writing it out.
  ///
  /// - Parameters:
  ///   - managed: The managed settings source (``ManagedSettingsSource``), or `nil` for none.
  ///   - arguments: The command-line arguments source (``CommandLineArgumentsSource``), or `nil`.
  ///   - environment: The environment variables source (``EnvironmentVariablesSource``), or `nil`.
  ///   - directories: Sources of mounted folders (``DirectorySource``), highest first; none by
  ///     default.
  ///   - deliveredFile: The delivered property list, or `nil` for none.
  ///   - settingsBundle: The `Settings.bundle` source (``SettingsBundleSource``), or `nil`.
  ///   - bundledFile: The bundled `Info.plist`, or `nil` for none.
  /// - Returns: The layers, highest priority first, for ``init(persistentFile:layers:options:)``.
  public static func standardLayers(
    managed: (any LayerSource)? = nil,
    arguments: (any LayerSource)? = nil,
    environment: (any LayerSource)? = nil,
    directories: [any LayerSource] = [],
    deliveredFile: URL? = nil,
    settingsBundle: (any LayerSource)? = nil,
    bundledFile: URL? = nil
  ) -> [LayerDefinition] {
    var layers: [LayerDefinition] = []
    if let managed { layers.append(.source(managed)) }
    layers.append(.runtime)
    if let arguments { layers.append(.source(arguments)) }
    if let environment { layers.append(.source(environment)) }
    layers.append(.persistent)
    layers += directories.map(LayerDefinition.source)
    if let deliveredFile { layers.append(.delivered(deliveredFile)) }
    if let settingsBundle { layers.append(.source(settingsBundle)) }
    if let bundledFile { layers.append(.bundled(bundledFile)) }
    return layers
  }
}
