import Foundation

/// One registered observer: its keys, the last value it was given for each, and its queue of
/// changes still to deliver.
///
/// Changes reach an observer through its own queue, drained by whichever thread enqueued into the
/// empty queue first (the writer's thread, normally), one change at a time and outside every lock:
/// so an observer's callbacks never overlap, see each key's changes in the order they were
/// published, and may read or write the backend freely.
// @unchecked Sendable: every mutable field is read and written only while `lock` is held.
final class Observer: @unchecked Sendable {
  /// The keys observed, or `nil` for every key.
  let keys: Set<String>?
  /// The callback; `nil` once cancelled, so that what it captures is released at once.
  private var deliver: (@Sendable (SettingsChange) -> Void)?
  private let lock = NSCondition()
  /// For each key, the last value delivered (or, before the first delivery, the value the key had
  /// when the observer was registered): what a change must differ from to be delivered.
  private var lastDelivered: [String: PropertyListValue?] = [:]
  private var pending: [(change: SettingsChange, forced: Bool)] = []
  private var pendingStart = 0
  /// Whether some thread is draining the queue (it claimed it by enqueueing into it first).
  private var draining = false
  /// The thread running a callback right now, if any.
  private var deliveringThread: pthread_t?
  private var cancelled = false

  /// The most changes kept waiting before a key's older waiting changes are dropped for its
  /// newest: only a callback much slower than the writers reaches it.
  static let pendingLimit = 1024

  init(keys: Set<String>?, deliver: @escaping @Sendable (SettingsChange) -> Void) {
    self.keys = keys
    self.deliver = deliver
  }

  /// Records the values the observer starts from (under the registry's lock, at registration).
  func setBaseline(_ values: [String: PropertyListValue?]) {
    lock.lock()
    lastDelivered = values
    lock.unlock()
  }

  /// Queues a change; returns whether the caller must drain the queue (it was idle).
  ///
  /// - Parameters:
  ///   - change: The change to deliver.
  ///   - forced: Deliver even if the value equals the last one delivered (an initial value
  ///     asked for).
  /// - Returns: `true` if the queue was idle, so that the caller must now drain it; `false` if
  ///   it is being drained already or the observer is cancelled (the change is then dropped).
  func enqueue(_ change: SettingsChange, forced: Bool = false) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    guard !cancelled else { return false }
    pending.append((change, forced))
    if pending.count - pendingStart > Self.pendingLimit { compactPending() }
    guard !draining else { return false }
    draining = true
    return true
  }

  /// Keeps only the newest waiting change of each key, in the order of those newest changes.
  private func compactPending() {
    var newest: [String: Int] = [:]
    for index in pendingStart..<pending.count { newest[pending[index].change.key] = index }
    pending = (pendingStart..<pending.count).filter { newest[pending[$0].change.key] == $0 }
      .map { pending[$0] }
    pendingStart = 0
  }

  /// Delivers queued changes until the queue is empty or the observer is cancelled.
  ///
  /// Called only by the thread that claimed the queue, with no lock held.
  func drain() {
    let thread = pthread_self()
    lock.lock()
    while !cancelled, pendingStart < pending.count {
      let (change, forced) = pending[pendingStart]
      pendingStart += 1
      if pendingStart == pending.count {
        pending.removeAll(keepingCapacity: pending.count <= 64)
        pendingStart = 0
      }
      // A key missing from the baseline (an observer of every key, registered while the key had
      // no value) had none.
      if !forced, (lastDelivered[change.key] ?? .some(nil)) == change.newValue { continue }
      guard let deliver else { break }
      lastDelivered[change.key] = change.newValue
      deliveringThread = thread
      lock.unlock()
      deliver(change)
      lock.lock()
      deliveringThread = nil
      lock.broadcast()
    }
    draining = false
    if cancelled {
      pending.removeAll()
      pendingStart = 0
    }
    lock.unlock()
  }

  /// Stops deliveries: none starts after this returns.
  ///
  /// A callback running on another thread is waited for; one running on this thread (a callback
  /// cancelling its own observation) is not.
  func cancel() {
    let thread = pthread_self()
    lock.lock()
    cancelled = true
    // Released outside the lock: what the callback captures may have a deinit that observes.
    let released = deliver
    deliver = nil
    defer { withExtendedLifetime(released) {} }
    while let delivering = deliveringThread, pthread_equal(delivering, thread) == 0 {
      lock.wait()
    }
    if !draining {
      pending.removeAll()
      pendingStart = 0
    }
    lock.unlock()
  }
}
