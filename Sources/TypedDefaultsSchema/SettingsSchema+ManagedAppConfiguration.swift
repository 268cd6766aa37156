import Foundation
import TypedDefaults

// A managed app configuration spec (the AppConfig Community's XML "specfile", the format MDM
// vendors read to show an administrator a form for an app's managed configuration) made from a
// schema.

extension SettingsSchema {
  /// A managed app configuration spec for the settings an MDM administrator can set: the AppConfig
  /// Community's XML format (`appconfigschema.xsd`), which MDM vendors read to show a form for the
  /// app's managed configuration and deliver the values in the app's managed configuration
  /// dictionary (``ManagedSettingsSource`` reads it).
  ///
  /// ```swift
  /// let spec = model.schema.managedAppConfiguration(bundleIdentifier: "com.example.player")
  /// try spec.write(to: specURL, atomically: true, encoding: .utf8)
  /// ```
  ///
  /// The `<dict>` holds one key element for each setting, in key order, named by its full key
  /// (`keyName`), with its default (`<defaultValue><value>`) and a `<constraint>` where the
  /// declaration has one:
  ///
  /// | setting | key element | `<constraint>` | presentation `type` |
  /// |---|---|---|---|
  /// | a string (URL, UUID) | `<string>` | `<values>` for allowed values | `input`, `select` with allowed values |
  /// | an integer | `<integer>` | `min`, `max`, `<values>` | `input`, `select` |
  /// | a real number | `<float>` (the schema's name for a real) | `min`, `max`, `<values>` | `input`, `select` |
  /// | a `Bool` | `<boolean>` | | `checkbox` |
  /// | a date | `<date>` (ISO 8601) | `min`, `max` | `datetime` |
  /// | an array of strings, integers or reals | `<stringArray>`, `<integerArray>`, `<floatArray>` | | `list` |
  ///
  /// An optional setting's constraint says `nullable="true"`. The `<presentation>` (locale
  /// `en-US`) has a `<field>` for each key, labelled with the key, described by the help text,
  /// and for a `select` an `<option>` for each allowed value. A schema with no key the format can
  /// express gives an empty `<dict/>` and no `<presentation>`.
  ///
  /// Left out: secret settings' defaults (the key is listed, without `<defaultValue>`); settings
  /// of a shape the format can't express (data, dictionaries, ``SettingSchema/Shape/any``,
  /// arrays of other elements); and, because the format's integers are 32-bit (`xs:int`), any
  /// default, bound or list of allowed values of an integer setting outside
  /// `Int32.min ... Int32.max` (the setting stays, without it). An array's range is not written:
  /// on an array, the format's `min` and `max` count elements.
  ///
  /// Text and attributes are escaped (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`; line breaks
  /// and tabs in attributes as character references), and a character XML 1.0 can't hold (a
  /// control character other than tab, line feed and carriage return, U+FFFE, U+FFFF) is written
  /// as U+FFFD, so the result is always well-formed XML.
  ///
  /// - Parameters:
  ///   - bundleIdentifier: The app's bundle identifier (`<bundleId>`).
  ///   - version: The spec's version (`<version>`), an integer the format wants to be 1 or more
  ///     and to grow with each revision of the app's configuration; written as given.
  /// - Returns: The spec, a UTF-8 XML document ending in a line feed.
  ///
  /// Thread-safety: a pure function of the schema, a value type; call it from any thread.
  public func managedAppConfiguration(bundleIdentifier: String, version: Int = 1) -> String {
    var xml = AppConfigXML()
    xml.line("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
    xml.open(
      "managedAppConfiguration",
      [
        ("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"),
        (
          "xsi:noNamespaceSchemaLocation",
          "https://storage.googleapis.com/appconfig-media/appconfigschema.xsd"
        ),
      ])
    xml.element("version", text: String(version))
    xml.element("bundleId", text: bundleIdentifier)
    let keys = settings.compactMap(AppConfigKey.init(setting:))
    if keys.isEmpty {
      xml.empty("dict")  // the format wants a key; an empty presentation is left out
    } else {
      xml.open("dict")
      for key in keys { key.writeDefinition(to: &xml) }
      xml.close("dict")
      xml.open("presentation", [("defaultLocale", AppConfigKey.locale)])
      for key in keys { key.writeField(to: &xml) }
      xml.close("presentation")
    }
    xml.close("managedAppConfiguration")
    return xml.text
  }
}

/// One setting as a key of a managed app configuration spec.
private struct AppConfigKey {
  static let locale = "en-US"

