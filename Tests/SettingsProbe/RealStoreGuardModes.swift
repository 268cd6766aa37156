// SettingsProbe refuse-real-writes <real folder> <temporary folder>
//   Turns on the guard `SettingsTesting.refuseWritesToRealStores()` turns on (printing each
//   refusal as "issue: <message>", where a test would record an issue), then writes a store in
//   the real folder (refused), in the temporary folder (allowed), a model's setting on the real
//   store (refused, through the property setter), the same inside an isolation scope (allowed),
//   and on Linux a UserDefaults suite (refused; `XDG_CONFIG_HOME` should be the real folder).
//   Every kind of write is tried: a value set, a removal (refused with a diagnostic, as it can't
//   throw), an update, a next-launch write, a save.

import Foundation
import TypedDefaults
import TypedDefaultsLayers

private struct GuardedSettings: SettingsGroup {
  @Setting var volume = 0.5
}

/// Runs the `refuse-real-writes` mode; `false` for other arguments.
func runRealStoreGuardMode(_ arguments: [String]) -> Bool {
  guard arguments.first == "refuse-real-writes", arguments.count == 3 else { return false }
  RealStoreGuard.turnOn { message in print("issue: \(message)") }
  SettingsDiagnostics.handler = { print("diagnostic: \($0.kind)") }
  func attempt(_ label: String, _ body: () throws(SettingsError) -> Void) {
    do throws(SettingsError) {
      try body()
      print("\(label): written")
    } catch {
      print("\(label): \(error.code)")
    }
  }
  do {
    let real = try LayeredPlistStore(
      persistentFile: URL(fileURLWithPath: arguments[1]).appendingPathComponent("data.plist"),
      options: .init(savesAtExit: false))
    attempt("real setValue") { () throws(SettingsError) in try real.setValue(1, forKey: "k") }
    attempt("real save") { () throws(SettingsError) in try real.save() }
    real.removeValue(forKey: "k")
    print("real removeValue: returned")
    attempt("real update") { () throws(SettingsError) in try real.update(forKey: "k") { _ in 1 } }
    attempt("real setValueForNextLaunch") { () throws(SettingsError) in
      try real.setValueForNextLaunch(1, forKey: "k")
    }
    let model = GuardedSettings(backend: real)
    model.volume = 2
    print("real model reads \(model.volume)")
    BackendOverride.withBackend(InMemoryBackend()) {
      model.volume = 3
      print("isolated model reads \(model.volume)")
    }
    let temporary = try LayeredPlistStore(
      persistentFile: URL(fileURLWithPath: arguments[2]).appendingPathComponent("data.plist"),
      options: .init(savesAtExit: false))
    attempt("temporary setValue") { () throws(SettingsError) in
      try temporary.setValue(1, forKey: "k")
    }
    attempt("temporary save") { () throws(SettingsError) in try temporary.save() }
    #if !canImport(Darwin)
      let suite = UserDefaultsBackend(suiteName: "TypedDefaultsTests.guard")
      attempt("suite setValue") { () throws(SettingsError) in try suite.setValue(1, forKey: "k") }
      suite.removeValue(forKey: "k")
      print("suite removeValue: returned")
      attempt("suite update") { () throws(SettingsError) in
        try suite.update(forKey: "k") { _ in 1 }
      }
    #endif
  } catch {
    fail("\(error)")
  }
  return true
}
