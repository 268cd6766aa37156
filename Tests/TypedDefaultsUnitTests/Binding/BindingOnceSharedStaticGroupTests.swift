import Foundation
import Testing
import TypedDefaultsTestSupport

// The hole in the bind-once check (Validation/SettingsValidation+BindingOnce.swift:33-37): a
// setting whose binding is a group type's is let through to a model that nests that group type,
// to allow `playback = PlaybackSettings(backend: backend)` in the model's init. The same test
// lets through the group every doc shows, `static let shared = PlayerSettings(backend: …)`, when
// it is the initial value of one model's property (`var player = PlayerSettings.shared`): the
// shared group's setting, already read and written on its own backend, silently moves to the
// model's backend and key, which is what the check was added to stop (and, with a reader of
// `shared` on another thread, the race on the storage's unchecked fields). Design.md names it
// ("It can't tell a global group created with init(backend:) and nested in exactly one model
// from the legitimate case"); no user-facing doc warns of it.

@Suite(.tags(.breakIt)) struct BindingOnceSharedStaticGroupTests {
  /// Either outcome is a fix: the program stops naming the setting, or the shared group keeps
  /// its key and backend (the model then has a setting of its own, or refuses the group).
  @Test func aSharedStaticGroupNestedInOneModelKeepsItsKeyAndBackendOrStopsTheProgram() throws {
    let probe = TestPaths.productsDirectory.appendingPathComponent("SettingsProbe")
    let run = try runExecutable(probe, ["programmer-error", "static-group-nested"])
    let standardOutput = String(decoding: run.standardOutput, as: UTF8.self)
    let standardError = String(decoding: run.standardError, as: UTF8.self)
    if run.status == 0 {
      #expect(
        standardOutput.hasPrefix("volume shared 0.7"), "the shared group now: \(standardOutput)")
    } else {
      #expect(standardError.contains("is already bound"), "\(standardError.prefix(600))")
    }
  }
}