  let setting: SettingSchema
  /// The key element's name (`string`, `integer`, `float`, `boolean`, `date`, `stringArray` …).
  let element: String
  /// The presentation field's type: `input`, `select`, `checkbox`, `datetime`, `list`.
  let fieldType: String
  /// The default's values as text (one, or an array's elements); empty for none.
  let defaults: [String]
  /// The allowed values as text, if the key has a list of them.
  let allowedValues: [String]?
  let minimum: String?
  let maximum: String?

  /// The key for `setting`, or `nil` if the format can't express its shape.
  init?(setting: SettingSchema) {
    let scalar: (element: String, format: (PropertyListValue) -> String?)
    let isArray: Bool
    switch setting.shape {
    case .array(let element):
      guard let elementScalar = Self.scalar(element), element != .bool, element != .date else {
        return nil
      }
      scalar = (elementScalar.element + "Array", elementScalar.format)
      isArray = true
    default:
      guard let shapeScalar = Self.scalar(setting.shape) else { return nil }
      scalar = shapeScalar
      isArray = false
    }
    self.setting = setting
    self.element = scalar.element

    var defaults: [String] = []
    if let value = setting.defaultValue, !setting.isSecret {
      let values: [PropertyListValue]
      if isArray, case .array(let elements) = value { values = elements } else { values = [value] }
      let texts = values.map(scalar.format)
      if !texts.contains(nil) { defaults = texts.compactMap { $0 } }
    }
    self.defaults = defaults

    var allowed: [String]?
    let listsValues: Bool
    switch setting.shape {
    case .string, .integer, .real: listsValues = true
    default: listsValues = false
    }
    // A secret's allowed values are left out, as its default is.
    if listsValues, !setting.isSecret, let values = setting.allowedValues {
      let texts = values.map(scalar.format)
      if !texts.contains(nil) { allowed = texts.compactMap { $0 } }
    }
    self.allowedValues = allowed
    let bounded: Bool
    switch setting.shape {
    case .integer, .real, .date: bounded = true
    default: bounded = false
    }
    self.minimum = bounded ? setting.minimum.flatMap(scalar.format) : nil
    self.maximum = bounded ? setting.maximum.flatMap(scalar.format) : nil

    switch setting.shape {
    case _ where isArray: fieldType = "list"
    case .bool: fieldType = "checkbox"
    case .date: fieldType = "datetime"
    case _ where allowed != nil: fieldType = "select"
    default: fieldType = "input"
    }
  }

  /// The element name and the value writer of a scalar shape; `nil` for other shapes.
  private static func scalar(
    _ shape: SettingSchema.Shape
  ) -> (element: String, format: (PropertyListValue) -> String?)? {
    switch shape {
    case .string: ("string", { if case .string(let text) = $0 { text } else { nil } })
    case .integer: ("integer", int32Text)
    case .real: ("float", floatText)
    case .bool:
      ("boolean", { if case .bool(let bool) = $0 { bool ? "true" : "false" } else { nil } })
    case .date: ("date", dateText)
    default: nil
    }
  }

  /// An integer as `xs:int` text; `nil` outside `Int32.min ... Int32.max` or for another kind.
  private static func int32Text(_ value: PropertyListValue) -> String? {
    guard case .integer(let integer) = value, let wide = integer.int64Value,
      let narrow = Int32(exactly: wide)
    else { return nil }
    return String(narrow)
  }

  /// A date as `xs:dateTime` text, in ISO 8601 and UTC (`2026-11-30T15:32:33Z`); `nil` for a
  /// date that isn't finite or another kind.
  private static func dateText(_ value: PropertyListValue) -> String? {
    guard case .date(let date) = value, date.timeIntervalSinceReferenceDate.isFinite else {
      return nil
    }
    return date.formatted(.iso8601)
  }

