import Foundation

/// What the settings of one model share once bound to its backend, worked out once per model
/// rather than once per setting: where reads and writes really go (the base of a
/// ``ScopedBackend`` view, with its prefix), whether the backend keeps its values in cells,
/// whether it publishes its own changes, and the settings' parts in Swift's Observation.
///
/// Each bound setting holds its model's binding, and through it the backend: one reference per
/// setting, where holding the backend, the view's base and the cell backend each would cost a
/// setting three retains when it is bound and three releases when it goes.
// @unchecked Sendable: every stored property is immutable except `observables` and `boundType`,
// which are written only while the model is being bound (before any of its settings can be
// shared) and then only read, and `someTracked`, which is behind `trackingLock`.
@usableFromInline
final class BackendBinding: @unchecked Sendable {
  /// The backend as the model was given it (a view, possibly).
  @usableFromInline let backend: any SettingsBackend
  /// The backend reads and writes go to: `backend`, or the base of a view.
  @usableFromInline let target: any SettingsBackend
  /// The view's prefix in `target` (empty when `backend` is not a view).
  let targetPrefix: String
  /// `target`, when it keeps its values in cells and offers them (``CellBackend/offersCells``).
  let cellBackend: (any CellBackend)?
  /// Whether writes through a setting must report themselves to `target`'s observers.
  let reportsWrites: Bool
  /// The type of the model (or group) whose settings are bound through this binding; `nil` for
  /// a setting's own backend.
  ///
  /// Set once, by ``SettingsReflection/bind(_:keyPrefix:to:)``, before any setting is bound: what
  /// the check that a setting is bound by one model only compares and names
  /// (``SettingsValidation/checkBindingOnce(_:boundTo:as:by:)``).
  var boundType: Any.Type?
  /// The Observation objects of the settings bound through this binding, given back together
  /// when the last of those settings goes.
  private var observables: [AnyObject] = []
  /// Whether one of `observables` was ever tracked, behind `trackingLock`; set by the first
  /// tracking of each.
  private var someTracked = false
  /// The lock of `someTracked`: one of the slow paths' shared locks, as a lock of its own would
  /// cost every model an allocation for a flag set at most once per setting.
  private var trackingLock: NSLock { SlowPathLocks.lock(for: self) }

  init(_ backend: any SettingsBackend) {
    self.backend = backend
    if let view = backend as? any BackendView {
      target = view.base
      targetPrefix = view.prefix
    } else {
      target = backend
      targetPrefix = ""
    }
    cellBackend = (target as? any CellBackend).flatMap { $0.offersCells ? $0 : nil }
    reportsWrites = !(target is any PublishesOwnChanges)
  }

  deinit {
    trackingLock.lock()
    let someTracked = someTracked
    trackingLock.unlock()
    giveBackSettingObservables(observables, someTracked: someTracked)
  }

  /// Records that one of the binding's observables is tracked (by Swift's Observation), so that
  /// they are looked at one by one when the binding goes.
  func noteTrackingStarted() {
    trackingLock.lock()
    someTracked = true
    trackingLock.unlock()
  }

  /// The key `key` has in `target`: the view's prefix applied.
  func targetKey(for key: String) -> String {
    targetPrefix.isEmpty ? key : targetPrefix + key
  }

  /// Takes `count` Observation objects for the settings about to be bound, kept until this
  /// binding goes; `nil` where the platform has no Observation.
  ///
  /// Each must be prepared for its setting's key (`prepareSettingObservable(_:binding:key:)`)
  /// before the setting is bound.
  ///
  /// Call only while binding, before the settings can be shared.
  func takeObservables(count: Int) -> [AnyObject]? {
    guard let taken = takeSettingObservables(count: count) else { return nil }
    if observables.isEmpty { observables = taken } else { observables += taken }
    return taken
  }
}
