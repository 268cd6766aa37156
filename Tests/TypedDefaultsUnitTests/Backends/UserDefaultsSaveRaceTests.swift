import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

// Design.md ('Backend abilities') and commit dfe195b say the Linux suite file's save, run
// alongside racing writes, "can put back an older value of a key written meanwhile", and left it
// to the engine's rewrite; UserDefaultsBackend was kept out of SavingBackend so that imports
// don't trigger it. But `save()` and `synchronize()` are public, and the debounced flush runs the
// same save: a user saving on a timer while another thread writes must never see an older value
// come back. One writer writes 1…N in order (sets, imports, plain writes) while another thread saves
// and synchronizes: the observer must see
// the values in increasing order, and the key must read N at the end.

private struct RacedVolume: SettingsGroup {
  @Setting var volume = 0
}

@Suite(.tags(.breakIt)) struct UserDefaultsSaveRaceTests {
  #if !canImport(Darwin)
    @Test func explicitSavesRacingOneWriterNeverBringBackAnOlderValue() throws {
      let suite = TemporarySuite()
      let backend = suite.backend
      let seen = Received<Int?>()
      let token = backend.observe(key: "volume") { seen.append($0.newValue?.intValue) }
      let count = 300
      let settings = RacedVolume(backend: backend)
      let done = Locked(false)
      let saver = Thread {
        while !done.withLock({ $0 }) {
          try? backend.save()
          backend.synchronize()
        }
      }
      saver.start()
      for value in 1...count {
        // Every kind of write one model makes: a set, an import, a plain backend write.
        switch value % 3 {
        case 0: settings.volume = value
        case 1: try settings.importValues(["volume": .integer(.init(Int64(value)))])
        default: try backend.setValue(.integer(.init(Int64(value))), forKey: "volume")
        }
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

@Suite(.tags(.breakIt)) struct UserDefaultsSaveRacingWritersTests {
  #if !canImport(Darwin)
    /// Two models setting, one importing, and a thread saving explicitly, on one suite: every
    /// value written is delivered to the observer exactly once (an older value brought back by a
    /// save would be delivered twice), and the last event is the stored value.
    @Test func explicitSavesRacingSetsAndImportsDeliverEachValueOnce() throws {
      let suite = TemporarySuite()
      let backend = suite.backend
      let first = RacedVolume(backend: backend)
      let second = RacedVolume(backend: backend)
      let seen = Received<Int?>()
      let token = backend.observe(key: "volume") { seen.append($0.newValue?.intValue) }
      let perWriter = 60
      let done = Locked(false)
      let saver = Thread {
        while !done.withLock({ $0 }) { try? backend.save() }
      }
      saver.start()
      let writers = DispatchGroup()
      let writes: [@Sendable () -> Void] = [
        { for i in 0..<perWriter { first.volume = 10_000 + i } },
        { for i in 0..<perWriter { second.volume = 20_000 + i } },
        {
          for i in 0..<perWriter {
            _ = try? first.importValues(["volume": .integer(.init(Int64(30_000 + i)))])
          }
        },
      ]
      for write in writes {
        DispatchQueue.global().async(group: writers) { write() }
      }
      writers.wait()
      done.withLock { $0 = true }
      try backend.save()
      withExtendedLifetime(token) {}
      let events = seen.all
      var counts: [Int: Int] = [:]
      for case let value? in events { counts[value, default: 0] += 1 }
      let written = [10_000, 20_000, 30_000].flatMap { base in (0..<perWriter).map { base + $0 } }
      #expect(written.filter { counts[$0] != 1 }.map { "\($0): \(counts[$0] ?? 0)" } == [])
      #expect(events.last.flatMap { $0 } == backend.value(forKey: "volume")?.intValue)
    }
  #endif
}
