/// The demand side of a Combine subscription to a setting's values
/// (`Setting.publisher(initial:)`), kept apart from Combine so that it is compiled and tested on
/// every platform; the Combine part only forwards `request(_:)` and `cancel()` to it.
///
/// The setting's observation offers each new value (``start(observing:initial:)``). A value is
/// delivered at once while the subscriber has demand; otherwise it waits, the newest replacing
/// an older one, until the subscriber asks for more. So a subscriber never gets more values than
/// it asked for, never one older than one it got, and always ends on the setting's latest value
/// (the buffering of ``SettingsChanges``, for a subscriber that asks slowly).
///
/// Deliveries never overlap and run with no lock held: a thread that finds a delivery under way
/// leaves its value or demand to the delivering thread, which delivers it before it returns. A
/// subscriber may request and cancel from inside a delivery. After ``cancel()`` nothing more is
/// delivered (except by a delivery already running on another thread), the observation is
/// cancelled, and the subscriber is released. Thread-safe.
final class DemandedValues<Value: SettingValue>: @unchecked Sendable {
  // @unchecked Sendable: every field is behind `state`'s lock, and `deliver` is called only by
  // the one thread that set `delivering` under it.
  private struct State {
    /// What the subscriber asked for and hasn't received: a count, or `nil` for unlimited.
    var demand: Int? = 0
    /// The newest value offered and not delivered.
    var waiting: Value?
    var delivering = false
    var cancelled = false
    /// The observation offering the values.
    var token: ObservationToken?
    /// Hands a value to the subscriber; returns the demand it adds (`nil`: unlimited).
    var deliver: ((Value) -> Int?)?
  }

  private let state: Locked<State>

  /// Creates the demand of one subscriber, with no demand yet.
  ///
  /// - Parameter deliver: Hands a value to the subscriber and returns the further demand it
  ///   adds: a count (0 for none), or `nil` for unlimited. Never called concurrently.
  init(deliver: @escaping (Value) -> Int?) {
    state = Locked(State(deliver: deliver))
  }

  /// Starts observing the setting, offering each value it has after a change of its key (and its
  /// current value first if `initial`); the observation lasts until ``cancel()``, or until these
  /// values are released.
  ///
  /// - Parameters:
  ///   - setting: The setting whose values are offered.
  ///   - initial: Whether its current value is offered first.
  /// - Precondition: The setting is attached to a backend.
  func start(observing setting: Setting<Value>, initial: Bool) {
    start(setting.observe(initial: initial) { [weak self] value in self?.offer(value) })
  }

  /// Keeps the observation that offers the values, until ``cancel()``; cancels it at once if
  /// ``cancel()`` came first.
  ///
  /// - Parameter token: The observation's token.
  func start(_ token: ObservationToken) {
    let cancelled = state.withLock { state -> Bool in
      if !state.cancelled { state.token = token }
      return state.cancelled
    }
    if cancelled { token.cancel() }
  }

  /// Offers a new value of the setting.
  ///
  /// Delivered now if the subscriber has demand, else kept (in place of any value still waiting)
  /// until it asks for more. Ignored after ``cancel()``.
  ///
  /// - Parameter value: The value.
  func offer(_ value: Value) {
    let proceed = state.withLock { state -> Bool in
      guard !state.cancelled else { return false }
      state.waiting = value
      return true
    }
    if proceed { drain() }
  }

  /// Adds to the subscriber's demand, and delivers a waiting value if there is one.
  ///
  /// - Parameter demand: The number of values more it asks for, or `nil` for unlimited.
  func request(_ demand: Int?) {
    let proceed = state.withLock { state -> Bool in
      guard !state.cancelled else { return false }
      state.demand = Self.sum(state.demand, demand)
      return true
    }
    if proceed { drain() }
  }

  /// Ends the subscription.
  ///
  /// Nothing more is delivered, the observation is cancelled and the subscriber released.
  /// Calling it again does nothing.
  func cancel() {
    let token = state.withLock { state -> ObservationToken? in
      state.cancelled = true
      state.waiting = nil
      state.deliver = nil
      defer { state.token = nil }
      return state.token
    }
    token?.cancel()
  }

  /// Delivers waiting values while there is demand, unless another thread is delivering.
  private func drain() {
    while true {
      let next = state.withLock { state -> (Value, (Value) -> Int?)? in
        guard !state.delivering, !state.cancelled, state.demand != 0,
          let deliver = state.deliver, let value = state.waiting
        else { return nil }
        state.waiting = nil
        state.demand = state.demand.map { $0 - 1 }
        state.delivering = true
        return (value, deliver)
      }
      guard let (value, deliver) = next else { return }
      let added = deliver(value)
      state.withLock { state in
        state.delivering = false
        state.demand = Self.sum(state.demand, added)
      }
    }
  }

  /// The sum of two demands (`nil`: unlimited, as is a sum too large for `Int`).
  static func sum(_ first: Int?, _ second: Int?) -> Int? {
    guard let first, let second else { return nil }
    let (total, overflow) = first.addingReportingOverflow(second)
    return overflow ? nil : total
  }
}
