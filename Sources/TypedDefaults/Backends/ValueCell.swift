import Foundation
import Synchronization

/// One key's slot in a backend's storage.
///
/// The library's own backends keep each key's current value in a cell, and hand a setting its
/// key's cell when the setting is bound, so that reading the setting needs no dictionary lookup
/// (hashing the key is most of the cost of a lookup). A cell is never removed from its backend:
/// removing the key empties it, so a setting holding it stays correct.
///
/// Cells are made by ``make(_:)``: where the system has `Atomic` (always on Linux), that is a
/// ``ScalarValueCell``, which also publishes a scalar value in atomic words, so that a setting
/// reads a `Bool`, an integer or a `Double` with no lock at all.
// @unchecked Sendable: `value`, `conversion` and `observers` are only read or written under the
// lock of the backend that owns the cell; the subclass's atomic words are atomics.
@usableFromInline
package class ValueCell: @unchecked Sendable {
  // Every access is under the owning backend's lock, so the dynamic exclusivity checks Swift
  // would add to these class properties are redundant, and they would double the cost of a read.
  /// The key's current value; every change is also published to a ``ScalarValueCell``'s words.
  ///
  /// Setting it empties `conversion`, so a writer needn't: emptying it again would cost a
  /// sequentially consistent store (``ScalarValueCell``'s `conversionReplaced`) on every write.
  @exclusivity(unchecked) @usableFromInline package final var value: PropertyListValue? {
    didSet {
      if conversion != nil { conversion = nil }
      publish()
    }
  }
  /// A setting's conversion of `value` to its type (a ``ConvertedValue``), kept so that reading a
  /// value that isn't a scalar (a string, a date, an array…) again costs no conversion and, in a
  /// ``ScalarValueCell``, no lock.
  ///
  /// Every change of `value` empties it, and it is only set while `value` is still the value it was
  /// converted from, so whenever it is present it is a conversion of the current value.
  @exclusivity(unchecked) @usableFromInline package final var conversion: AnyObject? {
    didSet { conversionReplaced(withExtendedLifetime: oldValue) }
  }
  /// The observers of this key, in the order they registered.
  ///
  /// A write offers its change to each (``ObserverClaims/offer(_:to:_:)``) in the critical section
  /// of the change, with no lookup by key. Kept by the backend's ``ObserverRegistry`` (through
  /// ``RecordsOwnChanges``).
  ///
  /// Cells of observed keys exist for as long as their backend.
  @exclusivity(unchecked) package final var observers: [Observer] = []

  /// Whether at least one observer watches this key, so that a write publishes its change.
  package final var observed: Bool { !observers.isEmpty }

  /// Whether `value` is the cell's value: `value == self.value`, compared inline, with no copy
  /// of either, when both are integers (an observed write of an integer compares them on every
  /// write; `==` on two optional values copies both and calls out of line).
  ///
  /// - Parameter value: The value a write would store.
  /// - Returns: `true` if the cell holds an equal value (or both hold none).
  @inline(__always)
  package final func holds(_ value: PropertyListValue?) -> Bool {
    if case .integer(let new)? = value, case .integer(let old)? = self.value { return new == old }
    return self.value == value
  }

  /// Use ``make(_:)``, which picks the class the system can have.
  fileprivate init(_ value: PropertyListValue?) {
    self.value = value
  }

  /// A new cell holding `value`: a ``ScalarValueCell`` where the system has `Atomic`.
  ///
  /// - Parameter value: The key's value, `nil` for none.
  /// - Returns: The cell, its value published.
  package static func make(_ value: PropertyListValue?) -> ValueCell {
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
      let cell = ScalarValueCell(value)
      cell.publish()
      return cell
    }
    return ValueCell(value)
  }

  /// Publishes `value` where lock-free readers look; nothing in a plain cell.
  ///
  /// Called under the owning backend's lock, after each change of `value`.
  func publish() {}

  /// Publishes `conversion` where lock-free readers look, and returns once no reader can still
  /// be reading `old`, which the caller then releases; nothing in a plain cell.
  ///
  /// Called under the owning backend's lock, after each change of `conversion`.
  ///
  /// - Parameter old: The conversion replaced, kept alive until this returns.
  func conversionReplaced(withExtendedLifetime old: AnyObject?) {}
}

