/// A range of values a setting accepts (`@Setting(in: 0...1)`): a closed range (`0...1`), a range
/// from a lower bound up (`0...`) or one up to an upper bound (`...60.0`).
///
/// The bounds are what the model's ``SettingsSchema`` shows as `minimum` and `maximum`;
/// a value is accepted when it is at least the minimum and at most the maximum, as the type
/// compares (what `contains(_:)` answers for these ranges). The standard library's
/// three closed-ended range types conform; a half-open range (`0..<10`) doesn't, since a schema's
/// bounds are inclusive.
///
/// Thread-safety: the conforming ranges are values; a setting keeps only the bounds.
public protocol SettingRange<Bound>: RangeExpression {
  /// The smallest value accepted; `nil` if there is no lower bound.
  var minimum: Bound? { get }
  /// The largest value accepted; `nil` if there is no upper bound.
  var maximum: Bound? { get }
}

extension ClosedRange: SettingRange {
  /// The range's lower bound.
  public var minimum: Bound? { lowerBound }
  /// The range's upper bound.
  public var maximum: Bound? { upperBound }
}

extension PartialRangeFrom: SettingRange {
  /// The range's lower bound.
  public var minimum: Bound? { lowerBound }
  /// `nil`: the range has no upper bound.
  public var maximum: Bound? { nil }
}

extension PartialRangeThrough: SettingRange {
  /// `nil`: the range has no lower bound.
  public var minimum: Bound? { nil }
  /// The range's upper bound.
  public var maximum: Bound? { upperBound }
}
