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
package protocol CellBackend: AnyObject, SettingsBackend {
  /// The cell holding `key`'s value, created empty if the key has none yet.
  func cell(forKey key: String) -> ValueCell

  /// An object standing for this backend's cells, alive at least as long as the backend: a
  /// model type's cache of cells (``ReflectionPlan``) holds it rather than the backend, so the
  /// cache can't keep the backend alive, and can't mistake another backend allocated at the same
  /// address for this one.
  var cellsIdentity: CellsIdentity { get }

  /// Whether settings bound to the backend read and write through its cells; `true` unless the
  /// backend keeps cells only when its owner asks (``UserDefaultsBackend`` on Linux, created
  /// with the promise that the suite is written only through the library).
  ///
  /// Asked once per model bound, never on the read path.
  var offersCells: Bool { get }

  /// The value in `cell`, read under the backend's lock.
  func value(in cell: ValueCell) -> PropertyListValue?

  /// What the backend stores for `key`, whose cell is `cell`
  /// (``SettingsBackend/storedValue(forKey:)``): the cell's value where every value the backend
  /// reads is a stored one.
  func storedValue(in cell: ValueCell, forKey key: String) -> PropertyListValue?

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

extension CellBackend {
  @usableFromInline
  package var offersCells: Bool { true }

  @usableFromInline
  package func storedValue(in cell: ValueCell, forKey key: String) -> PropertyListValue? {
    value(in: cell)
  }
}

/// The identity of one backend's cells (see ``CellBackend/cellsIdentity``).
@usableFromInline
package final class CellsIdentity: Sendable {
  package init() {}
}
