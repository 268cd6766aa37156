/// One key's slot in a backend's storage.
///
/// The library's own backends keep each key's current value in a cell, and hand a setting its
/// key's cell when the setting is bound, so that reading the setting is one lock and one load,
/// with no dictionary lookup (hashing the key is most of the cost of a lookup). A cell is never
/// removed from its backend: removing the key empties it, so a setting holding it stays correct.
// @unchecked Sendable: `value` and `conversion` are only read or written under the lock of the
// backend that owns the cell.
@usableFromInline
final class ValueCell: @unchecked Sendable {
  // Every access is under the owning backend's lock, so the dynamic exclusivity checks Swift
  // would add to these class properties are redundant, and they would double the cost of a read.
  @exclusivity(unchecked) @usableFromInline var value: PropertyListValue?
  /// A setting's conversion of `value` to its type (a ``ConvertedValue``), kept so that reading a
  /// stored array or dictionary again costs no conversion. Every change of `value` empties it,
  /// and it is only set while `value` is still the value it was converted from, so whenever it is
  /// present it is a conversion of the current value.
  @exclusivity(unchecked) @usableFromInline var conversion: AnyObject?
  /// Whether at least one observer watches this key, so that a write publishes its change; set by
  /// the backend's ``ObserverRegistry``. Cells of observed keys exist for as long as their backend.
  @exclusivity(unchecked) @usableFromInline var observed = false

  init(_ value: PropertyListValue?) {
    self.value = value
  }
}

/// A backend that stores its values in ``ValueCell``s and lets settings read them directly.
///
/// Each backend implements the cell accessors itself, with its own lock, though they read alike:
/// shared as a protocol extension over a lock requirement, they cost a generic call and a
/// witness lookup per read through `any CellBackend`, which took a setting read from 44 ns to
/// 77 ns in the benchmark.
///
/// Class-bound, so that a bound setting can keep its backend unretained for the read path (it
/// keeps it alive through its ``BackendBinding``).
@usableFromInline
protocol CellBackend: AnyObject, SettingsBackend {
  /// The cell holding `key`'s value, created empty if the key has none yet.
  func cell(forKey key: String) -> ValueCell

  /// An object standing for this backend's cells, alive at least as long as the backend: a
  /// model type's cache of cells (``ReflectionPlan``) holds it rather than the backend, so the
  /// cache can't keep the backend alive, and can't mistake another backend allocated at the same
  /// address for this one.
  var cellsIdentity: CellsIdentity { get }

  /// The value in `cell`, read under the backend's lock.
  func value(in cell: ValueCell) -> PropertyListValue?

  /// The conversion of the cell's current value a setting left in the cell, if any, read under
  /// the backend's lock.
  func conversion(in cell: ValueCell) -> AnyObject?

  /// Leaves a conversion in the cell, under the backend's lock, if the cell still holds the value
  /// it was converted from (the same storage, or an equal value).
  func setConversion(
    _ conversion: AnyObject, in cell: ValueCell, ifValueIs source: PropertyListValue)

  /// Stores a value for the key whose cell is `cell`, or removes it when `value` is `nil`: the
  /// same as ``SettingsBackend/setValue(_:forKey:)``, faster where the cell is all it needs.
  func setValue(
    _ value: PropertyListValue?, in cell: ValueCell, forKey key: String) throws(SettingsError)
}

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

/// The identity of one backend's cells (see ``CellBackend/cellsIdentity``).
@usableFromInline
final class CellsIdentity: Sendable {
  init() {}
}
