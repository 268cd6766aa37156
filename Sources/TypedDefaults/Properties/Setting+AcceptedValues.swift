// Help text and the values a setting accepts: a range (`in: 0...1`) or a list of allowed values.
// What the declaration gives is enforced by the setting (a write outside is refused, a stored value
// outside reads as the default with a diagnostic) and described by its ``SettingDescriptor`` and
// the model's ``SettingsSchema``.

extension Setting {
  /// Records help text and accepted values, if there are any, before the setting can be shared.
  func annotate(
    help: String?, allowedValues: [PropertyListValue]? = nil, minimum: Value? = nil,
    maximum: Value? = nil, accepts: (@Sendable (Value) -> Bool)? = nil,
    clamp: (@Sendable (Value) -> Value)? = nil, fileID: StaticString? = nil, line: UInt = 0
  ) {
    guard help != nil || accepts != nil else { return }
    var untypedClamp: (@Sendable (Any) -> Any)?
    if let clamp {
      untypedClamp = { value in (value as? Value).map(clamp) ?? value }
    }
    var untypedCheck: (@Sendable (Any) -> Bool)?
    if let accepts {
      untypedCheck = { value in
        guard let value = value as? Value else { return false }
        return accepts(value)
      }
    }
    let lower: PropertyListValue? = minimum.flatMap { try? $0.propertyListValue() }
    let upper: PropertyListValue? = maximum.flatMap { try? $0.propertyListValue() }
    storage.annotate(
      SettingAnnotations(
        help: help, allowedValues: allowedValues, minimum: lower, maximum: upper,
        accepts: untypedCheck, clamp: untypedClamp,
        declaration: fileID.map { "\($0):\(line)" }))
  }

  /// The setting's help text, as declared (`help: "Playback volume, 0 to 1."`); `nil` if none.
  ///
  /// Shown by ``SettingDescriptor/description``, every export of the model's ``SettingsSchema``,
  /// and the `settings` tool where the app wrote its schema next to the store.
  public var help: String? { storage.annotations?.help }
}

extension Setting where Value: Comparable {
  // MARK: - Declaring a setting with a range

  /// Records a range's bounds, and accepts a value at least the minimum and at most the maximum
  /// (compared as `ClosedRange.contains(_:)` compares, so NaN is outside every range).
  func annotate(
    help: String?, minimum: Value?, maximum: Value?, clamping: Bool, fileID: StaticString,
    line: UInt
  ) {
    // NaN (nowhere in a range) compares neither below nor above: it stays refused.
    let clamp: @Sendable (Value) -> Value = { value in
      if let minimum, value < minimum { return minimum }
      if let maximum, maximum < value { return maximum }
      return value
    }
    annotate(
      help: help, minimum: minimum, maximum: maximum,
      accepts: { value in
        if let minimum, !(minimum <= value) { return false }
        if let maximum, !(value <= maximum) { return false }
        return true
      },
      clamp: clamping ? clamp : nil, fileID: fileID, line: line)
  }

  /// Declares a setting that accepts only values in a range, with its default as the property's
  /// initial value: `@Setting("volume", in: 0...1, help: "Playback volume.") var volume = 0.8`,
  /// `@Setting(in: 0...) var retries = 3`, `@Setting(in: ...60.0) var delay = 5.0`.
  ///
  /// The range is enforced as the type compares (`Comparable`): ``set(_:)`` throws
  /// ``SettingsError/Code/valueNotAllowed`` for a value outside it, and an assignment of one
  /// reports a ``SettingsDiagnostic/Kind/writeFailed`` diagnostic, storing nothing in either
  /// case; a stored value outside it (written by another process, or before the range was
  /// declared) reads as the default, reported once as a
  /// ``SettingsDiagnostic/Kind/valueNotAllowed`` diagnostic, and is left untouched. The default
  /// is what the setting reads while nothing acceptable is stored, in the range or not. The range
  /// appears as `minimum` and `maximum` in the model's ``SettingsSchema`` (one of them for a
  /// range open at one end).
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value, returned while no acceptable value is stored.
  ///   - key: The key in the backend; `nil` (the default) uses the property's name.
  ///   - range: The values accepted, bounds included: `a...b`, `a...` or `...b`.
  ///   - clamping: Whether a value outside the range is replaced by the nearest bound, on writes
  ///     and on reads, rather than refused (writes) or read as the default (reads). NaN, in no
  ///     range, is still refused.
  ///   - secret: Whether the value is secret (see ``init(wrappedValue:_:secret:help:)``).
  ///   - help: What the setting does, in a sentence, for people (see ``help``); `nil` for none.
  ///   - fileID: Where the setting is declared, named by messages about its values; leave the
  ///     default.
  ///   - line: The line of the declaration; leave the default.
  public init<Accepted: SettingRange>(
    wrappedValue: Value, _ key: String? = nil, in range: Accepted, clamping: Bool = false,
    secret: Bool = false, help: String? = nil, fileID: StaticString = #fileID, line: UInt = #line
  ) where Accepted.Bound == Value {
    self.init(wrappedValue: wrappedValue, key, secret: secret)
    annotate(
      help: help, minimum: range.minimum, maximum: range.maximum, clamping: clamping,
      fileID: fileID, line: line)
  }

