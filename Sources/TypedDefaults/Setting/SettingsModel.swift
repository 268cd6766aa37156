/// A base class for a model of settings: subclass it and declare ``Setting`` properties.
///
/// This is UDUserDefaultsModel in Swift: where the Objective-C original scanned its subclass's
/// properties with `class_copyPropertyList` and added accessors with `class_addMethod`,
/// `SettingsModel` finds its subclass's `@Setting` properties with `Mirror` when it is created and
/// attaches each one to the backend, so every property reads and writes the store under its key.
///
/// ```swift
/// final class PlayerSettings: SettingsModel, @unchecked Sendable {
///   @Setting var allowsCellularPlayback = false
///   @Setting var name = "Player"
///   @Setting("volume", default: 0.8) var volume: Double
///
///   static let shared = PlayerSettings(backend: UserDefaultsBackend(suiteName: "com.example.player"))
/// }
///
/// PlayerSettings.shared.allowsCellularPlayback = true
/// ```
///
/// ## Why the subclass restates `@unchecked Sendable`
///
/// A model is shared between threads (a `static let shared`, a background task), so it must be
/// `Sendable`. The base class is `@unchecked Sendable`, and Swift requires every subclass of such a
/// class to restate the conformance, or it warns. Restating it is safe when the subclass's stored
/// properties are `@Setting`s (whose storage is fixed at initialization and whose backends are
/// thread-safe) or other immutable, `Sendable` values. Prefer a ``SettingsGroup`` struct to avoid
/// the annotation altogether.
///
/// Settings declared in superclasses are found too, so a library can ship a model that an app
/// subclasses with settings of its own.
open class SettingsModel: @unchecked Sendable {
  // @unchecked Sendable: `backend` is immutable and `Sendable`; `discovered` is written once, in
  // `init`, before the instance can be shared, and only read afterwards.

  /// The backend every setting of the model reads and writes (unless declared with its own).
  public let backend: any SettingsBackend
  private var discovered: [SettingDescriptor] = []

  /// Creates the model and attaches every `@Setting` it declares, in this class and its
  /// superclasses, to `backend`.
  ///
  /// - Parameter backend: The store to read and write.
  public init(backend: any SettingsBackend) {
    self.backend = backend
    discovered = SettingsReflection.bind(self, to: backend)
  }

  /// Describes every setting of the model, superclass settings first, then in declaration order.
  ///
  /// Discovered once, when the model is created; each descriptor reads its setting's current
  /// state when asked, so the list never goes stale and getting it costs next to nothing.
  public var allSettings: [SettingDescriptor] {
    discovered
  }

  /// The current value of every setting, by key, as property lists. Optional settings that read
  /// `nil` and secret settings (``Setting/isSecret``) are left out.
  ///
  /// - Returns: A dictionary suitable for export or display.
  public func snapshot() -> [String: PropertyListValue] {
    SettingsReflection.snapshot(of: discovered)
  }

  /// Removes every setting's stored value, so each shows its default again. Keys of the backend
  /// that belong to no setting of this model are left alone.
  public func resetAll() {
    for descriptor in discovered { descriptor.setting.reset() }
  }
}
