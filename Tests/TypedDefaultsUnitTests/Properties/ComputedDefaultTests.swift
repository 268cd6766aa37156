import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// Counts evaluations of a computed default, from any thread.
private final class Counter: Sendable {
  private let count = Locked(0)
  var value: Int { count.withLock { $0 } }
  func next() -> Int {
    count.withLock {
      $0 += 1; return $0
    }
  }
}

private let evaluations = Counter()
private let clock = Locked(Date(timeIntervalSinceReferenceDate: 1_000))

private struct SessionSettings: SettingsGroup {
  @Setting("expiry", default: { clock.withLock { $0 } + 86_400 }) var expiry: Date
  @Setting(default: { evaluations.next() }) var ticket: Int
  @Setting var name = "Guest"
}

/// A default given as a closure is evaluated at read time, on every read that falls back to it.
@Suite(.serialized) struct ComputedDefaultTests {
  @Test(arguments: BackendFactory.all)
  func aComputedDefaultIsEvaluatedOnEachReadThatFallsBackToIt(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withBackend { backend in
      let settings = SessionSettings(backend: backend)
      clock.withLock { $0 = Date(timeIntervalSinceReferenceDate: 1_000) }
      #expect(settings.expiry == Date(timeIntervalSinceReferenceDate: 87_400))
      clock.withLock { $0 = Date(timeIntervalSinceReferenceDate: 2_000) }
      #expect(settings.expiry == Date(timeIntervalSinceReferenceDate: 88_400))
      #expect(!settings.$expiry.hasStoredValue)

      // A stored value wins, and the closure is no longer asked.
      let stored = Date(timeIntervalSinceReferenceDate: 5_000)
      settings.expiry = stored
      clock.withLock { $0 = Date(timeIntervalSinceReferenceDate: 3_000) }
      #expect(settings.expiry == stored)

      // After a reset, the default is computed again.
      settings.$expiry.reset()
      #expect(settings.expiry == Date(timeIntervalSinceReferenceDate: 89_400))
    }
  }

  @Test func theClosureRunsOncePerFallbackReadAndNeverForAStoredValue() {
    let settings = SessionSettings(backend: InMemoryBackend())
    let before = evaluations.value
    _ = settings.ticket
    _ = settings.ticket
    #expect(evaluations.value == before + 2)
    settings.ticket = 42
    _ = settings.ticket
    #expect(evaluations.value == before + 2)
  }

  @Test func aWrongTypedStoredValueFallsBackToTheComputedDefaultWithADiagnostic() throws {
    let backend = InMemoryBackend(["expiry": "tomorrow"])
    clock.withLock { $0 = Date(timeIntervalSinceReferenceDate: 0) }
    let (read, diagnostics) = collectingDiagnostics { SessionSettings(backend: backend).expiry }
    #expect(read == Date(timeIntervalSinceReferenceDate: 86_400))
    #expect(try #require(diagnostics.first).kind == .typeMismatch)
    #expect(backend.value(forKey: "expiry") == "tomorrow")
  }

  @Test func aComputedDefaultHasNoFixedValueToDescribeOrRegister() throws {
    let backend = InMemoryBackend()
    let settings = SessionSettings(backend: backend)
    #expect(settings.$expiry.hasComputedDefault)
    #expect(!settings.$name.hasComputedDefault)
    clock.withLock { $0 = Date(timeIntervalSinceReferenceDate: 10) }
    #expect(settings.$expiry.defaultValue == Date(timeIntervalSinceReferenceDate: 86_410))
    let descriptor = try #require(settings.allSettings.first { $0.key == "expiry" })
    #expect(descriptor.defaultValue == nil)
    #expect(try #require(settings.allSettings.first { $0.key == "name" }).defaultValue == "Guest")
    // Nothing is stored by reading or by taking a snapshot.
    _ = settings.snapshot()
    #expect(backend.value(forKey: "expiry") == nil)
  }
}
