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
  public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code's stable identifier, for example `corruptFile`.
    public let rawValue: String

    /// Creates a code from its identifier.
    ///
    /// - Parameter rawValue: The identifier.
    public init(rawValue: String) {
      self.rawValue = rawValue
    }

    /// The file exists but could not be read (permissions, I/O error, a directory in its place).
    public static let fileNotReadable = Code(rawValue: "fileNotReadable")
    /// The file was read but is not a valid property list (truncated, corrupt, wrong format).
    public static let corruptFile = Code(rawValue: "corruptFile")
    /// The file is a valid property list whose root is not the kind required (for example an
    /// array where a settings layer needs a dictionary).
    public static let wrongRootType = Code(rawValue: "wrongRootType")
    /// The file is larger than the configured reading limit.
    public static let fileTooLarge = Code(rawValue: "fileTooLarge")
    /// The file could not be written (read-only folder, missing folder, disk full).
    public static let fileNotWritable = Code(rawValue: "fileNotWritable")
    /// A value cannot be stored as a property list, or not exactly, by this backend.
    public static let valueNotRepresentable = Code(rawValue: "valueNotRepresentable")
    /// A write named a layer that is read-only.
    public static let readOnlyLayer = Code(rawValue: "readOnlyLayer")
    /// A standard folder can't be used: something else is in its place, or it can't be created
    /// or written.
    public static let directoryNotUsable = Code(rawValue: "directoryNotUsable")
    /// A migration step failed, or the recorded schema version can't be read
    /// (``SettingsMigrations/run(on:)``).
    public static let migrationFailed = Code(rawValue: "migrationFailed")
    /// An import was refused: values of the wrong type, or unknown keys when they are refused
    /// (``SettingsContainer/importValues(_:options:)``).
    ///
    /// Nothing was written.
    public static let importRejected = Code(rawValue: "importRejected")
    /// A write named a key whose value is enforced by a forced layer (managed settings, see
    /// ``LayeredPlistStore/isForced(forKey:)``), as `UserDefaults.objectIsForced(forKey:)` tells.
    ///
    /// Nothing was written.
    public static let forcedValue = Code(rawValue: "forcedValue")

    /// A file that must be written only by a trusted owner (managed settings: root) could have
    /// been written by someone else: owned by another user, writable by its group or by others, or
    /// in such a folder (``ManagedSettingsSource``).
    ///
    /// The file was not read.
    public static let fileNotTrusted = Code(rawValue: "fileNotTrusted")

    /// A value is not one the setting accepts: outside the range its declaration gives
    /// (`@Setting(…, in: 0...1)`) or not one of its allowed values (`allowedValues:`), or, for
    /// the `settings` tool, outside the schema written next to the store.
    ///
    /// Nothing was written.
    public static let valueNotAllowed = Code(rawValue: "valueNotAllowed")

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
  /// `Cannot read the property list at '/tmp/data.plist': Unexpected character < at line 3`.
  public var description: String {
    let subject: String
    switch code {
    case .fileNotReadable, .corruptFile:
      subject = "Cannot read the property list at '\(path ?? "?")'"
    case .wrongRootType:
      subject = "The property list at '\(path ?? "?")' has the wrong root type"
    case .fileTooLarge:
      subject = "The property list at '\(path ?? "?")' is too large"
    case .fileNotWritable:
      subject = "Cannot write the property list at '\(path ?? "?")'"
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
