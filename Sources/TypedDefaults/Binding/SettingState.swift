/// A setting's state at one instant, for descriptors.
package struct SettingState {
  /// What the backend holds, unconverted.
  var stored: PropertyListValue?
  /// What the setting reads, as a property list.
  var value: PropertyListValue?
  /// What the setting reads, as Swift prints it.
  var description: String
  /// Whether the setting reads its default.
  var readsDefault: Bool
}
