/// How the library prints a setting's value in descriptions and diagnostics: as Swift prints it,
/// with an optional's wrapped value unwrapped (`5`, not `Optional(5)`) and `nil` for none.
enum ValueDescription {
  static func of<Value>(_ value: Value) -> String {
    if let optional = value as? any OptionalProtocol {
      return optional.wrappedAny.map { of($0) } ?? "nil"
    }
    return String(describing: value)
  }
}
