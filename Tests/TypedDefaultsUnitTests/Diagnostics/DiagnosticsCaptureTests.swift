import Foundation
import Testing
import TypedDefaultsTestSupport
import TypedDefaultsTesting

@testable import TypedDefaults

/// An app's model, shared by every test in the process, read through each test's backend.
private final class CapturedAppSettings: SettingsModel, @unchecked Sendable {
  @Setting var count = 0
  static let shared = CapturedAppSettings(backend: InMemoryBackend(name: "the app's own"))
}

/// A model whose declaration has a problem the library reports once per process.
private final class CapturedEmptyKeySettings: SettingsModel, @unchecked Sendable {
  @Setting("") var unnamed = 1
}

/// `SettingsDiagnostics.withCapture` (TypedDefaultsTesting): diagnostics checked in tests that
/// run in parallel.
@Suite struct DiagnosticsCaptureTests {
  /// Two test cases running in parallel read the same wrong-typed value through one shared
  /// model, each in its own backend: each captures its own report, once. (The setting reported
  /// a given wrong value once per process, so the second case saw nothing.)
  @Test(arguments: ["first case", "second case"])
  func parallelTestCasesEachCaptureTheirOwnTypeMismatch(_ name: String) {
    let diagnostics = SettingsDiagnostics.withCapture {
      SettingsTesting.withBackend(InMemoryBackend(["count": "many"], name: name)) {
        #expect(CapturedAppSettings.shared.count == 0)
        #expect(CapturedAppSettings.shared.count == 0)  // read again: still one report
      }
    }
    #expect(diagnostics.map(\.kind) == [.typeMismatch])
    #expect(diagnostics.map(\.backend) == [name])
  }

  /// Two test cases running in parallel each create a model whose declaration has a problem
  /// reported once per process: each captures it, once however many instances it creates.
  @Test(arguments: ["first case", "second case"])
  func parallelTestCasesEachCaptureTheirOwnDeclarationProblem(_ name: String) {
    #if DEBUG
      let diagnostics = SettingsDiagnostics.withCapture {
        // Both cases' backends have one name: the problem is the same one in each.
        let backend = InMemoryBackend()
        _ = CapturedEmptyKeySettings(backend: backend)
        _ = CapturedEmptyKeySettings(backend: backend)
        _ = CapturedEmptyKeySettings(backend: InMemoryBackend())
      }
      #expect(diagnostics.map(\.kind) == [.invalidKey])
    #endif
  }

  /// A capture sees what the child tasks of its operation report, and nothing of another
  /// capture's.
  @Test func aCaptureSeesItsChildTasksReportsAndNotAnotherCaptures() async {
    let diagnostics = await SettingsDiagnostics.withCapture {
      await SettingsTesting.withBackend(InMemoryBackend(["count": "lots"])) {
        async let child = CapturedAppSettings.shared.count
        let inner = SettingsDiagnostics.withCapture {
          SettingsTesting.withBackend(InMemoryBackend(["count": "inner"])) {
            _ = CapturedAppSettings.shared.count
          }
        }
        #expect(inner.map(\.storedValue) == ["inner"])
        #expect(await child == 0)
      }
    }
    #expect(diagnostics.map(\.storedValue) == ["lots"])
  }
}