  /// A number as `xs:float` text: `0.8`, `1e-05`, `INF`, `-INF`, `NaN`.
  private static func floatText(_ value: PropertyListValue) -> String? {
    switch value {
    case .integer(let integer): return integer.description
    case .real(let real):
      if real.isNaN { return "NaN" }
      if real.isInfinite { return real < 0 ? "-INF" : "INF" }
      return real.description
    default: return nil
    }
  }

  /// Writes the key element with its default and constraint.
  func writeDefinition(to xml: inout AppConfigXML) {
    var constraint: [(String, String)] = []
    if let minimum { constraint.append(("min", minimum)) }
    if let maximum { constraint.append(("max", maximum)) }
    if setting.isOptional { constraint.append(("nullable", "true")) }
    let keyName = [("keyName", setting.key)]
    guard !defaults.isEmpty || !constraint.isEmpty || allowedValues != nil else {
      xml.empty(element, keyName)
      return
    }
    xml.open(element, keyName)
    if !defaults.isEmpty {
      xml.open("defaultValue")
      for value in defaults { xml.element("value", text: value) }
      xml.close("defaultValue")
    }
    if let allowedValues {
      xml.open("constraint", constraint)
      xml.open("values")
      for value in allowedValues { xml.element("value", text: value) }
      xml.close("values")
      xml.close("constraint")
    } else if !constraint.isEmpty {
      xml.empty("constraint", constraint)
    }
    xml.close(element)
  }

  /// Writes the presentation field: label, description, options.
  func writeField(to xml: inout AppConfigXML) {
    let language = [("value", Self.locale)]
    xml.open("field", [("keyName", setting.key), ("type", fieldType)])
    xml.open("label")
    xml.element("language", language, text: setting.key)
    xml.close("label")
    if let help = setting.help {
      xml.open("description")
      xml.element("language", language, text: help)
      xml.close("description")
    }
    if fieldType == "select", let allowedValues {
      xml.open("options")
      for value in allowedValues {
        xml.open("option", [("value", value)])
        xml.element("language", language, text: value)
        xml.close("option")
      }
      xml.close("options")
    }
    xml.close("field")
  }
}

/// An indented XML document being written, two spaces a level.
private struct AppConfigXML {
  private(set) var text = ""
  private var depth = 0

  mutating func line(_ content: String) {
    text += String(repeating: "  ", count: depth) + content + "\n"
  }

  mutating func open(_ name: String, _ attributes: [(String, String)] = []) {
    line("<\(name)\(Self.attributes(attributes))>")
    depth += 1
  }

  mutating func close(_ name: String) {
    depth -= 1
    line("</\(name)>")
  }

  mutating func empty(_ name: String, _ attributes: [(String, String)] = []) {
    line("<\(name)\(Self.attributes(attributes))/>")
  }

  mutating func element(_ name: String, _ attributes: [(String, String)] = [], text: String) {
    line("<\(name)\(Self.attributes(attributes))>\(Self.escaped(text))</\(name)>")
  }

  private static func attributes(_ attributes: [(String, String)]) -> String {
    attributes.map { " \($0.0)=\"\(escaped($0.1, inAttribute: true))\"" }.joined()
  }

  /// `text` with the five XML special characters as entities, a carriage return as `&#13;` (a
  /// reader turns a raw one into a line feed), in an attribute also tab and line feed as
  /// references (a reader turns raw ones into spaces), and each character XML 1.0 can't hold as
  /// U+FFFD.
  static func escaped(_ text: String, inAttribute: Bool = false) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "'": escaped += "&apos;"
      case "\r": escaped += "&#13;"
      case "\n" where inAttribute: escaped += "&#10;"
      case "\t" where inAttribute: escaped += "&#9;"
      case "\t", "\n": escaped.unicodeScalars.append(scalar)
      case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
        escaped += "\u{FFFD}"
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped
  }
}
