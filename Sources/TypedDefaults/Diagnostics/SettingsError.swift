/// An error from a settings backend or a property-list file: what went wrong, where, and why.
///
/// Every file error names the file's path and the cause; every value error names the key. Match
/// on ``code`` to handle a kind of failure:
///
/// ```swift
/// do {
///   let store = try LayeredPlistStore(persistentFile: url)
/// } catch where error.code == .corruptFile {  // the initializer throws only SettingsError
///   print(error)  // Cannot read the property list at '/…/data.plist': …
/// }
/// ```
///
/// `SettingsError` is a value type and `Sendable`.
public struct SettingsError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The kind of failure.
  ///
  /// Every code the library's products throw is declared in one place,
  /// `SettingsError+Codes.swift`.
  public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code's stable identifier, for example `corruptFile`.
    public let rawValue: String

    /// Creates a code from its identifier.
    ///
    /// - Parameter rawValue: The identifier.
    public init(rawValue: String) {
      self.rawValue = rawValue
    }

    /// The code's identifier.
    public var description: String { rawValue }
  }

  /// The kind of failure.
  public let code: Code
  /// The path of the file involved, if any.
  public let path: String?
  /// The settings key involved, if any.
  public let key: String?
  /// What went wrong, in words: the cause reported by the system or found in the data.
  public let reason: String

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - code: The kind of failure.
  ///   - path: The path of the file involved, if any.
  ///   - key: The settings key involved, if any.
  ///   - reason: What went wrong, in words.
  public init(_ code: Code, path: String? = nil, key: String? = nil, reason: String) {
    self.code = code
    self.path = path
    self.key = key
    self.reason = reason
  }

  /// A one-line message naming the path or key and the cause, for example
  /// `Cannot read the property list at '/tmp/data.plist': Unexpected character < at line 3`; a
  /// file whose name ends in `.json` (a settings schema) is `the JSON file`.
  public var description: String {
    let subject: String
    // A schema file (`data.plist.schema.json`, and its lock) is JSON, not a property list.
    let file =
      path.map { $0.hasSuffix(".json") || $0.hasSuffix(".json.lock") } == true
      ? "JSON file" : "property list"
    switch code {
    case .fileNotReadable, .corruptFile:
      subject = "Cannot read the \(file) at '\(path ?? "?")'"
    case .wrongRootType:
      subject = "The \(file) at '\(path ?? "?")' has the wrong root type"
    case .fileTooLarge:
      subject = "The \(file) at '\(path ?? "?")' is too large"
    case .fileNotWritable:
      subject = "Cannot write the \(file) at '\(path ?? "?")'"
    case .valueNotRepresentable:
      if let key {
        subject = "Cannot store the value for '\(key)'"
      } else {
        subject = "Cannot write a property list holding this value at '\(path ?? "?")'"
      }
    case .readOnlyLayer, .forcedValue, .valueNotAllowed:
      subject = "Cannot write '\(key ?? "?")'"
    case .directoryNotUsable:
      subject = "Cannot use the folder '\(path ?? "?")'"
    case .fileNotTrusted:
      subject = "Cannot trust the file at '\(path ?? "?")'"
    default:
      subject = [path.map { "'\($0)'" }, key.map { "'\($0)'" }].compactMap { $0 }
        .joined(separator: " ")
    }
    return subject.isEmpty ? reason : "\(subject): \(reason)"
  }
}
