import Foundation

/// What a model declares about one of its settings, without a backend: its key, the shape of the
/// property-list value it stores, its default, its help text and the values it accepts.
///
/// A ``SettingsSchema`` holds one for each setting of a model; export it as JSON Schema, an iOS
/// Settings bundle, a managed app configuration or a Markdown table, or write it next to a store so
/// that the `settings` tool checks what it writes. ``problem(with:)`` says whether a stored value
/// fits.
///
/// `SettingSchema` is a value type and `Sendable`.
public struct SettingSchema: Sendable, Hashable {
  /// The shape of the property-list value a setting stores: the property-list kind, and for
  /// strings the format their contents follow, for collections their elements' shape.
  ///
  /// It describes what is stored, not the Swift type: an enum with `String` raw values stores a
  /// ``string(format:)``, a `URL` a string with the ``StringFormat/url`` format, a `Codable` struct
  /// a ``dictionary(of:)`` of ``any``.
  public indirect enum Shape: Sendable, Hashable {
    /// A string, whose contents may follow a format.
    case string(format: StringFormat?)
    /// An integer, anywhere in `Int64.min ... UInt64.max`.
    case integer
    /// A floating-point number.
    case real
    /// A Boolean.
    case bool
    /// A date.
    case date
    /// Raw bytes.
    case data
    /// An array whose elements all have one shape.
    case array(of: Shape)
    /// A dictionary with string keys whose values all have one shape.
    case dictionary(of: Shape)
    /// Any property-list value (a ``PropertyListValue`` setting, or a type that doesn't say).
    case any

    /// The formats of strings that a shape names.
    public enum StringFormat: String, Sendable, Hashable, CaseIterable {
      /// An absolute URL, as `URL.absoluteString` writes it, or, as `URL` stores a file URL, an
      /// absolute path (`/…`, or `~/…` from the home directory): JSON Schema's `uri-reference`.
      case url
      /// A UUID, as `UUID.uuidString` writes it (JSON Schema's `uuid`).
      case uuid
    }

    /// The shape of one value: its kind, and for a collection the shape its elements share
    /// (``any`` when they differ or there are none).
    ///
    /// - Parameter value: The value.
    public init(of value: PropertyListValue) {
      switch value {
      case .string: self = .string(format: nil)
      case .integer: self = .integer
      case .real: self = .real
      case .bool: self = .bool
      case .date: self = .date
      case .data: self = .data
      case .array(let elements): self = .array(of: Shape.common(elements))
      case .dictionary(let entries): self = .dictionary(of: Shape.common(Array(entries.values)))
      }
    }

    /// The shape of one value's kind only: a collection's elements are ``any``.
    ///
    /// What a schema takes from a default when the setting's type doesn't say what it stores (a
    /// `Codable` struct): one value can't tell the shape of every other, so a dictionary's
    /// values and an array's elements are left open (a struct's optional field, absent from the
    /// default, may hold an integer in a stored value).
    ///
    /// - Parameter value: The value.
    public init(kindOf value: PropertyListValue) {
      switch value {
      case .array: self = .array(of: .any)
      case .dictionary: self = .dictionary(of: .any)
      default: self.init(of: value)
      }
    }

    // Not generic: a specialization for each collection type cost every app 13 KB of code.
    private static func common(_ values: [PropertyListValue]) -> Shape {
      guard let first = values.first.map(Shape.init(of:)) else { return .any }
      return values.allSatisfy { Shape(of: $0) == first } ? first : .any
    }

    /// Why `value` doesn't have this shape, or `nil` if it has: `"a string where an integer is
    /// declared"`, `"element 2 is a bool where a string is declared"`.
    ///
    /// Strict where the kind is concerned (an integer is not a real, as in a property-list file,
    /// except that a real setting reads an integer exactly, as ``SettingValue`` does) and for the
    /// formats (a URL must parse as an absolute URL or be an absolute path, a UUID as a UUID).
    ///
    /// - Parameter value: The value to check.
    /// - Returns: The reason, or `nil`.
    public func problem(with value: PropertyListValue) -> String? {
      switch (self, value) {
      case (.any, _), (.integer, .integer), (.real, .real), (.real, .integer), (.bool, .bool),
        (.date, .date), (.data, .data):
        return nil
      case (.string(let format), .string(let text)):
        guard let format else { return nil }
        switch format {
        case .url:
          let isPath = text.hasPrefix("/") || text == "~" || text.hasPrefix("~/")
          return isPath || URL(string: text)?.scheme != nil
            ? nil : "'\(text)' is not an absolute URL"
        case .uuid:
          return UUID(uuidString: text) == nil ? "'\(text)' is not a UUID" : nil
        }
      case (.array(let element), .array(let elements)):
        for (index, item) in elements.enumerated() {
          if let problem = element.problem(with: item) { return "element \(index): \(problem)" }
        }
        return nil
      case (.dictionary(let element), .dictionary(let entries)):
        for (key, item) in entries.sortedByKey() {
          if let problem = element.problem(with: item) { return "'\(key)': \(problem)" }
        }
        return nil
      default:
        return "\(PropertyListFile.article(value.kind)) where \(article) is declared"
      }
    }

    /// The property-list kind this shape stores; `nil` for ``any``.
    public var kind: PropertyListValue.Kind? {
      switch self {
      case .string: .string
      case .integer: .integer
      case .real: .real
      case .bool: .bool
      case .date: .date
      case .data: .data
      case .array: .array
      case .dictionary: .dictionary
      case .any: nil
      }
    }

    /// `a string`, `a URL string`, `an array of integers`, for messages.
    var article: String {
      switch self {
      case .string(format: .url?): "a URL string"
      case .string(format: .uuid?): "a UUID string"
      case .array(let element) where element != .any: "an array of \(element.plural)"
      case .dictionary(let element) where element != .any: "a dictionary of \(element.plural)"
      case .any: "any value"
      default: PropertyListFile.article(kind ?? .string)
      }
    }

    private var plural: String {
      switch self {
      case .string(format: .url?): "URL strings"
      case .string(format: .uuid?): "UUID strings"
      case .any: "values"
      default: "\(kind?.rawValue ?? "value")s"
      }
    }
  }

