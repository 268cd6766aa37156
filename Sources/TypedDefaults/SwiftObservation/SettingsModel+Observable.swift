#if canImport(Observation)
  import Observation

  /// A model takes part in Swift's Observation: reading one of its settings inside
  /// `withObservationTracking` (or a SwiftUI view's body) and then changing the setting's key, by
  /// any writer, calls the `onChange` handler once (and updates the view).
  ///
  /// The conformance lets a model be held where SwiftUI asks for an `Observable`: `@State`,
  /// `@Environment`, and `@Bindable`, whose `$settings.volume` is a binding to the setting.
  /// Tracking itself works through each setting (its own observable), so a ``SettingsGroup``
  /// struct takes part just the same; no macro is involved. Subclasses inherit the conformance.
  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  extension SettingsModel: Observable {}
#endif
