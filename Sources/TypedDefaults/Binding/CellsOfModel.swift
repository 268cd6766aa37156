/// Finds the cells of a model's settings as they are bound: the cells the model type's last
/// instance was bound to, where the backend and each key are the same (a backend never replaces
/// a key's cell), and otherwise the backend's, looked up and recorded for the next instance.
struct CellsOfModel {
  let binding: BackendBinding
  private var plan: ReflectionPlan?
  private var last: (keys: [String], cells: [ValueCell])?
  private var count = 0
  private var keys: [String] = []
  private var cells: [ValueCell] = []
  /// Whether a key differed from the last instance's, from which point the cells are looked up.
  private var changed = false

  /// Prepares for `count` settings, found through `plan` (`nil`: by `Mirror`, nothing cached).
  init(binding: BackendBinding, plan: ReflectionPlan?, count: Int) {
    self.binding = binding
    guard let backend = binding.cellBackend, let plan else { return }
    self.plan = plan
    last = plan.lastCells(of: backend.cellsIdentity)
    self.count = count
  }

  /// The cell of the setting at `index`, whose key in the target is `targetKey`; `nil` if the
  /// target keeps no cells.
  ///
  /// Unretained, as the setting keeps it (``UntypedSettingStorage/readCell``): the backend keeps
  /// every cell it hands out, so a retain and a release of each would only cost the binding
  /// (see ``SettingsReflection/bind(_:keyPrefix:to:)``).
  mutating func cell(at index: Int, forTargetKey targetKey: String) -> Unmanaged<ValueCell>? {
    guard let backend = binding.cellBackend else { return nil }
    if !changed, let last, index < last.keys.count, last.keys[index] == targetKey {
      return .passUnretained(last.cells[index])
    }
    let cell = backend.cell(forKey: targetKey)
    guard plan != nil else { return .passUnretained(cell) }
    if !changed {
      // The first miss: what was the same so far is kept, and the rest is recorded as it comes.
      changed = true
      keys.reserveCapacity(count)
      cells.reserveCapacity(count)
      if let last {
        keys += last.keys.prefix(index)
        cells += last.cells.prefix(index)
      }
    }
    keys.append(targetKey)
    cells.append(cell)
    return .passUnretained(cell)
  }

  /// Records the cells for the model type's next instance, if they changed.
  func finish() {
    guard changed, let plan, let backend = binding.cellBackend else { return }
    plan.recordCells(cells, keys: keys, of: backend.cellsIdentity)
  }
}
