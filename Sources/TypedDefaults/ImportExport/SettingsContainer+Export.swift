import Foundation

/// What ``SettingsContainer/exportedValues(options:)`` puts in an export.
public struct SettingsExportOptions: Sendable, Hashable {
  /// Whether settings that read their default value are left out (nothing stored, a stored value
  /// that can't be read, or a stored value equal to the default), so the export holds only what
  /// the user changed.
  ///
  /// `false` by default: every setting is exported.
  public var omitsDefaultValues: Bool
  /// Whether the values of secret settings (``Setting/isSecret``) are exported, and those that
  /// come from a layer holding secrets (a Kubernetes Secret mount, `LayerSource.holdsSecrets`).
  ///
  /// `false` by default: secrets are left out, so an export can be shared.
  public var includesSecrets: Bool

  /// Creates export options.
  ///
  /// - Parameters:
  ///   - omitsDefaultValues: Leave out settings that read their default value.
  ///   - includesSecrets: Export the values of secret settings too.
  public init(omitsDefaultValues: Bool = false, includesSecrets: Bool = false) {
    self.omitsDefaultValues = omitsDefaultValues
    self.includesSecrets = includesSecrets
  }
}

extension SettingsContainer {
  /// Every setting's value, by key, as property lists: a backup, a file to move settings to
  /// another machine, or the input of ``importValues(_:options:)``.
  ///
  /// Each setting contributes what it reads: its stored value, or its default when nothing is
  /// stored or the stored value can't be read as its type. An optional setting that reads `nil`
  /// is left out. Secret settings, and settings whose value comes from a layer holding secrets,
  /// are left out unless `options` asks for them. A model that
  /// declares migrations (``MigratableSettings``) also exports its schema version under its
  /// ``SettingsMigrations/versionKey``, so that an import into a later version migrates the
  /// values first.
  ///
  /// - Parameter options: What to leave out.
  /// - Returns: The values, by key.
  ///
  /// Reads each setting's backend once; thread-safe as the backends are. Values written while the
  /// export runs may or may not be in it.
  public func exportedValues(
    options: SettingsExportOptions = SettingsExportOptions()
  ) -> [String: PropertyListValue] {
    var values: [String: PropertyListValue] = [:]
    for descriptor in allSettings
    where options.includesSecrets || !descriptor.setting.untypedStorage.hidesValue {
      let stored = descriptor.storedValue
      let reads = stored.flatMap { descriptor.reads($0) ? $0 : nil }
      if options.omitsDefaultValues && (reads == nil || reads == descriptor.defaultValue) {
        continue
      }
      if let value = reads ?? descriptor.defaultValue { values[descriptor.key] = value }
    }
    if let migrations = (Self.self as? any MigratableSettings.Type)?.migrations {
      values[migrations.versionKey] = .integer(.init(Int64(migrations.currentVersion)))
    }
    return values
  }

  /// Writes ``exportedValues(options:)`` to a property-list file, atomically (a crash leaves the
  /// old file or the new one), readable and writable by its owner only when it is created.
  ///
  /// ```swift
  /// try settings.exportValues(to: backupFolder.appending(path: "settings.plist"))
  /// ```
  ///
  /// - Parameters:
  ///   - url: The file to write; replaced if it exists.
  ///   - format: ``PropertyListFile/Format/binary`` (the default, which keeps dates to the
  ///     fraction of a second) or ``PropertyListFile/Format/xml`` (readable in a text editor).
  ///   - options: What to leave out (see ``SettingsExportOptions``).
  /// - Throws: What ``PropertyListFile/write(_:format:)`` throws: ``SettingsError`` naming the
  ///   path, for a folder that is missing or not writable, a full disk, or a value XML can't
  ///   hold. The file is unchanged when this throws.
  public func exportValues(
    to url: URL,
    format: PropertyListFile.Format = .binary,
    options: SettingsExportOptions = SettingsExportOptions()
  ) throws(SettingsError) {
    try PropertyListFile(url: url).write(
      .dictionary(exportedValues(options: options)), format: format)
  }
}

extension SettingDescriptor {
  /// Whether the setting reads `value` as its type (and doesn't fall back to its default).
  func reads(_ value: PropertyListValue) -> Bool {
    Self.reads(value, as: valueType)
  }

  private static func reads<Value: SettingValue>(
    _ value: PropertyListValue,
    as type: Value.Type
  ) -> Bool {
    Value(propertyListValue: value) != nil
  }

  /// `value` as the setting stores it (`"yes"` for a `Bool` setting becomes `true`), or `nil`
  /// if the setting can't read it, or can't store what it reads.
  func canonical(_ value: PropertyListValue) -> PropertyListValue? {
    Self.canonical(value, as: valueType)
  }

  private static func canonical<Value: SettingValue>(
    _ value: PropertyListValue,
    as type: Value.Type
  ) -> PropertyListValue? {
    guard let read = Value(propertyListValue: value) else { return nil }
    return try? read.propertyListValue()
  }

  /// Why the setting can't read `value`, in words, if its type says.
  func readFailureReason(for value: PropertyListValue) -> String? {
    Self.readFailureReason(for: value, as: valueType)
  }

  private static func readFailureReason<Value: SettingValue>(
    for value: PropertyListValue,
    as type: Value.Type
  ) -> String? {
    Value.readFailureReason(for: value)
  }
}
