import TypedDefaults

// What `print`, `dump`, `Mirror` and debuggers show of the store: its type and `data.plist`'s path,
// never the values (as for the core's backends, in TypedDefaults' Backends+CustomReflectable.swift).

extension LayeredPlistStore: CustomReflectable {
  /// The store's name only: its layers' values are never reflected, so `dump(model)` can't
  /// show a secret setting's value.
  public var customMirror: Mirror { Mirror(self, children: ["name": name], displayStyle: .class) }
}

extension LayeredPlistStore: CustomStringConvertible {
  /// The type and `data.plist`'s path: `LayeredPlistStore(/home/ann/.local/share/app/data.plist)`.
  public var description: String { name }
}
