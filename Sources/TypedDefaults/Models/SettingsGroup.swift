/// A struct of settings: the value-type alternative to subclassing ``SettingsModel``.
///
/// Conform a struct whose properties are ``Setting``s and create it with ``init(backend:)``;
/// reflection finds the settings (the stdlib's field reflection, once per group type, with `Mirror`
/// as the fallback) and attaches them to the backend, exactly as for a model class. A
/// struct of settings is `Sendable` with no annotation, so it can be a `static let` and cross
/// threads freely; and because a setting's setter doesn't mutate the struct, a `let` is enough:
///
/// ```swift
/// struct PlayerSettings: SettingsGroup {
///   @Setting var allowsCellularPlayback = false
///   @Setting("volume", default: 0.8) var volume: Double
///
///   static let shared = PlayerSettings(backend: UserDefaultsBackend(suiteName: "com.example.player"))
/// }
///
/// PlayerSettings.shared.volume = 0.5
/// ```
///
/// Copies of a group share its settings (each `Setting` refers to shared storage). Creating the
/// struct with `init()` instead leaves its settings unattached, and reading one stops the program
/// with a message saying so.
///
/// ## Nested groups
///
/// A group can be a stored property of a model (a ``SettingsModel`` subclass or another group):
/// a plain stored property, no wrapper. Reflection finds it with its parent, and its settings are
/// the parent's too: in ``SettingsContainer/allSettings`` (with a
/// ``SettingDescriptor/propertyPath`` such as `playback.volume`), in ``snapshot()`` and in
/// ``resetAll()``. Groups nest to any depth.
///
/// ```swift
/// struct PlaybackSettings: SettingsGroup {
///   @Setting var volume = 0.8
///   @Setting var autoplay = true
/// }
///
/// struct AppSettings: SettingsGroup {
///   static let keyPrefix = "com.example.app."
///   @Setting var theme = "light"          // key "com.example.app.theme"
///   var playback = PlaybackSettings()     // keys "com.example.app.playback.volume", ….autoplay
/// }
/// ```
///
/// A nested group's keys take its type's ``keyPrefix`` if it declares one, and otherwise its
/// property's name and a dot (`playback.`), after the prefixes of the models around it. A group
/// property must be a struct stored directly (not an optional, an array or a computed property).
public protocol SettingsGroup: SettingsContainer {
  /// Creates the group with every setting at its declared default, not yet attached to a backend.
  /// The synthesized memberwise initializer of a struct whose properties all have defaults
  /// satisfies this requirement.
  init()

  /// The prefix of every key of the group (`""`, the default, for none).
  ///
  /// Used for the group's settings when it is created with ``init(backend:)``, and when it is
  /// nested in a model, after the model's prefix; a nested group without one takes its
  /// property's name and a dot. A library's group declares a reverse-DNS name ending in a dot:
  /// `static let keyPrefix = "com.example.sdk."`. Debug builds report two model types on one
  /// backend whose prefixes are equal or overlap (``SettingsDiagnostic/Kind/keyCollision``).
  static var keyPrefix: String { get }
}

extension SettingsGroup {
  /// No prefix: the group's keys are its settings' own keys.
  public static var keyPrefix: String { "" }
}

extension SettingsGroup {
  /// Creates the group and attaches every `@Setting` it declares to `backend`.
  ///
  /// - Parameter backend: The store to read and write.
  public init(backend: any SettingsBackend) {
    self.init()
    SettingsReflection.bind(self, keyPrefix: Self.keyPrefix, to: backend)
  }

  /// Describes every setting of the group, in declaration order; each descriptor reads its
  /// setting's current state when asked.
  ///
  /// The group's type is reflected over once; each call then reads the settings at their known
  /// places in the struct (tens of nanoseconds per setting).
  public var allSettings: [SettingDescriptor] {
    SettingsReflection.discover(in: self, keyPrefix: Self.keyPrefix)
  }

  /// The current value of every setting, by key, as property lists.
  ///
  /// Optional settings that read `nil` and secret settings (``Setting/isSecret``) are left out.
  ///
  /// - Returns: A dictionary suitable for export or display.
  public func snapshot() -> [String: PropertyListValue] {
    SettingsReflection.snapshot(
      of: SettingsReflection.discover(in: self, keyPrefix: Self.keyPrefix))
  }

  /// Removes every setting's stored value, so each shows its default again.
  public func resetAll() {
    for descriptor in allSettings { descriptor.setting.reset() }
  }
}
