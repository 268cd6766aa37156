// How a setting prints and reflects itself: its key, type and value, a secret's value
// withheld (`Setting+Secret.swift`).

extension Setting: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  /// `key: Type = value`, as a ``SettingDescriptor`` prints it, with `<secret>` for the value of
  /// a secret setting or of one whose value comes from a layer holding secrets
  /// (`LayerSource.holdsSecrets`); `@Setting(key): Type (not attached)` before the setting is
  /// attached.
  public var description: String {
    guard storage.backend != nil else {
      return "@Setting(\(storage.declaredKey ?? "?")): \(Value.typeName) (not attached)"
    }
    let value =
      storage.hidesValue ? SecretRedaction.placeholder : ValueDescription.of(storage.read())
    return "\(key): \(Value.typeName) = \(value)"
  }

  /// The same as ``description``, so a model printed with `print`, `debugPrint` or
  /// `String(describing:)` shows each setting that way.
  public var debugDescription: String { description }

  /// The setting as `dump` and debuggers show it: its key, type and value (`<secret>` for a
  /// secret setting), never the storage behind it, whose caches hold stored values.
  public var customMirror: Mirror {
    var children: [(label: String?, value: Any)] = [("key", storage.key), ("type", Value.typeName)]
    if storage.backend != nil {
      children.append(
        (
          "value",
          storage.hidesValue ? SecretRedaction.placeholder : ValueDescription.of(storage.read())
        ))
    }
    return Mirror(self, children: children, displayStyle: .struct)
  }
}
