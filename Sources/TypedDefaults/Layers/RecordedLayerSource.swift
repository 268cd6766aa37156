/// How a tool can open a ``LayerSource`` again: what a ``LayeredPlistStore`` records of each
/// layer beside its `data.plist`, so that the `settings` tool, opening the store's folder, reads
/// the layers the app reads.
///
/// Thread-safety: a value type, `Sendable`.
public enum RecordedLayerSource: Sendable, Hashable {
  /// A read-only property-list file (``PropertyListFileSource``) at an absolute path.
  case propertyListFile(path: String)
  /// A folder of one file per key (``DirectorySource``) at an absolute path; `holdsSecrets`
  /// for a Secret mount.
  case directory(path: String, holdsSecrets: Bool)
  /// Environment variables with a prefix (``EnvironmentVariablesSource``); the tool reads its
  /// own environment.
  case environment(prefix: String)
  /// Managed settings (``ManagedSettingsSource``) in a file at an absolute path.
  case managed(path: String)
  /// The defaults of a `Settings.bundle` (``SettingsBundleSource``) at an absolute path.
  case settingsBundle(path: String)
}
