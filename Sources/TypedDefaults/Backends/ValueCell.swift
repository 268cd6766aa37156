/// One key's slot in a backend's storage.
///
/// The library's own backends keep each key's current value in a cell, and hand a setting its
/// key's cell when the setting is bound, so that reading the setting is one lock and one load,
/// with no dictionary lookup (hashing the key is most of the cost of a lookup). A cell is never
/// removed from its backend: removing the key empties it, so a setting holding it stays correct.
// @unchecked Sendable: `value`, `conversion` and `observed` are only read or written under the
// lock of the backend that owns the cell.
@usableFromInline
final class ValueCell: @unchecked Sendable {
  // Every access is under the owning backend's lock, so the dynamic exclusivity checks Swift
  // would add to these class properties are redundant, and they would double the cost of a read.
  @exclusivity(unchecked) @usableFromInline var value: PropertyListValue?
  /// A setting's conversion of `value` to its type (a ``ConvertedValue``), kept so that reading a
  /// stored array or dictionary again costs no conversion.
  ///
  /// Every change of `value` empties it, and it is only set while `value` is still the value it was
  /// converted from, so whenever it is present it is a conversion of the current value.
  @exclusivity(unchecked) @usableFromInline var conversion: AnyObject?
  /// Whether at least one observer watches this key, so that a write publishes its change; set by
  /// the backend's ``ObserverRegistry``.
  ///
  /// Cells of observed keys exist for as long as their backend.
  @exclusivity(unchecked) @usableFromInline var observed = false

  init(_ value: PropertyListValue?) {
    self.value = value
  }
}
