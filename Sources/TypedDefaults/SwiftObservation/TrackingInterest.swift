#if canImport(Observation)
  import Foundation

  /// Registers a backend observer of the setting's key the first time the setting's key path is
  /// hashed, that is, the first time the setting is read inside observation tracking.
  ///
  /// It holds the observable and the observer's token strongly, and the settings' binding breaks
  /// that cycle when it goes (``invalidate()``); it holds the binding unretained, as only a read
  /// of a setting, which keeps the binding alive, can start tracking. No weak reference is
  /// involved on purpose: a weak reference to an object a read retains (the observable, the
  /// storage, the backend) gives that object a side table, and every retain and release of it
  /// the slow path, which doubled the cost of a read.
  // @unchecked Sendable: every mutable field is read and written behind `lock`, except that
  // `prepare` writes `binding`, `overridingBackend` and `key` without it, on an interest just taken
  // from the pool (whose lock orders the write after the interest's last use) or created, before
  // its setting can be shared; `trackingStarted()` reads them under `lock`.
  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  final class TrackingInterest: @unchecked Sendable {
    private let lock = NSLock()
    private var token: ObservationToken?
    private var started = false
    /// The binding of the setting the interest stands for (which names the backend to observe),
    /// unretained: set while the setting is bound, before it can be shared, and used only by
    /// the first `trackingStarted()`, which Swift's Observation runs inside the read of that
    /// setting (it hashes the key path in `access`), while the setting holds its binding
    /// (`ModelBindingTests.trackingStartsInsideTheReadOfTheSetting` pins that).
    ///
    /// A weak reference would be safe without it but cost every model 2.5 µs of its 15 to create.
    private unowned(unsafe) var binding: BackendBinding?
    /// For an interest standing for the setting read through a test's backend (see
    /// ``OverrideTracking``): that backend, held weakly, as the setting's model may outlive the
    /// test.
    ///
    /// `nil` for the setting's own.
    private weak var overridingBackend: (any SettingsBackend)?
    private var key = ""
    private var observable: SettingObservable?

    /// Set once, by the observable's `init`.
    func setObservable(_ observable: SettingObservable) {
      lock.lock()
      self.observable = observable
      lock.unlock()
    }

    /// Records what to observe: the setting's key in its binding's target.
    ///
    /// Called only on an interest just taken from the pool or created, before its setting can be
    /// shared (the pool's lock orders it after the interest's last use), so it needs no lock of its
    /// own.
    func prepare(binding: BackendBinding, key: String) {
      self.binding = binding
      self.key = key
    }

    /// Records what to observe for a setting read through a test's backend: the setting's key
    /// in that backend (the key the read uses).
    ///
    /// Called before the interest can be shared, as ``prepare(binding:key:)`` is.
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
      let observable = observable
      lock.unlock()
      observable?.nameMemberInAccesses()
    }

    private func forwardChange() {
      lock.lock()
      let observable = observable
      lock.unlock()
      observable?.changed()
    }

    /// Makes the interest (and its observable) ready for another setting, if no tracking ever
    /// hashed its key path: then no observer was ever registered with its observable's registrar,
    /// so reusing the pair for another setting is invisible.
    ///
    /// Returns whether it did.
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
#endif
