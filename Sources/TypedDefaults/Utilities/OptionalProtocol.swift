/// Lets a value of any `Optional` type, held in an `Any` or a generic parameter, be unwrapped.
protocol OptionalProtocol {
  /// The wrapped value, or `nil`.
  var wrappedAny: Any? { get }
  /// The wrapped type.
  static var wrappedType: Any.Type { get }
}

extension Optional: OptionalProtocol {
  static var wrappedType: Any.Type { Wrapped.self }

  var wrappedAny: Any? {
    switch self {
    case .some(let wrapped): wrapped
    case .none: nil
    }
  }
}
