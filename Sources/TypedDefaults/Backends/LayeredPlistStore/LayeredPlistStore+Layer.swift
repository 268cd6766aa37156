extension LayeredPlistStore {
  /// A layer of the store, in priority order: a lower raw value wins.
  public enum Layer: Int, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// Values for this process only; highest priority; never saved.
    case runtime
    /// `data.plist`: read-write, saved by ``LayeredPlistStore/save()``.
    case persistent
    /// A read-only property list delivered with a deployment.
    case delivered
    /// A read-only bundled `Info.plist`; lowest priority.
    case bundled

    /// Whether the store accepts writes to this layer (``runtime`` and ``persistent``).
    public var isWritable: Bool { self == .runtime || self == .persistent }

    /// The layer's name: `runtime`, `persistent`, `delivered` or `bundled`.
    public var description: String {
      switch self {
      case .runtime: "runtime"
      case .persistent: "persistent"
      case .delivered: "delivered"
      case .bundled: "bundled"
      }
    }

    /// Orders layers by priority: `runtime < persistent < delivered < bundled`.
    ///
    /// - Parameters:
    ///   - lhs: A layer.
    ///   - rhs: Another layer.
    /// - Returns: Whether `lhs` has higher priority than `rhs`.
    public static func < (lhs: Layer, rhs: Layer) -> Bool { lhs.rawValue < rhs.rawValue }
  }
}
