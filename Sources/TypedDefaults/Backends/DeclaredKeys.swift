/// What the library prints instead of a secret setting's value.
package enum SecretRedaction {
  /// `<secret>`: shown in descriptions, diagnostics and errors in place of the value.
  package static let placeholder = "<secret>"

  /// Keys a model bound in this process declared `secret: true`, as its backend names them and
  /// as the backend a view of it was made from names them, and keys a layer holding secrets
  /// filled (`LayerSource.holdsSecrets`): what a ``SettingsChange``, which knows no model,
  /// hides.
  ///
  /// Only grows (a few keys per model type).
  private static let secretKeys = Locked<Set<String>>([])

  /// Records keys declared secret (see ``secretKeys``).
  package static func noteSecret(_ keys: some Sequence<String>) {
    var keys = keys.makeIterator()
    guard let first = keys.next() else { return }
    secretKeys.withLock { secret in
      secret.insert(first)
      while let key = keys.next() { secret.insert(key) }
    }
  }

  /// Whether some model bound in this process declared `key` secret.
  static func isDeclaredSecret(_ key: String) -> Bool {
    secretKeys.withLock { $0.contains(key) }
  }
}

/// What a model bound to a backend declared about one of its keys: whether the value is secret,
/// the type its setting reads it as, and its help text and accepted values.
package struct DeclaredKey: Sendable {
  /// Whether the setting was declared `secret: true`: the backend never shows its value.
  package let isSecret: Bool
  /// The setting's value type: a stored value it can't be made from reads as the default.
  package let valueType: any SettingValue.Type
  /// The declaration's help text and accepted values, if any: a stored value outside them reads
  /// as the default too.
  package var annotations: SettingAnnotations? = nil

  /// A declared key: whether it is secret, its value type and its declaration's annotations.
  package init(
    isSecret: Bool, valueType: any SettingValue.Type, annotations: SettingAnnotations? = nil
  ) {
    self.isSecret = isSecret
    self.valueType = valueType
    self.annotations = annotations
  }

  /// Whether the setting reads `value` as itself rather than as its default: its type reads it,
  /// and its declaration accepts it.
  package func reads(_ value: PropertyListValue) -> Bool {
    guard let typed = valueType.init(propertyListValue: value) else { return false }
    return annotations?.accepts?(typed) ?? true
  }

  /// Whether the type reads `value` (accepted or not).
  package func readsType(_ value: PropertyListValue) -> Bool {
    valueType.init(propertyListValue: value) != nil
  }
}

/// A backend that describes its values itself (`LayeredPlistStore.explain`), and so must know
/// which keys are secret and how they are read: models bound to it declare their keys, once per
/// model type and backend, when they are first bound.
package protocol LearnsDeclaredKeys: AnyObject {
  /// Records what a model declared about its keys (full keys in this backend, prefixes
  /// included); a later declaration of a key replaces an earlier one, except that a key once
  /// declared secret stays secret.
  func learn(_ keys: [String: DeclaredKey])
}
