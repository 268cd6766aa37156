#if canImport(Observation)
  import Foundation
  import Observation

  /// A setting's part in Swift's Observation: reading the setting records an access to this
  /// object, and a change of the setting's key, by any writer, is a mutation of it.
  ///
  /// A read outside any tracking costs one thread-local check inside the Observation runtime. The
  /// backend observer that turns the key's changes into mutations is only registered once the
  /// setting is first read *inside* tracking, so that writes to a key no one ever tracked cost
  /// nothing more. The read can't ask the runtime whether it is tracking, but tracking stores the
  /// key path it was given in a set, which hashes it, and this key path's argument (a
  /// ``TrackingProbe``) registers the observer when it is hashed.
  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  // @unchecked Sendable: every stored property is an immutable `let`; the key path (not marked
  // Sendable by the standard library) captures only a Sendable probe.
  final class SettingObservable: Observable, @unchecked Sendable {
    let registrar = ObservationRegistrar()
    let interest: TrackingInterest
    /// `\SettingObservable[probe:]` with this setting's probe: the key path every access and
    /// mutation names.
    let keyPath: KeyPath<SettingObservable, Int>

    init() {
      let interest = TrackingInterest()
      self.interest = interest
      self.keyPath = \SettingObservable[probe: TrackingProbe(interest: interest)]
      interest.setObservable(self)
    }

    /// A member only for the key path: Observation never reads it.
    subscript(probe probe: TrackingProbe) -> Int { 0 }

    @inline(__always)
    func access() {
      registrar.access(self, keyPath: keyPath)
    }

    /// Tells Observation the setting changed: `withObservationTracking`'s `onChange` (at
    /// `willSet`) and `Observations` (at `didSet`). Called after the value is stored, so both
    /// already read the new value.
    func changed() {
      registrar.withMutation(of: self, keyPath: keyPath) {}
    }
  }

  /// Registers a backend observer of the setting's key the first time the setting's key path is
  /// hashed, that is, the first time the setting is read inside observation tracking.
  ///
  /// It holds the observable and the observer's token strongly, and the settings' binding breaks
  /// that cycle when it goes (``invalidate()``); it holds the binding unretained, as only a read
  /// of a setting, which keeps the binding alive, can start tracking. No weak reference is
  /// involved on purpose: a weak reference to an object a read retains (the observable, the
  /// storage, the backend) gives that object a side table, and every retain and release of it
  /// the slow path, which doubled the cost of a read.
  // @unchecked Sendable: every mutable field is behind `lock`.
  final class TrackingInterest: @unchecked Sendable {
    private let lock = NSLock()
    private var token: ObservationToken?
    private var started = false
    /// The binding of the setting the interest stands for (which names the backend to observe),
    /// unretained: set while the setting is bound, before it can be shared, and used only by
    /// the first `trackingStarted()`, which Swift's Observation runs inside the read of that
    /// setting (it hashes the key path in `access`), while the setting holds its binding
    /// (`ModelBindingTests.trackingStartsInsideTheReadOfTheSetting` pins that). A weak
    /// reference would be safe without it but cost every model 2.5 µs of its 15 to create.
    private unowned(unsafe) var binding: BackendBinding?
    /// For an interest standing for the setting read through a test's backend (see
    /// ``OverrideTracking``): that backend, held weakly, as the setting's model may outlive the
    /// test. `nil` for the setting's own.
    private weak var overridingBackend: (any SettingsBackend)?
    private var key = ""
    private var observable: SettingObservable?

    /// Set once, by the observable's `init`.
    func setObservable(_ observable: SettingObservable) {
      lock.lock()
      self.observable = observable
      lock.unlock()
    }

    /// Records what to observe: the setting's key in its binding's target. Called only on an
    /// interest just taken from the pool or created, before its setting can be shared (the
    /// pool's lock orders it after the interest's last use), so it needs no lock of its own.
    func prepare(binding: BackendBinding, key: String) {
      self.binding = binding
      self.key = key
    }

    /// Records what to observe for a setting read through a test's backend: the setting's key
    /// in that backend (the key the read uses). Called before the interest can be shared, as
    /// ``prepare(binding:key:)`` is.
    func prepare(overriding backend: any SettingsBackend, key: String) {
      self.binding = nil
      self.overridingBackend = backend
      self.key = key
    }

    func trackingStarted() {
      lock.lock()
      guard !started, observable != nil, binding != nil || overridingBackend != nil else {
        lock.unlock()
        return
      }
      started = true
      let key = key
      let binding = binding
      let overridingBackend = overridingBackend
      lock.unlock()
      let token: ObservationToken
      if let binding {
        binding.noteTrackingStarted()
        token = binding.target.observe(key: key) { [self] _ in forwardChange() }
      } else if let overridingBackend {
        token = overridingBackend.observe(
          registering: [overridingBackend.observationKey(key)], initial: false, retaining: false
        ) { [self] _ in forwardChange() }
      } else {
        return
      }
      lock.lock()
      if observable == nil {
        // Invalidated meanwhile.
        lock.unlock()
        token.cancel()
        return
      }
      self.token = token
      lock.unlock()
    }

    private func forwardChange() {
      lock.lock()
      let observable = observable
      lock.unlock()
      observable?.changed()
    }

    /// Makes the interest (and its observable) ready for another setting, if no tracking ever
    /// hashed its key path: then no observer was ever registered with its observable's registrar,
    /// so reusing the pair for another setting is invisible. Returns whether it did.
    func recycle() -> Bool {
      lock.lock()
      defer { lock.unlock() }
      guard !started, token == nil else { return false }
      binding = nil
      overridingBackend = nil
      key = ""
      return true
    }

    /// Stops observing and lets go of the observable: the setting's storage is going.
    func invalidate() {
      lock.lock()
      let token = token
      self.token = nil
      observable = nil
      binding = nil
      overridingBackend = nil
      lock.unlock()
      token?.cancel()
    }

    /// Whether the interest stands for a setting read through `backend`, which is still alive.
    func isOverriding(_ backend: any SettingsBackend) -> Bool {
      lock.lock()
      defer { lock.unlock() }
      return overridingBackend === backend
    }

    /// Whether the interest stands for a setting read through a test's backend that is gone.
    var overridesAGoneBackend: Bool {
      lock.lock()
      defer { lock.unlock() }
      return overridingBackend == nil
    }
  }

  /// A setting's parts in Swift's Observation for the tests' backends it was read through
  /// (``BackendOverride``): one ``SettingObservable`` per backend, observing the setting's key
  /// there, so that tracking a read inside a test's scope is told of that backend's changes,
  /// and not of another test's.
  ///
  /// Kept by the setting (in its slow-path state) for as long as it lives, which for an app's
  /// `static let shared` model is the whole test run: each entry holds its backend weakly, and
  /// the entries of backends that are gone are dropped as new ones come.
  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  final class OverrideTracking: Sendable {
    private let observables = Locked<[ObjectIdentifier: SettingObservable]>([:])

    /// Records a read of the setting's `key` through `backend` for Observation.
    func accessed(through backend: any SettingsBackend, key: String) {
      let id = ObjectIdentifier(backend)
      let existing = observables.withLock { $0[id] }
      if let existing, existing.interest.isOverriding(backend) {
        existing.access()
        return
      }
      let created = unsafeDowncast(
        SettingObservablePool.take(count: 1)[0], to: SettingObservable.self)
      created.interest.prepare(overriding: backend, key: key)
      var released: [SettingObservable] = []
      let observable = observables.withLock { observables -> SettingObservable in
        if let current = observables[id], current.interest.isOverriding(backend) {
          released.append(created)
          return current
        }
        for (other, observable) in observables where observable.interest.overridesAGoneBackend {
          released.append(observable)
          observables[other] = nil
        }
        observables[id] = created
        return created
      }
      if !released.isEmpty { SettingObservablePool.giveBack(released, someTracked: true) }
      observable.access()
    }

    deinit {
      let all = observables.withLock { Array($0.values) }
      if !all.isEmpty { SettingObservablePool.giveBack(all, someTracked: true) }
    }
  }

  /// The key path argument whose hashing reveals tracking (see ``SettingObservable``).
  struct TrackingProbe: Hashable, Sendable {
    let interest: TrackingInterest

    static func == (lhs: TrackingProbe, rhs: TrackingProbe) -> Bool {
      lhs.interest === rhs.interest
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(ObjectIdentifier(interest))
      interest.trackingStarted()
    }
  }
