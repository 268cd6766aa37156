import Foundation
import TypedDefaults

extension LayeredPlistStore {
  /// Where a key's value comes from: the value in each layer, which one wins, and any change
  /// pending for the next launch.
  ///
  /// For `--explain` style output and debugging.
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
    /// The store's layers, highest priority first (``LayeredPlistStore/layers``).
    public let layers: [Layer]
    /// The value each layer holds for the key; layers without one are absent.
    ///
    /// These are the stored values, secret or not: only ``description`` and `dump` leave a secret
    /// out.
    public let values: [Layer: PropertyListValue]
    /// The values layers hold for the key that the setting refuses (its type can't read them, or
    /// its declaration doesn't accept them), as their sources gave them: each such layer is
    /// passed over for the key, and is absent from ``values``.
    public let passedOver: [Layer: PropertyListValue]
    /// The change written for the next launch, if any.
    public let nextLaunchChange: NextLaunchChange?
    /// The read-only layers that have no file: none was given, it (or a source's folder) was
    /// missing when the store was opened, or it couldn't be read then (see
    /// ``LayeredPlistStore/layersLoadedFromDisk``).
    ///
    /// ``description`` shows such a layer without the key as `(no file)` rather than `-`, so a
    /// mistyped path shows.
    public let layersWithoutFile: Set<Layer>
    /// The layers whose every value is secret (a source that ``LayerSource/holdsSecrets``):
    /// ``description`` and `dump` show `<secret>` for their values.
    public let secretLayers: Set<Layer>
    /// The forced layer (managed settings, ``LayerSource/isForced``) holding the key, whose value
    /// can't be changed through the store, or `nil` if the key isn't forced
    /// (``LayeredPlistStore/isForced(forKey:)``).
    public let forcedBy: Layer?
    /// Whether a model bound to the store declared the key `secret: true`: ``description`` and
    /// `dump` then show `<secret>` for every value.
    public let isSecret: Bool
    /// The type a model bound to the store declared for the key (`Double`), or `nil` if no model
    /// did.
    public let declaredTypeName: String?
    /// What each layer's source says of its condition (``LayerSource/condition``), such as a
    /// fleet source offline; layers with nothing to say are absent.
    public let layerConditions: [Layer: String]
    /// The layer whose value would win but which the declared type can't read, or which is
    /// outside the values its declaration accepts (`in: 0...1`), so a read of the setting returns
    /// its default; `nil` if the winning value reads (or no model declared the key).
    public let unreadableLayer: Layer?
    /// The help text a model bound to the store declared for the key
    /// (`@Setting(…, help: "Playback volume, 0 to 1.")`), or `nil`.
    public let help: String?
    /// What the declaration accepts, for the mark of a winning value outside it (`in 0.0...1.0`),
    /// when the declared type reads that value; `nil` otherwise.
    let refusedBecause: String?
    /// Why each passed-over value is refused, as the store judged it (`is not allowed (the
    /// setting accepts in 1...65535)`, `can't be read as Int`), for its mark.
    let passedOverBecause: [Layer: String]

    /// The layer whose value a read returns: the highest-priority layer holding the key, unless
    /// the type a model declared for the key can't read that value (see ``unreadableLayer``),
    /// when the setting reads its default and this is `nil`.
    public var source: Layer? {
      unreadableLayer == nil ? winner : nil
    }

    /// The value a read returns.
    public var value: PropertyListValue? { source.flatMap { values[$0] } }

    /// The highest-priority layer holding the key.
    private var winner: Layer? { layers.first { values[$0] != nil } }

    init(
      key: String, layers: [Layer], values: [Layer: PropertyListValue],
      nextLaunchChange: NextLaunchChange?,
      layersWithoutFile: Set<Layer>, secretLayers: Set<Layer> = [], forcedLayers: [Layer] = [],
      layerConditions: [Layer: String] = [:], passedOver: [Layer: PropertyListValue] = [:],
      passedOverBecause: [Layer: String] = [:], declared: DeclaredKey?
    ) {
      self.passedOver = passedOver
      self.passedOverBecause = passedOverBecause
      self.layerConditions = layerConditions
      self.key = key
      self.layers = layers
      self.values = values
      self.nextLaunchChange = nextLaunchChange
      self.layersWithoutFile = layersWithoutFile
      self.secretLayers = secretLayers
      forcedBy = forcedLayers.first { values[$0] != nil }
      isSecret = declared?.isSecret ?? false
      declaredTypeName = declared.map { TypeNames.sugared($0.valueType) }
      let winner = layers.first { values[$0] != nil }
      unreadableLayer = winner.flatMap { layer in
        guard let declared, let value = values[layer], !declared.reads(value) else { return nil }
        return layer
      }
      help = declared?.annotations?.help
      refusedBecause = unreadableLayer.flatMap { layer in
        guard let declared, let value = values[layer], declared.readsType(value) else {
          return nil
        }
        return declared.annotations?.constraintDescription(isSecret: declared.isSecret)
      }
    }

