import Foundation

// MARK: - Codable, as a property-list structure

extension SettingValue where Self: Codable {
  /// Decodes the value from its property-list form with ``PropertyListValueDecoder``.
  ///
  /// A stored value whose shape doesn't match the type (written by an older version of the app,
  /// say) fails the read, so the setting shows its default; the stored data is left as it is.
  ///
  /// - Parameter propertyListValue: The stored value.
  public init?(propertyListValue: PropertyListValue) {
    guard let decoded = try? PropertyListValueDecoder().decode(Self.self, from: propertyListValue)
    else { return nil }
    self = decoded
  }

  /// Encodes the value with ``PropertyListValueEncoder``: a struct or class becomes a dictionary,
  /// a collection an array, a single-value type a scalar, so people and other plist readers see
  /// its structure.
  ///
  /// - Returns: The encoded value.
  /// - Throws: `EncodingError` for a value a property list can't hold, such as `nil` inside an
  ///   array.
  public func propertyListValue() throws -> PropertyListValue? {
    try PropertyListValueEncoder().encode(self)
  }

  /// The decoding error: a missing key, a value of the wrong kind, and where.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: A one-line reason.
  public static func readFailureReason(for value: PropertyListValue) -> String? {
    do {
      _ = try PropertyListValueDecoder().decode(Self.self, from: value)
      return nil
    } catch {
      return CodingErrors.describe(error)
    }
  }
}

// MARK: - Codable, as a JSON string

/// A `Codable` setting value stored as a JSON string rather than as a property-list structure.
///
/// Use it to read and write data other libraries stored this way: sindresorhus/Defaults, for
/// example, stores `Codable` values as JSON strings. Declare the conformance and nothing else:
///
/// ```swift
/// struct Profile: Codable, JSONEncodedSettingValue {
///   var name: String
/// }
/// ```
///
/// Values are encoded with a `JSONEncoder` with sorted keys and otherwise default settings (dates
/// as seconds since 2001, as `Defaults` writes them) and decoded with a default `JSONDecoder`.
/// Reading also accepts the JSON as data. Prefer a plain `Codable` ``SettingValue`` otherwise:
/// its property-list structure is readable in the plist file and by other plist tools.
public protocol JSONEncodedSettingValue: SettingValue, Codable {}

extension JSONEncodedSettingValue {
  /// A string holding the JSON, for schemas.
  public static var storedShape: SettingSchema.Shape? { .string(format: nil) }

  /// Decodes the value from a JSON string (or JSON data).
  ///
  /// - Parameter propertyListValue: The stored value.
  public init?(propertyListValue: PropertyListValue) {
    guard let decoded = try? Self.decodeJSON(propertyListValue) else { return nil }
    self = decoded
  }

  /// Encodes the value as a JSON string.
  ///
  /// - Returns: ``PropertyListValue/string(_:)`` holding the JSON.
  /// - Throws: `EncodingError` if `JSONEncoder` can't encode the value (a non-finite `Double`,
  ///   for example).
  public func propertyListValue() throws -> PropertyListValue? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return .string(String(decoding: try encoder.encode(self), as: UTF8.self))
  }

  /// The JSON decoding error: invalid JSON, a missing key, and where.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: A one-line reason.
  public static func readFailureReason(for value: PropertyListValue) -> String? {
    do {
      _ = try decodeJSON(value)
      return nil
    } catch {
      return CodingErrors.describe(error)
    }
  }

  private static func decodeJSON(_ value: PropertyListValue) throws -> Self {
    let json: Data
    switch value {
    case .string(let string): json = Data(string.utf8)
    case .data(let data): json = data
    default:
      throw DecodingError.typeMismatch(
        String.self,
        DecodingError.Context(
          codingPath: [],
          debugDescription: "Expected a JSON string, found \(PropertyListFile.article(value.kind))"
        )
      )
    }
    return try JSONDecoder().decode(Self.self, from: json)
  }
}

// MARK: - Messages

/// One-line descriptions of `EncodingError` and `DecodingError`, naming the coding path.
enum CodingErrors {
  static func describe(_ error: any Error) -> String {
    let (context, summary): (String, String)
    switch error {
    case EncodingError.invalidValue(_, let details):
      (context, summary) = (path(details.codingPath), details.debugDescription)
    case DecodingError.keyNotFound(let key, let details):
      (context, summary) = (path(details.codingPath + [key]), "Missing (a required key)")
    case DecodingError.typeMismatch(_, let details),
      DecodingError.valueNotFound(_, let details),
      DecodingError.dataCorrupted(let details):
      (context, summary) = (path(details.codingPath), details.debugDescription)
    default:
      return String(describing: error)
    }
    return context.isEmpty ? summary : "\(context): \(summary)"
  }

  /// `a.b[2]`, from a coding path.
  static func path(_ codingPath: [any CodingKey]) -> String {
    var result = ""
    for key in codingPath {
      if let index = key.intValue,
        key.stringValue.hasPrefix("Index ") || key.stringValue == "\(index)"
      {
        result += "[\(index)]"
      } else {
        result += result.isEmpty ? key.stringValue : ".\(key.stringValue)"
      }
    }
    return result
  }
}