#endif

#if canImport(Observation)
  /// Observables of settings that are gone and were never tracked, kept for new settings.
  ///
  /// Creating a ``SettingObservable`` costs about 2 µs, almost all of it the Swift runtime
  /// building its key path (a key path with a subscript argument resolves the argument's types by
  /// name each time): most of the cost of creating a model. An observable no tracking ever saw
  /// has no observers in its registrar and no backend observer, so handing it to a new setting is
  /// invisible; one that was tracked is never reused.
  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  enum SettingObservablePool {
    // @unchecked Sendable: the array is behind its lock, and an observable in it is used by no
    // setting until it is taken out.
    private final class Pool: @unchecked Sendable {
      /// Batches of ``SettingObservable``s, each the observables of one binding that went (typed
      /// `AnyObject` as bindings keep them): handing a batch back and taking it again moves one
      /// array, not each observable.
      let batches = Locked(Batches())
    }

    /// The pool's batches and how many observables they hold in all (kept against ``limit``).
    struct Batches {
      var batches: [[AnyObject]] = []
      var count = 0
    }

    private static let pool = Pool()
    /// The most observables kept: the settings of a few large models.
    static let limit = 4096

    /// `count` observables: a batch of that size from the pool if the last one is (a model of the
    /// type that gave it back), else gathered from the pool's batches, then new ones.
    static func take(count: Int) -> [AnyObject] {
      var taken = pool.batches.withLock { pool -> [AnyObject] in
        if pool.batches.last?.count == count {
          pool.count -= count
          return pool.batches.removeLast()
        }
        var gathered: [AnyObject] = []
        while gathered.count < count, var batch = pool.batches.popLast() {
          let needed = count - gathered.count
          if batch.count > needed {
            gathered += batch.suffix(needed)
            batch.removeLast(needed)
            pool.batches.append(batch)
          } else {
            gathered += batch
          }
        }
        pool.count -= gathered.count
        return gathered
      }
      if taken.count < count {
        taken.reserveCapacity(count)
        for _ in taken.count..<count { taken.append(SettingObservable()) }
      }
      return taken
    }

    /// Keeps the observables of a binding that went (one acquisition of the pool's lock):
    /// as they are if none was ever tracked, otherwise those that were not, the others
    /// invalidated. Beyond ``limit``, invalidates them instead.
    static func giveBack(_ observables: [AnyObject], someTracked: Bool) {
      var recyclable = observables
      if someTracked {
        recyclable = []
        for observable in observables {
          let interest = unsafeDowncast(observable, to: SettingObservable.self).interest
          if interest.recycle() {
            recyclable.append(observable)
          } else {
            interest.invalidate()
          }
        }
      }
      guard !recyclable.isEmpty else { return }
      let kept = pool.batches.withLock { pool -> Bool in
        guard pool.count + recyclable.count <= limit else { return false }
        pool.count += recyclable.count
        pool.batches.append(recyclable)
        return true
      }
      if !kept {
        for observable in recyclable {
          unsafeDowncast(observable, to: SettingObservable.self).interest.invalidate()
        }
      }
    }
  }