    /// One line per layer, the winning one marked, and the pending next-launch change, the values
    /// in a column after the longest layer name (at least 11 characters wide). `-` is a
    /// layer that lacks the key; `(no file)` a read-only layer without a file; `<secret>` the
    /// value of a key a model declared secret:
    ///
    /// ```
    /// ServerURL
    ///   runtime     -
    ///   persistent  https://api-v2.example.com   <- wins
    ///   delivered   (no file)
    ///   bundled     https://api.example.com
    /// ```
    ///
    /// A layer's value the setting refuses is shown as its source gave it, marked with why, in
    /// the words of the store's `layerValueRejected` diagnostic: `<- passed over: is not allowed
    /// (the setting accepts in 1...65535)` (the next layer holding the key gives the value).
    /// A winning value the declared type can't read is marked instead
    /// `<- unreadable as Double: reads as the default`, one its declaration doesn't accept
    /// `<- not allowed (Double accepts in 0.0...1.0): reads as the default`; the key's declared
    /// help text follows it on the first line (`volume   // Playback volume.`); a winning value
    /// a forced layer holds,
    /// `<- wins (managed: can't be changed)`. A layer whose source holds secrets shows
    /// `<secret>` for its value. A layer whose source reports a condition
    /// (``layerConditions``) ends its line with it in parentheses:
    /// `fleet       8000   <- wins   (offline: the last known good values, saved …)`.
    public var description: String {
      var lines = [key + (help.map { "   // \($0)" } ?? "")]
      // Names up to 11 characters (`environment`) keep the column where it always was; a longer
      // one (`settingsBundle`) widens it rather than being cut.
      let width = max(11, layers.map(\.description.count).max() ?? 0)
      for layer in layers {
        let name = layer.description.padding(toLength: width, withPad: " ", startingAt: 0)
        let missing = layersWithoutFile.contains(layer) ? "(no file)" : "-"
        let refused = passedOver[layer]
        let shown = (values[layer] ?? refused).map { self.shown($0, in: layer) } ?? missing
        let mark =
          if refused != nil {
            "   <- passed over: "
              + (passedOverBecause[layer] ?? "\(declaredTypeName ?? "the setting") refuses it")
          } else if layer == source, layer == forcedBy {
            "   <- wins (\(layer): can't be changed)"
          } else if layer == source {
            "   <- wins"
          } else if layer == unreadableLayer, let refusedBecause {
            "   <- not allowed (\(declaredTypeName ?? "the setting") accepts \(refusedBecause)): "
              + "reads as the default"
          } else if layer == unreadableLayer {
            "   <- unreadable as \(declaredTypeName ?? "the declared type"): reads as the default"
          } else {
            ""
          }
        let condition = layerConditions[layer].map { "   (\($0))" } ?? ""
        lines.append("  \(name) \(shown)" + mark + condition)
      }
      let nextLaunch = "next launch".padding(toLength: width, withPad: " ", startingAt: 0)
      switch nextLaunchChange {
      case .set(let value)?: lines.append("  \(nextLaunch) \(shown(value, in: .persistent))")
      case .remove?: lines.append("  \(nextLaunch) (removed)")
      case nil: break
      }
      return lines.joined(separator: "\n")
    }

    /// What ``description`` and `dump` show in place of a secret value: `<secret>`.
    public static var secretPlaceholder: String { SecretRedaction.placeholder }

    /// Whether ``description`` and `dump` show ``secretPlaceholder`` for a layer's value.
    ///
    /// They do when the key was declared secret (``isSecret``), or the layer holds secrets
    /// (``secretLayers``). A tool showing the values in its own format (the `settings` tool)
    /// hides the same ones.
    ///
    /// - Parameter layer: The layer.
    /// - Returns: Whether the layer's value for the key is hidden.
    public func hidesValue(in layer: Layer) -> Bool {
      isSecret || secretLayers.contains(layer)
    }

    /// A value as the description shows it: `<secret>` for a secret key's, or a secret layer's.
    private func shown(_ value: PropertyListValue, in layer: Layer) -> String {
      hidesValue(in: layer) ? Self.secretPlaceholder : String(describing: value)
    }
  }
}

extension LayeredPlistStore.Provenance: CustomReflectable {
  /// The key, and each layer's value as ``description`` shows it (`<secret>` for a secret key),
  /// so that `dump` can't show a secret.
  public var customMirror: Mirror {
    let shownValues = Dictionary(
      uniqueKeysWithValues: values.map { ($0.key, shown($0.value, in: $0.key)) })
    return Mirror(
      self,
      children: [
        "key": key, "values": shownValues, "source": source as Any,
        "isSecret": isSecret, "unreadableLayer": unreadableLayer as Any,
        "passedOver": Dictionary(
          uniqueKeysWithValues: passedOver.map { ($0.key, shown($0.value, in: $0.key)) }),
        "forcedBy": forcedBy as Any,
      ], displayStyle: .struct)
  }
}

extension LayeredPlistStore: LearnsDeclaredKeys {
  package func learn(_ keys: [String: DeclaredKey]) {
    let keys = keys.map { (normalizedKey($0.key), $0.value) }
    let retyped = declaredKeys.withLock { declared -> [String] in
      var retyped: [String] = []
      for (key, new) in keys {
        let old = declared[key]
        if old.map({ ObjectIdentifier($0.valueType) != ObjectIdentifier(new.valueType) }) ?? true {
          retyped.append(key)
        }
        let wasSecret = old?.isSecret ?? false
        declared[key] = DeclaredKey(
          isSecret: new.isSecret || wasSecret, valueType: new.valueType,
          annotations: new.annotations)
      }
      return retyped
    }
    // A text layer's values of these keys are read as their declared types from now on, and a
    // forced layer's that the types can't read are passed over.
    convertGivenValues(ofKeys: retyped)
  }
}
