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
  /// It holds the observable and the observer's token strongly, and the setting's storage breaks
  /// that cycle when it goes (``invalidate()``). No weak reference is involved on purpose: a weak
  /// reference to an object a read retains (the observable, the storage, the backend) gives that
  /// object a side table, and every retain and release of it the slow path, which doubled the
  /// cost of a read.
  // @unchecked Sendable: every mutable field is behind `lock`.
  final class TrackingInterest: @unchecked Sendable {
    private let lock = NSLock()
    private var token: ObservationToken?
    private var started = false
    private var backend: (any SettingsBackend)?
    private var key = ""
    private var observable: SettingObservable?

    /// Set once, by the observable's `init`.
    func setObservable(_ observable: SettingObservable) {
      lock.lock()
      self.observable = observable
      lock.unlock()
    }

    /// Records what to observe: the setting's key in its backend, once the setting is attached.
    func bind(backend: any SettingsBackend, key: String) {
      lock.lock()
      self.backend = backend
      self.key = key
      lock.unlock()
    }

    func trackingStarted() {
      lock.lock()
      guard !started, let backend, observable != nil else {
        lock.unlock()
        return
      }
      started = true
      let key = key
      lock.unlock()
      let token = backend.observe(key: key) { [self] _ in forwardChange() }
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
      backend = nil
      key = ""
      return true
    }

    /// Stops observing and lets go of the observable: the setting's storage is going.
    func invalidate() {
      lock.lock()
      let token = token
      self.token = nil
      observable = nil
      backend = nil
      lock.unlock()
      token?.cancel()
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
      let observables = Locked([SettingObservable]())
    }

    private static let pool = Pool()
    /// The most observables kept: the settings of a few large models.
    static let limit = 4096

    static func take() -> SettingObservable {
      pool.observables.withLock { $0.popLast() } ?? SettingObservable()
    }

    /// Keeps an observable whose setting is gone, or invalidates it if it was ever tracked.
    static func giveBack(_ observable: SettingObservable) {
      guard observable.interest.recycle() else {
        observable.interest.invalidate()
        return
      }
      let kept = pool.observables.withLock { observables -> Bool in
        guard observables.count < limit else { return false }
        observables.append(observable)
        return true
      }
      if !kept { observable.interest.invalidate() }
    }
  }
#endif

/// Creates a setting's ``SettingObservable`` where the platform has Observation (or reuses one
/// of a setting that is gone, see ``SettingObservablePool``).
func makeSettingObservable() -> AnyObject? {
  #if canImport(Observation)
    if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *) {
      return SettingObservablePool.take()
    }
  #endif
  return nil
}

/// Tells a setting's observable which key of which backend it stands for, once the setting is
/// attached.
func bindSettingObservable(_ observable: AnyObject, backend: any SettingsBackend, key: String) {
  #if canImport(Observation)
    if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *) {
      unsafeDowncast(observable, to: SettingObservable.self).interest.bind(
        backend: backend, key: key)
    }
  #endif
}

/// Ends a setting's part in Observation, when its storage goes: stops its backend observer and
/// breaks the observable's reference cycle.
func invalidateSettingObservable(_ observable: AnyObject) {
  #if canImport(Observation)
    if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *) {
      SettingObservablePool.giveBack(unsafeDowncast(observable, to: SettingObservable.self))
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
