import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

// Design.md ('Backend abilities') and commit dfe195b say the Linux suite file's save, run
// alongside racing writes, "can put back an older value of a key written meanwhile", and left it
// to the engine's rewrite; UserDefaultsBackend was kept out of SavingBackend so that imports
// don't trigger it. But `save()` and `synchronize()` are public, and the debounced flush runs the
// same save: a user saving on a timer while another thread writes must never see an older value
// come back. One writer writes 1…N in order while another thread saves: the observer must see
// the values in increasing order, and the key must read N at the end.

@Suite(.tags(.breakIt)) struct UserDefaultsSaveRaceTests {
  #if !canImport(Darwin)
    @Test func explicitSavesRacingOneWriterNeverBringBackAnOlderValue() throws {
      let suite = TemporarySuite()
      let backend = suite.backend
      let seen = Received<Int?>()
      let token = backend.observe(key: "volume") { seen.append($0.newValue?.intValue) }
      let count = 400
      let done = Locked(false)
      let saver = Thread {
        while !done.withLock({ $0 }) { try? backend.save() }
      }
      saver.start()
      for value in 1...count {
        try backend.setValue(.integer(.init(Int64(value))), forKey: "volume")
      }
      done.withLock { $0 = true }
      try backend.save()
      withExtendedLifetime(token) {}
      let events = seen.all.compactMap { $0 }
      let backwards = zip(events, events.dropFirst()).filter { $0 >= $1 }
      #expect(backwards.isEmpty, "values delivered out of order: \(backwards.prefix(5))")
      #expect(backend.value(forKey: "volume")?.intValue == count)
      #expect(events.last == count)
    }
  #endif
}
