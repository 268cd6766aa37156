/// One setting property of a model type: where it is in an instance, its property path and its
/// key prefix.
///
/// A class, so that handing it around per instance costs one reference.
final class PlannedSetting: Sendable {
  /// Reads the setting from the address of an instance's stored properties.
  let load: @Sendable (UnsafeRawPointer) -> any SettingProperty
  /// The property's name, without the wrapper's underscore: `volume`.
  let propertyName: String
  /// The property's path from the model: `playback.volume` for a setting of a nested group.
  let propertyPath: String
  /// The prefixes its key takes: the model's, then each enclosing group's.
  let keyPrefix: String
  /// The name of the type that declares the property.
  let declaringTypeName: String
  /// `keyPrefix + propertyName`: the key of a setting declared without one.
  let inferredKey: String
  /// The declared key of the first instance's setting, and its full key, so that later
  /// instances declaring the same key share the string.
  let plannedDeclaredKey: String?
  let plannedDeclaredFullKey: String?
  /// Where the setting's storage reference is in an instance (a `Setting` is that one
  /// reference); `-1` for a setting found by `Mirror`.
  let offset: Int
  /// The nested group types between the model and the setting (their `ObjectIdentifier`s),
  /// outermost first; empty for a setting the model declares itself.
  ///
  /// A setting already bound by a group of one of these types, created with `init(backend:)`, may
  /// be bound again by the model that nests it
  /// (``SettingsValidation/checkBindingOnce(_:boundTo:as:by:)``).
  let enclosingGroups: [ObjectIdentifier]

  /// The setting's full key: its model's and groups' prefixes, then its declared key or its
  /// property's name.
  ///
  /// Reuses the plan's string when the declared key is the planned one.
  ///
  /// - Parameter declared: The key the instance's setting declares.
  /// - Returns: The full key; with no declared key, the one inferred from the property's name.
  func key(declared: String?) -> String {
    guard let declared else { return inferredKey }
    if declared == plannedDeclaredKey, let key = plannedDeclaredFullKey { return key }
    return keyPrefix.isEmpty ? declared : keyPrefix + declared
  }

  init(
    load: @escaping @Sendable (UnsafeRawPointer) -> any SettingProperty, propertyName: String,
    propertyPath: String, keyPrefix: String, declaringTypeName: String, inferredKey: String,
    plannedDeclaredKey: String?, plannedDeclaredFullKey: String?,
    enclosingGroups: [ObjectIdentifier], offset: Int = -1
  ) {
    self.offset = offset
    self.enclosingGroups = enclosingGroups
    self.load = load
    self.propertyName = propertyName
    self.propertyPath = propertyPath
    self.keyPrefix = keyPrefix
    self.declaringTypeName = declaringTypeName
    self.inferredKey = inferredKey
    self.plannedDeclaredKey = plannedDeclaredKey
    self.plannedDeclaredFullKey = plannedDeclaredFullKey
  }
}
