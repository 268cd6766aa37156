extension Setting {
  /// Whether the setting was declared secret (see ``init(wrappedValue:_:secret:help:)``): its value is
  /// left out of descriptions, snapshots, exports, diagnostics and errors.
  public var isSecret: Bool { storage.isSecret }
}

extension SettingDescriptor {
  /// Whether the setting was declared secret: its value is left out of ``description``,
  /// ``valueDescription``, snapshots and exports (``value`` and ``storedValue`` still give it to
  /// code that asks).
  public var isSecret: Bool { setting.isSecret }
}
