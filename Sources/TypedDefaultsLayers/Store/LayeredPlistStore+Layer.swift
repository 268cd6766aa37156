import TypedDefaults

extension LayeredPlistStore {
  /// A layer of a store, named as ``LayeredPlistStore/explain(_:)``, ``LayeredPlistStore/layer(forKey:)``
  /// and `settings explain` show it.
  ///
  /// A store reads its layers in the order it was opened with (see
  /// ``LayeredPlistStore/layers``); a layer has no priority of its own. Two layers are the same
  /// layer when their names are equal.
  ///
  /// The store's own layers are ``runtime`` and ``persistent``, the only writable ones; the
  /// others are read-only and filled by a ``LayerSource``: ``delivered`` and ``bundled`` by
  /// property-list files, ``managed``, ``arguments``, ``environment`` and ``settingsBundle`` by
  /// the built-in sources of the same purpose, and any layer a source of your own names.
  ///
  /// Thread-safety: a value type, `Sendable`.
  public struct Layer: Sendable, Hashable, CustomStringConvertible,
    ExpressibleByStringLiteral
  {
    /// The layer's name: `runtime`, `persistent`, `delivered`, …, or one of your own.
    public let name: String

    /// Creates a layer with a name of your own.
    ///
    /// - Parameter name: The name ``LayeredPlistStore/explain(_:)`` shows; it must differ from
    ///   the names of the store's other layers.
    public init(_ name: String) {
      self.name = name
    }

    /// Creates a layer from a string literal: `"secrets"`.
    ///
    /// - Parameter value: The layer's name.
    public init(stringLiteral value: String) {
      self.init(value)
    }

    /// Values for this process only, written by `setValue(_:forKey:in: .runtime)`; never saved.
    public static let runtime = Layer("runtime")
    /// `data.plist`: read-write, saved by ``LayeredPlistStore/save()``.
    public static let persistent = Layer("persistent")
    /// A read-only property list delivered with a deployment.
    public static let delivered = Layer("delivered")
    /// A read-only bundled `Info.plist`.
    public static let bundled = Layer("bundled")
    /// Values an administrator enforces (``ManagedSettingsSource``): above every other layer by
    /// default, and the keys it holds can't be written.
    public static let managed = Layer("managed")
    /// Values from the command line (``CommandLineArgumentsSource``).
    public static let arguments = Layer("arguments")
    /// Values from environment variables (``EnvironmentVariablesSource``).
    public static let environment = Layer("environment")
    /// The `DefaultValue`s of an iOS `Settings.bundle` (``SettingsBundleSource``).
    public static let settingsBundle = Layer("settingsBundle")

    /// Whether the store accepts writes to this layer: ``runtime`` and ``persistent`` only.
    public var isWritable: Bool { self == .runtime || self == .persistent }

    /// The layer's name.
    public var description: String { name }
  }
}
