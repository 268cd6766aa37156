import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// Handlers kept behind a lock are reached the same way however often they are used: a function
/// held as a bare `Locked` state was wrapped in one more thunk on every access, so that the
/// 30,000th diagnostic (or a layer source's 30,000th report) overflowed the stack (found by a
/// newcomer's 60,000 refused assignments, issue 22).
@Suite struct HandlerBuildUpTests {
  @Test func theProcessWideHandlerReadAHundredThousandTimesIsStillOneCallDeep() {
    var handler = SettingsDiagnostics.handler
    for _ in 0..<100_000 { handler = SettingsDiagnostics.handler }
    // One line on standard error (the process-wide handler), through the handler read last.
    handler(
      SettingsDiagnostic(
        kind: .writeFailed, key: nil, backend: "HandlerBuildUpTests",
        message: "expected: one diagnostic after 100,000 reads of the handler"))
  }

  @Test func aLayerSourceReporterForwardsAHundredThousandReports() {
    let count = Locked(0)
    let reporter = LayerSourceReporter { _ in count.withLock { $0 += 1 } }
    for _ in 0..<100_000 { reporter.reportChanges() }
    #expect(count.withLock { $0 } == 100_000)
    reporter.disconnect()
    reporter.reportChanges(forKeys: ["k"])
    #expect(count.withLock { $0 } == 100_000)
  }

  @Test func refusedAssignmentsReportedSixtyThousandTimesInAScopeStayCheap() {
    struct Counter: SettingsGroup {
      @Setting(in: 0...10) var count = 3
    }
    let counter = Counter(backend: InMemoryBackend())
    let (_, diagnostics) = collectingDiagnostics {
      for _ in 0..<60_000 { counter.count = 100 }
    }
    #expect(diagnostics.count == 60_000)
    #expect(counter.count == 3)
  }
}