  /// The key the setting is stored under, with every key prefix: `com.example.sdk.volume`.
  public var key: String
  /// The property's path from the model through its nested groups (`playback.volume`); `nil` for
  /// a schema read from a file that doesn't record it.
  public var propertyPath: String?
  /// The setting's Swift type as it is spelled in code: `Double`, `Quality`, `[String]?`.
  public var typeName: String
  /// The shape of the value the setting stores.
  public var shape: Shape
  /// Whether the setting is optional: with nothing stored it reads `nil`, and assigning `nil`
  /// removes the key.
  public var isOptional: Bool
  /// The declared default as a property list; `nil` for an optional setting that defaults to
  /// `nil` and for a default computed on each read (`@Setting(default: { … })`).
  public var defaultValue: PropertyListValue?
  /// The setting's help text (`@Setting(…, help: "Playback volume, 0 to 1.")`), `nil` if none.
  public var help: String?
  /// The values the setting accepts, if it accepts only some (`allowedValues:` or the cases of a
  /// `CaseIterable` enum), as stored; `nil` for any value of its shape.
  ///
  /// A secret's are checked (``problem(with:)``) but never shown: the exports leave them out, and
  /// reasons don't list them.
  public var allowedValues: [PropertyListValue]?
  /// The smallest value the setting accepts (`in: 0...1`), `nil` for no lower bound.
  public var minimum: PropertyListValue?
  /// The largest value the setting accepts (`in: 0...1`), `nil` for no upper bound.
  public var maximum: PropertyListValue?
  /// Whether the setting's value is secret (``Setting/isSecret``): exports of the schema never
  /// hold a secret's default.
  public var isSecret: Bool
  /// Whether the setting's value was enforced by its backend when the schema was made (a managed
  /// setting, ``Setting/isForced``), so that a user can't change it.
  public var isManaged: Bool

  /// Creates the schema of one setting.
  ///
  /// - Parameters:
  ///   - key: The key the setting is stored under.
  ///   - propertyPath: The property's path from the model; `nil` if unknown.
  ///   - typeName: The Swift type's name as spelled in code.
  ///   - shape: The shape of the stored value.
  ///   - isOptional: Whether the setting is optional.
  ///   - defaultValue: The declared default as a property list, if fixed and not `nil`.
  ///   - help: The help text.
  ///   - allowedValues: The only values accepted, if only some are.
  ///   - minimum: The smallest value accepted, if bounded below.
  ///   - maximum: The largest value accepted, if bounded above.
  ///   - isSecret: Whether the value is secret.
  ///   - isManaged: Whether the value is enforced by the backend.
  public init(
    key: String, propertyPath: String? = nil, typeName: String, shape: Shape,
    isOptional: Bool = false, defaultValue: PropertyListValue? = nil, help: String? = nil,
    allowedValues: [PropertyListValue]? = nil, minimum: PropertyListValue? = nil,
    maximum: PropertyListValue? = nil, isSecret: Bool = false, isManaged: Bool = false
  ) {
    self.key = key
    self.propertyPath = propertyPath
    self.typeName = typeName
    self.shape = shape
    self.isOptional = isOptional
    self.defaultValue = defaultValue
    self.help = help
    self.allowedValues = allowedValues
    self.minimum = minimum
    self.maximum = maximum
    self.isSecret = isSecret
    self.isManaged = isManaged
  }

