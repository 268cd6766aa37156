import Foundation

// A total order over property-list values, so that a value with no order of its own (a `Set`)
// is stored the same way every time: the same file bytes for the same set, whatever the order
// its elements happened to be in memory.

extension PropertyListValue {
  /// Whether `lhs` comes before `rhs` in the canonical storage order.
  ///
  /// Values of different kinds are ordered by kind (bool, integer, real, string, date, data,
  /// array, dictionary); within a kind, naturally: `false` before `true`, numbers numerically
  /// (reals by IEEE 754 total order, so NaN has a place), strings as Swift's `<` compares them
  /// (Unicode canonical equivalence), dates in time, data and arrays lexicographically,
  /// dictionaries by their entries sorted by key. Equal values are never ordered either way.
  static func canonicallyPrecedes(_ lhs: PropertyListValue, _ rhs: PropertyListValue) -> Bool {
    let (left, right) = (lhs.canonicalRank, rhs.canonicalRank)
    if left != right { return left < right }
    switch (lhs, rhs) {
    case (.bool(let a), .bool(let b)): return !a && b
    case (.integer(let a), .integer(let b)): return a < b
    case (.real(let a), .real(let b)):
      return a.isTotallyOrdered(belowOrEqualTo: b) && !b.isTotallyOrdered(belowOrEqualTo: a)
    case (.string(let a), .string(let b)): return a < b
    case (.date(let a), .date(let b)): return a < b
    case (.data(let a), .data(let b)): return a.lexicographicallyPrecedes(b)
    case (.array(let a), .array(let b)):
      return a.lexicographicallyPrecedes(b, by: canonicallyPrecedes)
    case (.dictionary(let a), .dictionary(let b)):
      let sortedA = a.sortedByKey()
      let sortedB = b.sortedByKey()
      return sortedA.lexicographicallyPrecedes(sortedB) { x, y in
        x.key != y.key ? x.key < y.key : canonicallyPrecedes(x.value, y.value)
      }
    default: return false
    }
  }

  private var canonicalRank: Int {
    switch self {
    case .bool: 0
    case .integer: 1
    case .real: 2
    case .string: 3
    case .date: 4
    case .data: 5
    case .array: 6
    case .dictionary: 7
    }
  }
}

extension Dictionary where Key == String, Value == PropertyListValue {
  /// The entries in the order of their keys, as property-list writers and messages list them.
  ///
  /// One function for every caller, so the binary holds one copy of the sort.
  package func sortedByKey() -> [(key: String, value: PropertyListValue)] {
    sorted { $0.key < $1.key }
  }
}
