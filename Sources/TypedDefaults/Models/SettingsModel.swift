import Foundation

/// A base class for a model of settings: subclass it and declare ``Setting`` properties.
///
/// This is UDUserDefaultsModel in Swift: where the Objective-C original scanned its subclass's
/// properties with `class_copyPropertyList` and added accessors with `class_addMethod`,
/// `SettingsModel` finds its subclass's `@Setting` properties by reflection when it is created (the
/// stdlib's field reflection, once per model type, with `Mirror` as the fallback) and attaches each
/// one to the backend, so every property reads and writes the store under its key.
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
///
/// ## Key prefixes and nested groups
///
/// A library's model declares a key prefix, so its keys can't collide with its host's on a
/// shared backend; every setting's key is then the prefix followed by its own key:
///
/// ```swift
/// public final class PlayerKitSettings: SettingsModel, @unchecked Sendable {
///   override public class var keyPrefix: String { "com.example.playerkit." }
///   @Setting public var volume = 0.8          // key "com.example.playerkit.volume"
///   public var playback = PlaybackSettings()  // a nested group: "com.example.playerkit.playback.…"
/// }
/// ```
///
/// A stored property whose type is a ``SettingsGroup`` struct is a nested group: its settings are
/// the model's too (``allSettings``, ``snapshot()``, ``resetAll()``), under the group's key prefix
/// (see ``SettingsGroup/keyPrefix``), and groups can nest further.
///
/// ## Cost
///
/// The first instance of a model type finds its settings by reflection and keeps what the type
/// alone determines (which properties are settings, where each lives in an instance, its key);
/// later instances only bind their settings, about 0.12 µs per setting, its creation included
/// (Docs/Performance.md).
open class SettingsModel: @unchecked Sendable {
  // @unchecked Sendable: `backend` is immutable and `Sendable`; `listedSettings` is read and
  // written only under `listingLock`.

  /// The backend every setting of the model reads and writes (unless declared with its own).
  public let backend: any SettingsBackend
  /// ``allSettings``, once listed.
  private var listedSettings: [SettingDescriptor]?
  /// The lock of `listedSettings`: one of the slow paths' shared locks, since a lock of its own
  /// would cost every model an allocation for a list most models never make.
  private var listingLock: NSLock { SlowPathLocks.lock(for: self) }

  /// Creates the model and attaches every `@Setting` it declares, in this class and its
  /// superclasses, to `backend`.
  ///
  /// - Parameter backend: The store to read and write.
  public init(backend: any SettingsBackend) {
    self.backend = backend
    SettingsReflection.bind(self, keyPrefix: Self.keyPrefix, to: backend)
  }

  /// The prefix of every key of the model: its settings' and its nested groups' (`""`, the
  /// default, for none). Override it in a model a library ships, with a reverse-DNS name ending
  /// in a dot, so the library's keys can't collide with its host's:
  ///
  /// ```swift
  /// override public class var keyPrefix: String { "com.example.playerkit." }
  /// ```
  ///
  /// The prefix applies to declared keys (`@Setting("volume")`) and inferred ones alike, and to
  /// the settings a subclass inherits; a setting declared with a backend of its own keeps its key
  /// as declared. Debug builds report two model types on one backend whose prefixes are equal or
  /// overlap (``SettingsDiagnostic/Kind/keyCollision``). The counterpart of a namespace in
  /// swift-argument-parser's `CommandConfiguration`; the value must not change while the program
  /// runs.
  open class var keyPrefix: String { "" }

  /// Describes every setting of the model, superclass settings first, then in declaration order,
  /// a nested group's settings in the group's place.
  ///
  /// Listed the first time it is asked for, from what the model's type learned by reflection on
  /// its first instance (about 10 µs for 100 settings), then kept: creating a model doesn't pay
  /// for a list it may never need, and asking again costs next to nothing. Each descriptor reads
  /// its setting's current state when asked, so the list never goes stale. Thread-safe.
  public var allSettings: [SettingDescriptor] {
    listingLock.lock()
    if let listedSettings {
      listingLock.unlock()
      return listedSettings
    }
    listingLock.unlock()
    let listed = SettingsReflection.discover(in: self, keyPrefix: Self.keyPrefix)
    listingLock.lock()
    defer { listingLock.unlock() }
    if let listedSettings { return listedSettings }
    listedSettings = listed
    return listed
  }

  /// The current value of every setting, by key, as property lists.
  ///
  /// Optional settings that read `nil` and secret settings (``Setting/isSecret``) are left out.
  ///
  /// - Returns: A dictionary suitable for export or display.
  public func snapshot() -> [String: PropertyListValue] {
    SettingsReflection.snapshot(of: allSettings)
  }

  /// Removes every setting's stored value, so each shows its default again.
  ///
  /// Keys of the backend that belong to no setting of this model are left alone.
  public func resetAll() {
    for descriptor in allSettings { descriptor.setting.reset() }
  }
}
