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
  /// - Parameter forced: Deliver even if the value equals the last one delivered (an initial
  ///   value asked for).
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

  /// Delivers queued changes until the queue is empty or the observer is cancelled. Called only
  /// by the thread that claimed the queue, with no lock held.
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

  /// Stops deliveries: none starts after this returns. A callback running on another thread is
  /// waited for; one running on this thread (a callback cancelling its own observation) is not.
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

/// The observers of one backend, by key, and the way changes reach them.
///
/// The library's backends keep theirs in a stored property; any other backend gets one from a side
/// table (``ObservationCenter``).
///
/// Every change reaches observers as it was *recorded*: the key and the value the change left,
/// taken at the moment the change took effect and in the order changes took effect. A backend
/// that records its own changes (``RecordsOwnChanges``) records them under its own lock, in the
/// same critical section as the change; for any other backend (``UserDefaultsBackend``, one
/// written outside the library) the registry's ordering lock is held around the change and the
/// read of the value it left (``recordingWrite(_:of:_:)``). Recorded changes wait in one queue,
/// which is handed to observers whole, under the registry's lock, by whichever thread delivers
/// next (``deliverRecorded()``): so every observer receives every recorded change of its keys, in
/// the recorded order, and the value of a change is never older than one it already has. (The
/// value is never read back at delivery: two racing writes would both deliver the later value.)
///
/// Lock order: the ordering lock, then this registry's lock, then the backend's own lock (flagging
/// a key as observed, reading a baseline), then the queue's lock and an observer's lock. A backend
/// records holding its own lock (backend, then queue) and delivers holding none; observers are
/// called with no lock of the registry or the backend held.
final class ObserverRegistry: Sendable {
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

  init() {}

