import Dispatch
import Foundation
import TypedDefaults

extension LayeredPlistStore {
  /// Whether `data.plist` has changes this process hasn't saved: writes to the persistent layer
  /// or for the next launch.
  public var hasUnsavedChanges: Bool {
    state.withLock { !$0.unsaved.isEmpty }
  }

  /// Saves this process's changes to `data.plist`, merging with changes other processes saved
  /// since this one last read it.
  ///
  /// Under an advisory lock shared with other processes: re-reads the file if another process
  /// changed it, applies only this process's changes (values and removals, and next-launch
  /// values), writes the result atomically, and takes in the other processes' values. Reads and
  /// writes may continue on other threads while the file is written; changes made meanwhile stay
  /// unsaved.
  ///
  /// With nothing unsaved (``hasUnsavedChanges`` false) nothing is written: the save is a
  /// ``reload()``, which takes in other processes' changes, and the file keeps its inode and
  /// modification time. A store that opened with no `data.plist` creates its folder (0700, with
  /// any missing folder above it) at its first save.
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
  ///   (permissions); with nothing unsaved, what ``reload()`` throws. The file is left as it was, and the changes stay in memory with
  ///   ``hasUnsavedChanges`` true, so a later save can succeed.
  public func save() throws(SettingsError) {
    // Nothing to write: take in other processes' changes, and leave the file as it is.
    guard hasUnsavedChanges else {
      // Still a save to the guard, which a test that forgot isolation must hear of.
      try RealStoreGuard.check(writingTo: persistentFile.url, of: name)
      try reload()
      return
    }
    try save(updating: { _ in [] })
  }

