import Foundation
import Testing
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsTesting

/// A source of feature flags written as a user writes one: through the public `LayerSource`
/// protocol only (no package symbols), checked with `LayerSourceConformance`.
final class FeatureFlagsSource: LayerSource {
  let layer: LayeredPlistStore.Layer = "flags"
  private let flags: NSLock = NSLock()
  // nonisolated(unsafe): only touched while `flags` is held.
  nonisolated(unsafe) private var values: [String: PropertyListValue]
  nonisolated(unsafe) private var reporter: LayerSourceReporter?

  init(_ values: [String: PropertyListValue]) {
    self.values = values
  }

  func read() throws(SettingsError) -> LayerContents {
    LayerContents(values: flags.withLock { values })
  }

  func startWatching(reportingTo reporter: LayerSourceReporter) {
    flags.withLock { self.reporter = reporter }
  }

  func stopWatching() {
    flags.withLock { reporter = nil }
  }

  /// What the app's fetcher calls with the flags it fetched.
  func apply(_ new: [String: PropertyListValue]) {
    let (reporter, changed) = flags.withLock { () -> (LayerSourceReporter?, Set<String>) in
      let changed = Set(values.keys).union(new.keys).filter { values[$0] != new[$0] }
      values = new
      return (self.reporter, changed)
    }
    reporter?.reportChanges(forKeys: changed)
  }
}

@Suite struct UserWrittenSourceTests {
  /// The checks that need no store pass on every branch; the store-level ones need the layered
  /// store (`init(persistentFile:layers:options:)`).
  @Test(arguments: LayerSourceConformance.checks)
  func aUserWrittenSourcePassesTheConformanceSuite(_ check: LayerSourceConformance.Check) async {
    await check.run(makeSource: { FeatureFlagsSource($0) }, change: { $0.apply($1) })
  }

  @Test func aCheckNeedingChangesPassesWithoutRunningWhenTheSourceCantChange() async {
    let check = LayerSourceConformance.checks.first { $0.name == "aChangeIsReportedToTheReporter" }
    #expect(check?.needsChange == true)
    let failures = await check?.run(makeSource: { FeatureFlagsSource($0) })
    #expect(failures == [])
  }
}
