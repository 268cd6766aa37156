// What `print`, `dump`, `Mirror` and debuggers show of the library's backends: the type and where
// the values are (a suite and its file), never the values. A backend's caches hold stored values,
// secrets (`@Setting(secret: true)`) included, and a model shows its backend when it is dumped.

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

extension InMemoryBackend: CustomStringConvertible {
  /// `InMemoryBackend`, with its name if it was given one: `InMemoryBackend(name: "Previews")`.
  public var description: String {
    name == "InMemoryBackend" ? name : "InMemoryBackend(name: \"\(name)\")"
  }
}

extension UserDefaultsBackend: CustomStringConvertible {
  /// The suite and, on Linux, its file: `UserDefaultsBackend(suite: com.example.player, file:
  /// /home/ann/.config/com.example.player.plist)`, or `UserDefaultsBackend(standard, …)`.
  public var description: String {
    let suite = suiteName.map { "suite: \($0)" } ?? "standard"
    return "UserDefaultsBackend(\(suite)" + (fileURL.map { ", file: \($0.path))" } ?? ")")
  }
}

extension ScopedBackend: CustomStringConvertible {
  /// The view's name: its base's description and its prefix.
  public var description: String { "\(base) scoped to '\(prefix)'" }
}
