#if canImport(Combine)
  import Combine
  import Foundation
  import Testing
  import TypedDefaultsTestSupport

  @testable import TypedDefaults

  /// `Setting.publisher(initial:)` through Combine itself.
  ///
  /// Compiled and run only where Combine exists (Apple platforms); its demand logic is also
  /// tested on Linux (`SettingPublisherDemandTests`).
  @Suite struct SettingPublisherTests {
    @Test func aSinkGetsTheCurrentValueThenEachChangeUntilCancelled() {
      let settings = ObservedSettings(backend: InMemoryBackend())
      settings.volume = 4
      let received = Received<Int>()
      let cancellable = settings.$volume.publisher(initial: true).sink { received.append($0) }
      settings.volume = 5
      settings.volume = 6
      #expect(received.all == [4, 5, 6])
      cancellable.cancel()
      settings.volume = 7
      #expect(received.all == [4, 5, 6])
    }

    @Test func releasingTheCancellableEndsTheObservation() {
      let backend = InMemoryBackend()
      let settings = ObservedSettings(backend: backend)
      let received = Received<Int>()
      withExtendedLifetime(settings.$volume.publisher().sink { received.append($0) }) {
        settings.volume = 2
      }
      settings.volume = 3
      #expect(received.all == [2])
      #expect(ObservationCenter.existingRegistry(for: backend)?.observedKeys.isEmpty == true)
    }

    @Test func aSubscriberAskingForOneValueAtATimeGetsTheNewestWhenItAsks() {
      let settings = ObservedSettings(backend: InMemoryBackend())
      let subscriber = OneAtATime()
      settings.$volume.publisher(initial: true).subscribe(subscriber)
      for volume in 2...4 { settings.volume = volume }
      #expect(subscriber.received == [1])
      subscriber.subscription?.request(.max(1))
      #expect(subscriber.received == [1, 4])
      subscriber.subscription?.cancel()
      settings.volume = 5
      subscriber.subscription?.request(.max(1))
      #expect(subscriber.received == [1, 4])
    }
  }

  /// A subscriber that asks for one value when it subscribes and no more on receiving.
  private final class OneAtATime: Subscriber {
    typealias Input = Int
    typealias Failure = Never

    var subscription: (any Subscription)?
    var received: [Int] = []

    func receive(subscription: any Subscription) {
      self.subscription = subscription
      subscription.request(.max(1))
    }

    func receive(_ input: Int) -> Subscribers.Demand {
      received.append(input)
      return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {}
  }
#endif
