// Migration modes of SettingsProbe (see main.swift for the others):
//
//   SettingsProbe <layered|userdefaults> <location> migrate-count go  (runs ProbeCounterSettings'
//     migrations, three steps that each add 1 to "counter", and prints the number of steps this
//     process applied)

import Foundation
import TypedDefaults

/// A model whose migration steps are not idempotent: applying one twice would show in `counter`.
struct ProbeCounterSettings: SettingsGroup, MigratableSettings {
  @Setting var counter = 0

  static let migrations = SettingsMigrations(
    versionKey: "probe.schemaVersion",
    steps: Array(repeating: increment, count: 3))

  static let increment = SettingsMigration.transformValue(forKey: "counter") { old in
    .integer(.init(Int64((old.intValue ?? 0) + 1)))
  }
}

/// Runs a migration mode; returns whether `command` named one.
func runMigrationMode(_ command: String, _ backend: any SettingsBackend) throws -> Bool {
  guard command == "migrate-count" else { return false }
  let outcome = try ProbeCounterSettings.migrate(backend)
  print(outcome.appliedSteps)
  return true
}
