/// One step of a model's migrations: rename a key, change a value (or its type), move keys into a
/// prefix, remove a key, or anything else on the stored values.
///
/// Steps are listed in a ``SettingsMigrations`` and run in order, each once per backend (see
/// ``MigratableSettings``). A step sees and changes the values the backend stores (for a
/// `LayeredPlistStore`, its `data.plist`; the delivered and bundled files are read-only and
/// never migrated), as property lists:
///
/// ```swift
/// static let migrations = SettingsMigrations(versionKey: "schemaVersion", steps: [
///   .renameKey("fontSize", to: "text.fontSize"),                         // v1 → v2
///   .convertValue(forKey: "timeout", from: Int.self, to: Double.self) { Double($0) },  // seconds
///   .convertValue(forKey: "showNotices", from: Bool.self, to: NoticeMode.self) {
///     $0 ? .all : .none
///   },
///   .moveKeys(["userId", "sessionId"], toPrefix: "com.example.sdk."),
///   .removeKey("legacyCache"),
/// ])
/// ```
///
/// ## When the old and the new key both exist
///
/// A rename or move whose new key already holds a value keeps **the new key's value** and
/// removes the old key: the new key was written by a version that already knew it, so it is the
/// newer intention. The rule depends on nothing but the two values' presence, so it is the same
/// whatever order the backend lists its keys in.
public struct SettingsMigration: Sendable, CustomStringConvertible {
  /// What the step does, for errors: `rename 'fontSize' to 'text.fontSize'`.
  public let description: String
  let body: @Sendable (inout [String: PropertyListValue]) throws -> Void
  /// The keys the step renames, old to new (``renameKey(_:to:)``, ``moveKeys(_:toPrefix:)``):
  /// checked against a store's read-only layers, which no step changes.
  var renamedKeys: [(old: String, new: String)] = []

  /// Creates a step from a closure that changes the stored values in place: the general form
  /// of the other steps.
  ///
  /// - Parameters:
  ///   - description: What the step does, in words, for errors.
  ///   - body: Changes the values, by key; removing a key removes it from the backend. What it
  ///     throws stops the migration before the step's changes are stored (see
  ///     ``SettingsMigrations/run(on:)``).
  public init(
    _ description: String,
    _ body: @escaping @Sendable (inout [String: PropertyListValue]) throws -> Void
  ) {
    self.description = description
    self.body = body
  }

  /// Renames a key: its value moves to `newKey` and `oldKey` is removed.
  ///
  /// If `newKey` already holds a value, that value is kept and `oldKey` is removed (see "When the
  /// old and the new key both exist"). Does nothing if `oldKey` holds nothing.
  ///
  /// - Parameters:
  ///   - oldKey: The key the value is stored under now.
  ///   - newKey: The key to store it under.
  /// - Returns: The step.
  public static func renameKey(_ oldKey: String, to newKey: String) -> SettingsMigration {
    var step = SettingsMigration("rename '\(oldKey)' to '\(newKey)'") { values in
      rename(oldKey, to: newKey, in: &values)
    }
    step.renamedKeys = [(oldKey, newKey)]
    return step
  }

  /// Moves keys into a prefix: each key `k` listed becomes `prefix + k`, as ``renameKey(_:to:)``
  /// does (the new key's value wins if both exist).
  ///
  /// Only the keys listed are touched, never others that merely look alike (`userIdHistory` stays
  /// where it is when `userId` moves).
  ///
  /// - Parameters:
  ///   - keys: The keys to move, exactly as stored.
  ///   - prefix: The prefix to put before each, such as `com.example.sdk.`.
  /// - Returns: The step.
  public static func moveKeys(_ keys: [String], toPrefix prefix: String) -> SettingsMigration {
    var step = SettingsMigration(
      "move \(keys.map { "'\($0)'" }.joined(separator: ", ")) to '\(prefix)'"
    ) { values in
      for key in keys { rename(key, to: prefix + key, in: &values) }
    }
    step.renamedKeys = keys.map { ($0, prefix + $0) }
    return step
  }

  /// Removes a key and its value.
  ///
  /// - Parameter key: The key to remove.
  /// - Returns: The step.
  public static func removeKey(_ key: String) -> SettingsMigration {
    SettingsMigration("remove '\(key)'") { values in values[key] = nil }
  }

  /// Changes a key's stored value with a closure on property lists: a change of representation
  /// (a `Codable` struct that gained a field, a string that became an array).
  ///
  /// Does nothing if the key holds nothing.
  ///
  /// ```swift
  /// // V1 stored {a}; V2 is {a, b}, and b has no default in V2's decoding.
  /// .transformValue(forKey: "item") { old in
  ///   guard case .dictionary(var fields) = old, fields["b"] == nil else { return old }
  ///   fields["b"] = "standard"
  ///   return .dictionary(fields)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - key: The key whose value to change.
  ///   - transform: Given the stored value, returns the new one, or `nil` to remove the key.
  /// - Returns: The step.
  public static func transformValue(
    forKey key: String,
    _ transform: @escaping @Sendable (PropertyListValue) throws -> PropertyListValue?
  ) -> SettingsMigration {
    SettingsMigration("transform '\(key)'") { values in
      if let old = values[key] { values[key] = try transform(old) }
    }
  }

  /// Changes a key's value from one Swift type to another: Int seconds to a Double, a Bool to
  /// an enum with more cases, a String to an enum.
  ///
  /// The old type is recognised from the stored value itself, strictly: the step converts a
  /// value that *is* an `Old` (it reads as `Old`, and `Old` would store it exactly so), and
  /// leaves anything else as it is (a value that already is a `New`, or one that is neither,
  /// which the setting then reports as a wrong-typed value). So a Bool is not an Int
  /// (`<false/>` is not `<integer>0</integer>`): `from: Bool.self` never converts the number 0
  /// an enum stored, though a `Bool` setting would read it as `false`; and `from: Int.self`
  /// doesn't convert the real `30.0` a migrated Double stored.
  ///
  /// - Parameters:
  ///   - key: The key whose value to convert.
  ///   - old: The type the value was stored as.
  ///   - new: The type to store it as.
  ///   - convert: Converts a value.
  /// - Returns: The step.
  public static func convertValue<Old: SettingValue, New: SettingValue>(
    forKey key: String,
    from old: Old.Type,
    to new: New.Type,
    _ convert: @escaping @Sendable (Old) throws -> New
  ) -> SettingsMigration {
    SettingsMigration("convert '\(key)' from \(Old.typeName) to \(New.typeName)") { values in
      guard let stored = values[key], let value = Old(propertyListValue: stored),
        try value.propertyListValue() == stored
      else { return }
      values[key] = try convert(value).propertyListValue()
    }
  }

  private static func rename(
    _ oldKey: String,
    to newKey: String,
    in values: inout [String: PropertyListValue]
  ) {
    guard oldKey != newKey, let old = values.removeValue(forKey: oldKey) else { return }
    if values[newKey] == nil { values[newKey] = old }
  }
}
