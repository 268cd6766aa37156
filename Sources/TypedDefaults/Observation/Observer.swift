import Foundation

/// One registered observer: its keys, the last value it was given for each, and its queue of
/// changes still to deliver.
///
/// Changes reach an observer through its own queue, drained by whichever thread enqueued into the
/// empty queue first (the writer's thread, normally), one change at a time and outside every lock:
/// so an observer's callbacks never overlap, see each key's changes in the order they were
/// published, and may read or write the backend freely.
///
/// A backend that records its own changes offers each one to the key's observers under its own
/// lock (``offer(_:to:)``): a change offered to an idle observer is judged and claimed at once, and
/// the writer delivers it once it holds no lock, with no queue in between (see ``ObserverClaims``).
// @unchecked Sendable: every mutable field is read and written only while `lock` is held.
//
// For the same reason the fields are `@exclusivity(unchecked)`: the lock already makes every access
// exclusive, and the dynamic checks Swift would add cost more than the rest of a delivery.
package final class Observer: @unchecked Sendable {
  /// The keys observed, or `nil` for every key.
  package let keys: Set<String>?
  /// The key, for an observer of exactly one: its last value is kept in `lastOfSoleKey`, so that
  /// judging a change of it costs no hashing.
  private let soleKey: String?
  /// The callback; `nil` once cancelled, so that what it captures is released at once.
  @exclusivity(unchecked) private var deliver: (@Sendable (SettingsChange) -> Void)?
  private let lock = NSCondition()
  /// For each key but `soleKey`, the last value delivered (or, before the first delivery, the
  /// value the key had when the observer was registered): what a change must differ from to be
  /// delivered.
  @exclusivity(unchecked) private var lastDelivered: [String: PropertyListValue?] = [:]
  /// What `lastDelivered` would hold for `soleKey`.
  @exclusivity(unchecked) private var lastOfSoleKey: PropertyListValue?
  @exclusivity(unchecked) private var pending: [(change: SettingsChange, forced: Bool)] = []
  @exclusivity(unchecked) private var pendingStart = 0
  /// Whether some thread is draining the queue (it claimed it by enqueueing into it first), or is
  /// about to deliver the change it claimed in ``offer(_:to:)``.
  @exclusivity(unchecked) private var draining = false
  /// The thread running a callback right now (or about to, having claimed it), if any.
  @exclusivity(unchecked) private var deliveringThread: pthread_t?
  /// How many threads wait in ``cancel()`` for a callback to return: a delivery that ends wakes
  /// them only if there are some.
  @exclusivity(unchecked) private var waitingCancellers = 0
  @exclusivity(unchecked) private var cancelled = false

  /// The most changes kept waiting before a key's older waiting changes are dropped for its
  /// newest: only a callback much slower than the writers reaches it.
  static let pendingLimit = 1024

  init(keys: Set<String>?, deliver: @escaping @Sendable (SettingsChange) -> Void) {
    self.keys = keys
    self.soleKey = keys?.count == 1 ? keys?.first : nil
    self.deliver = deliver
  }

  /// Records the values the observer starts from (at registration, before any change reaches it).
  func setBaseline(_ values: [String: PropertyListValue?]) {
    lock.lock()
    if let soleKey {
      lastOfSoleKey = values[soleKey] ?? nil
      lastDelivered = values.count == 1 ? [:] : values.filter { $0.key != soleKey }
    } else {
      lastDelivered = values
    }
    lock.unlock()
  }

  /// Whether `change` leaves the value last delivered for its key.
  ///
  /// A key missing from the baseline (an observer of every key, registered while the key had no
  /// value) had none. Called under `lock`.
  private func isLastDelivered(_ change: SettingsChange) -> Bool {
    if let soleKey, change.key == soleKey { return Self.same(lastOfSoleKey, change.newValue) }
    return (lastDelivered[change.key] ?? .some(nil)) == change.newValue
  }

  /// `lhs == rhs`, with no copy of either for two integers (the common case, and `==` on two
  /// optional values copies both).
  @inline(__always)
  private static func same(_ lhs: PropertyListValue?, _ rhs: PropertyListValue?) -> Bool {
    if case .integer(let left)? = lhs, case .integer(let right)? = rhs { return left == right }
    return lhs == rhs
  }

  /// Notes `change` as the last delivered for its key.
  ///
  /// Called under `lock`.
  private func noteDelivered(_ change: SettingsChange) {
    if let soleKey, change.key == soleKey {
      // An integer is copied as one: a copy of the whole optional value goes through its value
      // witness, a metadata lookup and two indirect calls on every observed write.
      if case .integer(let integer)? = change.newValue {
        lastOfSoleKey = .integer(integer)
      } else {
        lastOfSoleKey = change.newValue
      }
    } else {
      lastDelivered[change.key] = change.newValue
    }
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
    return appendLocked(change, forced: forced)
  }

  /// Appends a change to the queue and claims the queue if it was idle.
  ///
  /// Called under `lock`; returns whether the caller must drain.
  private func appendLocked(_ change: SettingsChange, forced: Bool) -> Bool {
    pending.append((change, forced))
    if pending.count - pendingStart > Self.pendingLimit { compactPending() }
    guard !draining else { return false }
    draining = true
    return true
  }

  /// Offers a change that has just taken effect, called holding the lock of the backend it took
  /// effect in, in the same critical section as the change (a backend that records its own
  /// changes, ``RecordsOwnChanges``); what this thread must deliver is added to `claims`.
  ///
  /// Every change of the observer's keys is offered this way, under the backend's lock, so the
  /// order changes are offered in is the order they took effect. An idle observer has nothing
  /// queued (a queue is emptied before it is released), so the change offered is the next one it
  /// gets: it is compared with the last value delivered now, and, if it differs, claimed with
  /// the callback for `claims` to deliver once every lock is released; a change offered
  /// meanwhile finds the observer busy and waits in the queue, which that delivery then drains.
  /// Only the first such claim of `claims` is taken this way (the callback is marked running
  /// from the claim, so that ``cancel()`` waits for it; nothing runs before it); the others are
  /// queued and drained after, as ``enqueue(_:forced:)`` does.
  func offer(_ change: SettingsChange, to claims: inout ObserverClaims) {
    lock.lock()
    defer { lock.unlock() }
    guard !cancelled else { return }
    guard !draining, claims.first == nil else {
      if appendLocked(change, forced: false) { claims.others.append(self) }
      return
    }
    guard !isLastDelivered(change), let deliver else { return }
    noteDelivered(change)
    draining = true
    deliveringThread = pthread_self()
    claims.first = self
    claims.firstDeliver = deliver
    claims.claimedFirst = true
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
    lock.lock()
    drainLocked()
    lock.unlock()
  }

  /// Ends the delivery of a change claimed by ``offer(_:to:)`` (its callback has returned), then
  /// delivers what was queued meanwhile.
  ///
  /// Called only by the thread that claimed it, with no lock held.
  fileprivate func endClaimedDelivery() {
    lock.lock()
    deliveringThread = nil
    if waitingCancellers > 0 { lock.broadcast() }
    if pendingStart < pending.count || cancelled {
      drainLocked()
    } else {
      draining = false
    }
    lock.unlock()
  }

  /// The body of ``drain()``: called holding `lock`, which it releases around each callback.
  private func drainLocked() {
    while !cancelled, pendingStart < pending.count {
      let (change, forced) = pending[pendingStart]
      pendingStart += 1
      if pendingStart == pending.count {
        pending.removeAll(keepingCapacity: pending.count <= 64)
        pendingStart = 0
      }
      if !forced, isLastDelivered(change) { continue }
      guard let deliver else { break }
      noteDelivered(change)
      deliveringThread = pthread_self()
      lock.unlock()
      deliver(change)
      lock.lock()
      deliveringThread = nil
      if waitingCancellers > 0 { lock.broadcast() }
    }
    draining = false
    if cancelled {
      pending.removeAll()
      pendingStart = 0
    }
  }

  /// Stops deliveries: none starts after this returns.
  ///
  /// A callback running on another thread (or claimed by it, see ``offer(_:to:)``) is waited
  /// for; one running on this thread (a callback cancelling its own observation) is not.
  func cancel() {
    let thread = pthread_self()
    lock.lock()
    cancelled = true
    // Released outside the lock: what the callback captures may have a deinit that observes.
    let released = deliver
    deliver = nil
    defer { withExtendedLifetime(released) {} }
    while let delivering = deliveringThread, pthread_equal(delivering, thread) == 0 {
      waitingCancellers += 1
      lock.wait()
      waitingCancellers -= 1
    }
    if !draining {
      pending.removeAll()
      pendingStart = 0
    }
    lock.unlock()
  }
}

