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
/// table (``ObservationCenter``). Publishing a key reads its current value from the backend and
/// queues it for each observer of the key, all under this registry's lock, so that for any two
/// publications of a key, the later one queues a value read later: an observer never receives a
/// value older than one it already has.
///
/// Lock order: this registry's lock, then the backend's own lock (reading a value, flagging a
/// key as observed), then an observer's lock. Backends never publish while holding their lock,
/// and observers are called with no lock held.
final class ObserverRegistry: Sendable {
  private struct State {
    var byKey: [String: [ObjectIdentifier: Observer]] = [:]
    var allKeys: [ObjectIdentifier: Observer] = [:]
  }

  private let state = Locked(State())

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

  /// Registers an observer of its keys (or of every key) of `backend`.
  ///
  /// Under the registry's lock, the keys are first flagged as observed (so every write that
  /// completes afterwards publishes), then their current values are read as the observer's
  /// baseline: a write racing the registration is either in the baseline or published.
  ///
  /// - Parameter initial: Queue each observed key's current value for delivery first.
  func register(_ observer: Observer, on backend: any SettingsBackend, initial: Bool) {
    let flagging = backend as? any ObservationFlagging
    let claimed = state.withLock { state -> Bool in
      let id = ObjectIdentifier(observer)
      guard let keys = observer.keys else {
        if state.allKeys.isEmpty { flagging?.setObservesAllKeys(true) }
        state.allKeys[id] = observer
        observer.setBaseline(backend.dictionaryRepresentation().mapValues { .some($0) })
        return false
      }
      for key in keys {
        if state.byKey[key] == nil { flagging?.setObserved(true, forKey: key) }
        state.byKey[key, default: [:]][id] = observer
      }
      var baseline: [String: PropertyListValue?] = [:]
      for key in keys { baseline[key] = .some(backend.value(forKey: key)) }
      observer.setBaseline(baseline)
      guard initial else { return false }
      var claimed = false
      for key in keys.sorted() {
        let change = SettingsChange(key: key, newValue: baseline[key] ?? nil)
        claimed = observer.enqueue(change, forced: true) || claimed
      }
      return claimed
    }
    if claimed { observer.drain() }
  }

  /// Removes an observer; a key no longer observed by anyone stops publishing.
  func unregister(_ observer: Observer, from backend: (any SettingsBackend)?) {
    let flagging = backend as? any ObservationFlagging
    state.withLock { state in
      let id = ObjectIdentifier(observer)
      guard let keys = observer.keys else {
        if state.allKeys.removeValue(forKey: id) != nil, state.allKeys.isEmpty {
          flagging?.setObservesAllKeys(false)
        }
        return
      }
      for key in keys where state.byKey[key]?.removeValue(forKey: id) != nil {
        if state.byKey[key]?.isEmpty == true {
          state.byKey[key] = nil
          flagging?.setObserved(false, forKey: key)
        }
      }
    }
  }

  /// Publishes the current value of each key to its observers, then delivers what this thread
  /// claimed to deliver, before returning.
  func publish<Keys: Sequence<String>>(_ keys: Keys, of backend: any SettingsBackend) {
    let claimed = state.withLock { state -> [Observer] in
      guard !state.byKey.isEmpty || !state.allKeys.isEmpty else { return [] }
      var claimed: [Observer] = []
      for key in keys {
        let observers = state.byKey[key]
        guard observers != nil || !state.allKeys.isEmpty else { continue }
        let change = SettingsChange(key: key, newValue: backend.value(forKey: key))
        for observer in observers?.values ?? [:].values where observer.enqueue(change) {
          claimed.append(observer)
        }
        for observer in state.allKeys.values where observer.enqueue(change) {
          claimed.append(observer)
        }
      }
      return claimed
    }
    for observer in claimed { observer.drain() }
  }

  /// Publishes one key.
  func publish(_ key: String, of backend: any SettingsBackend) {
    publish(CollectionOfOne(key), of: backend)
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

/// A backend that can tell, under its own lock and at no cost, whether a write must publish: it
/// keeps flags the registry sets.
protocol ObservationFlagging: AnyObject {
  /// Marks a key observed by at least one observer, or by none.
  func setObserved(_ observed: Bool, forKey key: String)
  /// Marks the backend observed by at least one observer of every key, or by none.
  func setObservesAllKeys(_ observed: Bool)
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

  /// Publishes changes of `keys` of `backend`.
  static func publish<Keys: Sequence<String>>(_ keys: Keys, of backend: any SettingsBackend) {
    existingRegistry(for: backend)?.publish(keys, of: backend)
  }
}
