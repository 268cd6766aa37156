import TypedDefaults

/// How a tool can open a ``LayerSource`` again: what a ``LayeredPlistStore`` records of each
/// layer beside its `data.plist`, so that the `settings` tool, opening the store's folder, reads
/// the layers the app reads.
///
/// ``LayeredPlistStore/LayerDefinition/init(recorded:environment:)`` turns a recorded layer back
/// into a layer to open a store with.
///
/// Thread-safety: a value type, `Sendable`.
public enum RecordedLayerSource: Sendable, Hashable {
  /// A read-only property-list file (``PropertyListFileSource``) at an absolute path.
  case propertyListFile(path: String)
  /// A folder of one file per key (``DirectorySource``) at an absolute path; `holdsSecrets`
  /// for a Secret mount.
  case directory(path: String, holdsSecrets: Bool)
  /// Environment variables with a prefix (``EnvironmentVariablesSource``), and the keys the
  /// app's source was made with (`nil` for a source made without keys, which reads every
  /// variable with the prefix). A tool opening it reads its own environment, not the app's.
  case environment(prefix: String, keys: [String]? = nil)
  /// Managed settings (``ManagedSettingsSource``) in a file at an absolute path, and the user
  /// who, besides root, may own it (``ManagedSettingsSource/trustedOwner``; root, `0`, by
  /// default).
  case managed(path: String, trustedOwner: UInt32 = 0)
  /// The defaults of a `Settings.bundle` (``SettingsBundleSource``) at an absolute path.
  case settingsBundle(path: String)
  /// The keys under a prefix of an etcd cluster (``EtcdSource``): its endpoints, the prefix, the
  /// user if the source had credentials (never the password: a tool opening the source reads it
  /// from the `TYPEDDEFAULTS_ETCD_PASSWORD` environment variable), and the absolute path of the
  /// last known good file, if any.
  case etcd(endpoints: [String], prefix: String, user: String?, lastKnownGoodFile: String?)
}
