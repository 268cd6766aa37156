extension PropertyListFile {
  /// The kind with its article, for messages: "an array", "a string", "data".
  ///
  /// Used by the messages of value conversion, migrations and reads of a stored value of the wrong
  /// kind.
  ///
  /// - Parameter kind: The kind of a property-list value.
  /// - Returns: The kind's name with its indefinite article (none for data).
  static func article(_ kind: PropertyListValue.Kind) -> String {
    switch kind {
    case .array, .integer: "an \(kind)"
    case .data: "data"
    default: "a \(kind)"
    }
  }
}
