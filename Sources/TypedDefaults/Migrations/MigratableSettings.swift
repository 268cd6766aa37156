/// A model (a ``SettingsModel`` subclass or a ``SettingsGroup``) that declares migrations: the
/// steps that bring values stored by its earlier versions to the current one.
///
/// ```swift
/// struct TextSettings: SettingsGroup, MigratableSettings {
///   @Setting("text.fontSize", default: 12) var fontSize: Int
///
///   static let migrations = SettingsMigrations(versionKey: "text.schemaVersion", steps: [
///     .renameKey("fontSize", to: "text.fontSize")   // version 1 stored it under "fontSize"
///   ])
/// }
///
/// try TextSettings.migrate(backend)       // at launch, before the model's values are read
/// let text = TextSettings(backend: backend)
/// ```
///
/// Migrations don't run by themselves: call ``migrate(_:)`` (or ``SettingsModel``'s
/// `migrate()`) once at launch, in every process that uses the backend, before reading. See
/// ``SettingsMigrations/run(on:)`` for what a run guarantees.
///
/// A class declares the conformance on the subclass that declares the migrations
/// (`final class AppSettings: SettingsModel, MigratableSettings, @unchecked Sendable`).
public protocol MigratableSettings: SettingsContainer {
  /// The model's migrations, oldest step first.
  static var migrations: SettingsMigrations { get }
}

extension MigratableSettings {
  /// Runs the model's pending migrations on a backend (see ``SettingsMigrations/run(on:)``).
  ///
  /// - Parameter backend: The backend to migrate: the one the model is created with.
  /// - Returns: What the run did.
  /// - Throws: What ``SettingsMigrations/run(on:)`` throws.
  @discardableResult
  public static func migrate(
    _ backend: any SettingsBackend
  ) throws(SettingsError) -> SettingsMigrations.Outcome {
    try migrations.run(on: backend)
  }
}

extension MigratableSettings where Self: SettingsModel {
  /// Runs the model's pending migrations on its backend (see ``SettingsMigrations/run(on:)``);
  /// inside a test's scope (`SettingsTesting.withBackend`), on the test's backend, as the
  /// model's settings are.
  ///
  /// - Returns: What the run did.
  /// - Throws: What ``SettingsMigrations/run(on:)`` throws.
  @discardableResult
  public func migrate() throws(SettingsError) -> SettingsMigrations.Outcome {
    // Inside a test's scope (`SettingsTesting.withBackend`), the test's backend.
    try Self.migrations.run(on: BackendOverride.backend(for: backend))
  }
}
