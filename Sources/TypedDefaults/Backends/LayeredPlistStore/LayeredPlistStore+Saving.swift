import Dispatch
import Foundation

extension LayeredPlistStore {
  /// Whether `data.plist` has changes this process hasn't saved: writes to the persistent layer
  /// or for the next launch.
  public var hasUnsavedChanges: Bool {
    state.withLock { !$0.dirty.isEmpty }
  }

  /// Saves `data.plist`, merging with changes other processes saved since this one last read it,
  /// whether or not this process changed anything.
  ///
  /// Under an advisory lock shared with other processes: re-reads the file if another process
  /// changed it, applies only this process's changes (values and removals, and next-launch
  /// values), writes the result atomically, and takes in the other processes' values. Reads and
  /// writes may continue on other threads while the file is written; changes made meanwhile stay
  /// unsaved.
  ///
  /// If the file on disk turns out to be corrupt, it is moved aside (see ``recoveredProblems``)
  /// and the save writes this process's values: every value the store has for a file corrupt as
  /// a whole, with whatever entries of a partly readable one could be read. A corrupt file that
  /// can't be moved aside is never written over: the save throws.
  ///
  /// - Throws: ``SettingsError/Code/fileNotWritable`` naming the path and the cause (missing or
  ///   read-only folder, full disk, a lock that can't be taken, a lock file that is a symbolic
  ///   link, a corrupt file that couldn't be moved aside);
  ///   ``SettingsError/Code/fileTooLarge`` if the file would be larger than the store reads;
  ///   ``SettingsError/Code/fileNotReadable`` if another process left a file that can't be read
  ///   (permissions). The file is left as it was, and the changes stay in memory with
  ///   ``hasUnsavedChanges`` true, so a later save can succeed.
  public func save() throws(SettingsError) {
    try save(updating: { _ in [] })
  }

  /// Changes a key's value in `data.plist` from the value the file holds now, and saves, as one
  /// step that no other process's save can come between: for a value computed from the stored
  /// one (a counter, an array appended to) in a file several processes write.
  ///
  /// Under the same lock as ``save()``: re-reads the file if another process changed it, calls
  /// `transform` with the key's value there (with this process's unsaved changes applied), stores
  /// its result in the persistent layer, and saves everything. A plain read-then-write could lose
  /// another process's change made in between; this can't.
  ///
  /// ```swift
  /// try store.update(forKey: "RecentSearches") { .array(($0?.arrayValue ?? []) + ["jazz"]) }
  /// ```
  ///
  /// - Parameters:
  ///   - key: The key to change.
  ///   - transform: Given the key's value in the file (`nil` if none), returns the new value, or
  ///     `nil` to remove the key. Called once, while the file is locked: keep it short, and don't
  ///     use the store inside it. What it throws is rethrown and nothing is changed or saved.
  /// - Returns: The value stored (`nil` if the key was removed), as the store keeps it (see
  ///   ``setValue(_:forKey:)`` for XML's rules).
  /// - Throws: What `transform` throws; what ``setValue(_:forKey:)`` throws for its result;
  ///   what ``save()`` throws. Nothing changes when this throws.
  @discardableResult
  public func update(
    forKey key: String,
    _ transform: (PropertyListValue?) throws(SettingsError) -> PropertyListValue?
  ) throws(SettingsError) -> PropertyListValue? {
    let key = normalizedKey(key)
    var stored: PropertyListValue?
    try save(updating: { contents throws(SettingsError) in
      stored = try self.storable(transform(contents[key]), forKey: key, in: .persistent)
      contents[key] = stored
      return [key]
    })
    return stored
  }

  /// Saves, after `update` changes the merged contents under the file lock (see
  /// ``update(forKey:_:)`` and ``updateValues(_:)``) and returns the keys it changed.
  func save(
    updating update: (inout [String: PropertyListValue]) throws(SettingsError) -> [String]
  ) throws(SettingsError) {
    // Observers and diagnostics hear of the outcome once `saveLock` is released: an observer
    // may save, or write to a store that autosaves.
    let (changed, recovery) = try underSaveLock { () throws(SettingsError) in
      try saveLocked(updating: update)
    }
    publish(changed)
    if let recovery { record(recovery) }
  }

  /// Runs `body` holding `saveLock`.
  func underSaveLock<Result>(
    _ body: () throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    saveLock.lock()
    defer { saveLock.unlock() }
    return try body()
  }

