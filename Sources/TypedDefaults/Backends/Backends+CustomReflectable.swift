// What `dump`, `Mirror` and debuggers show of the library's backends: the name, never the values.
// A backend's caches hold stored values, secrets (`@Setting(secret: true)`) included, and a model
// shows its backend when it is dumped.

extension InMemoryBackend: CustomReflectable {
  /// The backend's name only: its values are never reflected, so `dump(model)` can't show a
  /// secret setting's value.
  public var customMirror: Mirror { Mirror(self, children: ["name": name], displayStyle: .class) }
}

extension UserDefaultsBackend: CustomReflectable {
  /// The backend's name only: its values are never reflected, so `dump(model)` can't show a
  /// secret setting's value.
  public var customMirror: Mirror { Mirror(self, children: ["name": name], displayStyle: .class) }
}

extension ScopedBackend: CustomReflectable {
  /// The view's name (its base's and its prefix) only.
  public var customMirror: Mirror { Mirror(self, children: ["name": name], displayStyle: .class) }
}
