import Foundation

extension LayeredPlistStore {
  /// Where a key's value comes from: the value in each layer, which one wins, and any change
  /// pending for the next launch. For `--explain` style output and debugging.
  public struct Provenance: Sendable, Hashable, CustomStringConvertible {
    /// A change written for the next launch, not visible in this run.
    public enum NextLaunchChange: Sendable, Hashable {
      /// The key will hold this value.
      case set(PropertyListValue)
      /// The key will be removed from `data.plist`.
      case remove
    }

    /// The key, normalized if the store normalizes keys.
    public let key: String
    /// The value each layer holds for the key; layers without one are absent.
    public let values: [Layer: PropertyListValue]
    /// The change written for the next launch, if any.
    public let nextLaunchChange: NextLaunchChange?
    /// The read-only layers (``Layer/delivered``, ``Layer/bundled``) that have no file: none was
    /// given, or it was missing when the store was opened. They hold no key, and
    /// ``description`` shows them as `(no file)` rather than `-`, so a mistyped path shows.
    public let layersWithoutFile: Set<Layer>

    /// The layer whose value a read returns: the highest-priority layer holding the key.
    public var source: Layer? { values.keys.min() }

    /// The value a read returns.
    public var value: PropertyListValue? { source.flatMap { values[$0] } }

    /// One line per layer, the winning one marked, and the pending next-launch change. `-` is a
    /// layer that lacks the key; `(no file)` a read-only layer without a file:
    ///
    /// ```
    /// ServerURL
    ///   runtime     -
    ///   persistent  https://api-v2.example.com   <- wins
    ///   delivered   (no file)
    ///   bundled     https://api.example.com
    /// ```
    public var description: String {
      var lines = [key]
      for layer in Layer.allCases {
        let name = layer.description.padding(toLength: 11, withPad: " ", startingAt: 0)
        let missing = layersWithoutFile.contains(layer) ? "(no file)" : "-"
        let shown = values[layer].map(String.init(describing:)) ?? missing
        lines.append("  \(name) \(shown)" + (layer == source ? "   <- wins" : ""))
      }
      switch nextLaunchChange {
      case .set(let value)?: lines.append("  next launch \(value)")
      case .remove?: lines.append("  next launch (removed)")
      case nil: break
      }
      return lines.joined(separator: "\n")
    }
  }
}