  /// The number of observers registered.
  var count: Int {
    state.withLock { state in
      Set(state.byKey.values.flatMap(\.keys)).union(state.allKeys.keys).count
    }
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
  /// Under the registry's lock, the keys are first flagged as observed (so that every change
  /// taking effect afterwards is recorded), then, in one step no change can come between, the
  /// observer's baseline is read and the changes recorded so far are taken: those go to the
  /// observers registered before, and the new observer is told only of changes recorded after
  /// its baseline. A change racing the registration is thus either in the baseline or delivered.
  ///
  /// - Parameter initial: Queue each observed key's current value for delivery first.
  func register(_ observer: Observer, on backend: any SettingsBackend, initial: Bool) {
    let recorder = backend as? any RecordsOwnChanges
    if recorder == nil { _ = ordering.lock() }
    let claimed = state.withLock { state -> [Observer] in
      let id = ObjectIdentifier(observer)
      if let keys = observer.keys {
        for key in keys where state.byKey[key] == nil { recorder?.setObserved(true, forKey: key) }
      } else if state.allKeys.isEmpty {
        recorder?.setObservesAllKeys(true)
      }
      if observer.keys?.isEmpty != true { recorded.withLock { $0.observerCount += 1 } }
      var earlier: [SettingsChange] = []
      let baseline: [String: PropertyListValue?]
      if let recorder {
        baseline = recorder.observationBaseline(of: observer.keys) { earlier = takeRecorded() }
      } else if let keys = observer.keys {
        baseline = Dictionary(uniqueKeysWithValues: keys.map { ($0, backend.value(forKey: $0)) })
        earlier = takeRecorded()
      } else {
        baseline = backend.dictionaryRepresentation().mapValues { .some($0) }
        earlier = takeRecorded()
      }
      var claimed = Self.enqueue(earlier, in: state)
      if let keys = observer.keys {
        for key in keys { state.byKey[key, default: [:]][id] = observer }
      } else {
        state.allKeys[id] = observer
      }
      observer.setBaseline(baseline)
      if initial, let keys = observer.keys {
        var claims = false
        for key in keys.sorted() {
          let change = SettingsChange(key: key, newValue: baseline[key] ?? nil)
          claims = observer.enqueue(change, forced: true) || claims
        }
        if claims { claimed.append(observer) }
      }
      return claimed
    }
    if recorder == nil { ordering.unlock() }
    for observer in claimed { observer.drain() }
  }

  /// Removes an observer; a key no longer observed by anyone stops being recorded.
  func unregister(_ observer: Observer, from backend: (any SettingsBackend)?) {
    let recorder = backend as? any RecordsOwnChanges
    state.withLock { state in
      let id = ObjectIdentifier(observer)
      guard let keys = observer.keys else {
        if state.allKeys.removeValue(forKey: id) != nil {
          recorded.withLock { $0.observerCount -= 1 }
          if state.allKeys.isEmpty { recorder?.setObservesAllKeys(false) }
        }
        return
      }
      var removed = false
      for key in keys where state.byKey[key]?.removeValue(forKey: id) != nil {
        removed = true
        if state.byKey[key]?.isEmpty == true {
          state.byKey[key] = nil
          recorder?.setObserved(false, forKey: key)
        }
      }
      if removed { recorded.withLock { $0.observerCount -= 1 } }
    }
  }

  // MARK: - Recording and delivering

  /// Records changes that have just taken effect, in the order they took effect, for
  /// ``deliverRecorded()``.
  ///
  /// A backend that records its own changes calls it holding the lock the changes took effect
  /// under, so that the recorded order is the order of the changes.
  func record(_ changes: some Sequence<SettingsChange>) {
    recorded.withLock { $0.changes.append(contentsOf: changes) }
  }

  /// Records one change (see ``record(_:)``).
  func record(_ change: SettingsChange) {
    recorded.withLock { $0.changes.append(change) }
  }

  /// Hands every recorded change to the observers of its key, in the recorded order, then
  /// delivers what this thread claimed to deliver, before returning. Call it holding no lock
  /// (an observer may read, write or save the backend).
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
  /// after that.
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
    guard isObserved else {
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
    record(keys.map { SettingsChange(key: $0, newValue: backend.value(forKey: $0)) })
    ordering.unlock()
    // A write inside another's (a handler called by the outer write) leaves the delivery to the
    // outer one, which holds the ordering lock: observers are called with no lock held.
    if outermost { deliverRecorded() }
  }

  /// Records the value each of `keys` has now, as a read returns it, and delivers: what
  /// ``SettingsBackend/reportChanges(forKeys:)`` does. Observers whose last value is the same
  /// get nothing, and keys no one observes cost a dictionary lookup each.
  func report(_ keys: some Sequence<String>, of backend: any SettingsBackend) {
    // An observer registering after this read its baseline after the change being reported.
    let observed = state.withLock { state -> [String] in
      guard !state.byKey.isEmpty || !state.allKeys.isEmpty else { return [] }
      return keys.filter { !state.allKeys.isEmpty || state.byKey[$0] != nil }
    }
    guard !observed.isEmpty else { return }
    if let recorder = backend as? any RecordsOwnChanges {
      recorder.recordCurrentValues(of: observed)
      deliverRecorded()
      return
    }
    let outermost = ordering.lock()
    record(observed.map { SettingsChange(key: $0, newValue: backend.value(forKey: $0)) })
    ordering.unlock()
    if outermost { deliverRecorded() }
  }

  private var isObserved: Bool {
    recorded.withLock { $0.observerCount > 0 }
  }

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

/// A lock that the thread holding it may take again, and that tells each acquisition whether it
/// is the thread's outermost one: the registry's ordering lock, which a write holds while it may
/// call code (a diagnostics handler, a backend's own `setValue`) that writes or reports again.
// @unchecked Sendable: `owner` and `depth` are read and written only while `condition` is locked.
final class ReentrantLock: @unchecked Sendable {
  private let condition = NSCondition()
  private var owner: pthread_t?
  private var depth = 0

  /// Waits until no other thread holds the lock, takes it, and returns whether this thread
  /// didn't hold it already.
  func lock() -> Bool {
    let thread = pthread_self()
    condition.lock()
    defer { condition.unlock() }
    if let owner, pthread_equal(owner, thread) != 0 {
      depth += 1
      return false
    }
    while owner != nil { condition.wait() }
    owner = thread
    depth = 1
    return true
  }

  /// Releases one acquisition.
  func unlock() {
    condition.lock()
    defer { condition.unlock() }
    depth -= 1
    if depth == 0 {
      owner = nil
      condition.signal()
    }
  }
}

/// A library backend that publishes every change it makes, so that a ``Setting`` writing to it
/// publishes nothing more.
protocol PublishesOwnChanges: SettingsBackend {}

/// A library backend that keeps its ``ObserverRegistry`` in a stored property, so finding it costs
/// no side-table lookup.
protocol OwnsObserverRegistry: PublishesOwnChanges {
  /// The backend's observers.
  var observers: ObserverRegistry { get }
}

/// A library backend that records its own observed changes under its own lock (see
/// ``ObserverRegistry``), and can tell under that lock, at no cost, whether a change must be
/// recorded: it keeps flags the registry sets.
protocol RecordsOwnChanges: OwnsObserverRegistry, AnyObject {
  /// Marks a key observed by at least one observer, or by none.
  func setObserved(_ observed: Bool, forKey key: String)
  /// Marks the backend observed by at least one observer of every key, or by none.
  func setObservesAllKeys(_ observed: Bool)
  /// Under the lock changes are recorded under: calls `whileLocked`, then returns the value of
  /// each of `keys` (of every key holding one, when `nil`).
  func observationBaseline(
    of keys: Set<String>?, _ whileLocked: () -> Void
  ) -> [String: PropertyListValue?]
  /// Under the lock changes are recorded under: records the value each key has now
  /// (``ObserverRegistry/record(_:)``).
  func recordCurrentValues(of keys: [String])
}

/// Finds any backend's observer registry: the library's own backends keep it in a property; any
/// other backend gets one from a side table keyed by `ObjectIdentifier`, whose entries hold the
/// backend weakly and go when it does.
enum ObservationCenter {
  // @unchecked Sendable: `backend` is a weak reference set once, in `init`; the registry is
  // Sendable.
  private final class Entry: @unchecked Sendable {
    weak var backend: (any SettingsBackend)?
    let registry = ObserverRegistry()
    init(_ backend: any SettingsBackend) { self.backend = backend }
  }

  private struct Table {
    var entries: [ObjectIdentifier: Entry] = [:]
    var sweepThreshold = 16
  }

  private static let table = Locked(Table())

  /// The registry of `backend`, created on first use.
  static func registry(for backend: any SettingsBackend) -> ObserverRegistry {
    if let backend = backend as? any OwnsObserverRegistry { return backend.observers }
    return table.withLock { table in
      let id = ObjectIdentifier(backend)
      if let entry = table.entries[id], entry.backend === backend { return entry.registry }
      // A dead backend's identifier can be reused by a new object: replace its entry.
      if table.entries.count >= table.sweepThreshold {
        table.entries = table.entries.filter { $0.value.backend != nil }
        table.sweepThreshold = max(16, table.entries.count * 2)
      }
      let entry = Entry(backend)
      table.entries[id] = entry
      return entry.registry
    }
  }

  /// The registry of `backend` if it has one already (publishing to a backend nobody observes
  /// creates nothing).
  static func existingRegistry(for backend: any SettingsBackend) -> ObserverRegistry? {
    if let backend = backend as? any OwnsObserverRegistry { return backend.observers }
    return table.withLock { table in
      guard let entry = table.entries[ObjectIdentifier(backend)], entry.backend === backend else {
        return nil
      }
      return entry.registry
    }
  }

  /// Reports changes of `keys` of `backend` (``ObserverRegistry/report(_:of:)``).
  static func report<Keys: Sequence<String>>(_ keys: Keys, of backend: any SettingsBackend) {
    existingRegistry(for: backend)?.report(keys, of: backend)
  }

  /// Runs `write`, a change of `keys` made through the library, and tells `backend`'s observers
  /// of it: itself, for a backend that publishes its own changes; through
  /// ``ObserverRegistry/recordingWrite(_:of:_:)`` for any other, so that racing writes each
  /// deliver the value they left, in the order they took effect.
  ///
  /// - Parameters:
  ///   - keys: The keys `write` changes, as `backend` stores them.
  ///   - backend: The backend written. A ``ScopedBackend`` view reports its writes to its base
  ///     itself, so `write` just runs.
  ///   - write: The write.
  /// - Throws: What `write` throws; nothing is reported then.
  static func writing<Failure: Error>(
    _ keys: some Collection<String>, to backend: any SettingsBackend,
    _ write: () throws(Failure) -> Void
  ) throws(Failure) {
    if backend is any PublishesOwnChanges { return try write() }
    if let registry = existingRegistry(for: backend) {
      return try registry.recordingWrite(keys, of: backend, write)
    }
    try write()
    // Observed meanwhile: the new observer's baseline may predate the write.
    existingRegistry(for: backend)?.report(keys, of: backend)
  }
}
