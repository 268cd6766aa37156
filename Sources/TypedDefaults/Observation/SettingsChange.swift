/// A change of one key's effective value in a backend: the key, and the value the change left.
///
/// Delivered by the observation APIs of ``SettingsBackend`` (``SettingsBackend/observe(key:initial:_:)``,
/// ``SettingsBackend/changes(forKey:initial:)`` and their variants). The value is the key's
/// effective value right after the change took effect (what a read returned at that moment),
/// which on a ``LayeredPlistStore`` can come from a lower layer (after a removal) or be `nil`
/// when no layer holds the key any more. A later write may already have replaced it when the
/// change is delivered; its own change follows.
public struct SettingsChange: Sendable, Hashable, CustomStringConvertible {
  /// The key whose value changed, as the backend stores it (normalized, on a store that
  /// normalizes keys).
  public let key: String
  /// The key's value after the change, or `nil` when the change left it none.
  public let newValue: PropertyListValue?

  /// Creates a change, for tests and custom observation.
  ///
  /// - Parameters:
  ///   - key: The key whose value changed.
  ///   - newValue: The key's value after the change, or `nil` when it has none.
  public init(key: String, newValue: PropertyListValue?) {
    self.key = key
    self.newValue = newValue
  }

  /// `key → value`, or `key → (removed)`; `key → <secret>` for a key that a model bound in this
  /// process declared `secret: true` (``Setting/isSecret``), so that printing changes (a log of
  /// them) never shows a secret.
  ///
  /// ``newValue`` itself is the real value.
  public var description: String {
    guard let newValue else { return "\(key) → (removed)" }
    if SecretRedaction.isDeclaredSecret(key) { return "\(key) → \(SecretRedaction.placeholder)" }
    return "\(key) → \(newValue)"
  }
}