#endif

/// Takes `count` settings' ``SettingObservable``s where the platform has Observation (reusing
/// those of settings that are gone, see ``SettingObservablePool``), or returns `nil`.
func takeSettingObservables(count: Int) -> [AnyObject]? {
  #if canImport(Observation)
    if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *) {
      return SettingObservablePool.take(count: count)
    }
  #endif
  return nil
}

/// Tells an observable just taken which key of which binding's target it stands for, before its
/// setting can be shared.
func prepareSettingObservable(_ observable: AnyObject, binding: BackendBinding, key: String) {
  #if canImport(Observation)
    if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *) {
      unsafeDowncast(observable, to: SettingObservable.self).interest.prepare(
        binding: binding, key: key)
    }
  #endif
}

/// Ends the settings' parts in Observation when their binding goes: stops the backend observers
/// of those that were tracked and breaks their reference cycles, keeping the others for reuse.
///
/// - Parameters:
///   - observables: The binding's observables.
///   - someTracked: Whether any of them was ever tracked (if not, none needs looking at).
func giveBackSettingObservables(_ observables: [AnyObject], someTracked: Bool) {
  #if canImport(Observation)
    if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *),
      !observables.isEmpty
    {
      SettingObservablePool.giveBack(observables, someTracked: someTracked)
    }
  #endif
}

/// A new setting's record of the tests' backends it is read through, for Observation
/// (``OverrideTracking``), or `nil` where the platform has no Observation.
func makeOverrideTracking() -> AnyObject? {
  #if canImport(Observation)
    if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *) {
      return OverrideTracking()
    }
  #endif
  return nil
}

/// Records a read of a setting's `key` through a test's backend for Observation (a no-op
/// outside tracking).
///
/// - Parameter tracking: The setting's ``OverrideTracking`` (`makeOverrideTracking()`).
func settingAccessed(through backend: any SettingsBackend, key: String, tracking: AnyObject) {
  #if canImport(Observation)
    if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *) {
      unsafeDowncast(tracking, to: OverrideTracking.self).accessed(through: backend, key: key)
    }
  #endif
}

/// Records a read of a setting for Observation (a no-op outside tracking).
///
/// - Parameter observable: The setting's ``SettingObservable``, unretained; the caller keeps it
///   alive.
@usableFromInline
func settingAccessed(_ observable: UnsafeMutableRawPointer) {
  #if canImport(Observation)
    if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *) {
      Unmanaged<SettingObservable>.fromOpaque(observable)._withUnsafeGuaranteedRef { $0.access() }
    }
  #endif
}