/// A cell that also keeps its value, when it is a scalar, in two atomic words that a reader
/// loads without the backend's lock: a sequence lock (a "seqlock") of one writer, the backend
/// holding its lock, and any number of readers that never write.
///
/// `sequence` holds a change count, the value's ``ScalarKind``, and a bit set while a change is
/// under way; `payload` holds the scalar's bits. A writer sets the busy bit, stores the payload,
/// and stores the new count and kind with release ordering. A reader loads `sequence` (acquire),
/// then `payload`, then `sequence` again after an acquire fence; it keeps what it read only if
/// both loads of `sequence` are equal and not busy, which proves `payload` is the one published
/// with that count and kind: no torn value (kind of one write, bits of another), and never one
/// older than the last change released before the reader began. A reader that finds a change
/// under way, or a value that isn't a scalar, reads under the lock instead. Every access is an
/// atomic, so the scheme is free of data races by the language's rules and ThreadSanitizer
/// checks it as such (`Tests/TypedDefaultsUnitTests/Properties/LockFreeReadTests.swift`). No
/// memory needs reclaiming: the words hold bits, never references.
///
/// A value that isn't a scalar is read, without the lock too, from its ``ValueCell/conversion``,
/// which the cell also publishes, unretained, in `publishedConversion`. That pointer's object can
/// be released by a writer while a reader is about to use it, so its reclamation is guarded by
/// counts of readers in two halves (the left-right technique): a reader counts itself on the
/// side `readerSide` names, loads the pointer, copies the converted value out of the object
/// (taking its own reference to what the value holds), and uncounts itself. A writer, holding the
/// backend's lock, stores the new pointer, waits for the other side's readers to leave, moves
/// `readerSide` there, waits for the first side's readers to leave, and only then may the old
/// object be released. The steps are sequentially consistent, so a reader that loaded the old
/// pointer was counted before the writer read the counts, and the writer waits for it; and no
/// reader that begins during a wait counts itself on the side waited for, so a hot key can't keep
/// a writer waiting (Docs/Design.md, "Performance", argues it in full).
// @unchecked Sendable: the base class's fields are behind the backend's lock; the rest atomics.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
@usableFromInline
final class ScalarValueCell: ValueCell, @unchecked Sendable {
  /// The change count (bits 4–63), the ``ScalarKind`` (bits 1–3), and whether a change is under
  /// way (bit 0).
  @usableFromInline let sequence = Atomic<UInt64>(0)
  /// The scalar's bits, as ``ScalarKind`` says.
  @usableFromInline let payload = Atomic<UInt64>(0)
  /// ``ValueCell/conversion``, unretained (`conversion` keeps it alive), for lock-free readers.
  @usableFromInline let publishedConversion = Atomic<UnsafeMutableRawPointer?>(nil)
  /// Which of the two counts of readers a reader adds itself to: 0 or 1.
  @usableFromInline let readerSide = Atomic<Int>(0)
  /// How many readers that took side 0 are between loading `publishedConversion` and copying
  /// out of it.
  @usableFromInline let readersOnSide0 = Atomic<Int>(0)
  /// The same for side 1.
  @usableFromInline let readersOnSide1 = Atomic<Int>(0)

  override func conversionReplaced(withExtendedLifetime old: AnyObject?) {
    let new = conversion.map { Unmanaged.passUnretained($0).toOpaque() }
    publishedConversion.store(new, ordering: .sequentiallyConsistent)
    guard let old else { return }
    withExtendedLifetime(old) {
      // Readers on the other side are stragglers of an earlier change (no new reader takes it);
      // then new readers are sent there, and this side's stragglers drain. Neither wait can be
      // prolonged by readers that begin after it does.
      let side = readerSide.load(ordering: .sequentiallyConsistent)
      waitForReaders(onSide: 1 - side)
      readerSide.store(1 - side, ordering: .sequentiallyConsistent)
      waitForReaders(onSide: side)
    }
  }

