import Foundation

/// The observers of one backend, by key, and the way changes reach them.
///
/// The library's backends keep theirs in a stored property; any other backend gets one from a side
/// table (``ObservationCenter``).
///
/// Every change reaches observers as it was *recorded*: the key and the value the change left,
/// taken at the moment the change took effect and in the order changes took effect. (The value is
/// never read back at delivery: two racing writes would both deliver the later value.)
///
/// - A backend that records its own changes (``RecordsOwnChanges``) keeps each key's observers in
///   the key's cell, and offers each change to them under its own lock, in the same critical
///   section as the change (``Observer/offer(_:to:)``): so the order changes reach an observer's
///   queue is the order they took effect, with no queue of the registry in between, and a write
///   finds its observers with no lookup by key. An observer registers under the same lock, in one
///   step with the read of its baseline (``RecordsOwnChanges/attach(_:_:)``).
/// - For any other backend (``UserDefaultsBackend``, one written outside the library) the
///   registry's ordering lock is held around the change and the read of the value it left
///   (``recordingWrite(_:of:_:)``). Recorded changes wait in one queue, which is handed to
///   observers whole, under the registry's lock, by whichever thread delivers next
///   (``deliverRecorded()``).
///
/// Either way every observer receives every recorded change of its keys, in the recorded order,
/// and the value of a change is never older than one it already has.
///
/// Lock order: the ordering lock, then this registry's lock, then the backend's own lock (adding
/// or removing an observer, reading a baseline, a change and its offer), then the queue's lock and
/// an observer's lock. Observers are called with no lock of the registry or the backend held.
package final class ObserverRegistry: Sendable {
  private struct State {
    var byKey: [String: [ObjectIdentifier: Observer]] = [:]
    var allKeys: [ObjectIdentifier: Observer] = [:]
  }

  /// The changes recorded and not yet handed to observers, oldest first, and how many observers
  /// are registered (what ``recordingWrite(_:of:_:)`` looks at without the registry's lock).
  private struct Recorded {
    var changes: [SettingsChange] = []
    var observerCount = 0
  }

  private let state = Locked(State())
  private let recorded = Locked(Recorded())
  /// Held around a change and the read of the value it left, for a backend that doesn't record
  /// its own changes, and around reading an observer's baseline from such a backend.
  private let ordering = ReentrantLock()
  /// Whether ``recordingWrite(_:of:_:)`` holds the ordering lock around every write, observed or
  /// not: for a backend the library updates by a read, a transform and a write run as one such
  /// write (``SettingsBackends``), which no other write made through the library can then come
  /// between.
  private let serializesWrites: Bool

  /// Creates an empty registry.
  ///
  /// - Parameter serializesWrites: Hold the ordering lock around every write made through the
  ///   library, even while no one observes. The lock is reentrant per thread, so a write may
  ///   make another write of the backend through the library on its thread; it must not wait for
  ///   another thread that writes the backend, or write another backend that serializes, which
  ///   could deadlock. Writes made to the backend directly, not through the library, aren't
  ///   held off.
  package init(serializesWrites: Bool = false) {
    self.serializesWrites = serializesWrites
  }

  /// The number of observers registered (of at least one key, or of every key).
  var observerCount: Int {
    recorded.withLock { $0.observerCount }
  }

  /// The keys some observer of single keys watches.
  var observedKeys: Set<String> {
    state.withLock { Set($0.byKey.keys) }
  }

  /// Whether some observer watches every key.
  var hasObserversOfAllKeys: Bool {
    state.withLock { !$0.allKeys.isEmpty }
  }

  // MARK: - Registering

  /// Registers an observer of its keys (or of every key) of `backend`.
  ///
  /// On a backend that records its own changes, the observer's baseline is read and the observer
  /// added to its keys' cells under the backend's lock, in one step no change can come between
  /// (``RecordsOwnChanges/attach(_:_:)``): a change taking effect before is in the baseline, and
  /// one taking effect after is offered to it. On any other backend, under the ordering lock and
  /// the registry's, the baseline is read and the changes recorded so far are taken: those go to
  /// the observers registered before, and the new observer is told only of changes recorded after
  /// its baseline. A change racing the registration is thus either in the baseline or delivered.
  ///
  /// - Parameters:
  ///   - observer: The observer, with its keys (`nil`: every key).
  ///   - backend: The backend whose changes it observes.
  ///   - initial: Queue each observed key's current value for delivery first.
  func register(_ observer: Observer, on backend: any SettingsBackend, initial: Bool) {
    if let recorder = backend as? any RecordsOwnChanges {
      return register(observer, on: recorder, initial: initial)
    }
    _ = ordering.lock()
    let claimed = state.withLock { state -> [Observer] in
      let id = ObjectIdentifier(observer)
      if observer.keys?.isEmpty != true { recorded.withLock { $0.observerCount += 1 } }
      let baseline: [String: PropertyListValue?]
      if let keys = observer.keys {
        baseline = Dictionary(uniqueKeysWithValues: keys.map { ($0, backend.value(forKey: $0)) })
      } else {
        baseline = backend.dictionaryRepresentation().mapValues { .some($0) }
      }
      var claimed = Self.enqueue(takeRecorded(), in: state)
      if let keys = observer.keys {
        for key in keys { state.byKey[key, default: [:]][id] = observer }
      } else {
        state.allKeys[id] = observer
      }
      observer.setBaseline(baseline)
      if initial, Self.enqueueInitialValues(baseline, to: observer) { claimed.append(observer) }
      return claimed
    }
    ordering.unlock()
    for observer in claimed { observer.drain() }
  }

  /// Registers an observer of a backend that records its own changes: under the backend's lock,
  /// its baseline is read, its initial values (if asked for) are queued first, and it is added to
  /// its keys' cells, in one step no change can come between.
  private func register(_ observer: Observer, on recorder: any RecordsOwnChanges, initial: Bool) {
    let claims = state.withLock { state -> ObserverClaims in
      let id = ObjectIdentifier(observer)
      if observer.keys?.isEmpty != true { recorded.withLock { $0.observerCount += 1 } }
      var claims = ObserverClaims()
      recorder.attach(observer) { baseline in
        observer.setBaseline(baseline)
        if initial, Self.enqueueInitialValues(baseline, to: observer) {
          claims.others.append(observer)
        }
      }
      if let keys = observer.keys {
        for key in keys { state.byKey[key, default: [:]][id] = observer }
      } else {
        state.allKeys[id] = observer
      }
      return claims
    }
    claims.deliver()
  }

  /// Queues each observed key's value in `baseline`, in key order, to be delivered even if it
  /// equals the last one (an initial value asked for); returns whether the caller must drain.
  private static func enqueueInitialValues(
    _ baseline: [String: PropertyListValue?], to observer: Observer
  ) -> Bool {
    guard let keys = observer.keys else { return false }
    var claims = false
    for key in keys.sorted() {
      // A baseline knows no layers: a key a secret layer fills is noted by its store.
      let change = SettingsChange(
        key: key, newValue: baseline[key] ?? nil,
        valueIsSecret: SecretRedaction.isDeclaredSecret(key))
      claims = observer.enqueue(change, forced: true) || claims
    }
    return claims
  }

  /// Removes an observer; a key no longer observed by anyone stops being recorded.
  func unregister(_ observer: Observer, from backend: (any SettingsBackend)?) {
    let recorder = backend as? any RecordsOwnChanges
    state.withLock { state in
      let id = ObjectIdentifier(observer)
      guard let keys = observer.keys else {
        if state.allKeys.removeValue(forKey: id) != nil {
          recorded.withLock { $0.observerCount -= 1 }
          recorder?.detach(observer)
        }
        return
      }
      var removed = false
      for key in keys where state.byKey[key]?.removeValue(forKey: id) != nil {
        removed = true
        if state.byKey[key]?.isEmpty == true { state.byKey[key] = nil }
      }
      if removed {
        recorded.withLock { $0.observerCount -= 1 }
        recorder?.detach(observer)
      }
    }
  }

  // MARK: - Recording and delivering

  /// Records changes that have just taken effect, in the order they took effect, for
  /// ``deliverRecorded()``: called holding the ordering lock, for a backend that doesn't record its
  /// own changes (one that does offers them to the observers in its cells instead).
  func record(_ changes: some Sequence<SettingsChange>) {
    recorded.withLock { $0.changes.append(contentsOf: changes) }
  }

  /// Records one change (see ``record(_:)``).
  func record(_ change: SettingsChange) {
    recorded.withLock { $0.changes.append(change) }
  }

  /// Hands every recorded change to the observers of its key, in the recorded order, then
  /// delivers what this thread claimed to deliver, before returning.
  ///
  /// Call it holding no lock (an observer may read, write or save the backend).
  func deliverRecorded() {
    let claimed = state.withLock { state in Self.enqueue(takeRecorded(), in: state) }
    for observer in claimed { observer.drain() }
  }

  /// Runs `write`, a change of `keys` of a backend that doesn't record its own changes, then
  /// records the value each key has after it, and delivers.
  ///
  /// While someone observes the backend, the ordering lock is held around the write and the
  /// reads, so that changes are recorded in the order they took effect and each with the value
  /// it left. While no one does, the write runs without it; an observer registering meanwhile
  /// reads its baseline once registered, and the keys are reported to it in case the write ended
  /// after that. A registry that serializes writes (``init(serializesWrites:)``) holds the
  /// ordering lock around every write, observed or not.
  ///
  /// - Parameters:
  ///   - keys: The keys `write` changes, as the backend stores them. A write that learns them
  ///     only as it runs may pass none and report them itself (``report(_:of:)``) before it
  ///     returns: made holding the ordering lock, that report records the values it left.
  ///   - backend: The backend written.
  ///   - write: The write. If it throws, nothing is recorded (a failed write changes nothing).
  /// - Throws: What `write` throws.
  func recordingWrite<Failure: Error>(
    _ keys: some Collection<String>, of backend: any SettingsBackend,
    _ write: () throws(Failure) -> Void
  ) throws(Failure) {
    let wasObserved = isObserved
    guard wasObserved || serializesWrites else {
      try write()
      if isObserved { report(keys, of: backend) }
      return
    }
    let outermost = ordering.lock()
    do {
      try write()
    } catch {
      ordering.unlock()
      throw error
    }
    // Registering takes the ordering lock too: an observer is either counted here, or reads its
    // baseline after the write.
    let observed = isObserved
    if observed {
      record(keys.map { SettingsChange(key: $0, newValue: backend.value(forKey: $0)) })
    }
    ordering.unlock()
    // A write inside another's (a handler called by the outer write) leaves the delivery to the
    // outer one, which holds the ordering lock: observers are called with no lock held.
    if outermost, wasObserved || observed { deliverRecorded() }
  }

  /// Records the value each of `keys` has now, as a read returns it, and delivers: what
  /// ``SettingsBackend/reportChanges(forKeys:)`` does.
  ///
  /// Observers whose last value is the same get nothing, and keys no one observes cost a dictionary
  /// lookup each.
  func report(_ keys: some Sequence<String>, of backend: any SettingsBackend) {
    // An observer registering after this read its baseline after the change being reported.
    let observed = state.withLock { state -> [String] in
      guard !state.byKey.isEmpty || !state.allKeys.isEmpty else { return [] }
      return keys.filter { !state.allKeys.isEmpty || state.byKey[$0] != nil }
    }
    guard !observed.isEmpty else { return }
    if let recorder = backend as? any RecordsOwnChanges {
      recorder.offerCurrentValues(of: observed).deliver()
      return
    }
    let outermost = ordering.lock()
    record(observed.map { SettingsChange(key: $0, newValue: backend.value(forKey: $0)) })
    ordering.unlock()
    if outermost { deliverRecorded() }
  }

  private var isObserved: Bool { observerCount > 0 }

  /// The changes recorded so far, taken out of the queue.
  private func takeRecorded() -> [SettingsChange] {
    recorded.withLock { recorded in
      var taken: [SettingsChange] = []
      swap(&taken, &recorded.changes)
      return taken
    }
  }

  /// Queues each change for the observers of its key; returns the observers this thread must
  /// drain (those that were idle).
  private static func enqueue(_ changes: [SettingsChange], in state: State) -> [Observer] {
    guard !changes.isEmpty, !state.byKey.isEmpty || !state.allKeys.isEmpty else { return [] }
    var claimed: [Observer] = []
    for change in changes {
      for observer in state.byKey[change.key]?.values ?? [:].values
      where observer.enqueue(change) {
        claimed.append(observer)
      }
      for observer in state.allKeys.values where observer.enqueue(change) {
        claimed.append(observer)
      }
    }
    return claimed
  }
}
