import Dispatch
import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

#if canImport(Observation)
  import Observation
#endif

/// The demand side of `Setting.publisher(initial:)` (`DemandedValues`), run on Linux through a
/// subscriber written here that does what Combine's subscribers do: the Combine part itself only
/// forwards `request(_:)` and `cancel()` (`SettingPublisherTests` runs it where Combine exists).
@Suite struct SettingPublisherDemandTests {
  /// A subscriber: records what it receives, adds `adds` demand per value, fails on overlap.
  final class Recorder: Sendable {
    let received = Received<Int>()
    private let busy = Locked(false)
    let overlapped = Locked(false)
    let adds: Int?

    init(adding adds: Int? = 0) { self.adds = adds }

    func receive(_ value: Int) -> Int? {
      busy.withLock { busy in
        if busy { overlapped.withLock { $0 = true } }
        busy = true
      }
      received.append(value)
      busy.withLock { $0 = false }
      return adds
    }
  }

  /// A subscription as `SettingValuePublisher.receive(subscriber:)` makes it: the subscriber
  /// first gets the subscription (here: asks for `demand`), then the observation starts.
  private func subscribe(
    _ recorder: Recorder, to setting: Setting<Int>, initial: Bool, demand: Int?
  ) -> DemandedValues<Int> {
    let values = DemandedValues<Int> { recorder.receive($0) }
    values.request(demand)
    values.start(observing: setting, initial: initial)
    return values
  }

  @Test func anUnlimitedSubscriberGetsTheCurrentValueAndThenEveryChangeInOrder() throws {
    let settings = ObservedSettings(backend: InMemoryBackend())
    settings.volume = 4
    let recorder = Recorder()
    let values = subscribe(recorder, to: settings.$volume, initial: true, demand: nil)
    defer { values.cancel() }
    for volume in 5...8 { settings.volume = volume }
    settings.volume = 8  // no change, no value
    #expect(recorder.received.all == [4, 5, 6, 7, 8])
  }

  @Test func withoutInitialOnlyChangesArePublished() {
    let settings = ObservedSettings(backend: InMemoryBackend())
    settings.volume = 4
    let recorder = Recorder()
    let values = subscribe(recorder, to: settings.$volume, initial: false, demand: nil)
    defer { values.cancel() }
    #expect(recorder.received.all.isEmpty)
    settings.volume = 5
    #expect(recorder.received.all == [5])
  }

  @Test func aSubscriberWithoutDemandGetsNothingAndThenOnlyTheNewestValue() {
    let settings = ObservedSettings(backend: InMemoryBackend())
    let recorder = Recorder()
    let values = subscribe(recorder, to: settings.$volume, initial: true, demand: 0)
    defer { values.cancel() }
    for volume in 2...5 { settings.volume = volume }
    #expect(recorder.received.all.isEmpty)
    values.request(1)
    #expect(recorder.received.all == [5])
    values.request(2)
    settings.volume = 6
    settings.volume = 7
    settings.volume = 8  // the demand is used up: waits
    #expect(recorder.received.all == [5, 6, 7])
    values.request(1)
    #expect(recorder.received.all == [5, 6, 7, 8])
  }

  @Test func theDemandASubscriberAddsOnReceivingIsHonoured() {
    let settings = ObservedSettings(backend: InMemoryBackend())
    let recorder = Recorder(adding: 1)
    let values = subscribe(recorder, to: settings.$volume, initial: false, demand: 1)
    defer { values.cancel() }
    for volume in 2...6 { settings.volume = volume }
    #expect(recorder.received.all == [2, 3, 4, 5, 6])
  }

  @Test func cancellingStopsTheDeliveriesAndTheObservation() throws {
    let backend = InMemoryBackend()
    let settings = ObservedSettings(backend: backend)
    let recorder = Recorder()
    let values = subscribe(recorder, to: settings.$volume, initial: false, demand: nil)
    settings.volume = 2
    #expect(ObservationCenter.existingRegistry(for: backend)?.observedKeys == ["volume"])
    values.cancel()
    values.cancel()
    settings.volume = 3
    values.request(nil)
    values.offer(4)
    #expect(recorder.received.all == [2])
    #expect(ObservationCenter.existingRegistry(for: backend)?.observedKeys.isEmpty == true)
  }

  @Test func aSubscriberThatCancelsBeforeTheObservationStartsLeavesNoObserver() {
    let backend = InMemoryBackend()
    let settings = ObservedSettings(backend: backend)
    let recorder = Recorder()
    let values = DemandedValues<Int> { recorder.receive($0) }
    values.cancel()  // inside `receive(subscription:)`, before the publisher starts observing
    values.start(observing: settings.$volume, initial: true)
    settings.volume = 2
    #expect(recorder.received.all.isEmpty)
    #expect(ObservationCenter.existingRegistry(for: backend)?.observedKeys.isEmpty == true)
  }

  @Test func releasingTheSubscriptionWithoutCancellingEndsTheObservation() {
    let backend = InMemoryBackend()
    let settings = ObservedSettings(backend: backend)
    let recorder = Recorder()
    do {
      _ = subscribe(recorder, to: settings.$volume, initial: false, demand: nil)
    }
    settings.volume = 2
    #expect(recorder.received.all.isEmpty)
    #expect(ObservationCenter.existingRegistry(for: backend)?.observedKeys.isEmpty == true)
  }

  @Test func aSubscriberMayRequestAndCancelFromInsideADelivery() {
    let settings = ObservedSettings(backend: InMemoryBackend())
    let received = Received<Int>()
    let box = Locked<DemandedValues<Int>?>(nil)
    let values = DemandedValues<Int> { value in
      received.append(value)
      let values = box.withLock { $0 }
      if value == 3 { values?.cancel() } else { values?.request(1) }
      return 0
    }
    box.withLock { $0 = values }
    values.request(1)
    values.start(observing: settings.$volume, initial: false)
    for volume in 2...5 { settings.volume = volume }
    #expect(received.all == [2, 3])
    box.withLock { $0 = nil }
  }

  @Test func concurrentRequestsAndChangesNeverOverlapNorGoBackAndEndOnTheLatest() async {
    let settings = ObservedSettings(backend: InMemoryBackend())
    let recorder = Recorder()
    let values = subscribe(recorder, to: settings.$volume, initial: false, demand: 0)
    defer { values.cancel() }
    let writes = 1000
    await withTaskGroup(of: Void.self) { group in
      group.addTask { for volume in 1...writes { settings.volume = volume } }
      group.addTask { for _ in 0..<writes { values.request(1) } }
    }
    let received = recorder.received.all
    #expect(!recorder.overlapped.withLock { $0 })
    #expect(received == received.sorted() && Set(received).count == received.count)
    #expect(received.last == writes)
  }

  @Test func demandsAddUpToUnlimited() {
    #expect(DemandedValues<Int>.sum(1, 2) == 3)
    #expect(DemandedValues<Int>.sum(nil, 2) == nil)
    #expect(DemandedValues<Int>.sum(2, nil) == nil)
    #expect(DemandedValues<Int>.sum(.max, 1) == nil)
    #expect(DemandedValues<Int>.sum(0, 0) == 0)
  }

  #if canImport(Observation)
    /// The conformance SwiftUI's `@Bindable`, `@State` and `@Environment` need, on every model
    /// and its subclasses.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test func aSettingsModelIsObservable() {
      func isObservable<T: AnyObject>(_ type: T.Type) -> Bool { type is any Observable.Type }
      #expect(isObservable(SettingsModel.self))
      #expect(isObservable(ObservedSettings.self))
    }
  #endif
}
