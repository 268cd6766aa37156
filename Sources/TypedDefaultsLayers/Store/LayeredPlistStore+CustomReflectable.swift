import TypedDefaults

// What `dump`, `Mirror` and debuggers show of the store: the name, never the values (as for the
// core's backends, in TypedDefaults' Backends+CustomReflectable.swift).

extension LayeredPlistStore: CustomReflectable {
  /// The store's name only: its layers' values are never reflected, so `dump(model)` can't
  /// show a secret setting's value.
  public var customMirror: Mirror { Mirror(self, children: ["name": name], displayStyle: .class) }
}
