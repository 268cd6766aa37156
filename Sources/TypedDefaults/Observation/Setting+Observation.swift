extension Setting {
  /// The setting's value after each change of its key, as an asynchronous sequence of typed
  /// values: `for await volume in settings.$volume.changes() { … }`.
  ///
  /// Each element is what reading the setting returned right after the change: the value it
  /// left as `Value`, or ``defaultValue`` when the key is removed or holds a value of another type (reported
  /// once as a ``SettingsDiagnostic``, as any read does). A change of the key from any writer
  /// counts: this setting, another model on the same backend, the backend itself, or a reported
  /// outside change (``SettingsBackend/reportChanges(forKeys:)``).
  ///
  /// Observation starts when iteration does, so with `initial: true` the first element is the
  /// value at that moment, never a value from when the sequence was created. The buffer holds at
  /// most the newest change (see ``SettingsChanges``); cancelling the consuming task ends the loop.
  /// The counterpart of Defaults' `Defaults.updates(_:)`. Thread-safe.
  ///
  /// - Parameter initial: Whether the first element is the current value; `false` by default.
  /// - Returns: The sequence of values.
  /// - Precondition: The setting is attached to a backend.
  public func changes(initial: Bool = false) -> SettingValueChanges<Value> {
    let backend = storage.boundBackend
    return SettingValueChanges(
      changes: backend.changes(forKey: storage.key, initial: initial), storage: storage)
  }

  /// Calls `handler` with the setting's value after each change of its key.
  ///
  /// The value is what reading the setting returned right after the change (the default for a
  /// removed or wrong-typed value): one call per write that changes it, even when writers race.
  /// `handler` runs on the thread that made the change, outside every lock, so it may read and
  /// write settings; calls never overlap and follow the order the writes took effect.
  /// See ``SettingsBackend/observe(key:initial:_:)`` for every rule. The counterpart of
  /// Defaults' `Defaults.observe(_:)`. Thread-safe: register and cancel from any thread.
  ///
  /// ```swift
  /// let token = settings.$volume.observe { volume in print("volume:", volume) }
  /// ```
  ///
  /// - Parameters:
  ///   - initial: Whether to call `handler` at once with the current value; `false` by default.
  ///   - handler: Called with each new value.
  /// - Returns: A token that keeps the observation alive; cancel or release it to stop.
  /// - Precondition: The setting is attached to a backend.
  public func observe(
    initial: Bool = false,
    _ handler: @escaping @Sendable (Value) -> Void
  ) -> ObservationToken {
    let storage = storage
    return storage.boundBackend.observe(key: storage.key, initial: initial) { change in
      handler(storage.value(from: change.newValue))
    }
  }
}

/// The values of one setting after each change of its key: the typed form of
/// ``SettingsChanges``, returned by ``Setting/changes(initial:)``.
public struct SettingValueChanges<Value: SettingValue>: AsyncSequence, Sendable {
  /// Each element is the setting's value after a change.
  public typealias Element = Value
  /// The sequence never throws.
  public typealias Failure = Never

  let changes: SettingsChanges
  let storage: SettingStorage<Value>

  /// Starts observing and returns the iterator that delivers the values.
  ///
  /// - Returns: A new, independent observation of the setting.
  public func makeAsyncIterator() -> Iterator {
    Iterator(base: changes.makeAsyncIterator(), storage: storage)
  }

  /// Delivers the values of one observation; releasing it stops the observation.
  public struct Iterator: AsyncIteratorProtocol {
    var base: SettingsChanges.Iterator
    let storage: SettingStorage<Value>

    /// Waits for the next value.
    ///
    /// - Returns: The setting's value after the next change, or `nil` once the consuming task is
    ///   cancelled.
    public mutating func next() async -> Value? {
      guard let change = await base.next() else { return nil }
      return storage.value(from: change.newValue)
    }

    /// Waits for the next value.
    ///
    /// - Parameter actor: The caller's isolation (unused: the iterator needs none).
    /// - Returns: The setting's value after the next change, or `nil` once the consuming task is
    ///   cancelled.
    public mutating func next(isolation actor: isolated (any Actor)?) async -> Value? {
      guard let change = await base.next(isolation: actor) else { return nil }
      return storage.value(from: change.newValue)
    }
  }
}
