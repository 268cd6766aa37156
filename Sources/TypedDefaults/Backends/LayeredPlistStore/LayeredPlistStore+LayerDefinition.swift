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
      case source(any LayerSource)
    }

    let kind: Kind

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
  }

  /// Opens a store on `data.plist` with the layers given, highest priority first.
  ///
  /// - Parameters:
  ///   - persistentFile: The read-write `data.plist`.
  ///   - layers: The layers, highest priority first; must hold ``LayerDefinition/persistent``
  ///     and ``LayerDefinition/runtime`` once each, and no two layers of the same name.
  ///   - options: Format, reading limits, autosave and key normalization.
  /// - Throws: What ``init(persistentFile:deliveredFile:bundledFile:options:)`` throws, and what a
  ///   source's ``LayerSource/read()`` throws as the store opens.
  public convenience init(
    persistentFile: URL,
    layers: [LayerDefinition],
    options: Options = Options()
  ) throws(SettingsError) {
    // TODO(core): the store built from `layers` (the core helper replaces this).
    try self.init(persistentFile: persistentFile, options: options)
  }
}
