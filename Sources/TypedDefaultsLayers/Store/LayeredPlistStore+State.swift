import Dispatch
import TypedDefaults

extension LayeredPlistStore {
  /// A key's current value and the layer it comes from.
  struct Entry {
    var value: PropertyListValue
    var layer: Layer
  }

  /// Everything that changes, guarded by the store's lock.
  struct State {
    /// The store's layers, highest priority first (``LayeredPlistStore/layers``).
    let order: [Layer]
    /// One dictionary per layer, in the order of ``order``.
    ///
    /// The persistent one is what this run sees, which differs from the file for keys written for
    /// the next launch.
    var layers: [[String: PropertyListValue]]
    /// For every key present in any layer, the value of its highest-priority layer.
    var effective: [String: Entry] = [:]
    /// The cells of the keys settings are bound to, each holding the key's `effective` value.
    ///
    /// Created on demand, so that opening a store allocates nothing per key.
    var cells: [String: ValueCell] = [:]
    /// The observers of every key, in the order they registered.
    var allKeysObservers: [Observer] = []
    /// Observed keys whose effective value changed under the current lock, each with its cell if
    /// it has one, for ``LayeredPlistStore/changingState(_:)`` to offer to their observers before
    /// the lock is released.
    var observedChanges: [(key: String, cell: ValueCell?)] = []
    /// Keys whose value in `data.plist` this process changed and hasn't saved yet, each with the
    /// number of its latest change (so a save clears only the changes it wrote).
    var unsaved = PersistedPropertyListFile.UnsavedChanges()
    /// For keys written for the next launch: what `data.plist` should hold (`nil`: no value).
    var nextLaunch: [String: PropertyListValue?] = [:]
    var saveCount = 0
    /// The positions of the layers whose source ``LayerSource/isForced``.
    var forcedIndices: [Int] = []
    /// For each source's layer, by position: the values its source gave, which ``layers`` holds
    /// read as the declared types (a text layer's text parsed), less those the settings refuse,
    /// which are passed over (`LayeredPlistStore.settle(_:in:state:)`).
    var given: [Int: [String: PropertyListValue]] = [:]
    /// For each source's layer, by position: the number of the latest read applied, so that a
    /// read that finished late never replaces a later one.
    var appliedReads: [Int: Int] = [:]
    /// For each source's layer, by position: the value of each key the layer last refused (a new
    /// value the declared type can't read), as the source gave it, so that reading the same bad
    /// value again (the source reread for a change of another key) isn't reported again.
    var refused: [Int: [String: PropertyListValue]] = [:]

    /// The size rule for `data.plist` (``EncodedSizeBudget``): its bounds are computed when the
    /// file is read (or at the first write), then kept up to date.
    var sizeBudget: EncodedSizeBudget

    init(
      order: [Layer],
      layers: [[String: PropertyListValue]],
      fileFormat: PropertyListFile.Format, sizeLimit: Int, sizeBounds: [String: Int]?
    ) {
      self.order = order
      self.layers = layers
      sizeBudget = EncodedSizeBudget(format: fileFormat, limit: sizeLimit, bounds: sizeBounds)
      // Start from the lowest non-empty layer with `mapValues`, which reuses its hash table
      // (opening a store with one big file then costs no rehashing), and let the layers above
      // override it.
      let nonEmpty = order.indices.reversed().filter { !layers[$0].isEmpty }
      guard let lowest = nonEmpty.first else { return }
      effective = layers[lowest].mapValues { Entry(value: $0, layer: order[lowest]) }
      for index in nonEmpty.dropFirst() {
        for (key, value) in layers[index] {
          effective[key] = Entry(value: value, layer: order[index])
        }
      }
    }

    /// The position of a layer in ``order``, or `nil` if the store lacks it.
    func index(of layer: Layer) -> Int? { order.firstIndex(of: layer) }

    /// The highest forced layer holding `key`, if any (see ``LayeredPlistStore/isForced(forKey:)``).
    func forcingLayer(ofKey key: String) -> Layer? {
      for index in forcedIndices where layers[index][key] != nil { return order[index] }
      return nil
    }

