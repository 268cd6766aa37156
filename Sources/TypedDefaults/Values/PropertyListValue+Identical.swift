extension PropertyListValue {
  /// Whether two values are the same stored value: `==`, except that reals compare by bit pattern,
  /// so NaN matches NaN (and `-0.0` differs from `0.0`).
  func isIdentical(to other: PropertyListValue) -> Bool {
    switch (self, other) {
    case (.real(let left), .real(let right)):
      left.bitPattern == right.bitPattern
    case (.array(let left), .array(let right)):
      left.count == right.count && zip(left, right).allSatisfy { $0.isIdentical(to: $1) }
    case (.dictionary(let left), .dictionary(let right)):
      left.count == right.count
        && left.allSatisfy { key, value in right[key].map { value.isIdentical(to: $0) } ?? false }
    default:
      self == other
    }
  }
}
