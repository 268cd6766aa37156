/// A setting's conversion of a stored array or dictionary to its type: immutable, so it can be
/// used outside the lock it was fetched under.
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
