#if canImport(Observation)
  import Foundation
  import Observation
  import Synchronization

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
    // The fields the read path loads come first: the registrar's layout is the Observation
    // module's, known only at run time, so a field after it is reached through an offset loaded
    // from memory, one more load per field on every read.
    let interest: TrackingInterest
    /// `\SettingObservable[probe:]` with this setting's probe: the key path accesses name until
    /// the setting is first read inside tracking, and every mutation names.
    @usableFromInline let keyPath: KeyPath<SettingObservable, Int>
    /// `\SettingObservable.member`: the key path accesses name once tracking has started
    /// (``TrackingInterest/trackingStarted()`` sets ``choice``), and mutations name too.
    ///
    /// Tracking hashes the key path of every access, and a stored property's key path hashes in a
    /// fraction of the time the probe's subscript does (its argument is hashed through the key
    /// path runtime): a tracked read costs what a hand-written `Observable` property's does.
    @usableFromInline let memberKeyPath: KeyPath<SettingObservable, Int> = \SettingObservable.member
    /// Which key path accesses name (a ``KeyPathChoice``), where the system has `Atomic`; `nil`
    /// elsewhere, where accesses always name the probe's.
    @usableFromInline let choice: AnyObject?
    /// A member only for ``memberKeyPath``: Observation never reads it.
    let member = 0
    @usableFromInline let registrar = ObservationRegistrar()

    init() {
      let interest = TrackingInterest()
      self.interest = interest
      self.keyPath = \SettingObservable[probe: TrackingProbe(interest: interest)]
      if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
        choice = KeyPathChoice()
      } else {
        choice = nil
      }
      interest.setObservable(self)
    }

    /// A member only for the key path: Observation never reads it.
    subscript(probe probe: TrackingProbe) -> Int { 0 }

    /// Whether accesses name ``memberKeyPath``: tracking has started.
    @inlinable @inline(__always)
    var accessesNameMember: Bool {
      if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *), let choice {
        return unsafeDowncast(choice, to: KeyPathChoice.self).namesMember.load(ordering: .acquiring)
      }
      return false
    }

    /// Records an access for Observation's tracking (a no-op outside tracking).
    ///
    /// The key path is chosen unretained (the observable holds both): choosing it into a plain
    /// local would retain and release it on every read, and two calls, one per key path, would
    /// make the read too large to inline.
    @inlinable @inline(__always)
    func access() {
      let named =
        accessesNameMember ? Unmanaged.passUnretained(memberKeyPath) : .passUnretained(keyPath)
      named._withUnsafeGuaranteedRef { registrar.access(self, keyPath: $0) }
    }

    /// Accesses name ``memberKeyPath`` from now on: called once the setting's backend observer
    /// is registered, so that every change a tracker naming it can miss is already forwarded.
    func nameMemberInAccesses() {
      if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *), let choice {
        unsafeDowncast(choice, to: KeyPathChoice.self).namesMember.store(true, ordering: .releasing)
      }
    }

    /// Tells Observation the setting changed: `withObservationTracking`'s `onChange` (at
    /// `willSet`) and `Observations` (at `didSet`).
    ///
    /// Both key paths are named, the probe's first: a tracker may have read the setting before
    /// accesses switched to ``memberKeyPath``. (One that read it under both is told once:
    /// tracking ends at the first change it hears of.) Called after the value is stored, so
    /// both already read the new value.
    func changed() {
      registrar.withMutation(of: self, keyPath: keyPath) {}
      if accessesNameMember { registrar.withMutation(of: self, keyPath: memberKeyPath) {} }
    }
  }

  /// Which key path a ``SettingObservable``'s accesses name: the probe's until tracking starts,
  /// then the member's; a flag set once, from false to true.
  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  @usableFromInline
  final class KeyPathChoice: Sendable {
    /// Whether accesses name the member's key path.
    @usableFromInline let namesMember = Atomic<Bool>(false)
  }

#endif