  /// Why `value` can't be stored for this setting, or `nil` if it can: the wrong shape, a value
  /// that isn't one of ``allowedValues``, or one outside ``minimum`` … ``maximum``.
  ///
  /// Numbers compare by value (an integer against a real bound), strings by their characters,
  /// dates by time; a bound of another kind than the value is ignored. A secret's reason
  /// (``isSecret``) shows neither the value nor the allowed values: `the secret value is not an
  /// allowed value`.
  ///
  /// - Parameter value: The value to check, as it would be stored.
  /// - Returns: A one-line reason naming the declared type and constraint, or `nil`.
  public func problem(with value: PropertyListValue) -> String? {
    // A secret's reason shows neither the value nor the allowed values.
    if let problem = shape.problem(with: value) {
      return isSecret
        ? "the secret value can't be stored as \(typeName)" : "\(problem) (\(typeName))"
    }
    return Self.constraintProblem(
      with: value, allowedValues: allowedValues, minimum: minimum, maximum: maximum,
      isSecret: isSecret)
  }

  /// Why `value` is not one of `allowedValues` or is outside `minimum` … `maximum`, or `nil`: the
  /// one wording of a refused value, for ``problem(with:)`` (the `settings` tool's writes) and a
  /// setting's own refused write (`1.5 is greater than the maximum, 1.0`).
  ///
  /// - Parameters:
  ///   - value: The value, as it would be stored.
  ///   - allowedValues: The only values accepted, if only some are.
  ///   - minimum: The smallest value accepted, if bounded below.
  ///   - maximum: The largest value accepted, if bounded above.
  ///   - isSecret: Whether neither the value nor the allowed values may be shown.
  /// - Returns: A one-line reason, or `nil`.
  static func constraintProblem(
    with value: PropertyListValue, allowedValues: [PropertyListValue]?,
    minimum: PropertyListValue?, maximum: PropertyListValue?, isSecret: Bool
  ) -> String? {
    let shown = isSecret ? "the secret value" : ValueDescription.of(value)
    if let allowedValues, !allowedValues.contains(value) {
      if isSecret { return "the secret value is not an allowed value" }
      let listed = allowedValues.map { ValueDescription.of($0) }.joined(separator: ", ")
      return "\(shown) is not one of the allowed values (\(listed))"
    }
    if minimum != nil || maximum != nil, case .real(let real) = value, real.isNaN {
      return "\(isSecret ? shown : "nan") is not a number, so it is outside the range "
        + "(\(rangeDescription(minimum: minimum, maximum: maximum) ?? ""))"
    }
    if let minimum, let order = SettingSchema.order(value, minimum), order < 0 {
      return "\(shown) is less than the minimum, \(ValueDescription.of(minimum))"
    }
    if let maximum, let order = SettingSchema.order(value, maximum), order > 0 {
      return "\(shown) is greater than the maximum, \(ValueDescription.of(maximum))"
    }
    return nil
  }

  /// The range the setting accepts in words, `0.0...1.0`, `≥ 1`, `≤ 10`; `nil` if unbounded.
  public var rangeDescription: String? {
    Self.rangeDescription(minimum: minimum, maximum: maximum)
  }

  /// The range between two optional bounds in words (see ``rangeDescription``).
  static func rangeDescription(
    minimum: PropertyListValue?, maximum: PropertyListValue?
  ) -> String? {
    switch (minimum, maximum) {
    case (let minimum?, let maximum?):
      "\(ValueDescription.of(minimum))...\(ValueDescription.of(maximum))"
    case (let minimum?, nil): "≥ \(ValueDescription.of(minimum))"
    case (nil, let maximum?): "≤ \(ValueDescription.of(maximum))"
    case (nil, nil): nil
    }
  }

  /// -1, 0 or 1 as `value` is below, at or above `bound`; `nil` if they don't compare.
  package static func order(_ value: PropertyListValue, _ bound: PropertyListValue) -> Int? {
    func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : a == b ? 0 : 1 }
    switch (value, bound) {
    case (.integer(let a), .integer(let b)): return sign(a, b)
    case (.string(let a), .string(let b)): return sign(a, b)
    case (.date(let a), .date(let b)): return sign(a, b)
    default:
      guard let a = value.numericValue, let b = bound.numericValue, !a.isNaN, !b.isNaN else {
        return nil
      }
      return sign(a, b)
    }
  }
}

extension PropertyListValue {
  /// An integer or a real as a `Double`, for comparing with a bound.
  fileprivate var numericValue: Double? {
    switch self {
    case .integer(let integer): Double(integer.description)
    case .real(let real): real
    default: nil
    }
  }
}