    /// Throws if a forced layer holds one of the keys: nothing may write it.
    ///
    /// - Throws: ``SettingsError/Code/forcedValue`` naming the first such key and its layer.
    func checkNotForced(_ keys: some Sequence<String>) throws(SettingsError) {
      guard !forcedIndices.isEmpty else { return }
      for key in keys {
        if let layer = forcingLayer(ofKey: key) {
          throw LayeredPlistStore.forcedError(key: key, layer: layer)
        }
      }
    }

    /// The position of ``Layer/persistent``, which every store has.
    var persistentIndex: Int { order.firstIndex(of: .persistent)! }
    /// The position of ``Layer/runtime``, which every store has.
    var runtimeIndex: Int { order.firstIndex(of: .runtime)! }

    var persistent: [String: PropertyListValue] { layers[persistentIndex] }

    /// What `data.plist` should hold for a key.
    func fileValue(forKey key: String) -> PropertyListValue? {
      if let pending = nextLaunch[key] { return pending }
      return persistent[key]
    }

    /// What a read of `key` would return if `data.plist` held nothing for it: the value of the
    /// highest layer below the persistent one holding the key (delivered, bundled), or `nil`.
    func valueBelowFile(forKey key: String) -> PropertyListValue? {
      for index in order.indices where index > persistentIndex {
        if let value = layers[index][key] { return value }
      }
      return nil
    }

    /// The whole of `data.plist` as this process wants it.
    func fileContents() -> [String: PropertyListValue] {
      var contents = persistent
      for (key, pending) in nextLaunch { contents[key] = pending }
      return contents
    }

    /// Recomputes a key's effective value: where a key's value changes.
    ///
    /// An observed key whose value did change is added to ``observedChanges``.
    mutating func resolve(_ key: String) {
      let cell = cells.isEmpty ? nil : cells[key]
      let observed = !allKeysObservers.isEmpty || cell?.observed == true
      let previous = observed ? effective[key]?.value : nil
      effective[key] = nil
      for index in order.indices {
        if let value = layers[index][key] {
          effective[key] = Entry(value: value, layer: order[index])
          break
        }
      }
      // Setting the value empties the cell's conversion.
      cell?.value = effective[key]?.value
      if observed, previous != effective[key]?.value { observedChanges.append((key, cell)) }
    }

    /// The key's cell, created holding the key's current value.
    mutating func cell(forKey key: String) -> ValueCell {
      if let cell = cells[key] { return cell }
      let cell = ValueCell.make(effective[key]?.value)
      cells[key] = cell
      return cell
    }

    /// Throws if `data.plist` holding these values for these keys (`nil`: removed) could be
    /// larger than its limit, so that no write is accepted that no save could write.
    ///
    /// - Throws: ``SettingsError/Code/fileTooLarge`` naming the file and the key.
    mutating func checkFileSize(
      after writes: some Sequence<(key: String, value: PropertyListValue?)>,
      path: @autoclosure () -> String
    ) throws(SettingsError) {
      if !sizeBudget.isMeasured { sizeBudget.measure(fileContents()) }
      try sizeBudget.check(after: writes, path: path())
    }

    /// Brings the size bounds up to date after the file's value for `key` changed.
    mutating func fileValueChanged(forKey key: String) {
      sizeBudget.valueChanged(forKey: key, to: fileValue(forKey: key))
    }

    /// Writes the runtime layer (never saved).
    mutating func writeRuntime(_ value: PropertyListValue?, forKey key: String) {
      guard layers[runtimeIndex][key] != value else { return }
      layers[runtimeIndex][key] = value
      resolve(key)
    }

