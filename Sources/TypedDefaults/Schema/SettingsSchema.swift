/// What a model declares about its settings, as data: each setting's key, stored shape, default,
/// help text and accepted values (``SettingSchema``), found by the same reflection that binds the
/// model.
///
/// Get one from any model, class or struct, with its nested groups and key prefixes applied:
///
/// ```swift
/// let schema = PlayerSettings(backend: backend).schema
/// print(schema["volume"]?.help ?? "")    // Playback volume, 0 to 1.
/// ```
///
/// A schema is what the exports of the `TypedDefaultsSchema` product are made from: JSON Schema
/// (`jsonSchema()`), an iOS Settings bundle (`settingsBundle()`), a managed app configuration
/// spec (`managedAppConfiguration(bundleIdentifier:version:)`) and a Markdown reference table
/// (`markdownReference()`). Written next to a store (`write(nextTo:)`), it lets the `settings` tool refuse a value that doesn't fit a key's
/// declared type or range, and show each key's help text and declared default.
///
/// `SettingsSchema` is a value type and `Sendable`.
public struct SettingsSchema: Sendable, Hashable {
  /// A name for what the schema describes: the model type's name, or a domain's.
  public var title: String
  /// The settings, sorted by key.
  public var settings: [SettingSchema]

  /// Creates a schema from settings' schemas.
  ///
  /// - Parameters:
  ///   - title: A name for what the schema describes.
  ///   - settings: The settings, in any order; the schema keeps them sorted by key. When two have
  ///     the same key, the last wins.
  public init(title: String, settings: [SettingSchema]) {
    self.title = title
    var byKey: [String: SettingSchema] = [:]
    for setting in settings { byKey[setting.key] = setting }
    self.settings = byKey.values.sorted { $0.key < $1.key }
  }

  /// The schema of the setting stored under `key`, or `nil` if the schema declares no such key.
  ///
  /// - Parameter key: The key, with every key prefix.
  public subscript(key: String) -> SettingSchema? {
    settings.first { $0.key == key }
  }

  /// Why `value` can't be stored under `key`, or `nil` if it can or the schema doesn't declare
  /// the key (see ``SettingSchema/problem(with:)``).
  ///
  /// - Parameters:
  ///   - value: The value, as it would be stored.
  ///   - key: The key, with every key prefix.
  /// - Returns: A one-line reason, or `nil`.
  public func problem(with value: PropertyListValue, forKey key: String) -> String? {
    self[key]?.problem(with: value)
  }
}

extension SettingsContainer {
  /// What the model declares about each of its settings (``SettingsSchema``), titled with the
  /// model type's name: keys with every prefix, as ``allSettings`` lists them.
  ///
  /// Discovering the settings is the reflection the model already did; making the schema reads no
  /// stored value, except to say whether the backend enforces each key (``SettingSchema/isManaged``).
  /// Thread-safe.
  public var schema: SettingsSchema {
    SettingsSchema(title: TypeNames.sugared(Self.self), settings: allSettings.map(\.schema))
  }
}