  /// The save itself, holding `saveLock`; returns the observed keys whose effective value
  /// changed and the corrupt file found on disk, if any, to publish and record after.
  private func saveLocked(
    updating update: (inout [String: PropertyListValue]) throws(SettingsError) -> [String]
  ) throws(SettingsError) -> ([String], PersistedPropertyListFile.Recovery?) {
    try RealStoreGuard.check(writingTo: persistentFile.url, of: name)
    let (changes, knownVersion, ownContents, cleansUp) = state.withLock { state in
      // Temporary files of killed processes are removed at open and at most once a minute.
      let now = DispatchTime.now().uptimeNanoseconds
      let cleansUp = now &- state.lastTemporaryFileCleanup > 60_000_000_000
      if cleansUp { state.lastTemporaryFileCleanup = now }
      return (
        state.dirty.map { key, change in (key, state.fileValue(forKey: key), change) },
        state.diskVersion,
        state.fileContents(),
        cleansUp
      )
    }
    let target = AtomicFile.resolvedTarget(of: persistentFile.url).path
    let outcome = try AtomicFile.withLock(on: persistentFile.url) {
      () throws(SettingsError) -> SaveOutcome in
      var outcome = SaveOutcome()
      var contents = ownContents
      // The version known is held open, so its inode number can't have been given to another
      // process's file: a file with its identity is the one this process last read or wrote.
      if !knownVersion.isCurrent(atPath: target) {
        // Another process saved since this one last read the file: start from its contents.
        let read = try persisted.read(
          holdingLock: true, rewritesSalvagedEntries: false,
          replacingACorruptFileWith: ownContents, isSecret: isDeclaredSecret)
        if let recovery = read.recovery {
          try recovery.refuseToWriteOverAKeptFile(path: persistentFile.url.path)
          outcome.recovery = recovery
        }
        contents = read.entries
        for (key, value, _) in changes { contents[key] = value }
        outcome.othersContents = contents
      }
      let updated = try update(&contents)
      if !updated.isEmpty {
        outcome.updatedKeys = updated
        outcome.othersContents = contents
      }
      if cleansUp { AtomicFile.removeStaleTemporaryFiles(of: persistentFile.url) }
      outcome.version = try persistentFile.writeReturningVersion(
        .dictionary(contents), format: persistentFormat)
      return outcome
    }
    let ((), changed) = changingStateUnpublished { state in
      // The updated keys take the saved values, unless this process wrote them again meanwhile.
      if let contents = outcome.othersContents, !outcome.updatedKeys.isEmpty {
        var changeNumbers: [String: UInt64] = [:]
        for (key, _, change) in changes { changeNumbers[key] = change }
        for key in outcome.updatedKeys where state.dirty[key] == changeNumbers[key] {
          state.adoptSaved(contents[key], forKey: key)
        }
      }
      for (key, _, change) in changes where state.dirty[key] == change {
        state.dirty.removeValue(forKey: key)
      }
      if let othersContents = outcome.othersContents { state.adopt(othersContents) }
      state.diskVersion = outcome.version
      state.saveCount += 1
    }
    return (changed, outcome.recovery)
  }

  /// Saves `data.plist` if this process has unsaved changes (see ``save()``).
  ///
  /// - Returns: Whether a save happened.
  /// - Throws: What ``save()`` throws.
  @discardableResult
  public func saveIfNeeded() throws(SettingsError) -> Bool {
    guard hasUnsavedChanges else { return false }
    try save()
    return true
  }

  /// Reads `data.plist` again if another process changed or replaced it since this one last read
  /// or wrote it, and takes in its values, except for keys this process changed and hasn't saved
  /// (its own changes win until saved) and keys written for the next launch.
  ///
  /// A corrupt file found on disk is moved aside (see ``recoveredProblems``), the store keeps the
  /// values it has, and at once writes them back as a new `data.plist`, under the file lock, so
  /// that the file is never left missing: the values it last read or saved, not its unsaved
  /// changes, which stay unsaved.
  ///
  /// - Returns: Whether any value a read returns changed.
  /// - Throws: ``SettingsError/Code/fileNotReadable`` or ``SettingsError/Code/fileTooLarge`` if
  ///   the file can't be read for a reason other than its contents.
  @discardableResult
  public func reload() throws(SettingsError) -> Bool {
    // Observers and diagnostics hear of it once `saveLock` is released: an observer may save.
    let (reloaded, changed, recovery) = try underSaveLock { () throws(SettingsError) in
      try reloadLocked()
    }
    publish(changed)
    if let recovery { record(recovery) }
    return reloaded
  }

  /// The reload itself, holding `saveLock`: whether values changed, the observed keys whose
  /// effective value changed, and a corrupt file found on disk, if any.
  private func reloadLocked() throws(SettingsError) -> (
    Bool, [String], PersistedPropertyListFile.Recovery?
  ) {
    let target = AtomicFile.resolvedTarget(of: persistentFile.url).path
    guard !state.withLock({ $0.diskVersion }).isCurrent(atPath: target) else {
      return (false, [], nil)
    }
    // What the file held as this process last read or wrote it, to write back over a corrupt
    // file rather than leave none.
    let held = state.withLock { state in
      state.persistent.filter { state.dirty[$0.key] == nil }
    }
    let read = try persisted.read(
      holdingLock: false, rewritesSalvagedEntries: true, replacingACorruptFileWith: held,
      isSecret: isDeclaredSecret)
    if read.recovery != nil, read.entries.isEmpty {
      // Nothing to write back (or the file is a link): keep what this process has; the next
      // save writes it.
      state.withLock { $0.diskVersion = nil }
      return (false, [], read.recovery)
    }
    let (reloaded, changed) = changingStateUnpublished { state in
      state.diskVersion = read.version
      return state.adopt(read.entries)
    }
    return (reloaded, changed, read.recovery)
  }

