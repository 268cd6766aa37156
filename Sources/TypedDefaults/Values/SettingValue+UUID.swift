import Foundation

// UUID: stored as its string.

extension UUID: SettingValue {
  /// A string holding a UUID, for schemas.
  public static var storedShape: SettingSchema.Shape? { .string(format: .uuid) }

  /// Reads a string holding a UUID in its standard 8-4-4-4-12 hexadecimal form, in either case
  /// (`E621E1F8-C36C-495A-93FC-0C247A3E6E5F` or `e621e1f8-…`), as `UUID(uuidString:)` reads it;
  /// nothing else reads (no braces, no 16-byte data).
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable
  public init?(propertyListValue: PropertyListValue) {
    guard case .string(let string) = propertyListValue, let uuid = UUID(uuidString: string)
    else { return nil }
    self = uuid
  }

  /// Stores the UUID as its `uuidString`: uppercase, 36 characters, the form Foundation writes
  /// and `UUID(uuidString:)` reads back on every platform.
  ///
  /// - Returns: ``PropertyListValue/string(_:)``.
  @inlinable
  public func propertyListValue() -> PropertyListValue? {
    .string(uuidString)
  }

  /// Says that a string is not in the UUID form.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: A one-line reason for a string, otherwise `nil`.
  public static func readFailureReason(for value: PropertyListValue) -> String? {
    guard case .string = value else { return nil }
    return "not a UUID in the form XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX"
  }
}
