// The backend conformance suite (TypedDefaultsTesting) on `UserDefaultsBackend.standard`, which
// is process-wide: a test runs it here, in a child process with its own XDG_CONFIG_HOME.
//
//   SettingsProbe conformance -standard  (runs every check; prints "passed N checks", or each
//     failure on a line of its own and exits 1)

import Foundation
import Testing
import TypedDefaults
import TypedDefaultsTesting

/// Runs the `conformance` mode, then exits; returns if the arguments don't name it.
func runConformanceMode(_ arguments: [String]) {
  guard arguments.first == "conformance" else { return }
  guard arguments.count == 2, arguments[1] == "-standard" else {
    fail("usage: SettingsProbe conformance -standard")
  }
  Task {
    let backend = UserDefaultsBackend.standard
    guard let file = backend.fileURL else { fail("the standard domain has no file here") }
    var failures: [BackendConformance.Failure] = []
    for check in BackendConformance.checks {
      failures += await check.run(
        makeBackend: {
          // Each check starts from an empty standard domain, saved.
          for key in backend.keys { backend.removeValue(forKey: key) }
          try backend.save()
          return backend
        },
        reload: { _ in
          // What the next launch reads: the saved file.
          try backend.save()
          return InMemoryBackend(
            try PropertyListFile(url: file).readDictionary() ?? [:], name: "the saved file")
        })
    }
    for failure in failures { print(failure.description) }
    if failures.isEmpty { print("passed \(BackendConformance.checks.count) checks") }
    exit(failures.isEmpty ? 0 : 1)
  }
  dispatchMain()
}
