// Modes of SettingsProbe for saving on a termination signal (TerminationTests):
//
//   SettingsProbe terminate <data.plist path> <key> <kind>:<value> [handled]  (opens a store that
//     saves 60 s after a write, writes the value, installs
//     `LayeredPlistStore.saveOnTermination()` if `handled`, prints "ready", then waits to be
//     signalled)

import Foundation
import TypedDefaults
import TypedDefaultsLayers

/// Runs a `terminate` mode; `false` for other arguments.
func runTerminationMode(_ arguments: [String]) -> Bool {
  guard arguments.first == "terminate", arguments.count >= 4 else { return false }
  // As a container starts a process: the signals' default actions, unblocked (the test runner
  // ignores SIGTERM, and its children inherit that).
  var signals = sigset_t()
  sigemptyset(&signals)
  for signalNumber in [SIGTERM, SIGINT] {
    signal(signalNumber, SIG_DFL)
    sigaddset(&signals, signalNumber)
  }
  sigprocmask(SIG_UNBLOCK, &signals, nil)
  let store: LayeredPlistStore
  do {
    store = try LayeredPlistStore(
      persistentFile: URL(fileURLWithPath: arguments[1]),
      options: .init(autosave: .debounced(seconds: 60)))
    try store.setValue(parse(arguments[3]), forKey: arguments[2])
  } catch {
    fail("\(error)")
  }
  if arguments.count > 4, arguments[4] == "handled" { LayeredPlistStore.saveOnTermination() }
  FileHandle.standardOutput.write(Data("ready\n".utf8))
  withExtendedLifetime(store) {
    // Until a signal ends the process (the test kills it after at most a few seconds).
    while true { sleep(60) }
  }
  return true
}
