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
  @usableFromInline
  final class SettingObservable: Observable, @unchecked Sendable {
    @usableFromInline let registrar = ObservationRegistrar()
    let interest: TrackingInterest
    /// `\SettingObservable[probe:]` with this setting's probe: the key path every access and
    /// mutation names.
    @usableFromInline let keyPath: KeyPath<SettingObservable, Int>

    init() {
      let interest = TrackingInterest()
      self.interest = interest
      self.keyPath = \SettingObservable[probe: TrackingProbe(interest: interest)]
      interest.setObservable(self)
    }

    /// A member only for the key path: Observation never reads it.
    subscript(probe probe: TrackingProbe) -> Int { 0 }

    @inlinable @inline(__always)
    func access() {
      registrar.access(self, keyPath: keyPath)
    }

    /// Tells Observation the setting changed: `withObservationTracking`'s `onChange` (at
    /// `willSet`) and `Observations` (at `didSet`).
    ///
    /// Called after the value is stored, so both already read the new value.
    func changed() {
      registrar.withMutation(of: self, keyPath: keyPath) {}
    }
  }

#endif
