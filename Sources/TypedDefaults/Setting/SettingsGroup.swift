/// A struct of settings: the value-type alternative to subclassing ``SettingsModel``.
///
/// Conform a struct whose properties are ``Setting``s and create it with ``init(backend:)``;
/// `Mirror` finds the settings and attaches them to the backend, exactly as for a model class. A
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
public protocol SettingsGroup: SettingsContainer {
  /// Creates the group with every setting at its declared default, not yet attached to a backend.
  /// The synthesized memberwise initializer of a struct whose properties all have defaults
  /// satisfies this requirement.
  init()
}

extension SettingsGroup {
  /// Creates the group and attaches every `@Setting` it declares to `backend`.
  ///
  /// - Parameter backend: The store to read and write.
  public init(backend: any SettingsBackend) {
    self.init()
    SettingsReflection.bind(self, to: backend)
  }

  /// Describes every setting of the group, in declaration order; each descriptor reads its
  /// setting's current state when asked.
  ///
  /// Reflects over the struct on each call (about a microsecond per property); a
  /// ``SettingsModel`` discovers its settings once instead.
  public var allSettings: [SettingDescriptor] {
    SettingsReflection.discover(in: self)
  }

  /// The current value of every setting, by key, as property lists. Optional settings that read
  /// `nil` and secret settings (``Setting/isSecret``) are left out.
  ///
  /// - Returns: A dictionary suitable for export or display.
  public func snapshot() -> [String: PropertyListValue] {
    SettingsReflection.snapshot(of: SettingsReflection.discover(in: self))
  }

  /// Removes every setting's stored value, so each shows its default again.
  public func resetAll() {
    for descriptor in SettingsReflection.discover(in: self) { descriptor.setting.reset() }
  }
}
