import Foundation
import TypedDefaults

// JSON Schema (draft 2020-12): the schema as other tools validate against it, and the file the
// `settings` tool reads next to a store. The instance it describes is the store as JSON: a
// dictionary of keys, each value as JSON writes it, with dates as ISO 8601 strings and data as
// base64 (``SettingsSchema/jsonValue(of:)``).

extension SettingsSchema {
  /// The URI of the JSON Schema dialect the export uses, draft 2020-12.
  public static let jsonSchemaDialect = "https://json-schema.org/draft/2020-12/schema"

  /// The schema as a JSON Schema (draft 2020-12) document, UTF-8, keys sorted, pretty-printed.
  ///
  /// The document describes a store as a JSON object: one property per key, with
  /// - `type` from the stored shape (`string`, `integer`, `number`, `boolean`, `array` with
  ///   `items`, `object` with `additionalProperties`; none for ``SettingSchema/Shape/any``), and
  ///   `format` `date-time` for dates, `uri-reference` for URLs (a file URL is stored as its
  ///   path), `uuid` for UUIDs, `contentEncoding`
  ///   `base64` for data;
  /// - `default` (left out for a secret, an optional setting whose default is `nil`, and a
  ///   computed default), `enum` for allowed values (left out for a secret), `minimum` and `maximum` for a numeric range
  ///   (`x-typeddefaults-minimum` / `-maximum` for a range of strings or dates, which JSON Schema
  ///   can't bound), `description` for the help text, `readOnly` for a managed setting;
  /// - `x-typeddefaults-type` (the Swift type), `x-typeddefaults-property` (the property path),
  ///   `x-typeddefaults-optional` and `x-typeddefaults-secret`, which other validators ignore
  ///   and ``init(jsonSchema:)`` reads back.
  ///
  /// Other keys are allowed (`additionalProperties` is not restricted): a store holds values of
  /// other models and libraries too. A value validates when ``problem(with:forKey:)`` finds
  /// nothing wrong with it; what JSON Schema can't check, a validator other than the library lets
  /// through: a range of strings or dates (the `x-typeddefaults-` bounds), a real outside what a
  /// `Float` holds, a `ClosedRange` stored with its bounds reversed, and what a `Codable` type's
  /// decoding refuses (its shape is the default's kind only).
  ///
  /// - Returns: The document's bytes.
  public func jsonSchema() -> Data {
    var properties: [String: Any] = [:]
    for setting in settings { properties[setting.key] = Self.jsonSchema(of: setting) }
    let document: [String: Any] = [
      "$schema": Self.jsonSchemaDialect, "title": title, "type": "object",
      "properties": properties,
    ]
    // Every value above is a JSON type: serialization can't fail.
    return
      (try? JSONSerialization.data(
        withJSONObject: document, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]))
      ?? Data()
  }

  /// Reads a schema from a JSON Schema document that ``jsonSchema()`` wrote (or one written by
  /// hand in the same form).
  ///
  /// Reads the keywords ``jsonSchema()`` writes and ignores others; a property with no `type`
  /// reads as ``SettingSchema/Shape/any``; a `default`, `enum` member or bound that doesn't have
  /// the property's shape is left out, so a hand-edited file can't make the tool refuse
  /// everything. An `enum` left with no member (none has the property's shape, or it is empty)
  /// is ignored, every value of the shape allowed, and reported as a
  /// ``SettingsDiagnostic/Kind/typeMismatch`` diagnostic naming the key.
  ///
  /// - Parameter jsonSchema: The document's bytes.
  /// - Throws: ``SettingsError/Code/corruptFile`` if the bytes are not JSON, or not an object
  ///   whose `properties` is an object of objects.
  public init(jsonSchema: Data) throws(SettingsError) {
    try self.init(jsonSchema: jsonSchema, file: nil)
  }

  /// Reads a schema from a JSON Schema document (see ``init(jsonSchema:)``), read from `file`
  /// if given, which the diagnostics name.
  init(jsonSchema: Data, file: String?) throws(SettingsError) {
    let document: Any
    do {
      document = try JSONSerialization.jsonObject(with: jsonSchema)
    } catch {
      throw SettingsError(
        .corruptFile, reason: "The schema is not JSON: \(error.localizedDescription)")
    }
    guard let root = document as? [String: Any],
      let properties = root["properties"] as? [String: Any]
    else {
      throw SettingsError(
        .corruptFile, reason: "The schema is not a JSON Schema object with 'properties'")
    }
    var settings: [SettingSchema] = []
    for (key, property) in properties {
      guard let property = property as? [String: Any] else {
        throw SettingsError(
          .corruptFile, key: key, reason: "The schema of '\(key)' is not a JSON object")
      }
      settings.append(Self.setting(key: key, from: property, file: file))
    }
    self.init(title: root["title"] as? String ?? "", settings: settings)
  }

  /// The JSON form of a stored value, as the schema's instance holds it (and as `default` and
  /// `enum` are written): strings, numbers, booleans, arrays and objects as themselves, a date as
  /// an ISO 8601 string (UTC, with fractional seconds when it has them), data as base64.
  ///
  /// - Parameter value: The stored value.
  /// - Returns: A value `JSONSerialization` writes.
  public static func jsonValue(of value: PropertyListValue) -> Any {
    switch value {
    case .string(let string): return string
    case .integer(let integer):
      if let signed = Int64(exactly: integer) { return NSNumber(value: signed) }
      return NSNumber(value: UInt64(exactly: integer) ?? 0)
    case .real(let real):
      // JSON has no NaN or infinity: the nearest number JSON can write.
      if real.isNaN { return NSNumber(value: 0) }
      return NSNumber(
        value: real.isInfinite
          ? (real < 0 ? -Double.greatestFiniteMagnitude : .greatestFiniteMagnitude) : real)
    case .bool(let bool): return NSNumber(value: bool)
    case .date(let date): return date.formatted(Self.dateFormat(for: date))
    case .data(let data): return data.base64EncodedString()
    case .array(let elements): return elements.map(jsonValue(of:))
    case .dictionary(let entries): return entries.mapValues(jsonValue(of:))
    }
  }

  // MARK: - Writing

  private static func jsonSchema(of setting: SettingSchema) -> [String: Any] {
    var property = jsonSchema(of: setting.shape)
    property["x-typeddefaults-type"] = setting.typeName
    if let path = setting.propertyPath { property["x-typeddefaults-property"] = path }
    if setting.isOptional { property["x-typeddefaults-optional"] = true }
    if setting.isSecret { property["x-typeddefaults-secret"] = true }
    if setting.isManaged { property["readOnly"] = true }
    if let help = setting.help { property["description"] = help }
    if let value = setting.defaultValue, !setting.isSecret {
      property["default"] = jsonValue(of: value)
    }
    // A secret's allowed values are left out, as its default is: they may tell the secret.
    if let allowed = setting.allowedValues, !setting.isSecret {
      property["enum"] = allowed.map(jsonValue(of:))
    }
    for (bound, name) in [(setting.minimum, "minimum"), (setting.maximum, "maximum")] {
      guard let bound else { continue }
      switch bound {
      case .integer, .real: property[name] = jsonValue(of: bound)
      default: property["x-typeddefaults-\(name)"] = jsonValue(of: bound)
      }
    }
    return property
  }

  private static func jsonSchema(of shape: SettingSchema.Shape) -> [String: Any] {
    switch shape {
    case .string(let format):
      var property: [String: Any] = ["type": "string"]
      switch format {
      // A file URL is stored as its path (`/`, `~/x`): a URI reference, not an absolute URI.
      case .url?: property["format"] = "uri-reference"
      case .uuid?: property["format"] = "uuid"
      case nil: break
      }
      return property
    case .integer: return ["type": "integer"]
    case .real: return ["type": "number"]
    case .bool: return ["type": "boolean"]
    case .date: return ["type": "string", "format": "date-time"]
    case .data: return ["type": "string", "contentEncoding": "base64"]
    case .array(let element): return ["type": "array", "items": jsonSchema(of: element)]
    case .dictionary(let element):
      return ["type": "object", "additionalProperties": jsonSchema(of: element)]
    case .any: return [:]
    }
  }

  /// Whole seconds print without a fraction; a date with a fraction keeps it (milliseconds).
  private static func dateFormat(for date: Date) -> Date.ISO8601FormatStyle {
    let seconds = date.timeIntervalSinceReferenceDate
    let whole = seconds.rounded(.down) == seconds
    return Date.ISO8601FormatStyle(includingFractionalSeconds: !whole, timeZone: .gmt)
  }

  // MARK: - Reading

  private static func setting(
    key: String, from property: [String: Any], file: String?
  ) -> SettingSchema {
    let shape = shape(from: property)
    let value = { (json: Any?) in json.flatMap { propertyListValue(fromJSON: $0, shape: shape) } }
    let bound = { (name: String) in
      value(property[name])
        ?? property["x-typeddefaults-\(name)"].flatMap {
          propertyListValue(fromJSON: $0, shape: shape)
        }
    }
    var allowed = (property["enum"] as? [Any]).map { $0.compactMap { value($0) } }
    let typeName = property["x-typeddefaults-type"] as? String ?? shape.jsonTypeName
    if allowed?.isEmpty == true {
      // No value could be stored: the enum is ignored, as a member of another kind is.
      allowed = nil
      SettingsDiagnostics.report(
        SettingsDiagnostic(
          kind: .typeMismatch, key: key, backend: file ?? "JSON Schema", expectedType: typeName,
          message: "The enum of '\(key)' in the schema\(file.map { " at '\($0)'" } ?? "") has no "
            + "member of its type (\(typeName)); it is ignored: every value of the type is allowed"
        ))
    }
    return SettingSchema(
      key: key, propertyPath: property["x-typeddefaults-property"] as? String,
      typeName: typeName,
      shape: shape, isOptional: isTrue(property["x-typeddefaults-optional"]),
      defaultValue: value(property["default"]), help: property["description"] as? String,
      allowedValues: allowed, minimum: bound("minimum"), maximum: bound("maximum"),
      isSecret: isTrue(property["x-typeddefaults-secret"]), isManaged: isTrue(property["readOnly"]))
  }

  private static func isTrue(_ json: Any?) -> Bool {
    guard let number = json as? NSNumber, isBoolean(number) else { return false }
    return number.boolValue
  }

  /// Whether JSON wrote `true` or `false` (Foundation reads them as `NSNumber`s of `Bool`).
  private static func isBoolean(_ number: NSNumber) -> Bool {
    String(cString: number.objCType) == "c" || type(of: number) == type(of: NSNumber(value: true))
  }

  private static func shape(from property: [String: Any]) -> SettingSchema.Shape {
    switch property["type"] as? String {
    case "string":
      switch (property["format"] as? String, property["contentEncoding"] as? String) {
      case ("date-time"?, _): return .date
      case ("uri-reference"?, _), ("uri"?, _): return .string(format: .url)
      case ("uuid"?, _): return .string(format: .uuid)
      case (_, "base64"?): return .data
      default: return .string(format: nil)
      }
    case "integer": return .integer
    case "number": return .real
    case "boolean": return .bool
    case "array":
      return .array(of: (property["items"] as? [String: Any]).map(shape(from:)) ?? .any)
    case "object":
      return .dictionary(
        of: (property["additionalProperties"] as? [String: Any]).map(shape(from:)) ?? .any)
    default: return .any
    }
  }

  /// A JSON value read as the property-list value of `shape`, `nil` if it isn't one.
  static func propertyListValue(
    fromJSON json: Any, shape: SettingSchema.Shape
  ) -> PropertyListValue? {
    switch shape {
    case .string:
      return (json as? String).map(PropertyListValue.string)
    case .date:
      guard let text = json as? String else { return nil }
      let strategies = [
        Date.ISO8601FormatStyle(includingFractionalSeconds: true),
        Date.ISO8601FormatStyle(includingFractionalSeconds: false),
      ]
      for strategy in strategies {
        if let date = try? strategy.parse(text) { return .date(date) }
      }
      return nil
    case .data:
      return (json as? String).flatMap { Data(base64Encoded: $0) }.map(PropertyListValue.data)
    case .integer:
      guard let number = json as? NSNumber, !isBoolean(number) else { return nil }
      let text = number.description
      if let signed = Int64(text) { return .integer(.init(signed)) }
      return UInt64(text).map { .integer(.init($0)) }
    case .real:
      guard let number = json as? NSNumber, !isBoolean(number) else { return nil }
      return Double(number.description).map(PropertyListValue.real)
    case .bool:
      guard let number = json as? NSNumber, isBoolean(number) else { return nil }
      return .bool(number.boolValue)
    case .array(let element):
      guard let elements = json as? [Any] else { return nil }
      var values: [PropertyListValue] = []
      for item in elements {
        guard let value = propertyListValue(fromJSON: item, shape: element) else { return nil }
        values.append(value)
      }
      return .array(values)
    case .dictionary(let element):
      guard let entries = json as? [String: Any] else { return nil }
      var values: [String: PropertyListValue] = [:]
      for (key, item) in entries {
        guard let value = propertyListValue(fromJSON: item, shape: element) else { return nil }
        values[key] = value
      }
      return .dictionary(values)
    case .any:
      if let text = json as? String { return .string(text) }
      if let number = json as? NSNumber {
        if isBoolean(number) { return .bool(number.boolValue) }
        return propertyListValue(fromJSON: number, shape: .integer)
          ?? propertyListValue(fromJSON: number, shape: .real)
      }
      if json is [Any] { return propertyListValue(fromJSON: json, shape: .array(of: .any)) }
      if json is [String: Any] {
        return propertyListValue(fromJSON: json, shape: .dictionary(of: .any))
      }
      return nil
    }
  }
}

extension SettingSchema.Shape {
  /// The Swift type a schema names when it doesn't record one: `String`, `[Int]`.
  var jsonTypeName: String {
    switch self {
    case .string(format: .url?): "URL"
    case .string(format: .uuid?): "UUID"
    case .string: "String"
    case .integer: "Int"
    case .real: "Double"
    case .bool: "Bool"
    case .date: "Date"
    case .data: "Data"
    case .array(let element): "[\(element.jsonTypeName)]"
    case .dictionary(let element): "[String: \(element.jsonTypeName)]"
    case .any: "PropertyListValue"
    }
  }
}
