import Foundation
import TypedDefaults

extension LayeredPlistStore {
  /// One layer of a store as it is opened: the store's own ``Layer/runtime`` and
  /// ``Layer/persistent`` layers, a read-only property-list file, or a ``LayerSource``.
  ///
  /// Thread-safety: a value type, `Sendable`.
  public struct LayerDefinition: Sendable {
    /// What the layer is made of (for the `settings` tool, which opens a recorded layer again).
    package enum Kind: Sendable {
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

    package let kind: Kind

    /// A layer of the kind.
    package init(kind: Kind) { self.kind = kind }

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

extension LayeredPlistStore {
  /// The layers of a store where real deployments keep settings, each at its default position,
  /// highest priority first: managed > runtime > arguments > environment > persistent > fleet >
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
  /// - **fleet** (an `EtcdSource` of the `TypedDefaultsEtcd` product, or any source of values
  ///   an operator sets for many instances at once) is below the user's `data.plist`, so a user
  ///   who changed a setting keeps their choice, and above everything that shipped with the
  ///   deployment (its directories and files), as the "Fleet configuration" article explains; a
  ///   value the fleet must impose belongs in the managed layer.
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
  ///   - fleet: The fleet source (`EtcdSource(…)`, from `TypedDefaultsEtcd`), or `nil` for none.
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
    fleet: (any LayerSource)? = nil,
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
    if let fleet { layers.append(.source(fleet)) }
    layers += directories.map(LayerDefinition.source)
    if let deliveredFile { layers.append(.delivered(deliveredFile)) }
    if let settingsBundle { layers.append(.source(settingsBundle)) }
    if let bundledFile { layers.append(.bundled(bundledFile)) }
    return layers
  }
}