  /// Returns once no reader counted on `side` is left.
  private func waitForReaders(onSide side: Int) {
    while readers(onSide: side) != 0 { sched_yield() }
  }

  /// How many readers are counted on `side` now.
  private func readers(onSide side: Int) -> Int {
    side == 0
      ? readersOnSide0.load(ordering: .sequentiallyConsistent)
      : readersOnSide1.load(ordering: .sequentiallyConsistent)
  }

  /// Runs `body` on the published conversion, without the backend's lock, and returns what it
  /// returns; `nil` if no conversion is published.
  ///
  /// `body` must copy what it needs out of the object: the object may be released as soon as
  /// this returns.
  @inlinable @inline(__always)
  func withPublishedConversion<Result>(_ body: (AnyObject) -> Result?) -> Result? {
    let side = readerSide.load(ordering: .sequentiallyConsistent)
    if side == 0 {
      readersOnSide0.wrappingAdd(1, ordering: .sequentiallyConsistent)
    } else {
      readersOnSide1.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }
    defer {
      if side == 0 {
        readersOnSide0.wrappingSubtract(1, ordering: .releasing)
      } else {
        readersOnSide1.wrappingSubtract(1, ordering: .releasing)
      }
    }
    guard let pointer = publishedConversion.load(ordering: .sequentiallyConsistent) else {
      return nil
    }
    return Unmanaged<AnyObject>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
  }

  override func publish() {
    let (kind, bits) = ScalarKind.of(value)
    let current = sequence.load(ordering: .relaxed)
    sequence.store(current | 1, ordering: .relaxed)
    // The busy bit is visible before the new payload to any reader that sees the payload.
    atomicMemoryFence(ordering: .releasing)
    payload.store(bits, ordering: .relaxed)
    let count = (current >> 4) &+ 1
    sequence.store(count << 4 | kind.rawValue << 1, ordering: .releasing)
  }

  /// The cell's value as published, read without a lock: its ``ScalarKind`` and bits; `nil`
  /// when a change is under way, so that the reader must read under the lock.
  ///
  /// - Returns: The kind (a ``ScalarKind`` raw value: ``ScalarKind/other`` says "read under the
  ///   lock") and the payload's bits.
  @inlinable @inline(__always)
  func published() -> (kind: UInt64, bits: UInt64)? {
    let before = sequence.load(ordering: .acquiring)
    let bits = payload.load(ordering: .relaxed)
    atomicMemoryFence(ordering: .acquiring)
    let after = sequence.load(ordering: .relaxed)
    guard before == after, before & 1 == 0 else { return nil }
    return (before >> 1 & 0b111, bits)
  }
}

/// What a ``ScalarValueCell``'s payload holds.
@usableFromInline
enum ScalarKind: UInt64 {
  /// No value (the payload is 0).
  case absent
  /// A Boolean: 1 or 0.
  case bool
  /// An integer in `Int64`'s range: its bits.
  case integer
  /// An integer above `Int64.max`: its `UInt64` bits.
  case unsignedInteger
  /// A `Double`: its bits.
  case real
  /// Any other value: read under the lock.
  case other

  /// The kind and payload bits of a value.
  static func of(_ value: PropertyListValue?) -> (ScalarKind, UInt64) {
    switch value {
    case nil: return (.absent, 0)
    case .bool(let bool)?: return (.bool, bool ? 1 : 0)
    case .integer(let integer)?:
      if let signed = integer.int64Value { return (.integer, UInt64(bitPattern: signed)) }
      return (.unsignedInteger, integer.uint64Value ?? 0)
    case .real(let real)?: return (.real, real.bitPattern)
    case _?: return (.other, 0)
    }
  }
}
