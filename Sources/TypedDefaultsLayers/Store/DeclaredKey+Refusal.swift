import TypedDefaults

// What a setting refuses, for the store (kept out of the core, which a two-setting app links).
extension DeclaredKey {
  /// Why the setting reads its default rather than `value`, or `nil` if it reads `value` (a
  /// range declared with `clamping: true` reads a value outside it as the nearest bound).
  ///
  /// - Parameter value: A stored value.
  /// - Returns: What is wrong with it, or `nil` if the setting reads it.
  func refusal(of value: PropertyListValue) -> Refusal? {
    guard let typed = valueType.init(propertyListValue: value) else {
      return .unreadable(reason: valueType.readFailureReason(for: value))
    }
    guard let annotations, let accepts = annotations.accepts, !accepts(typed) else { return nil }
    if let clamped = annotations.clamp?(typed), accepts(clamped) { return nil }
    return .notAllowed(accepted: annotations.constraintDescription(isSecret: isSecret))
  }

  /// Why a setting refuses a stored value (``refusal(of:)``).
  enum Refusal: Sendable, Hashable {
    /// The type can't read it; the type's reason, if it gives one.
    case unreadable(reason: String?)
    /// The type reads it, but the declaration doesn't accept it; what it accepts (`in 1...65535`).
    case notAllowed(accepted: String)
  }

}
