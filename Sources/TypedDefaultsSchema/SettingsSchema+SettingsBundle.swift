import Foundation
import TypedDefaults

// An iOS Settings bundle's `Root.plist` made from a schema: one specifier for each setting the
// Settings app can edit, with only the keys Apple's Settings Application Schema Reference
// documents.

extension SettingsSchema {
  /// The `Root.plist` of an iOS `Settings.bundle` for the settings the Settings app can edit: a
  /// dictionary with a `PreferenceSpecifiers` array, one specifier for each such setting in key
  /// order, and `StringsTable` `Root` (the app's `Root.strings` localizes the titles).
  ///
  /// ```swift
  /// let data = try PlayerSettings(backend: backend).schema.settingsBundleData()
  /// try data.write(to: bundle.appendingPathComponent("Root.plist"))
  /// ```
  ///
  /// Each setting becomes the specifier its shape and declaration call for, titled with its help
  /// text, or its key if it has none, and stored under its full key:
  ///
  /// | setting | specifier |
  /// |---|---|
  /// | a secret string, number or Boolean | `PSTextFieldSpecifier` with `IsSecure`, no `DefaultValue` |
  /// | a `Bool` | `PSToggleSwitchSpecifier` (a `PSMultiValueSpecifier` if its allowed values leave out `true` or `false`) |
  /// | allowed values (``SettingSchema/allowedValues``, a `CaseIterable` enum's cases) | `PSMultiValueSpecifier`: `Values` as stored, `Titles` as text |
  /// | a real number with a finite minimum and maximum | a `PSGroupSpecifier` (the title, `FooterText` the range), then a `PSSliderSpecifier`, then an untitled `PSGroupSpecifier` that ends the slider's group |
  /// | an integer | `PSTextFieldSpecifier`, `KeyboardType` `NumberPad` if the minimum is 0 or more, else `NumbersAndPunctuation` |
  /// | any other real number | `PSTextFieldSpecifier`, `KeyboardType` `NumbersAndPunctuation` |
  /// | a URL string | `PSTextFieldSpecifier`, `KeyboardType` `URL`, no autocapitalization or autocorrection |
  /// | a UUID string | `PSTextFieldSpecifier`, no autocapitalization or autocorrection |
  /// | any other string | `PSTextFieldSpecifier`, `KeyboardType` `Alphabet` |
  ///
  /// A specifier has a `DefaultValue` when the setting has a fixed default (not a secret, not an
  /// optional defaulting to `nil`). A text field's `DefaultValue` is text, as the Settings app
  /// stores what is typed (`"3"`, `"0.5"`); a setting reads such a string as its number. An integer
  /// range gets a text field rather than a slider because a slider stores any real in its range
  /// (`2.7`), which an integer setting can't read.
  ///
  /// Left out, because the Settings app can't edit them: dates, data, arrays, dictionaries and
  /// ``SettingSchema/Shape/any`` settings (a `PropertyListValue`, or a type that doesn't say what
  /// it stores). Managed settings (``SettingSchema/isManaged``) are listed like any other; what
  /// the administrator enforces still wins over what the user picks.
  ///
  /// The result reads back through ``SettingsBundleSource``, which gives each listed key its
  /// `DefaultValue`.
  ///
  /// - Returns: The `Root.plist` dictionary.
  ///
  /// Thread-safety: a pure function of the schema, a value type; call it from any thread.
  public func settingsBundle() -> PropertyListValue {
    var specifiers: [PropertyListValue] = []
    for setting in settings {
      specifiers += SettingsBundleSpecifiers.specifiers(for: setting)
    }
    return [
      "PreferenceSpecifiers": .array(specifiers),
      "StringsTable": "Root",
    ]
  }