/// The deliveries a thread claimed (``Observer/offer(_:to:)``, ``Observer/enqueue(_:forced:)``)
/// while it held a lock, to make once it holds none: call ``deliver()`` exactly once, with no lock
/// held, before the call that made the claims returns (an observer claimed and never delivered
/// would wait forever, and so would a cancel of it).
package struct ObserverClaims {
  /// No claims yet.
  package init() {}

  /// The first observer claimed idle by ``Observer/offer(_:to:)``, to get `firstChange` next.
  fileprivate(set) var first: Observer?
  /// Its callback, taken under its lock when it was claimed.
  fileprivate(set) var firstDeliver: (@Sendable (SettingsChange) -> Void)?
  /// The change `first` gets (moved in, never copied: a value's copy is not free).
  private var firstChange: SettingsChange?
  /// Whether the change being offered claimed `first`.
  fileprivate var claimedFirst = false
  /// The other observers this thread claimed: it must drain their queues.
  var others: [Observer] = []

  /// Whether nothing was claimed.
  var isEmpty: Bool { first == nil && others.isEmpty }

  /// Offers a change to the observers of its key and to those of every key (see
  /// ``Observer/offer(_:to:)``): call it under the backend's lock, in the critical section of the
  /// change.
  ///
  /// - Parameters:
  ///   - change: The change, with the value it left.
  ///   - keyObservers: The observers of the change's key.
  ///   - allKeysObservers: The observers of every key.
  package mutating func offer(
    _ change: consuming SettingsChange, to keyObservers: [Observer],
    _ allKeysObservers: [Observer]
  ) {
    for index in keyObservers.indices { offer(change, .passUnretained(keyObservers[index])) }
    for index in allKeysObservers.indices {
      offer(change, .passUnretained(allKeysObservers[index]))
    }
    keep(change)
  }

  /// Offers a change to the observers of its key, those `cell` keeps, and to those of every key:
  /// ``offer(_:to:_:)``, with no reference taken to the cell's list of observers.
  ///
  /// Passed `cell.observers`, ``offer(_:to:_:)`` retains and releases the list, as the compiler
  /// can't see that nothing changes a class's property during the offers; nothing does: the list
  /// changes only under the backend's lock, which the caller holds.
  ///
  /// - Parameters:
  ///   - change: The change, with the value it left.
  ///   - cell: The cell of the change's key.
  ///   - allKeysObservers: The observers of every key.
  package mutating func offer(
    _ change: consuming SettingsChange, toObserversOf cell: ValueCell,
    _ allKeysObservers: [Observer]
  ) {
    for index in cell.observers.indices { offer(change, .passUnretained(cell.observers[index])) }
    for index in allKeysObservers.indices {
      offer(change, .passUnretained(allKeysObservers[index]))
    }
    keep(change)
  }

  /// Offers `change` to one observer of a list the caller borrows, which keeps it alive.
  ///
  /// The observer is borrowed, not retained: the compiler can't see that the list keeps it alive
  /// across the offer, which takes a lock, and would retain and release it around the call.
  @inline(__always)
  private mutating func offer(_ change: borrowing SettingsChange, _ observer: Unmanaged<Observer>) {
    observer._withUnsafeGuaranteedRef { $0.offer(change, to: &self) }
  }

  /// Keeps the change offered for the observer it claimed first, if it claimed one.
  @inline(__always)
  private mutating func keep(_ change: consuming SettingsChange) {
    if claimedFirst {
      claimedFirst = false
      firstChange = consume change
    }
  }

  /// Makes the deliveries claimed, in the order they were claimed; call it holding no lock.
  package consuming func deliver() {
    if let observer = first.take(), let deliver = firstDeliver.take(),
      let change = firstChange.take()
    {
      deliver(change)
      observer.endClaimedDelivery()
    }
    for index in others.indices { others[index].drain() }
  }
}
