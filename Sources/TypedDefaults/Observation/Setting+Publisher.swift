#if canImport(Combine)
  import Combine

  extension Setting {
    /// A Combine publisher of the setting's value after each change of its key.
    ///
    /// The Combine form of ``changes(initial:)`` and ``observe(initial:_:)``, for code built on
    /// Combine (`assign(to:)`, SwiftUI's `onReceive`); only where Combine exists (Apple
    /// platforms).
    ///
    /// ```swift
    /// let cancellable = settings.$volume.publisher(initial: true)
    ///   .receive(on: DispatchQueue.main)
    ///   .sink { volume in player.volume = volume }
    /// ```
    ///
    /// Each subscription is its own observation (``observe(initial:_:)``), started when the
    /// subscriber subscribes and ended when it cancels (releasing the `AnyCancellable` that
    /// `sink` returns cancels). Values arrive on the thread that made the change, as
    /// ``observe(initial:_:)``'s callbacks do: use `receive(on:)` to move them. A subscriber gets
    /// what it asks for and no more: while it has no demand, the newest value waits (older ones
    /// are dropped), so it always ends on the setting's latest value. The publisher never
    /// completes and never fails. Thread-safe. The demand logic is shared with Linux, where it
    /// is tested (`DemandedValues`).
    ///
    /// - Parameter initial: Whether the setting's current value is published first, when a
    ///   subscriber subscribes; `false` by default, as for ``changes(initial:)``.
    /// - Returns: The publisher.
    /// - Precondition: The setting is attached to a backend (checked when a subscriber
    ///   subscribes).
    public func publisher(initial: Bool = false) -> AnyPublisher<Value, Never> {
      SettingValuePublisher(setting: self, initial: initial).eraseToAnyPublisher()
    }
  }

  /// The publisher behind ``Setting/publisher(initial:)``.
  struct SettingValuePublisher<Value: SettingValue>: Publisher {
    typealias Output = Value
    typealias Failure = Never

    let setting: Setting<Value>
    let initial: Bool

    func receive<Downstream: Subscriber>(subscriber: Downstream)
    where Downstream.Input == Value, Downstream.Failure == Never {
      let subscription = SettingValueSubscription<Value>(subscriber)
      subscriber.receive(subscription: subscription)
      subscription.values.start(observing: setting, initial: initial)
    }
  }

  /// One subscriber's subscription: forwards Combine's demand and cancellation to
  /// ``DemandedValues``.
  final class SettingValueSubscription<Value: SettingValue>: Subscription {
    let values: DemandedValues<Value>

    init<Downstream: Subscriber>(_ downstream: Downstream)
    where Downstream.Input == Value, Downstream.Failure == Never {
      values = DemandedValues { value in downstream.receive(value).max }
    }

    func request(_ demand: Subscribers.Demand) {
      values.request(demand.max)
    }

    func cancel() {
      values.cancel()
    }
  }
#endif
