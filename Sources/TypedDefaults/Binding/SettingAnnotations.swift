/// What a setting's declaration adds beyond its key and default: help text and the values it
/// accepts (a range, a list of allowed values), with the check that enforces them.
///
/// Made once, by the ``Setting`` initializer that takes them, before the setting can be shared,
/// and never changed: a setting declared without them has none, and its reads never look further
/// than the `nil` reference.
// @unchecked Sendable: every field is immutable and `accepts` is a `@Sendable` closure.
@usableFromInline
package final class SettingAnnotations: @unchecked Sendable {
  /// The help text, `nil` if none.
  package let help: String?
  /// The only values accepted, as stored, if only some are.
  let allowedValues: [PropertyListValue]?
  /// The smallest value accepted, as stored, if bounded below.
  let minimum: PropertyListValue?
  /// The largest value accepted, as stored, if bounded above.
  let maximum: PropertyListValue?
  /// Whether a value of the setting's type is accepted (the typed form of the constraint, which
  /// compares as the type does); `nil` when every value is.
  @usableFromInline package let accepts: (@Sendable (Any) -> Bool)?
  /// For a range declared with `clamping: true`, the nearest value in the range to one outside
  /// it (the typed value in, the typed value out); `nil` when a value outside is refused.
  package let clamp: (@Sendable (Any) -> Any)?
  /// Where the setting is declared (`MyApp/AppSettings.swift:12`), for messages about its values;
  /// `nil` when unknown.
  let declaration: String?

  package init(
    help: String?, allowedValues: [PropertyListValue]? = nil, minimum: PropertyListValue? = nil,
    maximum: PropertyListValue? = nil, accepts: (@Sendable (Any) -> Bool)? = nil,
    clamp: (@Sendable (Any) -> Any)? = nil, declaration: String? = nil
  ) {
    self.help = help
    self.allowedValues = allowedValues
    self.minimum = minimum
    self.maximum = maximum
    self.accepts = accepts
    self.clamp = clamp
    self.declaration = declaration
  }

  /// ` (declared at MyApp/AppSettings.swift:12)`, or nothing when the declaration is unknown: the
  /// end of a message about a refused or unacceptable value.
  var declaredAt: String {
    declaration.map { " (declared at \($0))" } ?? ""
  }

  /// What the constraint says, for messages: `in 0.0...1.0`, `one of "aac", "opus"`; a secret's
  /// allowed values are never listed: `one of its secret allowed values`.
  ///
  /// - Parameter isSecret: Whether the setting is secret.
  /// - Returns: The constraint in words, `any value` if there is none.
  package func constraintDescription(isSecret: Bool) -> String {
    if let allowedValues {
      if isSecret { return "one of its secret allowed values" }
      return "one of \(allowedValues.map { "\($0)" }.joined(separator: ", "))"
    }
    guard let range = SettingSchema.rangeDescription(minimum: minimum, maximum: maximum) else {
      return "any value"
    }
    // A closed range reads "in 0.0...1.0"; a partial one is already a phrase ("≥ 0").
    return minimum != nil && maximum != nil ? "in \(range)" : range
  }
}