    /// Writes the persistent layer; cancels a next-launch change of the same key (the later write
    /// wins).
    ///
    /// Returns whether `data.plist` needs saving for it.
    @discardableResult
    mutating func writePersistent(_ value: PropertyListValue?, forKey key: String) -> Bool {
      let cancelledNextLaunch = nextLaunch.removeValue(forKey: key) != nil
      guard cancelledNextLaunch || layers[persistentIndex][key] != value else {
        return false
      }
      layers[persistentIndex][key] = value
      resolve(key)
      unsaved.mark(key)
      fileValueChanged(forKey: key)
      return true
    }

    /// Takes in a value just saved to `data.plist` for `key` (by ``update(forKey:_:)``): the
    /// persistent layer holds it, and it replaces any next-launch change of the key.
    mutating func adoptSaved(_ value: PropertyListValue?, forKey key: String) {
      nextLaunch.removeValue(forKey: key)
      unsaved.remove(key)
      guard layers[persistentIndex][key] != value else { return }
      layers[persistentIndex][key] = value
      resolve(key)
      fileValueChanged(forKey: key)
    }

    /// Records a value for `data.plist` that this run doesn't see.
    mutating func writeNextLaunch(_ value: PropertyListValue?, forKey key: String) {
      nextLaunch.updateValue(value, forKey: key)
      unsaved.mark(key)
      fileValueChanged(forKey: key)
    }

    /// Takes in the contents of `data.plist` as another process left them, except for keys this
    /// process changed and hasn't saved, or wrote for the next launch.
    ///
    /// Returns whether anything visible changed.
    @discardableResult
    mutating func adopt(_ contents: [String: PropertyListValue]) -> Bool {
      var changed = false
      let persistentLayer = persistentIndex
      for key in Set(contents.keys).union(layers[persistentLayer].keys)
      where !unsaved.contains(key) && nextLaunch[key] == nil
        && layers[persistentLayer][key] != contents[key]
      {
        layers[persistentIndex][key] = contents[key]
        resolve(key)
        fileValueChanged(forKey: key)
        changed = true
      }
      return changed
    }
  }
}

extension LayeredPlistStore {
  /// Changes the state under its lock, then delivers the changes of the observed keys whose
  /// effective value changed (offered under the lock, see ``changingStateUnpublished(_:)``), once
  /// the lock is released.
  func changingState<Result, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let (result, claims) = try changingStateUnpublished(body)
    publish(claims)
    return result
  }

  /// Changes the state under its lock and returns, with the result, the deliveries of the changes
  /// of the observed keys whose effective value changed, for the caller to ``publish(_:)`` once it
  /// holds no lock at all (the engine's save lock included: an observer may save), and before it
  /// does anything else that could wait.
  ///
  /// Each such key's change is offered to its observers before the lock is released, with the
  /// effective value the body left, so that changes reach observers in the order they took effect
  /// and each with its own value.
  func changingStateUnpublished<Result, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> (Result, ObserverClaims) {
    try state.withLock { state throws(Failure) -> (Result, ObserverClaims) in
      defer { state.observedChanges.removeAll(keepingCapacity: true) }
      let result = try body(&state)
      var claims = ObserverClaims()
      let changed = state.observedChanges
      if changed.count == 1 {
        offer(changed[0], in: state, to: &claims)
      } else if !changed.isEmpty {
        // A key resolved twice in one body changed once, to its last value, as others see it.
        var seen = Set<String>()
        for entry in changed where seen.insert(entry.key).inserted {
          offer(entry, in: state, to: &claims)
        }
      }
      return (result, claims)
    }
  }

  /// Offers the change of an observed key that `state` holds to its observers.
  ///
  /// To the key's observers and to those of every key; called under the state lock.
  private func offer(
    _ changed: (key: String, cell: ValueCell?), in state: State,
    to claims: inout ObserverClaims
  ) {
    claims.offer(
      change(ofKey: changed.key, in: state), to: changed.cell?.observers ?? [],
      state.allKeysObservers)
  }

  /// Delivers what ``changingStateUnpublished(_:)`` claimed; call it holding no lock of the
  /// store.
  func publish(_ claims: ObserverClaims) {
    claims.deliver()
  }
}