  /// Changes a key's value in `data.plist` from the value the file holds now, and saves, as one
  /// step that no other process's save can come between: for a value computed from the stored
  /// one (a counter, an array appended to) in a file several processes write.
  ///
  /// Under the same lock as ``save()``: re-reads the file if another process changed it, calls
  /// `transform` with the key's value there (with this process's unsaved changes applied; where
  /// the file holds none, the value of the highest layer below it that holds one, delivered or
  /// bundled, which is what a read shows), stores its result in the persistent layer, and saves
  /// everything. A plain read-then-write could lose another process's change made in between;
  /// this can't. A value in the runtime layer, which a read shows above the file, is not what
  /// `transform` gets: the update changes the file, which the runtime layer still hides.
  ///
  /// ```swift
  /// try store.update(forKey: "RecentSearches") { .array(($0?.arrayValue ?? []) + ["jazz"]) }
  /// ```
  ///
  /// - Parameters:
  ///   - key: The key to change.
  ///   - transform: Given the key's value in the file (or below it; `nil` if none), returns the
  ///     new value, or `nil` to remove the key. Called once, while the file is locked: keep it
  ///     short, and don't use the store inside it. What it throws is rethrown and nothing is
  ///     changed or saved.
  /// - Returns: The value stored (`nil` if the key was removed), as the store keeps it (see
  ///   ``setValue(_:forKey:)`` for XML's rules).
  /// - Throws: What `transform` throws; what ``setValue(_:forKey:)`` throws for its result
  ///   (``SettingsError/Code/forcedValue`` for a forced key, before `transform` is called);
  ///   what ``save()`` throws. Nothing changes when this throws.
  @discardableResult
  public func update(
    forKey key: String,
    _ transform: (PropertyListValue?) throws(SettingsError) -> PropertyListValue?
  ) throws(SettingsError) -> PropertyListValue? {
    let key = normalizedKey(key)
    var stored: PropertyListValue?
    try save(updating: { contents throws(SettingsError) in
      let below = try self.state.withLock { state throws(SettingsError) in
        try state.checkNotForced(CollectionOfOne(key))
        return state.valueBelowFile(forKey: key)
      }
      // Where the file holds nothing, the value a read shows comes from a lower layer.
      stored = try self.storable(transform(contents[key] ?? below), forKey: key, in: .persistent)
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
    // Observers and diagnostics hear of the outcome once the save lock is released: an observer
    // may save, or write to a store that autosaves.
    let ((changed, createdFolder), recoveries) = try persisted.exclusively {
      () throws(SettingsError) in try saveLocked(updating: update)
    }
    publish(changed)
    for recovery in recoveries { record(recovery) }
    // The record the store couldn't write as it opened, with no folder yet.
    if createdFolder { recordLayerFiles() }
  }

  /// The save itself, within ``PersistedPropertyListFile/exclusively(_:)``; returns the deliveries
  /// of the changes of observed keys whose effective value changed, to publish after, and whether
  /// the save may have created the store's folder.
  private func saveLocked(
    updating update: (inout [String: PropertyListValue]) throws(SettingsError) -> [String]
  ) throws(SettingsError) -> (ObserverClaims, createdFolder: Bool) {
    try RealStoreGuard.check(writingTo: persistentFile.url, of: name)
    let (pending, isFirstSave) = state.withLock { state in
      (
        state.unsaved.pending(contents: state.fileContents(), value: state.fileValue(forKey:)),
        state.saveCount == 0
      )
    }
    // A store that opened with no `data.plist` creates its folder at its first save; a folder
    // that went away later (an unmounted volume) is not made again.
    let createsFolder = isFirstSave && !layersLoadedFromDisk.contains(.persistent)
    // A folder StandardLocation chose: never a home that doesn't exist, and a folder that can't
    // be created is blamed on the variables that chose it, not only named (issue 37, item 3);
    // the rule a schema's write follows too (``createMissingFolder(forWriting:)``).
    if createsFolder { try createMissingFolder(forWriting: persistentFile.url) }
    let outcome = try persisted.saveLocked(
      pending, format: persistentFormat, createsFolder: createsFolder,
      isSecret: isDeclaredSecret, updating: update)
    let ((), changed) = changingStateUnpublished { state in
      // The updated keys take the saved values, unless this process wrote them again meanwhile.
      for key in state.unsaved.settle(after: outcome, of: pending) {
        state.adoptSaved(outcome.othersContents?[key], forKey: key)
      }
      if let othersContents = outcome.othersContents { state.adopt(othersContents) }
      state.saveCount += 1
    }
    return (changed, createsFolder)
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
    // Observers and diagnostics hear of it once the save lock is released: an observer may save.
    let ((reloaded, changed), recoveries) = try persisted.exclusively {
      () throws(SettingsError) in try reloadLocked()
    }
    publish(changed)
    for recovery in recoveries { record(recovery) }
    return reloaded
  }

  /// The reload itself, within ``PersistedPropertyListFile/exclusively(_:)``: whether values
  /// changed, and the deliveries of the changes of observed keys whose effective value changed.
  private func reloadLocked() throws(SettingsError) -> (Bool, ObserverClaims) {
    let entries = try persisted.reloadLocked(
      held: {
        // What the file held as this process last read or wrote it.
        state.withLock { state in
          state.persistent.filter { !state.unsaved.contains($0.key) }
        }
      }, isSecret: isDeclaredSecret)
    guard let entries else { return (false, ObserverClaims()) }
    return changingStateUnpublished { state in state.adopt(entries) }
  }

  // MARK: - Internals

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

  /// Records a corrupt `data.plist` in ``recoveredProblems``, one entry per problem (the file,
  /// or each entry left out of a partly readable one, not both), and reports it.
  func record(_ recovery: PersistedPropertyListFile.Recovery) {
    let found = recovery.unreadableEntries.isEmpty ? [recovery.problem] : recovery.unreadableEntries
    problems.withLock { $0 += found }
    recovery.report(backend: name)
  }

  /// Records a problem a layer's source reported: an entry of its file left out, an environment
  /// variable or option naming no setting (``SettingsDiagnostic/Kind/layerSourceProblem``).
  func record(unreadableShippedEntry problem: SettingsError) {
    problems.withLock { $0.append(problem) }
    SettingsDiagnostics.report(
      SettingsDiagnostic(
        kind: problem.code == .corruptFile ? .corruptFile : .layerSourceProblem, key: problem.key,
        backend: name,
        message: problem.key == nil || problem.code == .repeatedArgument
          ? "\(problem)" : "\(problem); the layer was read without it"))
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
      SettingsDiagnostics.reportSaveFailure(error, backend: name)
    }
  }

  /// Called after every write that changes what `data.plist` should hold.
  func fileDidChange() {
    switch options.autosave {
    case .manual:
      break
    case .afterEveryWrite:
      saveReportingFailure()
    case .debounced(let seconds):
      persisted.scheduleDebouncedSave(interval: seconds) {
        { [weak self] in self?.saveReportingFailure() }
      }
    }
  }
}
