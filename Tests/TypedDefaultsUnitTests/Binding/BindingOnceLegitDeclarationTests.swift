import Foundation
import Testing
import TypedDefaultsTestSupport

// The bind-once check (Validation/SettingsValidation+BindingOnce.swift) stops the program, so a
// false positive would kill a legitimate program. Each case below declares and creates models the
// way users do, several times over (class models whose group properties have default values,
// struct models copied and re-created, groups nested three deep, a group created with
// init(backend:) nested one and two deep, a subclass chain, a test's backend scope, a generic
// model, many threads at once, the README's models, a view), in the probe's `legit-binding` mode
// (Tests/SettingsProbe/LegitBindingModes.swift): the probe must finish, not stop.

@Suite(.tags(.breakIt)) struct BindingOnceLegitDeclarationTests {
  static let cases = [
    "class-group-default", "struct-model-copies", "nested-three-deep",
    "group-init-backend-nested", "group-init-backend-two-deep", "subclass-chain", "testing-scope",
    "generic-model", "concurrent", "readme-examples", "group-on-view",
  ]

  @Test(arguments: cases)
  func aLegitimateDeclarationCreatedManyTimesIsNotStoppedByTheBindOnceCheck(_ name: String) throws {
    let probe = TestPaths.productsDirectory.appendingPathComponent("SettingsProbe")
    let run = try runExecutable(probe, ["legit-binding", name])
    let standardOutput = String(decoding: run.standardOutput, as: UTF8.self)
    let standardError = String(decoding: run.standardError, as: UTF8.self)
    #expect(run.status == 0, "\(standardError.prefix(600))")
    #expect(standardOutput.hasSuffix("ok \(name)\n"))
    #expect(standardError.isEmpty)
  }
}
