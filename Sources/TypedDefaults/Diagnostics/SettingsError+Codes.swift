// Every code a `SettingsError` of the library's products carries, in one place: the core's, then
// those of the layered store and its sources (TypedDefaultsLayers) and of the fleet layer
// (TypedDefaultsEtcd). They are declared here, in the core, so that code handling errors finds
// them all, and matches one with no other import.

extension SettingsError.Code {
  // MARK: - Files and values

  /// The file exists but could not be read (permissions, I/O error, a directory in its place).
  public static let fileNotReadable = SettingsError.Code(rawValue: "fileNotReadable")
  /// The file was read but is not a valid property list (truncated, corrupt, wrong format).
  public static let corruptFile = SettingsError.Code(rawValue: "corruptFile")
  /// The file is a valid property list whose root is not the kind required (for example an
  /// array where a settings layer needs a dictionary).
  public static let wrongRootType = SettingsError.Code(rawValue: "wrongRootType")
  /// The file is larger than the configured reading limit.
  public static let fileTooLarge = SettingsError.Code(rawValue: "fileTooLarge")
  /// The file could not be written (read-only folder, missing folder, disk full).
  public static let fileNotWritable = SettingsError.Code(rawValue: "fileNotWritable")
  /// A value cannot be stored as a property list, or not exactly, by this backend.
  public static let valueNotRepresentable = SettingsError.Code(rawValue: "valueNotRepresentable")
  /// A write named a layer that is read-only.
  public static let readOnlyLayer = SettingsError.Code(rawValue: "readOnlyLayer")
  /// A standard folder can't be used: something else is in its place, its name isn't a folder
  /// name, or (Linux) no variable or home chooses it (`StandardLocation`, in `TypedDefaultsLayers`).
  public static let directoryNotUsable = SettingsError.Code(rawValue: "directoryNotUsable")
  /// A migration step failed, or the recorded schema version can't be read
  /// (``SettingsMigrations/run(on:)``).
  public static let migrationFailed = SettingsError.Code(rawValue: "migrationFailed")
  /// An import was refused: values of the wrong type, or unknown keys when they are refused
  /// (``SettingsContainer/importValues(_:options:)``).
  ///
  /// Nothing was written.
  public static let importRejected = SettingsError.Code(rawValue: "importRejected")
  /// A write named a key whose value is enforced by a forced layer (managed settings, see
  /// `LayeredPlistStore/isForced(forKey:)`), as `UserDefaults.objectIsForced(forKey:)` tells.
  ///
  /// Nothing was written.
  public static let forcedValue = SettingsError.Code(rawValue: "forcedValue")

  /// A file that must be written only by a trusted owner (managed settings: root) could have
  /// been written by someone else: owned by another user, writable by its group or by others, or
  /// in such a folder (`ManagedSettingsSource`).
  ///
  /// The file was not read.
  public static let fileNotTrusted = SettingsError.Code(rawValue: "fileNotTrusted")

  /// A value is not one the setting accepts: outside the range its declaration gives
  /// (`@Setting(…, in: 0...1)`) or not one of its allowed values (`allowedValues:`), or, for
  /// the `settings` tool, outside the schema written next to the store.
  ///
  /// Nothing was written.
  public static let valueNotAllowed = SettingsError.Code(rawValue: "valueNotAllowed")

  /// A backend was asked for what it can't do.
  ///
  /// A view's ``ScopedBackend/save()`` or ``ScopedBackend/reload()`` over a base that doesn't
  /// save (no ``SavingBackend``) or reload (no ``ReloadingBackend``); the error names the base.
  ///
  /// Nothing was changed.
  public static let notSupported = SettingsError.Code(rawValue: "notSupported")

  // MARK: - Text read as a value (`PropertyListValue(parsing:as:)`, the layer sources)

  /// A text can't be read as the kind or the type asked for (``PropertyListValue/init(parsing:as:)-(_,TextKind)``):
  /// `'loud' is not a number`.
  public static let unparsableText = SettingsError.Code(rawValue: "unparsableText")

  // MARK: - Layer sources (TypedDefaultsLayers)

  /// Two keys a layer source was given have one outside name (one environment variable, one
  /// command-line option), so neither is read under it; the error names both keys and the name.
  public static let conflictingKeys = SettingsError.Code(rawValue: "conflictingKeys")
  /// A key a layer source was given has no outside name: it holds a character that isn't ASCII,
  /// or no letter or digit.
  public static let unnamableKey = SettingsError.Code(rawValue: "unnamableKey")
  /// An environment variable has the source's prefix but names no key the source was given; the
  /// error names the variable, never its value.
  public static let unknownEnvironmentVariable = SettingsError.Code(
    rawValue: "unknownEnvironmentVariable")
  /// A command-line option names no key the `CommandLineArgumentsSource` was given.
  public static let unknownArgument = SettingsError.Code(rawValue: "unknownArgument")
  /// A command-line option that needs a value is the last argument, or another option follows it.
  public static let missingArgumentValue = SettingsError.Code(rawValue: "missingArgumentValue")
  /// A key is given more than once on the command line; the last one is used.
  public static let repeatedArgument = SettingsError.Code(rawValue: "repeatedArgument")

  // MARK: - The fleet layer (TypedDefaultsEtcd)

  /// A fleet source (`EtcdSource`) reached none of its endpoints, or lost its connection: the
  /// layer holds the last values it applied, or its last known good file's; the error names the
  /// endpoints tried and why each failed.
  public static let fleetUnavailable = SettingsError.Code(rawValue: "fleetUnavailable")
  /// A fleet server refused the source's credentials (a wrong user name or password), or the
  /// user may not read the prefix; the error names the endpoint, never the password.
  public static let fleetAuthenticationFailed = SettingsError.Code(
    rawValue: "fleetAuthenticationFailed")
  /// A value a layer source received can't be decoded (not UTF-8 text nor a property list, too
  /// large), or its key can't name a setting; the layer keeps the key's last good value.
  public static let layerValueUnreadable = SettingsError.Code(rawValue: "layerValueUnreadable")
}
