/// What binding a setting to a backend needs to know about the backend, worked out once per model
/// rather than once per setting: where reads and writes really go (the base of a
/// ``ScopedBackend`` view, with its prefix), whether the backend keeps its values in cells, and
/// whether it publishes its own changes.
struct BackendBinding {
  /// The backend as the model was given it (a view, possibly).
  let backend: any SettingsBackend
  /// The backend reads and writes go to: `backend`, or the base of a view.
  let target: any SettingsBackend
  /// The view's prefix in `target` (empty when `backend` is not a view).
  let targetPrefix: String
  /// `target`, when it keeps its values in cells.
  let cellBackend: (any CellBackend)?
  /// Whether writes through a setting must report themselves to `target`'s observers.
  let reportsWrites: Bool

  init(_ backend: any SettingsBackend) {
    self.backend = backend
    if let view = backend as? ScopedBackend {
      target = view.base
      targetPrefix = view.prefix
    } else {
      target = backend
      targetPrefix = ""
    }
    cellBackend = target as? any CellBackend
    reportsWrites = !(target is any PublishesOwnChanges)
  }
}
