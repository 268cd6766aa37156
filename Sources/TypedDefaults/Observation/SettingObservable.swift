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
  final class SettingObservable: Observable, Sendable {
    let registrar = ObservationRegistrar()
    let interest: TrackingInterest
    /// `\SettingObservable[probe:]` with this setting's probe: the key path every access and
    /// mutation names.
    let keyPath: any KeyPath<SettingObservable, Int> & Sendable

    init() {
      let interest = TrackingInterest()
      self.interest = interest
      self.keyPath = \SettingObservable[probe: TrackingProbe(interest: interest)]
      interest.observable = self
    }

    /// A member only for the key path: Observation never reads it.
    subscript(probe probe: TrackingProbe) -> Int { 0 }

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
  // @unchecked Sendable: every mutable field is behind `lock`.
  final class TrackingInterest: @unchecked Sendable {
    private let lock = NSLock()
    private var token: ObservationToken?
    private var started = false
    /// Written once, by the observable's `init`.
    weak var observable: AnyObject?
    /// The setting's storage, which knows the key and backend; written once, in its `init`.
    weak var source: (any TrackedSettingSource)?

    func trackingStarted() {
      lock.lock()
      guard !started, let source, let observable else {
        lock.unlock()
        return
      }
      started = true
      lock.unlock()
      let changed = ChangeForwarder(observable)
      let token = source.observeForTracking { changed.forward() }
      lock.lock()
      self.token = token
      lock.unlock()
    }
  }

  /// Holds the observable weakly for the backend observer's callback.
  // @unchecked Sendable: `observable` is a weak reference written once, in `init`.
  private final class ChangeForwarder: @unchecked Sendable {
    weak var observable: AnyObject?
    init(_ observable: AnyObject) { self.observable = observable }

    func forward() {
      guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *),
        let observable
      else { return }
      unsafeDowncast(observable, to: SettingObservable.self).changed()
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

/// A setting's storage, as the Observation support sees it.
protocol TrackedSettingSource: AnyObject, Sendable {
  /// Registers a backend observer of the setting's key that calls `changed` after each change.
  func observeForTracking(_ changed: @escaping @Sendable () -> Void) -> ObservationToken
}

extension SettingStorage: TrackedSettingSource {
  func observeForTracking(_ changed: @escaping @Sendable () -> Void) -> ObservationToken {
    let backend = boundBackend
    return backend.observe(key: key) { _ in changed() }
  }
}

/// Creates a setting's ``SettingObservable`` where the platform has Observation.
func makeSettingObservable() -> AnyObject? {
  #if canImport(Observation)
    if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *) {
      return SettingObservable()
    }
  #endif
  return nil
}

/// Points a setting's observable at its storage, once, in the storage's `init`.
func setSource(of observable: AnyObject, to source: any TrackedSettingSource) {
  #if canImport(Observation)
    if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *) {
      unsafeDowncast(observable, to: SettingObservable.self).interest.source = source
    }
  #endif
}

/// Records a read of a setting for Observation (a no-op outside tracking).
@usableFromInline
func settingAccessed(_ observable: AnyObject) {
  #if canImport(Observation)
    if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *) {
      unsafeDowncast(observable, to: SettingObservable.self).access()
    }
  #endif
}

#if canImport(Observation)
  /// A model takes part in Swift's Observation: reading one of its settings inside
  /// `withObservationTracking` (or a SwiftUI view's body) and then changing the setting's key, by
  /// any writer, calls the `onChange` handler once (and re-evaluates the view). The conformance
  /// lets a model be held where SwiftUI asks for an `Observable` (`@State`, `@Environment`,
  /// `@Bindable`); tracking itself works through each setting, so a ``SettingsGroup`` struct takes
  /// part just the same. No macro is involved.
  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  extension SettingsModel: Observable {}
#endif
