/// A backend whose storage can't hold every key: a file format that refuses some characters.
///
/// The check of a model's declaration asks it about each key, once per model type, and reports
/// the keys it refuses as ``SettingsDiagnostic/Kind/invalidKey`` diagnostics
/// (`SettingsValidation`).
///
/// Internal: it declares a format's rules, which only the library's file backends have.
package protocol RestrictsKeys: SettingsBackend {
  /// Throws if the backend can't store `key` exactly; the error's reason says why.
  func checkStorable(key: String) throws(SettingsError)
}
