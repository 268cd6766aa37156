import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport
import TypedDefaultsTesting

@testable import TypedDefaults

#if canImport(Observation)
  import Observation
#endif

/// Probes that try to break issue 17's observation promises under contention (items 6, 7 and
/// 12): racing writers of every kind on every backend, observers registered and cancelled while
/// writes race, re-entrant observers, streams, tracking inside test scopes, diagnostics
/// captures.
///
/// Tests that pass pin a promise not pinned elsewhere.
@Suite(.tags(.breakIt)) struct ObservationRaceTests {
  // MARK: - Helpers

  /// Runs each of `bodies` on its own thread, started together, and waits (polling every 2 ms,
  /// up to 20 s) for all of them to return: `false` if some still run then (a deadlock; their
  /// threads are left blocked).
  func runConcurrently(_ bodies: [@Sendable () -> Void]) async -> Bool {
    let remaining = Locked(bodies.count)
    let start = DispatchGroup()
    start.enter()
    for body in bodies {
      Thread.detachNewThread {
        start.wait()
        body()
        remaining.withLock { $0 -= 1 }
      }
    }
    start.leave()
    for _ in 0..<10_000 {
      if remaining.withLock({ $0 }) == 0 { return true }
      try? await Task.sleep(nanoseconds: 2_000_000)
    }
    return false
  }

  /// Whether `part` is `whole` with some elements left out (same order).
  func isSubsequence<Element: Equatable>(_ part: [Element], of whole: [Element]) -> Bool {
    var index = whole.startIndex
    for element in part {
      guard let found = whole[index...].firstIndex(of: element) else { return false }
      index = found + 1
    }
    return true
  }

  /// Observes `volume` (the earlier observer), then runs three writers (60 distinct values
  /// each, from `round * 10_000`) and, on a fourth thread, `register`; then writes `-round` and
  /// cancels both observations.
  ///
  /// Returns what the earlier observer got.
  func eventsAroundARacingRegistration(
    of settings: ObservedSettings, on backend: any SettingsBackend, round: Int,
    _ register: @escaping @Sendable () -> ObservationToken
  ) async throws -> [Int?] {
    let earlier = Received<Int?>()
    let earlierToken = backend.observe(key: "volume") { earlier.append($0.newValue?.intValue) }
    let laterToken = Locked<ObservationToken?>(nil)
    var bodies: [@Sendable () -> Void] = (0..<3).map { writer in
      { @Sendable in
        for i in 0..<60 { settings.volume = round * 10_000 + writer * 1000 + i }
      }
    }
    bodies.append {
      let token = register()
      laterToken.withLock { $0 = token }
    }
    try #require(await runConcurrently(bodies), "round \(round): deadlocked")
    settings.volume = -round
    earlierToken.cancel()
    laterToken.withLock { $0?.cancel() }
    return earlier.all
  }

  // MARK: - Item 6: every kind of write racing

  /// Sets through two models, imports and resets race on one key: every observer (a typed one,
  /// a raw one, one of every key) gets the same events in the same order, each set value
  /// exactly once, no event repeating the one before it, the last one the stored value.
  @Test(arguments: BackendFactory.observableWithScopedViews)
  func racingSetsImportsAndResetsGiveEveryObserverTheSameEvents(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      let settings = ObservedSettings(backend: backend)
      let second = ObservedSettings(backend: backend)
      for round in 1...5 {
        let observers = VolumeObservers(of: settings, on: backend)
        let (typed, raw, everyKey) = (observers.typed, observers.raw, observers.everyKey)
        let base = round * 10_000
        let perWriter = 25
        let failures = Received<String>()
        let finished = await runConcurrently([
          { for i in 0..<perWriter { settings.volume = base + i } },
          { for i in 0..<perWriter { second.volume = base + 1000 + i } },
          {
            for i in 0..<perWriter {
              let value = PropertyListValue(integerLiteral: Int64(base + 3000 + i))
              do { try settings.importValues(["volume": value]) } catch {
                failures.append("\(error)")
              }
            }
          },
          { for _ in 0..<perWriter { second.resetAll() } },
        ])
        try #require(finished, "round \(round): the writers deadlocked")
        observers.cancel()
        #expect(failures.all == [], "round \(round)")
        let events = raw.all
        #expect(everyKey.all == events, "round \(round): the raw observers disagree")
        #expect(typed.all == events.map { $0 ?? 1 }, "round \(round): typed and raw disagree")
        var setValues: [Int] = []
        for offset in [0, 1000, 3000] {
          setValues += (0..<perWriter).map { base + offset + $0 }
        }
        var counts: [Int: Int] = [:]
        for case let value? in events { counts[value, default: 0] += 1 }
        #expect(
          setValues.filter { counts[$0] != 1 }.map { "\($0): \(counts[$0] ?? 0)" } == [],
          "round \(round): set values not delivered exactly once")
        #expect(
          zip(events, events.dropFirst()).filter { $0 == $1 }.isEmpty,
          "round \(round): an event repeats the one before it")
        #expect(events.last == backend.value(forKey: "volume")?.intValue, "round \(round)")
        #expect(events.last.flatMap { $0 } ?? 1 == settings.volume, "round \(round)")
      }
    }
  }

  /// An `updateValues` (what a migration runs) racing plain sets of the same key: each update
  /// that returns delivers its value once, as each set does.
  ///
  /// (`UserDefaultsBackend.updateValues` on Linux published the keys it changed by reading
  /// them back after the save, so a set landing meanwhile made the update's event carry the
  /// set's value, and the set's event was then dropped as no change.)
  ///
  /// Known issue on `LayeredPlistStore`: its update runs `transform` on a snapshot taken at the
  /// start of the save and, when a set of the key lands during the save, keeps the set's value
  /// in memory without ever making the update's value readable (`saveLocked(updating:)`: "the
  /// updated keys take the saved values, unless this process wrote them again meanwhile"), so
  /// the update returns successfully and no observer ever hears of its value.
  @Test(arguments: BackendFactory.observableWithScopedViews)
  func anUpdateRacingSetsOfItsKeyDeliversItsValueOnce(_ factory: BackendFactory) async throws {
    let savesUnderTheFileLock = factory.name.contains("LayeredPlistStore")
    try await factory.withBackend { backend in
      let settings = ObservedSettings(backend: backend)
      let raw = Received<Int?>()
      let token = backend.observe(key: "volume") { raw.append($0.newValue?.intValue) }
      let failures = Received<String>()
      let finished = await runConcurrently([
        { for i in 0..<25 { settings.volume = 1000 + i } },
        {
          for i in 0..<25 {
            do {
              try SettingsBackends.updateValues(of: backend) { values in
                values["volume"] = PropertyListValue(integerLiteral: Int64(2000 + i))
              }
            } catch { failures.append("\(error)") }
          }
        },
      ])
      try #require(finished, "the writers deadlocked")
      token.cancel()
      #expect(failures.all == [])
      var counts: [Int: Int] = [:]
      for case let value? in raw.all { counts[value, default: 0] += 1 }
      #expect(raw.last == backend.value(forKey: "volume")?.intValue)
      withKnownIssue(
        "an update racing a set of its key is superseded unseen", isIntermittent: true
      ) {
        let notOnce = (0..<25).flatMap { [1000 + $0, 2000 + $0] }.filter { counts[$0] != 1 }
        #expect(notOnce == [], "values not delivered exactly once")
      } when: {
        savesUnderTheFileLock
      }
    }
  }

  /// A `for await` consumer slower than racing writers skips values but never goes back: what
  /// it receives is the callbacks' sequence with some values left out, ending on the last
  /// value written.
  @Test(arguments: BackendFactory.observableWithScopedViews)
  func aStreamUnderRacingWritersGetsTheCallbacksOrderWithSkipsEndingOnTheLastValue(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      let settings = ObservedSettings(backend: backend)
      let callbacks = Received<Int>()
      let token = settings.$volume.observe { callbacks.append($0) }
      let last = 999_999
      let streamed = Received<Int>()
      let consumer = Task {
        for await volume in settings.$volume.changes(initial: true) {
          streamed.append(volume)
          if volume == last { break }
        }
      }
      // The first element (the current value) says observation has started.
      try #require(await eventually("the stream started") { streamed.count > 0 })
      let finished = await runConcurrently(
        (0..<4).map { writer in
          { @Sendable in for i in 0..<100 { settings.volume = 1000 * (writer + 1) + i } }
        })
      try #require(finished, "the writers deadlocked")
      settings.volume = last
      await consumer.value
      token.cancel()
      let seen = streamed.all
      #expect(seen.last == last)
      // The initial value comes first; the rest follow the callbacks' order.
      #expect(seen.first == 1)
      #expect(
        isSubsequence(Array(seen.dropFirst()), of: callbacks.all),
        "stream \(seen) is not in the callbacks' order")
    }
  }

  /// An observer registered with `initial: true` while writers race gets the value current at
  /// registration, then exactly the events an earlier observer got after that value: none
  /// missed, none twice.
  @Test(arguments: BackendFactory.observableWithScopedViews)
  func anObserverRegisteredWhileWritesRaceGetsItsInitialValueThenEveryLaterEvent(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      let settings = ObservedSettings(backend: backend)
      for round in 1...5 {
        try backend.setValue(PropertyListValue(integerLiteral: Int64(round)), forKey: "volume")
        let later = Received<Int?>()
        let all = try await eventsAroundARacingRegistration(
          of: settings, on: backend, round: round
        ) {
          backend.observe(key: "volume", initial: true) { later.append($0.newValue?.intValue) }
        }
        let got = later.all
        try #require(!got.isEmpty, "round \(round): no initial value")
        let initial = got[0]
        let expected: [Int?]
        if initial == .some(round) {
          // No racing writer writes `round`: registered before any of them took effect.
          expected = all
        } else {
          let position = try #require(
            all.firstIndex(of: initial), "round \(round): initial \(String(describing: initial))")
          expected = Array(all[(position + 1)...])
        }
        #expect(Array(got.dropFirst()) == expected, "round \(round)")
      }
    }
  }

  /// Settings on a view and on its base write the same stored key concurrently: an observer of
  /// the view and one of the base get the same values in the same order, each once.
  @Test(arguments: BackendFactory.observable)
  func writesThroughAViewAndItsBaseRacingGiveBothObserversOneOrder(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { base in
      let view = base.scoped(to: "com.example.sdk.")
      let throughView = ObservedSettings(backend: view)
      let throughBase = RacePrefixedSettings(backend: base)
      let viewEvents = Received<Int?>()
      let baseEvents = Received<Int?>()
      let tokens = [
        view.observe(key: "volume") { viewEvents.append($0.newValue?.intValue) },
        base.observe(key: "com.example.sdk.volume") { baseEvents.append($0.newValue?.intValue) },
      ]
      let finished = await runConcurrently([
        { for i in 0..<50 { throughView.volume = 1000 + i } },
        { for i in 0..<50 { throughBase.volume = 2000 + i } },
        { for _ in 0..<50 { throughView.$volume.reset() } },
      ])
      try #require(finished, "the writers deadlocked")
      for token in tokens { token.cancel() }
      #expect(viewEvents.all == baseEvents.all)
      let values = viewEvents.all.compactMap { $0 }
      #expect(values.count == 100)
      #expect(Set(values) == Set((0..<50).flatMap { [1000 + $0, 2000 + $0] }))
      #expect(viewEvents.last == base.value(forKey: "com.example.sdk.volume")?.intValue)
    }
  }

  /// Two `UserDefaultsBackend` instances on one suite, written concurrently: an observer on
  /// each gets every write once, both in the same order.
  @Test func twoBackendsOnOneSuiteRacingGiveTheirObserversOneOrder() async throws {
    let suite = TemporarySuite()
    let first = suite.backend
    let second = UserDefaultsBackend(suiteName: suite.name)
    let firstEvents = Received<Int?>()
    let secondEvents = Received<Int?>()
    let tokens = [
      first.observe(key: "volume") { firstEvents.append($0.newValue?.intValue) },
      second.observe(key: "volume") { secondEvents.append($0.newValue?.intValue) },
    ]
    let one = ObservedSettings(backend: first)
    let other = ObservedSettings(backend: second)
    let finished = await runConcurrently([
      { for i in 0..<50 { one.volume = 1000 + i } },
      { for i in 0..<50 { other.volume = 2000 + i } },
    ])
    try #require(finished, "the writers deadlocked")
    for token in tokens { token.cancel() }
    #expect(firstEvents.all == secondEvents.all)
    #expect(firstEvents.count == 100)
    #expect(firstEvents.last == second.value(forKey: "volume")?.intValue)
    withExtendedLifetime(suite) {}
  }

  /// Cancelling a `for await` consumer while writers race ends its loop: the task finishes
  /// (bounded wait), the writers too.
  @Test(arguments: BackendFactory.observable)
  func cancellingAStreamConsumerWhileWritersRaceEndsItsLoop(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      let settings = ObservedSettings(backend: backend)
      let streamed = Received<Int>()
      let consumer = Task {
        for await volume in settings.$volume.changes(initial: true) { streamed.append(volume) }
      }
      try #require(await eventually("the stream started") { streamed.count > 0 })
      let writers = Task {
        await runConcurrently(
          (0..<3).map { writer in
            { @Sendable in for i in 0..<200 { settings.volume = writer * 1000 + i + 2 } }
          })
      }
      try #require(await eventually("the stream got a racing write") { streamed.count > 1 })
      consumer.cancel()
      let ended = Locked(false)
      Task {
        await consumer.value
        ended.withLock { $0 = true }
      }
      #expect(await eventually("the cancelled consumer's loop ended") { ended.withLock { $0 } })
      #expect(await writers.value, "the writers deadlocked")
      #expect(await eventually("the stream's observer went") { observerCount(backend) == 0 })
    }
  }

  /// An observer of every key registered while writers race gets exactly the events an earlier
  /// observer got from some point on: a tail of them, none missed after its first, none twice.
  @Test(arguments: BackendFactory.observableWithScopedViews)
  func anObserverOfEveryKeyRegisteredWhileWritesRaceGetsATailOfTheEvents(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      let settings = ObservedSettings(backend: backend)
      for round in 1...5 {
        let later = Received<Int?>()
        let all = try await eventsAroundARacingRegistration(
          of: settings, on: backend, round: round
        ) {
          backend.observeAllKeys { change in
            if change.key == "volume" { later.append(change.newValue?.intValue) }
          }
        }
        #expect(later.last == -round)
        #expect(later.all == Array(all.suffix(later.count)), "round \(round)")
      }
    }
  }

  // MARK: - Re-entrancy and cancellation under contention

  /// An observer clamping the value (writing 100 back when it sees more) while four writers
  /// race: nothing deadlocks, the key ends clamped, and another observer ends on the stored
  /// value.
  @Test(arguments: BackendFactory.observableWithScopedViews)
  func aClampingObserverUnderRacingWritersEndsClampedWithoutDeadlock(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      let settings = ObservedSettings(backend: backend)
      let clamp = settings.$volume.observe { volume in
        if volume > 100 { settings.volume = 100 }
      }
      let watcher = Received<Int?>()
      let watch = backend.observe(key: "volume") { watcher.append($0.newValue?.intValue) }
      let finished = await runConcurrently(
        (0..<4).map { writer in
          { @Sendable in for i in 0..<50 { settings.volume = writer * 50 + i } }
        })
      try #require(finished, "the clamp deadlocked with the writers")
      #expect(settings.volume <= 100)
      #expect(watcher.last == backend.value(forKey: "volume")?.intValue)
      clamp.cancel()
      watch.cancel()
    }
  }

  /// Cancelling an observer from another thread while writers keep delivering to it: once
  /// `cancel()` returns, no callback starts.
  @Test(arguments: BackendFactory.observableWithScopedViews)
  func noCallbackStartsOnceCancelReturnsWhileWritersDeliver(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      let settings = ObservedSettings(backend: backend)
      let cancelReturned = Locked(false)
      let lateCallbacks = Locked(0)
      let delivered = Locked(0)
      let token = backend.observe(key: "volume") { _ in
        if cancelReturned.withLock({ $0 }) { lateCallbacks.withLock { $0 += 1 } }
        delivered.withLock { $0 += 1 }
      }
      var bodies: [@Sendable () -> Void] = (0..<3).map { writer in
        { @Sendable in for i in 0..<200 { settings.volume = writer * 1000 + i + 2 } }
      }
      bodies.append {
        while delivered.withLock({ $0 }) < 20 {}
        token.cancel()
        cancelReturned.withLock { $0 = true }
      }
      try #require(await runConcurrently(bodies), "cancel deadlocked with the deliveries")
      #expect(lateCallbacks.withLock { $0 } == 0)
    }
  }

  /// Two observers of one key each cancel themselves from their own callback while writers
  /// race, and a third registers meanwhile: nothing deadlocks, the third ends on the stored
  /// value.
  @Test(arguments: BackendFactory.observableWithScopedViews)
  func observersCancellingThemselvesWhileWritesRaceDoNotDeadlock(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      let settings = ObservedSettings(backend: backend)
      let tokens = Locked<[ObservationToken]>([])
      for _ in 0..<2 {
        let own = Locked<ObservationToken?>(nil)
        let token = backend.observe(key: "volume") { _ in own.withLock { $0 }?.cancel() }
        own.withLock { $0 = token }
        tokens.withLock { $0.append(token) }
      }
      let third = Received<Int>()
      var bodies: [@Sendable () -> Void] = (0..<3).map { writer in
        { @Sendable in for i in 0..<100 { settings.volume = writer * 1000 + i + 2 } }
      }
      bodies.append {
        let token = settings.$volume.observe { third.append($0) }
        tokens.withLock { $0.append(token) }
      }
      try #require(await runConcurrently(bodies), "deadlocked")
      settings.volume = 999_999
      #expect(third.last == 999_999)
      for token in tokens.withLock({ $0 }) { token.cancel() }
    }
  }

  // MARK: - Item 7: tracking inside test scopes

  #if canImport(Observation)
    /// Tracking inside a nested scope follows the inner scope's backend: a write in the outer
    /// scope's backend doesn't fire it, one in the inner's fires it once.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test func trackingInANestedScopeFollowsTheInnerBackendOnly() {
      let model = RaceTrackedSettings(backend: InMemoryBackend())
      let outer = InMemoryBackend(name: "outer")
      let inner = InMemoryBackend(name: "inner")
      let calls = Received<Int>()
      SettingsTesting.withBackend(outer) {
        SettingsTesting.withBackend(inner) {
          _ = withObservationTracking {
            model.volume
          } onChange: {
            calls.append(1)
          }
        }
        model.volume = 5  // the outer scope's backend
        #expect(calls.all == [])
        SettingsTesting.withBackend(inner) { model.volume = 6 }
        model.volume = 7
      }
      #expect(calls.all == [1])
      #expect(inner.value(forKey: "volume") == 6)
    }

    /// Tracking a setting read through a test's backend fires for every kind of test backend:
    /// a user-written one, a scoped view, a `UserDefaultsBackend` suite.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test func trackingInsideAScopeFiresOnAUserWrittenAViewAndASuite() throws {
      // A `TemporarySuite`, not `removePersistentDomain(forName:)`: that has corelibs rewrite
      // every suite the process changed, in place, from its copy, which lags the backends' own
      // values, so that the racing tests beside this one took back an older value.
      let suite = TemporarySuite()
      let backends: [any SettingsBackend] = [
        PlainBackend(), InMemoryBackend().scoped(to: "com.example.sdk."),
        PlainBackend().scoped(to: "p."), UserDefaultsBackend(suiteName: suite.name),
      ]
      let model = RaceTrackedSettings(backend: InMemoryBackend())
      for backend in backends {
        let calls = Received<Int>()
        SettingsTesting.withBackend(backend) {
          _ = withObservationTracking {
            model.volume
          } onChange: {
            calls.append(1)
          }
          model.volume = 3
        }
        #expect(calls.all == [1], "\(backend.name)")
        #expect(backend.value(forKey: "volume") == 3, "\(backend.name)")
      }
      withExtendedLifetime(suite) {}
    }

    /// Eight parallel tests share one model, each in its own scope: each tracker fires once,
    /// for its own test's write, and never for another's.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test func parallelScopesTrackingOneSharedModelEachFireOnceForTheirOwnWrite() async {
      let model = RaceTrackedSettings(backend: InMemoryBackend())
      let counts = await withTaskGroup(of: Int.self) { group in
        for index in 0..<8 {
          group.addTask {
            let calls = Received<Int>()
            let backend = InMemoryBackend(name: "test \(index)")
            await SettingsTesting.withBackend(backend) {
              _ = withObservationTracking {
                model.volume
              } onChange: {
                calls.append(index)
              }
              await Task.yield()
              model.volume = 100 + index
              await Task.yield()
            }
            return calls.all == [index] ? 1 : 0
          }
        }
        return await group.reduce(0, +)
      }
      #expect(counts == 8)
    }
  #endif

  // MARK: - Item 12: diagnostics captures

  /// A problem is reported once per capture: a nested capture (another test's scope, reading
  /// another wrong value of the same shared setting meanwhile) doesn't make the outer capture
  /// see its own unchanged wrong value a second time.
  @Test func aNestedCaptureDoesNotMakeTheOuterSeeItsMismatchTwice() {
    let backend = InMemoryBackend(["count": "many"], name: "outer")
    var inner: [SettingsDiagnostic] = []
    let outer = SettingsDiagnostics.withCapture {
      SettingsTesting.withBackend(backend) {
        #expect(RaceCapturedSettings.shared.count == 0)
        inner = SettingsDiagnostics.withCapture {
          SettingsTesting.withBackend(InMemoryBackend(["count": "few"], name: "inner")) {
            #expect(RaceCapturedSettings.shared.count == 0)
          }
        }
        #expect(RaceCapturedSettings.shared.count == 0)  // the same wrong value, read again
      }
    }
    #expect(inner.map(\.backend) == ["inner"])
    #expect(outer.map(\.backend) == ["outer"])
  }

  /// Inside one capture a wrong value is reported again once it changed: `x`, `y`, then `x`
  /// again give three reports; reading an unchanged one again gives none.
  @Test func aCaptureSeesAWrongValueAgainOnceItChanged() throws {
    let backend = InMemoryBackend(["count": "x"], name: "changing")
    let diagnostics = SettingsDiagnostics.withCapture {
      SettingsTesting.withBackend(backend) {
        _ = RaceCapturedSettings.shared.count
        _ = RaceCapturedSettings.shared.count
        try? backend.setValue("y", forKey: "count")
        _ = RaceCapturedSettings.shared.count
        try? backend.setValue("x", forKey: "count")
        _ = RaceCapturedSettings.shared.count
      }
    }
    #expect(diagnostics.map(\.storedValue) == ["x", "y", "x"])
  }

  /// A capture sees the reports of the child tasks of its task group, and parallel captures
  /// each see their own.
  @Test func parallelCapturesEachSeeTheirChildTasksReports() async {
    let results = await withTaskGroup(of: [String].self) { group in
      for index in 0..<6 {
        group.addTask {
          let diagnostics = await SettingsDiagnostics.withCapture {
            await withTaskGroup(of: Void.self) { children in
              for child in 0..<2 {
                children.addTask {
                  let backend = InMemoryBackend(
                    ["count": .string("many \(child)")], name: "\(index).\(child)")
                  SettingsTesting.withBackend(backend) {
                    _ = RaceCapturedSettings.shared.count
                  }
                }
              }
            }
          }
          return diagnostics.map(\.backend).sorted()
        }
      }
      return await group.reduce(into: [[String]]()) { $0.append($1) }
    }
    #expect(results.count == 6)
    for result in results {
      let index = result.first?.split(separator: ".").first.map(String.init) ?? "?"
      #expect(result == ["\(index).0", "\(index).1"])
    }
  }
}

#if canImport(Observation)
  /// A model of the tracking probes, on a backend of each test's choosing.
  // @unchecked Sendable: its stored properties are `@Setting`s (see SettingsModel).
  private final class RaceTrackedSettings: SettingsModel, @unchecked Sendable {
    @Setting var volume = 1
  }
#endif

/// A model writing the key a view scoped to `com.example.sdk.` shows as `volume`.
// @unchecked Sendable: its stored properties are `@Setting`s (see SettingsModel).
private final class RacePrefixedSettings: SettingsModel, @unchecked Sendable {
  @Setting("com.example.sdk.volume") var volume = 1
}

/// An app's model shared by the capture probes.
// @unchecked Sendable: its stored properties are `@Setting`s (see SettingsModel).
private final class RaceCapturedSettings: SettingsModel, @unchecked Sendable {
  @Setting var count = 0
  static let shared = RaceCapturedSettings(backend: InMemoryBackend(name: "the app's own"))
}
