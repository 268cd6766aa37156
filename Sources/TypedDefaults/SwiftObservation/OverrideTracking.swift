#if canImport(Observation)
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
#endif
