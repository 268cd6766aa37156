/// A change of one key's effective value in a backend: the key, and the value the change left.
///
/// Delivered by the observation APIs of ``SettingsBackend`` (``SettingsBackend/observe(key:initial:_:)``,
/// ``SettingsBackend/changes(forKey:initial:)`` and their variants). The value is the key's
/// effective value right after the change took effect (what a read returned at that moment),
/// which on a `LayeredPlistStore` can come from a lower layer (after a removal) or be `nil`
/// when no layer holds the key any more. A later write may already have replaced it when the
/// change is delivered; its own change follows.
public struct SettingsChange: Sendable, Hashable, CustomStringConvertible {
  /// The key whose value changed, as the backend stores it (normalized, on a store that
  /// normalizes keys).
  public let key: String
  /// The key's value after the change, or `nil` when the change left it none.
  public let newValue: PropertyListValue?
  /// Whether the backend knows the value is a secret (it comes from a layer holding secrets, a
  /// Kubernetes Secret mount), whatever models declare: ``description`` redacts it.
  ///
  /// Not part of equality: it says how to print the change, not what changed.
  package let valueIsSecret: Bool

  /// Creates a change, for tests and custom observation.
  ///
  /// - Parameters:
  ///   - key: The key whose value changed.
  ///   - newValue: The key's value after the change, or `nil` when it has none.
  public init(key: String, newValue: PropertyListValue?) {
    self.init(key: key, newValue: newValue, valueIsSecret: false)
  }

  /// Creates a change whose value the backend may know is a secret.
  package init(key: String, newValue: PropertyListValue?, valueIsSecret: Bool) {
    self.key = key
    self.newValue = newValue
    self.valueIsSecret = valueIsSecret
  }

  /// `key → value`, or `key → (removed)`; `key → <secret>` for a key that a model bound in this
  /// process declared `secret: true` (``Setting/isSecret``) and for a value from a layer that
  /// holds secrets (`LayerSource.holdsSecrets`), so that printing changes (a log of them)
  /// never shows a secret.
  ///
  /// ``newValue`` itself is the real value.
  public var description: String {
    guard let newValue else { return "\(key) → (removed)" }
    if valueIsSecret || SecretRedaction.isDeclaredSecret(key) {
      return "\(key) → \(SecretRedaction.placeholder)"
    }
    return "\(key) → \(newValue)"
  }

  /// Two changes are equal when their keys and new values are.
  public static func == (lhs: SettingsChange, rhs: SettingsChange) -> Bool {
    lhs.key == rhs.key && lhs.newValue == rhs.newValue
  }

  /// Hashes the key and the new value.
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(key)
    hasher.combine(newValue)
  }
}

extension SettingsChange: CustomReflectable {
  /// The key and the new value, as `dump` and a debugger show them: the value
  /// `<secret>` wherever ``description`` hides it, so that no way of printing a change shows a
  /// secret.
  public var customMirror: Mirror {
    let hidden = newValue != nil && (valueIsSecret || SecretRedaction.isDeclaredSecret(key))
    let shown: Any = hidden ? SecretRedaction.placeholder : newValue as Any
    return Mirror(self, children: ["key": key, "newValue": shown], displayStyle: .struct)
  }
}