  /// ``settingsBundle()`` as the bytes of an XML property list, ready to be written as
  /// `Settings.bundle/Root.plist`; written by the library's property-list writer
  /// (``PropertyListFile/encode(_:format:path:)``), as ``PropertyListFile`` writes files.
  ///
  /// - Returns: The XML property list.
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` (path `Root.plist`) if a title, key
  ///   or default holds a character an XML property list can't (a control character other than
  ///   tab, line feed and carriage return) or starts with U+FEFF.
  ///
  /// Thread-safety: a pure function of the schema; call it from any thread.
  public func settingsBundleData() throws(SettingsError) -> Data {
    try PropertyListFile.encode(settingsBundle(), format: .xml, path: "Root.plist")
  }
}

/// The specifiers of one setting in a `Root.plist`.
enum SettingsBundleSpecifiers {
  /// The specifiers for `setting`: none for a shape the Settings app can't edit, one for most,
  /// three for a slider (its group before, an untitled group after).
  static func specifiers(for setting: SettingSchema) -> [PropertyListValue] {
    switch setting.shape {
    case .date, .data, .array, .dictionary, .any: return []
    case .string, .integer, .real, .bool: break
    }
    let title = PropertyListValue.string(setting.help ?? setting.key)
    var specifier: [String: PropertyListValue] = ["Key": .string(setting.key), "Title": title]
    if setting.isSecret {
      specifier["Type"] = "PSTextFieldSpecifier"
      specifier["IsSecure"] = true
      specifier["KeyboardType"] = keyboard(for: setting).map(PropertyListValue.string)
      specifier["AutocapitalizationType"] = "None"
      specifier["AutocorrectionType"] = "No"
      return [.dictionary(specifier)]
    }
    if setting.shape == .bool, hasBothBooleans(setting.allowedValues) {
      specifier["Type"] = "PSToggleSwitchSpecifier"
      specifier["DefaultValue"] = setting.defaultValue
      return [.dictionary(specifier)]
    }
    if let values = setting.allowedValues {
      specifier["Type"] = "PSMultiValueSpecifier"
      specifier["DefaultValue"] = setting.defaultValue
      specifier["Values"] = .array(values)
      specifier["Titles"] = .array(values.map { .string(text(of: $0)) })
      return [.dictionary(specifier)]
    }
    if setting.shape == .real, let minimum = finiteReal(setting.minimum),
      let maximum = finiteReal(setting.maximum)
    {
      var group: [String: PropertyListValue] = ["Type": "PSGroupSpecifier", "Title": title]
      group["FooterText"] = setting.rangeDescription.map(PropertyListValue.string)
      specifier["Type"] = "PSSliderSpecifier"
      specifier["Title"] = nil  // a slider has no title; its group shows it
      specifier["MinimumValue"] = .real(minimum)
      specifier["MaximumValue"] = .real(maximum)
      specifier["DefaultValue"] = finiteReal(setting.defaultValue).map(PropertyListValue.real)
      return [.dictionary(group), .dictionary(specifier), ["Type": "PSGroupSpecifier"]]
    }
    specifier["Type"] = "PSTextFieldSpecifier"
    specifier["DefaultValue"] = setting.defaultValue.map { .string(text(of: $0)) }
    specifier["KeyboardType"] = keyboard(for: setting).map(PropertyListValue.string)
    if case .string(format: .some) = setting.shape {
      specifier["AutocapitalizationType"] = "None"
      specifier["AutocorrectionType"] = "No"
    }
    return [.dictionary(specifier)]
  }

  /// The `KeyboardType` of a text field for the setting's shape; `nil` for the default keyboard
  /// where a shape has none better (a UUID).
  private static func keyboard(for setting: SettingSchema) -> String? {
    switch setting.shape {
    case .integer:
      if let minimum = setting.minimum, let order = SettingSchema.order(minimum, .integer(0)),
        order >= 0
      {
        return "NumberPad"
      }
      return "NumbersAndPunctuation"
    case .real: return "NumbersAndPunctuation"
    case .string(format: .url?): return "URL"
    case .string(format: .uuid?): return nil
    case .string(format: nil): return "Alphabet"
    default: return nil
    }
  }

  /// Whether a Boolean setting's allowed values (if it declares any) hold both `true` and `false`,
  /// so that a toggle can only store allowed values.
  private static func hasBothBooleans(_ allowedValues: [PropertyListValue]?) -> Bool {
    guard let allowedValues else { return true }
    return allowedValues.contains(.bool(true)) && allowedValues.contains(.bool(false))
  }

  /// A number as a finite `Double`; `nil` for anything else.
  private static func finiteReal(_ value: PropertyListValue?) -> Double? {
    switch value {
    case .real(let real)? where real.isFinite: real
    case .integer(let integer)?: Double(integer.description)
    default: nil
    }
  }

  /// A scalar as the Settings app shows or stores it as text: a string unquoted, a number as Swift
  /// prints it, a Boolean as `true` or `false`; other kinds as ``PropertyListValue/description``.
  private static func text(of value: PropertyListValue) -> String {
    switch value {
    case .string(let string): string
    case .integer(let integer): integer.description
    case .real(let real): real.description
    case .bool(let bool): bool ? "true" : "false"
    default: value.description
    }
  }
}
