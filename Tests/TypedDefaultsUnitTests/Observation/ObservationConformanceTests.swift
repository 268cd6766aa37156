import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// The observation guarantees (see ObservingChanges.md), checked on every backend of the library
/// and on one written outside it.
@Suite struct ObservationConformanceTests {
  // MARK: - Which changes are delivered

  @Test(arguments: BackendFactory.observable)
  func observerOfOneKeyGetsNothingForAWriteToAnother(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let received = Received<SettingsChange>()
      let token = backend.observe(key: "a") { received.append($0) }
      try write(1, "b", to: backend)
      remove("b", from: backend)
      #expect(received.all == [])
      try write(2, "a", to: backend)
      #expect(received.all == [SettingsChange(key: "a", newValue: 2)])
      token.cancel()
    }
  }

  @Test(arguments: BackendFactory.observable)
  func oneWriteGivesOneEvent(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let received = Received<SettingsChange>()
      let token = backend.observe(key: "k") { received.append($0) }
      for value in 1...3 { try write(.integer(.init(Int64(value))), "k", to: backend) }
      #expect(received.all.map(\.newValue) == [1, 2, 3])
      token.cancel()
    }
  }

  @Test(arguments: BackendFactory.observable)
  func writingTheValueAKeyAlreadyHoldsGivesNoEvent(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      try write("same", "k", to: backend)
      let received = Received<SettingsChange>()
      let token = backend.observe(key: "k") { received.append($0) }
      try write("same", "k", to: backend)
      #expect(received.all == [])
      try write("new", "k", to: backend)
      try write("new", "k", to: backend)
      #expect(received.all == [SettingsChange(key: "k", newValue: "new")])
      // Removing a key that has no value changes nothing either.
      let missing = Received<SettingsChange>()
      let other = backend.observe(key: "missing") { missing.append($0) }
      remove("missing", from: backend)
      #expect(missing.all == [])
      token.cancel()
      other.cancel()
    }
  }

  @Test(arguments: BackendFactory.observable)
  func removingAKeyGivesOneEventWithTheValueNowSeen(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      try write(5, "k", to: backend)
      let received = Received<SettingsChange>()
      let token = backend.observe(key: "k") { received.append($0) }
      remove("k", from: backend)
      #expect(received.all == [SettingsChange(key: "k", newValue: nil)])

      // A reset through a setting: one event, and the setting's typed observer gets the default.
      let settings = ObservedSettings(backend: backend)
      settings.volume = 7
      let typed = Received<Int>()
      let typedToken = settings.$volume.observe { typed.append($0) }
      settings.$volume.reset()
      #expect(typed.all == [1])
      token.cancel()
      typedToken.cancel()
    }
  }

  @Test func removingAKeyOnALayeredStoreDeliversTheLowerLayersValue() throws {
    let directory = try TemporaryDirectory()
    try PropertyListFile(url: directory.file("Info.plist")).write(.dictionary(["k": "bundled"]))
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), bundledFile: directory.file("Info.plist"))
    try store.setValue("mine", forKey: "k")
    let received = Received<SettingsChange>()
    let token = store.observe(key: "k") { received.append($0) }
    store.removeValue(forKey: "k")
    #expect(received.all == [SettingsChange(key: "k", newValue: "bundled")])
    // A runtime value hides the persistent layer: writing beneath it changes nothing seen.
    try store.setValue("runtime", forKey: "k", in: .runtime)
    try store.setValue("hidden", forKey: "k")
    try store.setValue(nil, forKey: "k", in: .runtime)
    #expect(received.all.map(\.newValue) == ["bundled", "runtime", "hidden"])
    token.cancel()
  }

  // MARK: - Order

  /// H29: four writers each write 1…1,000 to their own key; a consumer of every key never sees a
  /// key's values go backwards and ends on the stored value.
  @Test(arguments: BackendFactory.observable)
  func eventsForOneKeyArriveInWriteOrderAndNeverGoBack(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let received = Received<SettingsChange>()
      let token = backend.observeAllKeys { received.append($0) }
      await withTaskGroup(of: Void.self) { group in
        for writer in 0..<4 {
          group.addTask {
            for value in 1...1000 {
              try? write(.integer(.init(Int64(value))), "w\(writer)", to: backend)
            }
          }
        }
      }
      for writer in 0..<4 {
        let values = received.all.filter { $0.key == "w\(writer)" }.compactMap {
          $0.newValue?.intValue
        }
        #expect(values == values.sorted(), "w\(writer) went backwards")
        #expect(Set(values).count == values.count, "w\(writer) repeated a value")
        #expect(values.last == 1000)
        #expect(backend.value(forKey: "w\(writer)") == 1000)
      }
      token.cancel()
    }
  }

  /// 100 tasks each write a distinct value to one setting, 20 rounds: every write delivers one
  /// event to each observer (a typed one, a raw one and one of every key), and all three get
  /// the same values in the same order (the order the writes took effect), ending on the value
  /// stored.
  ///
  /// Publishing used to read the key's value back, so two racing writes could publish the later
  /// value twice, and the observer dropped the second as no change.
  @Test(arguments: BackendFactory.observableWithScopedViews)
  func concurrentWritesToOneSettingEachDeliverOneEventInWriteOrder(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      let settings = ObservedSettings(backend: backend)
      for round in 1...20 {
        let observers = VolumeObservers(of: settings, on: backend)
        let (typed, raw, everyKey) = (observers.typed, observers.raw, observers.everyKey)
        let values = (1...100).map { round * 1000 + $0 }
        await withTaskGroup(of: Void.self) { group in
          for value in values { group.addTask { settings.volume = value } }
        }
        observers.cancel()
        #expect(typed.count == 100, "round \(round): \(typed.count) events for 100 writes")
        #expect(Set(values).subtracting(typed.all) == [], "round \(round): values never seen")
        #expect(raw.all == typed.all.map { $0 }, "round \(round): the observers disagree")
        #expect(everyKey.all == raw.all, "round \(round): the observers disagree")
        #expect(typed.last == settings.volume, "round \(round)")
      }
    }
  }

  // MARK: - Re-entrancy

  /// An observer that clamps the value it sees terminates with the clamped value stored, runs at
  /// most twice per write, and another observer sees the written value, then the clamped one.
  @Test(arguments: BackendFactory.observable)
  func anObserverWritingItsOwnKeyTerminates(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let clampRuns = Received<PropertyListValue?>()
      let clamp = backend.observe(key: "level") { change in
        clampRuns.append(change.newValue)
        if let level = change.newValue?.intValue, level > 10 {
          try? write(10, "level", to: backend)
        }
      }
      let watcher = Received<PropertyListValue?>()
      let other = backend.observe(key: "level") { watcher.append($0.newValue) }
      try write(15, "level", to: backend)
      #expect(backend.value(forKey: "level") == 10)
      #expect(clampRuns.all == [15, 10])
      #expect(watcher.all == [15, 10])
      clamp.cancel()
      other.cancel()
    }
  }

  // MARK: - Cancellation and lifetime

  @Test(arguments: BackendFactory.observable)
  func cancellingStopsDeliveriesFromAnyThreadAndInsideTheCallback(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      // Inside its own callback.
      let selfCancelling = Received<PropertyListValue?>()
      let box = Locked<ObservationToken?>(nil)
      box.withLock { token in
        token = backend.observe(key: "k") { change in
          selfCancelling.append(change.newValue)
          box.withLock { $0 }?.cancel()
        }
      }
      try write(1, "k", to: backend)
      try write(2, "k", to: backend)
      #expect(selfCancelling.all == [1])

      // From another thread, while writes run; then nothing more arrives.
      let received = Received<PropertyListValue?>()
      let token = backend.observe(key: "k") { received.append($0.newValue) }
      await withTaskGroup(of: Void.self) { group in
        group.addTask {
          for value in 3...200 { try? write(.integer(.init(Int64(value))), "k", to: backend) }
        }
        group.addTask { token.cancel() }
      }
      let countAfterCancel = received.count
      try write(1000, "k", to: backend)
      #expect(received.count == countAfterCancel)
      token.cancel()  // twice is fine
      box.withLock { $0 = nil }
      #expect(observerCount(backend) == 0)
    }
  }

  @Test(arguments: BackendFactory.observable)
  func aReleasedObserverIsFreed(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      final class Owner: Sendable {}
      weak var weakOwner: Owner?
      weak var weakToken: ObservationToken?
      do {
        let owner = Owner()
        weakOwner = owner
        let token = backend.observe(key: "k") { _ in withExtendedLifetime(owner) {} }
        weakToken = token
        try write(1, "k", to: backend)
      }
      #expect(weakToken == nil)
      #expect(weakOwner == nil)
      #expect(observerCount(backend) == 0)
    }
  }

  // MARK: - Keys

  @Test(arguments: BackendFactory.observable)
  func unusualKeysAreObservedLikeAnyKey(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let keys = ["com.example.flag", "@leading", "with space", "Mässig 日本 🎬"]
      let received = Received<SettingsChange>()
      let token = backend.observe(keys: keys) { received.append($0) }
      for key in keys { try write("on", key, to: backend) }
      try write("off", "com.example", to: backend)
      try write("off", "com", to: backend)
      #expect(received.all == keys.map { SettingsChange(key: $0, newValue: "on") })
      token.cancel()
    }
  }

  // MARK: - Registration

  /// H32: registering delivers nothing, unless the current value is asked for: then exactly
  /// [current, next], in that order.
  @Test(arguments: BackendFactory.observable)
  func registeringDeliversNothingUnlessTheCurrentValueIsAskedFor(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      try write(1, "k", to: backend)
      let quiet = Received<PropertyListValue?>()
      let quietToken = backend.observe(key: "k") { quiet.append($0.newValue) }
      #expect(quiet.all == [])
      let withInitial = Received<PropertyListValue?>()
      let initialToken = backend.observe(key: "k", initial: true) {
        withInitial.append($0.newValue)
      }
      let missing = Received<PropertyListValue?>()
      let missingToken = backend.observe(key: "missing", initial: true) {
        missing.append($0.newValue)
      }
      try write(2, "k", to: backend)
      #expect(quiet.all == [2])
      #expect(withInitial.all == [1, 2])
      #expect(missing.all == [nil])
      quietToken.cancel()
      initialToken.cancel()
      missingToken.cancel()
    }
  }

  // MARK: - Concurrency

  /// 8 tasks write 1,000 times each while 4 observers come and go: no crash, and every observer
  /// active throughout saw the final value last.
  @Test(arguments: BackendFactory.observable)
  func concurrentWritersAndObserversComingAndGoing(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let steady = (0..<2).map { _ in Received<PropertyListValue?>() }
      let steadyTokens = steady.map { received in
        backend.observe(key: "shared") { received.append($0.newValue) }
      }
      let everything = Received<SettingsChange>()
      let allKeys = backend.observeAllKeys { everything.append($0) }
      await withTaskGroup(of: Void.self) { group in
        for writer in 0..<8 {
          group.addTask {
            for index in 0..<1000 {
              try? write(.integer(.init(Int64(writer * 1000 + index))), "shared", to: backend)
            }
          }
        }
        for churner in 0..<4 {
          group.addTask {
            for round in 0..<50 {
              let token = backend.observe(key: "shared", initial: round % 2 == 0) { _ in }
              if churner % 2 == 0 { await Task.yield() }
              token.cancel()
            }
          }
        }
      }
      let final = backend.value(forKey: "shared")
      #expect(final != nil)
      for received in steady { #expect(received.last == final) }
      #expect(everything.last == SettingsChange(key: "shared", newValue: final))
      for token in steadyTokens { token.cancel() }
      allKeys.cancel()
      #expect(observerCount(backend) == 0)
    }
  }

  // MARK: - Threads and buffering (H29)

  /// H29: callbacks are `@Sendable` and run on the thread of the write that published them, which
  /// is what the API promises (not the main actor).
  @Test(arguments: BackendFactory.observable)
  func callbacksRunOnTheWritersThread(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let threads = Received<Bool>()
      let writerThread = Locked<pthread_t?>(nil)
      let token = backend.observe(key: "k") { _ in
        threads.append(
          writerThread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } } ?? false)
      }
      let done = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        writerThread.withLock { $0 = pthread_self() }
        try? write(1, "k", to: backend)
        done.signal()
      }
      done.wait()
      await Task.detached {
        writerThread.withLock { $0 = pthread_self() }
        try? write(2, "k", to: backend)
      }.value
      #expect(threads.all == [true, true])
      token.cancel()
    }
  }

  /// H29: a consumer that doesn't keep up holds at most the newest change per key; the last
  /// element is the last value written.
  @Test(arguments: BackendFactory.observable)
  func aSlowStreamConsumerGetsTheNewestValuePerKey(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      var iterator = backend.changes(forKeys: ["k", "done"]).makeAsyncIterator()
      for value in 1...10_000 { try write(.integer(.init(Int64(value))), "k", to: backend) }
      try write(true, "done", to: backend)
      #expect(await iterator.next() == SettingsChange(key: "k", newValue: 10_000))
      #expect(await iterator.next() == SettingsChange(key: "done", newValue: true))
    }
  }

  /// H29: cancelling the consuming task ends the loop and removes the observer.
  @Test(arguments: BackendFactory.observable)
  func cancellingTheConsumingTaskEndsTheStream(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let received = Received<SettingsChange>()
      let consumer = Task {
        for await change in backend.changes(forKey: "k") { received.append(change) }
        return "ended"
      }
      await eventually("the consumer observes", { observerCount(backend) == 1 })
      try write(1, "k", to: backend)
      await eventually("the first change arrives", { received.count == 1 })
      consumer.cancel()
      #expect(await consumer.value == "ended")
      #expect(observerCount(backend) == 0)
      try write(2, "k", to: backend)
      #expect(received.all == [SettingsChange(key: "k", newValue: 1)])
    }
  }

  // MARK: - Reads inside callbacks (H30)

  /// H30: inside the callback every read already sees the new value, and reading another key
  /// doesn't deadlock (callbacks run outside the backend's lock).
  @Test(arguments: BackendFactory.observable)
  func aReadInsideTheCallbackSeesTheNewValue(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let a = ObservedSettings(backend: backend)
      let b = ObservedSettings(backend: backend)
      let seen = Received<[Int]>()
      let token = a.$volume.observe { volume in
        seen.append([
          volume, a.volume, b.volume, backend.value(forKey: "volume")?.intValue ?? -1, a.other,
        ])
      }
      b.volume = 5
      #expect(seen.all == [[5, 5, 5, 5, 0]])
      token.cancel()
      b.volume = 6
      #expect(a.volume == 6)
    }
  }

  // MARK: - The first element (H32)

  /// H32: a sequence created when the value was 1, then iterated after it became 2, starts with
  /// 2: observation starts with iteration, never replaying the value from creation.
  @Test(arguments: BackendFactory.observable)
  func theFirstElementIsTheValueWhenIterationStarts(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let settings = ObservedSettings(backend: backend)
      settings.volume = 1
      let sequence = settings.$volume.changes(initial: true)
      settings.volume = 2
      var iterator = sequence.makeAsyncIterator()
      #expect(await iterator.next() == 2)
      settings.volume = 3
      #expect(await iterator.next() == 3)
    }
  }

  /// H32: without `initial`, no element until the next change.
  @Test(arguments: BackendFactory.observable)
  func withoutInitialNoElementArrivesUntilTheNextChange(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let settings = ObservedSettings(backend: backend)
      settings.volume = 1
      var iterator = settings.$volume.changes().makeAsyncIterator()
      settings.volume = 1  // no change
      settings.other = 9  // another key
      settings.volume = 4
      #expect(await iterator.next() == 4)
    }
  }

  /// H32: reloading a file nobody changed delivers nothing; a reload delivers exactly the keys
  /// whose effective value changed.
  @Test func reloadDeliversExactlyTheKeysWhoseEffectiveValueChanged() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file)
    try store.setValues(["same": 1, "changed": 1, "hidden": 1, "removed": 1])
    try store.setValue("runtime", forKey: "hidden", in: .runtime)
    try store.save()
    let received = Received<SettingsChange>()
    let token = store.observeAllKeys { received.append($0) }
    #expect(try store.reload() == false)
    #expect(received.all == [])

    let other = try LayeredPlistStore(persistentFile: file)
    try other.setValue(2, forKey: "changed")
    try other.setValue(2, forKey: "hidden")
    try other.setValue(1, forKey: "same")
    other.removeValue(forKey: "removed")
    try other.setValue("new", forKey: "added")
    try other.save()
    #expect(try store.reload() == true)
    let byKey = Dictionary(uniqueKeysWithValues: received.all.map { ($0.key, $0.newValue) })
    #expect(received.count == 3)
    let expected: [String: PropertyListValue?] = ["changed": 2, "removed": nil, "added": "new"]
    #expect(byKey == expected)
    token.cancel()
  }

  #if !canImport(Darwin)
    /// A `UserDefaultsBackend` taking in another process's saved changes (here another backend
    /// on the same suite file) tells its observers of exactly the keys that changed.
    @Test func userDefaultsReloadDeliversTheKeysThatChanged() throws {
      let suite = TemporarySuite()
      try suite.backend.setValues(["same": 1, "changed": 1])
      try suite.backend.save()
      let received = Received<SettingsChange>()
      let token = suite.backend.observeAllKeys { received.append($0) }
      try suite.backend.reload()
      #expect(received.all == [])

      let other = UserDefaultsBackend(suiteName: suite.name)
      try other.setValue(2, forKey: "changed")
      try other.setValue(1, forKey: "same")
      try other.save()
      try suite.backend.reload()
      #expect(received.all == [SettingsChange(key: "changed", newValue: 2)])
      token.cancel()
    }
  #endif

  // MARK: - Typed observation

  @Test(arguments: BackendFactory.observable)
  func aWrongTypedValueArrivesAsTheDefaultWithADiagnostic(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let settings = ObservedSettings(backend: backend)
      let received = Received<Int>()
      let token = settings.$volume.observe { received.append($0) }
      let (_, diagnostics) = try collectingDiagnostics {
        try write("loud", "volume", to: backend)
      }
      #expect(received.all == [1])
      #expect(diagnostics.map(\.kind) == [.typeMismatch])
      #expect(diagnostics.first?.key == "volume")
      try write(3, "volume", to: backend)
      remove("volume", from: backend)
      #expect(received.all == [1, 3, 1])
      token.cancel()
    }
  }

  @Test(arguments: BackendFactory.observable)
  func settingsOfAModelObserveWritesFromEveryWriter(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let settings = ObservedSettings(backend: backend)
      let another = ObservedSettings(backend: backend)
      let received = Received<Bool>()
      let token = settings.$flag.observe(initial: true) { received.append($0) }
      another.flag = true
      try write(false, "com.example.flag", to: backend)
      settings.flag = true
      another.resetAll()
      #expect(received.all == [false, true, false, true, false])
      token.cancel()
    }
  }

  // MARK: - Outside changes

  /// A backend that changes behind the library's back tells observers with `reportChanges`.
  @Test func reportChangesDeliversOutsideChangesOfAUserWrittenBackend() throws {
    let backend = PlainBackend()
    let received = Received<SettingsChange>()
    let token = backend.observe(keys: ["a", "b"]) { received.append($0) }
    try backend.setValue(1, forKey: "a")  // not through the library: nothing yet
    #expect(received.all == [])
    backend.reportChanges(forKeys: ["a", "b", "c"])
    #expect(received.all == [SettingsChange(key: "a", newValue: 1)])
    backend.reportChanges(forKeys: ["a"])
    #expect(received.count == 1)
    token.cancel()
  }
}