  /// Declares a setting that accepts only values in a range, with an explicit default:
  /// `@Setting("volume", default: 0.8, in: 0...1, help: "Playback volume.") var volume: Double`.
  ///
  /// See ``init(wrappedValue:_:in:clamping:secret:help:fileID:line:)`` for how the range is enforced.
  ///
  /// - Parameters:
  ///   - key: The key in the backend; `nil` (the default) uses the property's name.
  ///   - defaultValue: The value returned while no acceptable value is stored.
  ///   - range: The values accepted, bounds included: `a...b`, `a...` or `...b`.
  ///   - clamping: Whether a value outside the range is replaced by the nearest bound (see
  ///     ``init(wrappedValue:_:in:clamping:secret:help:fileID:line:)``).
  ///   - secret: Whether the value is secret (see ``init(wrappedValue:_:secret:help:)``).
  ///   - help: What the setting does, in a sentence, for people (see ``help``); `nil` for none.
  ///   - fileID: Where the setting is declared, named by messages about its values; leave the
  ///     default.
  ///   - line: The line of the declaration; leave the default.
  public init<Accepted: SettingRange>(
    _ key: String? = nil, default defaultValue: Value, in range: Accepted,
    clamping: Bool = false, secret: Bool = false, help: String? = nil,
    fileID: StaticString = #fileID, line: UInt = #line
  ) where Accepted.Bound == Value {
    self.init(key, default: defaultValue, secret: secret)
    annotate(
      help: help, minimum: range.minimum, maximum: range.maximum, clamping: clamping,
      fileID: fileID, line: line)
  }
}

extension Setting where Value: Equatable {
  // MARK: - Declaring a setting with allowed values

  /// Declares a setting that accepts only some values, with its default as the property's initial
  /// value: `@Setting("codec", allowedValues: ["aac", "opus"]) var codec = "aac"`.
  ///
  /// Enforced as a range is (see ``init(wrappedValue:_:in:clamping:secret:help:fileID:line:)``): a write of
  /// another value is refused, a stored one reads as the default with a diagnostic. The values
  /// appear, as stored, as the `enum` of the model's ``SettingsSchema``. (An enum's cases need no
  /// list: a stored raw value that is no case already reads as the default, and the schema of a
  /// `CaseIterable` enum lists its cases.)
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value, returned while no acceptable value is stored.
  ///   - key: The key in the backend; `nil` (the default) uses the property's name.
  ///   - allowedValues: The values accepted.
  ///   - secret: Whether the value is secret (see ``init(wrappedValue:_:secret:help:)``).
  ///   - help: What the setting does, in a sentence, for people (see ``help``); `nil` for none.
  ///   - fileID: Where the setting is declared, named by messages about its values; leave the
  ///     default.
  ///   - line: The line of the declaration; leave the default.
  public init(
    wrappedValue: Value, _ key: String? = nil, allowedValues: [Value], secret: Bool = false,
    help: String? = nil, fileID: StaticString = #fileID, line: UInt = #line
  ) {
    self.init(wrappedValue: wrappedValue, key, secret: secret)
    annotate(
      help: help, allowedValues: allowedValues.compactMap { try? $0.propertyListValue() },
      accepts: { allowedValues.contains($0) }, fileID: fileID, line: line)
  }

  /// Declares a setting that accepts only some values, with an explicit default:
  /// `@Setting("codec", default: "aac", allowedValues: ["aac", "opus"]) var codec: String`.
  ///
  /// See ``init(wrappedValue:_:allowedValues:secret:help:fileID:line:)``.
  ///
  /// - Parameters:
  ///   - key: The key in the backend; `nil` (the default) uses the property's name.
  ///   - defaultValue: The value returned while no acceptable value is stored.
  ///   - allowedValues: The values accepted.
  ///   - secret: Whether the value is secret (see ``init(wrappedValue:_:secret:help:)``).
  ///   - help: What the setting does, in a sentence, for people (see ``help``); `nil` for none.
  ///   - fileID: Where the setting is declared, named by messages about its values; leave the
  ///     default.
  ///   - line: The line of the declaration; leave the default.
  public init(
    _ key: String? = nil, default defaultValue: Value, allowedValues: [Value],
    secret: Bool = false, help: String? = nil, fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    self.init(key, default: defaultValue, secret: secret)
    annotate(
      help: help, allowedValues: allowedValues.compactMap { try? $0.propertyListValue() },
      accepts: { allowedValues.contains($0) }, fileID: fileID, line: line)
  }
}
