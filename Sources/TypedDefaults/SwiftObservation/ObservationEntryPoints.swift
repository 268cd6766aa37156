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
/// - Parameters:
///   - backend: The test's backend the setting was read through.
///   - key: The key the read used in that backend.
///   - tracking: The setting's ``OverrideTracking`` (`makeOverrideTracking()`).
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
@inlinable @inline(__always)
func settingAccessed(_ observable: UnsafeMutableRawPointer) {
  #if canImport(Observation)
    if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *) {
      Unmanaged<SettingObservable>.fromOpaque(observable)._withUnsafeGuaranteedRef { $0.access() }
    }
  #endif
}