#if canImport(Observation)
  import Observation

  /// Settings take part in Swift's Observation with no macro: through the same model, another
  /// model on the backend, or the backend itself.
  @Suite struct SwiftObservationTests {
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test(arguments: BackendFactory.observable)
    func trackingASettingCallsOnChangeOnceForAChangeByAnyWriter(
      _ factory: BackendFactory
    ) async throws {
      try await factory.withBackend { backend in
        let settings = ObservedSettings(backend: backend)
        let another = ObservedSettings(backend: backend)
        let writers: [(String, @Sendable (Int) throws -> Void)] = [
          ("the same model", { settings.volume = $0 }),
          ("another model", { another.volume = $0 }),
          ("the backend", { try write(.integer(.init(Int64($0))), "volume", to: backend) }),
        ]
        settings.volume = 1
        var next = 2
        for (writer, change) in writers {
          let calls = Received<Int>()
          let seen = withObservationTracking {
            settings.volume
          } onChange: {
            calls.append(settings.volume)
          }
          #expect(seen == next - 1)
          try change(next - 1)  // the value it already has: no change
          #expect(calls.all == [], "\(writer)")
          try change(next)
          try change(next + 1)
          // Called once, after the value is stored.
          #expect(calls.all == [next], "\(writer)")
          try change(next)
          next += 1
        }
      }
    }

    /// H32: a tracker attached with no write is never called; neither is one tracking another
    /// setting of the model.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test(arguments: BackendFactory.observable)
    func trackingWithNoWriteCallsNothing(_ factory: BackendFactory) async throws {
      try await factory.withBackend { backend in
        let settings = ObservedSettings(backend: backend)
        let calls = Received<Int>()
        _ = withObservationTracking {
          settings.volume
        } onChange: {
          calls.append(1)
        }
        settings.other = 3
        #expect(calls.count == 0)
      }
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test(arguments: BackendFactory.observable)
    func aGroupsSettingsAreTrackedToo(_ factory: BackendFactory) async throws {
      try await factory.withBackend { backend in
        let group = ObservedGroup(backend: backend)
        let calls = Received<Int>()
        _ = withObservationTracking {
          group.volume
        } onChange: {
          calls.append(1)
        }
        group.$volume.reset()
        #expect(calls.count == 0)  // already the default: nothing stored changed
        group.volume = 9
        #expect(calls.count == 1)
      }
    }

    /// A setting takes its Observation object when it is attached: a standalone setting, attached
    /// to its own backend as it is declared, is tracked like a model's.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test(arguments: BackendFactory.observable)
    func aStandaloneSettingIsTrackedToo(_ factory: BackendFactory) async throws {
      try await factory.withBackend { backend in
        let volume = Setting(wrappedValue: 5, "standalone.volume", backend: backend)
        let calls = Received<Int>()
        let seen = withObservationTracking {
          volume.wrappedValue
        } onChange: {
          calls.append(1)
        }
        #expect(seen == 5)
        volume.wrappedValue = 6
        #expect(calls.count == 1)
      }
    }

    /// Tracking registers one backend observer per setting read inside tracking, and a released
    /// model takes it away.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test(arguments: BackendFactory.observable)
    func aReleasedModelStopsObservingItsBackend(_ factory: BackendFactory) async throws {
      try await factory.withBackend { backend in
        weak var weakModel: ObservedSettings?
        do {
          let settings = ObservedSettings(backend: backend)
          weakModel = settings
          _ = settings.volume
          #expect(observerCount(backend) == 0)  // an untracked read registers nothing
          _ = withObservationTracking {
            settings.volume + settings.other
          } onChange: {
          }
          #expect(observerCount(backend) == 2)
          _ = withObservationTracking {
            settings.volume
          } onChange: {
          }
          #expect(observerCount(backend) == 2)
        }
        #expect(weakModel == nil)
        #expect(observerCount(backend) == 0)
      }
    }

    @Test(arguments: BackendFactory.observable)
    func observationsYieldsEachNewValue(_ factory: BackendFactory) async throws {
      guard #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) else {
        return
      }
      try await factory.withBackend { backend in
        let settings = ObservedSettings(backend: backend)
        var values = Observations { settings.volume }.makeAsyncIterator()
        #expect(await values.next() == 1)
        settings.volume = 2
        #expect(await values.next() == 2)
        try write(3, "volume", to: backend)
        #expect(await values.next() == 3)
      }
    }
  }
#endif
