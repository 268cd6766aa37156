import Testing

/// The test campaigns, as tags on their suites, so that the tests of an area are found by the
/// area's name and a campaign's tests by its tag (in Xcode's test navigator, or in the
/// `--experimental-event-stream-output` records). On Swift 6.3 on Linux, `swift test --filter`
/// and `--skip` match test names, not tags: CI selects by target (see `.ci/run`).
extension Tag {
  /// What a store promises across restarts and processes: next-launch writes, autosave, several
  /// processes on one file, kills in the middle of a save.
  @Tag package static var durability: Self

  /// The faults a real disk and a real user produce: read-only, missing or replaced folders,
  /// planted links, a full disk, a process killed at random moments.
  @Tag package static var fault: Self

  /// Bugs found in the field or by a campaign, one test each, named after the behaviour it pins.
  @Tag package static var regression: Self

  /// Probes that try to break a promise: the tests that pass pin a guarantee not pinned elsewhere.
  @Tag package static var breakIt: Self
}
