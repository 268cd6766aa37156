/// A backend that keeps values in memory only: for tests, previews and state that should not
/// outlive the process.
///
/// ```swift
/// let settings = PlayerSettings(backend: InMemoryBackend())
/// let preview = PlayerSettings(backend: InMemoryBackend(["volume": 0.2]))
/// ```
///
/// ## Performance characteristics
///
/// A read or write by key is one dictionary access under a lock: no I/O, no allocation for scalar
/// values. A ``Setting`` bound to the backend reads its key's cell instead, with no lookup, and a
/// `Bool`, integer or `Double` with no lock at all (a few nanoseconds, see Docs/Performance.md).
///
/// Every write publishes its change to the backend's observers (see <doc:ObservingChanges>).
///
/// Thread-safe: every method may be called from any thread. Nothing is ever written to disk.
public final class InMemoryBackend: SettingsBackend, CellBackend {
  struct Storage {
    /// One cell per key ever written, observed, or read by a setting; a removed key's cell is
    /// empty.
    var cells: [String: ValueCell]
    /// The observers of every key, in the order they registered.
    var allKeysObservers: [Observer] = []

    /// Whether some observer watches every key.
    var observesAllKeys: Bool { !allKeysObservers.isEmpty }

    /// The key's cell, created empty if the key has none.
    mutating func cell(forKey key: String) -> ValueCell {
      if let cell = cells[key] { return cell }
      let cell = ValueCell.make(nil)
      cells[key] = cell
      return cell
    }
  }

  let storage: Locked<Storage>
  @usableFromInline package let cellsIdentity = CellsIdentity()
  /// The backend's observers.
  package let observers = ObserverRegistry()

  /// A short name for diagnostics, `InMemoryBackend` unless set at creation.
  public let name: String

  /// Creates a backend holding `values`.
  ///
  /// - Parameters:
  ///   - values: The initial keys and values; empty by default.
  ///   - name: A name for diagnostics, to tell several in-memory backends apart.
  public init(_ values: [String: PropertyListValue] = [:], name: String = "InMemoryBackend") {
    self.storage = Locked(Storage(cells: values.mapValues { ValueCell.make($0) }))
    self.name = name
  }

  /// Returns the value stored for a key.
  ///
  /// - Parameter key: The key to look up.
  /// - Returns: The value, or `nil` if the key has none.
  public func value(forKey key: String) -> PropertyListValue? {
    storage.withLock { $0.cells[key]?.value }
  }

  /// Stores a value for a key, or removes the key when `value` is `nil`.
  ///
  /// Memory could hold any value, but this backend refuses what every file-backed backend
  /// refuses on every platform, by the same check, so a model tested in memory behaves the same
  /// in production. (What only some files refuse is not refused here: the characters XML can't
  /// hold, which `LayeredPlistStore` refuses when it saves XML and ``UserDefaultsBackend``
  /// refuses on Linux; and a file's size limit.)
  ///
  /// - Parameters:
  ///   - value: The value to store, or `nil` to remove the key.
  ///   - key: The key to write.
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` naming the key for a value nested
  ///   more than 511 levels deep, holding more than a million values, or holding a date that is
  ///   not finite, which no backend could read back from a file.
  public func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    if let value { try WriteValidation.check(value, key: key) }
    let claims = storage.withLock { storage -> ObserverClaims in
      var claims = ObserverClaims()
      if let cell = storage.cells[key] {
        let publishes = (cell.observed || storage.observesAllKeys) && !cell.holds(value)
        cell.value = value
        if publishes {
          claims.offer(
            SettingsChange(key: key, newValue: value), toObserversOf: cell,
            storage.allKeysObservers)
        }
      } else if value != nil {
        storage.cells[key] = ValueCell.make(value)
        if storage.observesAllKeys {
          claims.offer(SettingsChange(key: key, newValue: value), to: [], storage.allKeysObservers)
        }
      }
      return claims
    }
    claims.deliver()
  }

  /// Stores several values at once, all or nothing.
  ///
  /// - Parameter values: The keys and values to store.
  /// - Throws: What ``setValue(_:forKey:)`` throws, for the first value that can't be stored;
  ///   nothing is stored then.
  public func setValues(_ values: [String: PropertyListValue]) throws(SettingsError) {
    for (key, value) in values { try WriteValidation.check(value, key: key) }
    let claims = storage.withLock { storage -> ObserverClaims in
      var claims = ObserverClaims()
      for (key, value) in values {
        if let cell = storage.cells[key] {
          let publishes = (cell.observed || storage.observesAllKeys) && !cell.holds(value)
          cell.value = value
          if publishes {
            claims.offer(
              SettingsChange(key: key, newValue: value), toObserversOf: cell,
              storage.allKeysObservers)
          }
        } else {
          storage.cells[key] = ValueCell.make(value)
          claims.offer(SettingsChange(key: key, newValue: value), to: [], storage.allKeysObservers)
        }
      }
      return claims
    }
    claims.deliver()
  }

  /// Removes a key.
  ///
  /// Removing a missing key does nothing.
  ///
  /// - Parameter key: The key to remove.
  public func removeValue(forKey key: String) {
    let claims = storage.withLock { storage -> ObserverClaims in
      var claims = ObserverClaims()
      guard let cell = storage.cells[key], cell.value != nil else { return claims }
      cell.value = nil
      claims.offer(
        SettingsChange(key: key, newValue: nil), toObserversOf: cell, storage.allKeysObservers)
      return claims
    }
    claims.deliver()
  }

  /// Returns every key and value.
  ///
  /// - Returns: The stored keys and values.
  public func dictionaryRepresentation() -> [String: PropertyListValue] {
    storage.withLock { $0.cells.compactMapValues(\.value) }
  }

  @usableFromInline
  package func cell(forKey key: String) -> ValueCell {
    storage.withLock { $0.cell(forKey: key) }
  }

  @usableFromInline
  package func value(in cell: ValueCell) -> PropertyListValue? {
    storage.withLock { _ in cell.value }
  }

  @usableFromInline
  package func conversion(in cell: ValueCell) -> AnyObject? {
    storage.withLock { _ in cell.conversion }
  }

  @usableFromInline
  package func setConversion(
    _ conversion: AnyObject,
    in cell: ValueCell,
    ifValueIs source: PropertyListValue
  ) {
    storage.withLock { _ in
      if cell.value == source { cell.conversion = conversion }
    }
  }

  @usableFromInline
  package func setValue(
    _ value: PropertyListValue?,
    in cell: ValueCell,
    forKey key: String
  ) throws(SettingsError) {
    if let value { try WriteValidation.check(value, key: key) }
    // A write nobody observes returns `nil`, which costs nothing to return or destroy.
    let claims = storage.withLock { storage -> ObserverClaims? in
      guard (cell.observed || storage.observesAllKeys) && !cell.holds(value) else {
        cell.value = value
        return nil
      }
      return Self.changeObserved(cell, to: value, forKey: key, in: storage)
    }
    if let claims = consume claims { claims.deliver() }
  }

  /// Stores a value in the cell of an observed key and offers the change to its observers, in the
  /// critical section of the change (see ``ObserverRegistry``), under the backend's lock.
  ///
  /// - Returns: The deliveries to make once the lock is released.
  @inline(never)
  private static func changeObserved(
    _ cell: ValueCell, to value: PropertyListValue?, forKey key: String, in storage: Storage
  ) -> ObserverClaims {
    cell.value = value
    var claims = ObserverClaims()
    claims.offer(
      SettingsChange(key: key, newValue: value), toObserversOf: cell, storage.allKeysObservers)
    return claims
  }
}
