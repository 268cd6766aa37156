@testable import TypedDefaults

/// Writes through the library on any backend: the backend's own call on the library's backends,
/// and, on one written outside the library, the call followed by the report the library's
/// settings make (``SettingsBackend/reportChanges(forKeys:)``), so that every backend can be
/// written to the same way.
func write(
  _ value: PropertyListValue?, _ key: String, to backend: any SettingsBackend
) throws {
  try backend.setValue(value, forKey: key)
  if !(backend is any PublishesOwnChanges) { backend.reportChanges(forKeys: [key]) }
}

/// Removes a key through the library on any backend (see ``write(_:_:to:)``).
func remove(_ key: String, from backend: any SettingsBackend) {
  backend.removeValue(forKey: key)
  if !(backend is any PublishesOwnChanges) { backend.reportChanges(forKeys: [key]) }
}

/// The number of observers registered on a backend.
func observerCount(_ backend: any SettingsBackend) -> Int {
  ObservationCenter.existingRegistry(for: backend)?.observerCount ?? 0
}
