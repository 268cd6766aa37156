extension Setting {
  // MARK: - Declaring a secret setting

  /// Declares a setting whose value is secret (a token, a password), or that has help text,
  /// with its default as the property's initial value:
  /// `@Setting("apiToken", secret: true) var apiToken = ""`,
  /// `@Setting(help: "Retries before giving up.") var retries = 3`.
  ///
  /// A secret setting reads and writes like any other; what changes is what the library shows
  /// of it: its value never appears in the `description` of the setting or of its
  /// ``SettingDescriptor``, in `dump(model)`, in ``SettingsModel/snapshot()``, in an export
  /// (unless ``SettingsExportOptions/includesSecrets`` asks for it), in the messages of
  /// ``SettingsDiagnostic``s (a wrong-typed stored value, a failed write) or in a thrown
  /// ``SettingsError``. Each of those shows `<secret>` or leaves the value out. Declaring a new
  /// secret needs nothing but the flag.
  ///
  /// Secret is about what is printed, not how the value is stored: a backend keeps it as it keeps
  /// any value (a plaintext property list for ``UserDefaultsBackend`` and ``LayeredPlistStore``;
  /// the store's file is readable by its owner only when the store creates it). Keep credentials
  /// that must be encrypted at rest in the Keychain or a secret service.
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value, returned while no value is stored.
  ///   - key: The key in the backend; `nil` (the default) uses the property's name.
  ///   - secret: Whether the value is secret; `false` (the default) declares an ordinary setting.
  ///   - help: What the setting does, in a sentence, for people (see ``help``); `nil` for none.
  public init(wrappedValue: Value, _ key: String? = nil, secret: Bool = false, help: String? = nil)
  {
    self.init(wrappedValue: wrappedValue, key)
    if secret { storage.markSecret() }
    annotate(help: help)
  }

  /// Declares a setting whose value is secret, or that has help text, with an explicit default:
  /// `@Setting("apiToken", default: "", secret: true) var apiToken: String`,
  /// `@Setting("volume", default: 0.8, help: "Playback volume.") var volume: Double`.
  ///
  /// See ``init(wrappedValue:_:secret:help:)`` for what a secret setting hides.
  ///
  /// - Parameters:
  ///   - key: The key in the backend; `nil` (the default) uses the property's name.
  ///   - defaultValue: The value returned while no value is stored.
  ///   - secret: Whether the value is secret; `false` (the default) declares an ordinary setting.
  ///   - help: What the setting does, in a sentence, for people (see ``help``); `nil` for none.
  public init(
    _ key: String? = nil, default defaultValue: Value, secret: Bool = false, help: String? = nil
  ) {
    self.init(key, default: defaultValue)
    if secret { storage.markSecret() }
    annotate(help: help)
  }

  /// Whether the setting was declared secret (see ``init(_:default:secret:help:)``): its value is
  /// left out of descriptions, snapshots, exports, diagnostics and errors.
  public var isSecret: Bool { storage.isSecret }
}

extension Setting where Value: ExpressibleByNilLiteral {
  /// Declares an optional setting whose value is secret, or that has help text, `nil` by
  /// default: `@Setting("refreshToken", secret: true) var refreshToken: String?`.
  ///
  /// See ``init(wrappedValue:_:secret:help:)`` for what a secret setting hides.
  ///
  /// - Parameters:
  ///   - key: The key in the backend; `nil` (the default) uses the property's name.
  ///   - secret: Whether the value is secret; `false` (the default) declares an ordinary setting.
  ///   - help: What the setting does, in a sentence, for people (see ``help``); `nil` for none.
  public init(_ key: String? = nil, secret: Bool = false, help: String? = nil) {
    self.init(key, default: nil)
    if secret { storage.markSecret() }
    annotate(help: help)
  }
}

extension SettingDescriptor {
  /// Whether the setting was declared secret: its value is left out of ``description``,
  /// ``valueDescription``, snapshots and exports (``value`` and ``storedValue`` still give it to
  /// code that asks).
  public var isSecret: Bool { setting.isSecret }
}
