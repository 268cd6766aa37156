import Foundation

/// An asynchronous sequence of changes to some keys of a backend, or to all of them.
///
/// ```swift
/// for await change in backend.changes(forKey: "volume") {
///   print(change.key, change.newValue ?? "removed")
/// }
/// ```
///
/// Observation starts when iteration starts (``makeAsyncIterator()``), not when the sequence is
/// created: a sequence made early and iterated late neither replays the value from its creation
/// nor misses the changes in between that were before its start. With `initial: true` the first
/// elements are the keys' values at the start of iteration (one per key, in key order); without
/// it, the first element is the first change after that.
///
/// ## Buffering
///
/// A consumer slower than the writers never makes the buffer grow without bound: it holds at
/// most one waiting change per key, the newest. When a key changes again before the consumer took
/// the previous change, the waiting change is replaced by the newer value (keeping its place in
/// line), and dropped if the newer value is the one the consumer last received. So a consumer sees
/// each key's values in the order they were written, may skip intermediate values, always ends on
/// the key's latest value, and never sees a value older than one it already received.
///
/// ## Ending
///
/// The sequence never finishes on its own. Cancelling the consuming task ends the iteration
/// (`next()` returns `nil`), and so does releasing the iterator (breaking out of the `for await`
/// loop): both stop the observation at once, and nothing is delivered afterwards.
///
/// Each iterator is its own observation; iterate the sequence in one task at a time per
/// iterator.
public struct SettingsChanges: AsyncSequence, Sendable {
  /// Each element is one change.
  public typealias Element = SettingsChange
  /// The sequence never throws.
  public typealias Failure = Never

  let backend: any SettingsBackend
  /// The keys observed, or `nil` for all.
  let keys: Set<String>?
  let initial: Bool

  /// Starts observing and returns the iterator that delivers the changes.
  ///
  /// - Returns: A new, independent observation of the sequence's keys.
  public func makeAsyncIterator() -> Iterator {
    Iterator(subscription: ChangeSubscription(backend: backend, keys: keys, initial: initial))
  }

  /// Delivers the changes of one observation; releasing it stops the observation.
  public struct Iterator: AsyncIteratorProtocol {
    let subscription: ChangeSubscription

    /// Waits for the next change.
    ///
    /// - Returns: The next change, or `nil` once the consuming task is cancelled.
    public mutating func next() async -> SettingsChange? {
      await subscription.next()
    }

    /// Waits for the next change.
    ///
    /// - Parameter actor: The caller's isolation (unused: the iterator needs none).
    /// - Returns: The next change, or `nil` once the consuming task is cancelled.
    public mutating func next(
      isolation actor: isolated (any Actor)?
    ) async -> SettingsChange? {
      await subscription.next()
    }
  }
}

/// One stream observation: a buffer of at most one waiting change per key, a waiting consumer,
/// and the token that keeps the backend's observer registered.
// @unchecked Sendable: `state` is behind its lock; `token` is written once, in `init`.
final class ChangeSubscription: @unchecked Sendable {
  private struct State {
    /// Keys with a waiting change, oldest first.
    var order: [String] = []
    var orderStart = 0
    var waiting: [String: PropertyListValue?] = [:]
    /// The value the consumer last received for each key.
    var received: [String: PropertyListValue?] = [:]
    var consumer: CheckedContinuation<SettingsChange?, Never>?
    var finished = false
  }

  private let state = Locked(State())
  private var token: ObservationToken?

  init(backend: any SettingsBackend, keys: Set<String>?, initial: Bool) {
    token = backend.observe(registering: keys, initial: initial) { [weak self] change in
      self?.push(change)
    }
  }

  deinit {
    token?.cancel()
  }

  /// Called by the observer, serially: hands the change to a waiting consumer, or buffers it.
  private func push(_ change: SettingsChange) {
    let consumer = state.withLock { state -> CheckedContinuation<SettingsChange?, Never>? in
      guard !state.finished else { return nil }
      if let consumer = state.consumer {
        state.consumer = nil
        state.received[change.key] = .some(change.newValue)
        return consumer
      }
      if state.waiting[change.key] != nil {
        if let received = state.received[change.key], received == change.newValue {
          // Back to what the consumer has: nothing to tell it.
          state.waiting[change.key] = nil
          if let index = state.order[state.orderStart...].firstIndex(of: change.key) {
            state.order.remove(at: index)
          }
        } else {
          state.waiting[change.key] = .some(change.newValue)
        }
      } else {
        state.waiting[change.key] = .some(change.newValue)
        state.order.append(change.key)
      }
      return nil
    }
    consumer?.resume(returning: change)
  }

  /// The next buffered change, or waits for one; `nil` once finished.
  func next() async -> SettingsChange? {
    if let change = state.withLock({ Self.take(from: &$0) }) { return change }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let ready = state.withLock { state -> SettingsChange?? in
          if state.finished || Task.isCancelled { return .some(nil) }
          if let change = Self.take(from: &state) { return .some(change) }
          state.consumer = continuation
          return .none
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      finish()
    }
  }

  private static func take(from state: inout State) -> SettingsChange? {
    guard !state.finished, state.orderStart < state.order.count else { return nil }
    let key = state.order[state.orderStart]
    state.orderStart += 1
    if state.orderStart == state.order.count {
      state.order.removeAll(keepingCapacity: true)
      state.orderStart = 0
    }
    let value = state.waiting.removeValue(forKey: key) ?? nil
    state.received[key] = .some(value)
    return SettingsChange(key: key, newValue: value)
  }

  /// Ends the iteration: stops the observation and wakes a waiting consumer with `nil`.
  func finish() {
    let consumer = state.withLock { state -> CheckedContinuation<SettingsChange?, Never>? in
      state.finished = true
      state.waiting.removeAll()
      state.order.removeAll()
      state.orderStart = 0
      defer { state.consumer = nil }
      return state.consumer
    }
    token?.cancel()
    consumer?.resume(returning: nil)
  }
}