  // MARK: - Internals

  /// What a save found and did inside the file lock.
  struct SaveOutcome {
    /// The version written, held open.
    var version: FileVersion?
    /// The merged contents, when the file had been changed by another process or updated.
    var othersContents: [String: PropertyListValue]?
    /// The keys ``update(forKey:_:)`` or ``updateValues(_:)`` changed.
    var updatedKeys: [String] = []
    /// A corrupt file found on disk and moved aside.
    var recovery: PersistedPropertyListFile.Recovery?
  }

  /// Reads a delivered or bundled file, which must hold a dictionary: a zero-byte file is an
  /// empty layer; an entry whose value can't be read is left out and returned in `unreadable`.
  static func readLayerFile(
    _ file: PropertyListFile
  ) throws(SettingsError) -> (entries: [String: PropertyListValue], unreadable: [SettingsError])? {
    guard let data = try file.readData() else { return nil }
    if data.isEmpty { return ([:], []) }
    let decoded = try PropertyListFile.decode(data, path: file.url.path, salvagingEntries: true)
    let entries = try file.dictionary(
      in: PropertyListFile.Contents(root: decoded.root, format: decoded.format))
    return (entries, decoded.unreadableEntries)
  }

  /// Records a corrupt `data.plist` in ``recoveredProblems`` and reports it.
  func record(_ recovery: PersistedPropertyListFile.Recovery) {
    problems.withLock { $0 += [recovery.problem] + recovery.unreadableEntries }
    recovery.report(backend: name)
  }

  /// Records an entry of a delivered or bundled file that was left out.
  func record(unreadableShippedEntry problem: SettingsError) {
    problems.withLock { $0.append(problem) }
    SettingsDiagnostics.report(
      SettingsDiagnostic(
        kind: .corruptFile, key: problem.key, backend: name,
        message: "\(problem); the layer was read without it"))
  }

  /// Records a delivered or bundled file that couldn't be read, opened as an empty layer
  /// (``Options/opensDespiteUnreadableReadOnlyFiles``).
  func record(unreadableShippedFile problem: SettingsError) {
    problems.withLock { $0.append(problem) }
    SettingsDiagnostics.report(
      SettingsDiagnostic(
        kind: .corruptFile, key: nil, backend: name,
        message: "\(problem); the layer is empty until the file is fixed (it was left in place)"))
  }

  /// Saves on the store's own initiative (autosave, exit), reporting a failure, since no caller
  /// is there to see it.
  func saveReportingFailure() {
    do {
      try saveIfNeeded()
    } catch {
      SettingsDiagnostics.report(
        SettingsDiagnostic(
          kind: .saveFailed, key: nil, backend: name,
          message: "\(error); the changes stay in memory for the next save"))
    }
  }

  // MARK: - Autosave

  /// The debounced autosave's timer state.
  struct AutosaveState {
    var isScheduled = false
    var lastChange = DispatchTime.now()
  }

  /// Called after every write that changes what `data.plist` should hold.
  func fileDidChange() {
    switch options.autosave {
    case .manual:
      break
    case .afterEveryWrite:
      saveReportingFailure()
    case .debounced(let seconds):
      let schedule = autosaveState.withLock { autosave in
        autosave.lastChange = .now()
        defer { autosave.isScheduled = true }
        return !autosave.isScheduled
      }
      if schedule { scheduleDebouncedSave(after: seconds, interval: seconds) }
    }
  }

  private func scheduleDebouncedSave(after delay: Double, interval: Double) {
    DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + delay) { [weak self] in
      self?.debouncedSaveFired(interval: interval)
    }
  }

  /// Saves if no write came for `interval` seconds; otherwise waits for the rest of it.
  private func debouncedSaveFired(interval: Double) {
    let remaining = autosaveState.withLock { autosave -> Double? in
      let quiet =
        Double(DispatchTime.now().uptimeNanoseconds - autosave.lastChange.uptimeNanoseconds) / 1e9
      if quiet < interval { return interval - quiet }
      autosave.isScheduled = false
      return nil
    }
    if let remaining {
      scheduleDebouncedSave(after: remaining, interval: interval)
    } else {
      saveReportingFailure()
    }
  }
}
