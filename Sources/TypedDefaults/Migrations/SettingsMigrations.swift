/// A model's migrations: the ordered steps that bring stored values from each earlier version of
/// the model to the current one, and the key that records how far a backend has come.
///
/// The schema version is the number of steps applied: a backend at version 2 has had the first
/// two steps, and the current version is `steps.count`. So steps are only ever appended: never
/// reorder, change or remove a released step (a step that is no longer wanted stays in the list,
/// or becomes a step that does nothing).
///
/// See ``MigratableSettings`` for declaring them on a model and <doc:SchemaMigrations> for the
/// rules.
public struct SettingsMigrations: Sendable {
  /// The key the schema version is stored under, as an integer: for example
  /// `com.example.player.schemaVersion`.
  ///
  /// Give each model on a backend its own.
  public let versionKey: String
  /// The steps, oldest first.
  public let steps: [SettingsMigration]

  /// Creates a model's migrations.
  ///
  /// - Parameters:
  ///   - versionKey: The key to record the schema version under.
  ///   - steps: The steps, oldest first.
  public init(versionKey: String, steps: [SettingsMigration]) {
    self.versionKey = versionKey
    self.steps = steps
  }

  /// The version a backend is at once every step ran: the number of steps.
  public var currentVersion: Int { steps.count }

  /// What one run of the migrations did.
  public struct Outcome: Sendable, Hashable {
    /// The schema version the backend was at when the run started (0 for none recorded).
    public let previousVersion: Int
    /// The schema version the backend is at now: ``SettingsMigrations/currentVersion``, or a
    /// later one recorded by a newer version of the model (which is never lowered).
    public let version: Int
    /// The number of steps this run applied; 0 when the backend was up to date, or when another
    /// process applied them first.
    public let appliedSteps: Int
  }

  /// Runs the steps the backend hasn't had yet, in order, each recorded as it completes.
  ///
  /// Each step runs as one atomic update of the backend, its
  /// ``MultiKeyUpdatingBackend/updateValues(_:)`` (the library's backends, a ``ScopedBackend``
  /// view of one, and any backend you write that adopts it), which reads the version, applies the
  /// step only if the version is still below it, and stores the step's changes together with the
  /// new version. So:
  ///
  /// - Running again is a no-op: a backend at ``currentVersion`` (or later) is not touched.
  /// - A step that throws stops the run; the earlier steps stay applied and recorded, the
  ///   failing step's changes are not stored, and the next run starts at that step.
  /// - Processes running the same migrations on one `LayeredPlistStore` file (or, on Linux,
  ///   one `UserDefaultsBackend` suite) each take the file lock per step, so a step is applied
  ///   once, whoever gets there first. On Apple platforms `UserDefaults` offers no lock between
  ///   processes: run migrations from one process (the app, not its extensions).
  /// - A version above ``currentVersion`` (written by a newer version of the app) is left as it
  ///   is, and no step runs.
  ///
  /// On a `LayeredPlistStore` each applied step saves `data.plist` (its update saves). On a
  /// backend that doesn't adopt ``MultiKeyUpdatingBackend``, a step reads the values, applies
  /// the step and writes the differences, with nothing held between: run migrations there from
  /// one thread of one process.
  ///
  /// - Parameter backend: The backend to migrate.
  /// - Returns: What the run did.
  /// - Throws: ``SettingsError/Code/migrationFailed`` naming the step and its error if a step
  ///   throws, or if the version key holds something other than an integer (nothing runs then);
  ///   what the backend's update throws (a value it can't store, a save that fails).
  @discardableResult
  public func run(on backend: any SettingsBackend) throws(SettingsError) -> Outcome {
    let known = try version(in: backend.value(forKey: versionKey))
    guard known < currentVersion else {
      return Outcome(previousVersion: known, version: known, appliedSteps: 0)
    }
    var applied = 0
    var previous: Int?
    var reached = known
    // Versions only grow, so the steps below the version read here are done.
    for index in known..<steps.count {
      let step = steps[index]
      let version = index + 1
      var appliedHere = false
      reached = try SettingsBackends.updateValues(of: backend) {
        values throws(SettingsError) -> Int in
        let current = try self.version(in: values[versionKey])
        if previous == nil { previous = current }
        guard current < version else { return current }
        try apply(step, number: version, to: &values)
        values[versionKey] = .integer(.init(Int64(version)))
        appliedHere = true
        return version
      }
      if appliedHere {
        applied += 1
        reportRenamesInReadOnlyLayers(of: step, number: version, on: backend)
      }
    }
    return Outcome(previousVersion: previous ?? known, version: reached, appliedSteps: applied)
  }

  /// Reports each key a step renamed that a read-only layer (``HasReadOnlyLayers``: a
  /// `LayeredPlistStore`'s delivered or bundled file) still holds under its old name only: no
  /// step changes a read-only file, so its value is no longer read (the setting reads the new
  /// key), and the file needs the rename.
  private func reportRenamesInReadOnlyLayers(
    of step: SettingsMigration, number: Int, on backend: any SettingsBackend
  ) {
    let (target, prefix) = backend.baseAndPrefix
    guard let layered = target as? any HasReadOnlyLayers else { return }
    for (old, new) in step.renamedKeys {
      for (layer, path) in layered.readOnlyLayers(holding: prefix + old, without: prefix + new) {
        SettingsDiagnostics.report(
          SettingsDiagnostic(
            kind: .readOnlyKeyNotMigrated, key: prefix + old, backend: layered.name,
            message: "Step \(number) of \(steps.count) (\(step)) can't change the \(layer) file "
              + "'\(path)', which is read-only: its value for '\(prefix + old)' is no "
              + "longer read, since the setting reads '\(prefix + new)'; rename the key in that "
              + "file"))
      }
    }
  }

  /// Applies the steps after `version` to values in memory (an import of an older export).
  func apply(to values: inout [String: PropertyListValue], from version: Int) throws(SettingsError)
  {
    guard version < currentVersion else { return }
    for index in max(version, 0)..<steps.count {
      try apply(steps[index], number: index + 1, to: &values)
    }
  }

  private func apply(
    _ step: SettingsMigration,
    number: Int,
    to values: inout [String: PropertyListValue]
  ) throws(SettingsError) {
    do {
      try step.body(&values)
    } catch {
      throw SettingsError(
        .migrationFailed, key: versionKey,
        reason: "Step \(number) of \(steps.count) (\(step)) failed, and it and the steps after it "
          + "were not applied: \(error)")
    }
  }

  /// The version a stored value records: 0 for none.
  func version(in stored: PropertyListValue?) throws(SettingsError) -> Int {
    guard let stored else { return 0 }
    guard let version = stored.intValue else {
      throw SettingsError(
        .migrationFailed, key: versionKey,
        reason: "The schema version is \(PropertyListFile.article(stored.kind)), not an integer; "
          + "no migration ran")
    }
    guard version >= 0 else {
      throw SettingsError(
        .migrationFailed, key: versionKey,
        reason: "The schema version is \(version), below 0; no migration ran")
    }
    return version
  }
}

extension SettingsDiagnostic.Kind {
  /// A migration step renamed a key that a `LayeredPlistStore`'s delivered or bundled file holds
  /// under its old name: no step changes a read-only file, so that value is no longer read
  /// (``SettingsMigrations/run(on:)``).
  ///
  /// Reported when the step runs.
  public static let readOnlyKeyNotMigrated = SettingsDiagnostic.Kind(
    rawValue: "readOnlyKeyNotMigrated")
}
