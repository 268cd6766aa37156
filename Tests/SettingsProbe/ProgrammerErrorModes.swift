// SettingsProbe programmer-error duplicate-key   (creates a model with two settings under one
//   key: the program must stop, saying which)
// SettingsProbe programmer-error unattached      (reads a group never attached to a backend)
//
// Run by the tests in a debug build; build the probe with `-c release` to see the same messages
// in a release build.

import TypedDefaults

private struct TwoSettingsOneKey: SettingsGroup {
  @Setting("volume") var volume = 0.5
  @Setting("volume") var loudness = 1.0
}

/// Runs a `programmer-error` mode; `false` for other arguments.
func runProgrammerErrorMode(_ arguments: [String]) -> Bool {
  guard arguments.first == "programmer-error", arguments.count == 2 else { return false }
  switch arguments[1] {
  case "duplicate-key":
    let settings = TwoSettingsOneKey(backend: InMemoryBackend())
    print(settings.volume)
  case "unattached":
    print(TwoSettingsOneKey().volume)
  default:
    fail("unknown programmer-error mode '\(arguments[1])'")
  }
  return true
}
