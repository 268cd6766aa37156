/// A setting's conversion of a stored value to its type: immutable, so it can be used outside
/// the lock it was fetched under, and by any number of readers at once.
@usableFromInline
final class ConvertedValue<Value: Sendable>: Sendable {
  /// The stored value the conversion came from.
  @usableFromInline let source: PropertyListValue
  @usableFromInline let value: Value

  @usableFromInline
  init(source: PropertyListValue, value: Value) {
    self.source = source
    self.value = value
  }
}

/// A value type whose conversion from a stored value must run on every read, never be kept and
/// shared (``ConvertedValue``): it holds an object a reader may change, or its conversion
/// depends on process-wide state (``Archived``).
@usableFromInline
package protocol ConvertsAnew {}

extension Archived: ConvertsAnew {}
