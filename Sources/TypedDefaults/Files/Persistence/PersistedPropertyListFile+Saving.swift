import Dispatch
import Foundation

// The save under the file lock, with merge-if-changed, and the reload: what both owners of a
// persisted file do the same way, with the unsaved changes they keep in their own state
// (``PersistedPropertyListFile/UnsavedChanges``).

extension PersistedPropertyListFile {
  /// The keys whose value in the file the owner changed and hasn't saved, each with the number of
  /// its latest change, so that a save clears only the changes it wrote.
  ///
  /// Kept in the owner's state, under the owner's lock (a write takes one lock); the engine reads
  /// it as a snapshot (``Pending``) and settles it after a save (``settle(after:of:)``).
  package struct UnsavedChanges {
    private var numbers: [String: UInt64] = [:]
    private var count: UInt64 = 0

    /// No unsaved changes.
    package init() {}

    /// Whether there is no unsaved change.
    package var isEmpty: Bool { numbers.isEmpty }

    /// The unsaved keys.
    var keys: Dictionary<String, UInt64>.Keys { numbers.keys }

    /// Whether the key has an unsaved change.
    package func contains(_ key: String) -> Bool { numbers[key] != nil }

    /// Records a change of the key (a later one replaces an earlier one's number).
    package mutating func mark(_ key: String) {
      count &+= 1
      numbers[key] = count
    }

    /// Forgets the key's change (its value was just saved another way).
    package mutating func remove(_ key: String) {
      numbers.removeValue(forKey: key)
    }

    /// A snapshot for a save: each unsaved key with its value in the file (`nil`: removed) and
    /// its change number, and the whole of what the file should hold.
    ///
    /// - Parameters:
    ///   - contents: What the file should hold, as the owner sees it.
    ///   - value: The file's value of an unsaved key.
    /// - Returns: The snapshot, holding `contents` as what the file should hold.
    package func pending(
      contents: [String: PropertyListValue], value: (String) -> PropertyListValue?
    ) -> Pending {
      Pending(
        changes: numbers.map { key, change in (key, value(key), change) }, contents: contents)
    }

    /// After a save: clears the changes the save wrote (those not changed again since the
    /// snapshot), and returns the keys the save's update changed that are to take the saved
    /// value (those not changed again meanwhile), for the owner to adopt from
    /// ``SaveOutcome/othersContents``.
    package mutating func settle(after outcome: SaveOutcome, of pending: Pending) -> [String] {
      var adopted: [String] = []
      if outcome.othersContents != nil, !outcome.updatedKeys.isEmpty {
        var changeNumbers: [String: UInt64] = [:]
        for (key, _, change) in pending.changes { changeNumbers[key] = change }
        for key in outcome.updatedKeys where numbers[key] == changeNumbers[key] {
          numbers.removeValue(forKey: key)
          adopted.append(key)
        }
      }
      for (key, _, change) in pending.changes where numbers[key] == change {
        numbers.removeValue(forKey: key)
      }
      return adopted
    }
  }

  /// What a save writes: the unsaved changes at the moment it started, and the whole of what the
  /// file should hold then.
  package struct Pending {
    /// Each unsaved key, its value in the file (`nil`: removed) and its change number.
    var changes: [(key: String, value: PropertyListValue?, change: UInt64)]
    /// What the file should hold.
    var contents: [String: PropertyListValue]

    /// What a save should write: the unsaved changes and the contents they make.
    package init(
      changes: [(key: String, value: PropertyListValue?, change: UInt64)],
      contents: [String: PropertyListValue]
    ) {
      self.changes = changes
      self.contents = contents
    }
  }

  /// What a save found and did under the file lock.
  package struct SaveOutcome {
    /// The version written, held open; `nil` once the file is removed.
    var version: FileVersion?
    /// The merged contents, when the file had been changed by another process or updated.
    package var othersContents: [String: PropertyListValue]?
    /// The keys the save's update changed.
    var updatedKeys: [String] = []
  }

  /// Runs `body` holding the save lock, which serializes the saves and reloads of this process;
  /// returns what it returns and the corrupt files the engine recovered from meanwhile, which the
  /// owner records and reports (with the keys that changed) once the lock is released: a
  /// diagnostics handler or an observer may save.
  ///
  /// A `body` that throws recovered from nothing the owner hears of: a recovery counts with the
  /// save that writes over it.
  ///
  /// - Throws: What `body` throws.
  package func exclusively<Result>(
    _ body: () throws(SettingsError) -> Result
  ) throws(SettingsError) -> (result: Result, recoveries: [Recovery]) {
    saveLock.lock()
    defer {
      recoveries = []
      saveLock.unlock()
    }
    let result = try body()
    return (result, recoveries)
  }

  /// Saves under the file lock: if another process changed the file since this one last read or
  /// wrote it, starts from the file (read carefully, see
  /// ``read(holdingLock:rewritesSalvagedEntries:replacingACorruptFileWith:reportingClashesAs:isSecret:)``)
  /// with the pending changes applied; lets `update` change the merged contents; writes the
  /// result atomically, and holds the version written.
  ///
  /// Within ``exclusively(_:)``.
  ///
  /// - Parameters:
  ///   - pending: The owner's snapshot of what to save.
  ///   - format: The format to write.
  ///   - removesEmptyFile: Whether empty contents remove the file rather than write an empty
  ///     dictionary (as corelibs does for a suite; a file reached through a link is written).
  ///   - createsFolder: Whether a missing folder is created first.
  ///   - isSecret: Whether a key is secret (see the read).
  ///   - update: Changes the merged contents under the lock; returns the keys it changed.
  /// - Returns: What the save found and did, for the owner to settle its state with.
  /// - Throws: ``SettingsError/Code/fileNotWritable`` (no lock, a write that failed, a corrupt
  ///   file that couldn't be kept aside), what reading throws, what `update` throws; the file is
  ///   left as it was.
  package func saveLocked(
    _ pending: Pending,
    format: PropertyListFile.Format,
    removesEmptyFile: Bool = false,
    createsFolder: Bool = false,
    isSecret: (String) -> Bool = { _ in false },
    updating update: (inout [String: PropertyListValue]) throws(SettingsError) -> [String]
  ) throws(SettingsError) -> SaveOutcome {
    // Temporary files of killed processes are removed at open and at most once a minute.
    let cleansUp = lastTemporaryFileCleanup.withLock { last in
      let now = DispatchTime.now().uptimeNanoseconds
      let cleansUp = now &- last > 60_000_000_000
      if cleansUp { last = now }
      return cleansUp
    }
    let file = self.file
    let target = AtomicFile.resolvedTarget(of: file.url).path
    // In a fresh home `~/.config` may not exist yet: corelibs creates it, and so does a suite.
    if createsFolder { try AtomicFile.createMissingFolder(of: file.url) }
    let knownVersion = version
    var recovery: Recovery?
    let outcome = try AtomicFile.withLock(on: file.url) {
      () throws(SettingsError) -> SaveOutcome in
      var outcome = SaveOutcome()
      var contents = pending.contents
      // The version known is held open, so its inode number can't have been given to another
      // process's file: a file with its identity is the one this process last read or wrote.
      if !knownVersion.isCurrent(atPath: target) {
        // Another process saved since this one last read the file: start from its contents.
        let read = try self.read(
          holdingLock: true, rewritesSalvagedEntries: false,
          replacingACorruptFileWith: pending.contents, isSecret: isSecret)
        if let found = read.recovery {
          try found.refuseToWriteOverAKeptFile(path: file.url.path)
          recovery = found
        }
        contents = read.entries
        for (key, value, _) in pending.changes { contents[key] = value }
        outcome.othersContents = contents
      }
      let updated = try update(&contents)
      if !updated.isEmpty {
        outcome.updatedKeys = updated
        outcome.othersContents = contents
      }
      if cleansUp { AtomicFile.removeStaleTemporaryFiles(of: file.url) }
      if removesEmptyFile, contents.isEmpty, !CorruptFiles.isSymbolicLink(file.url) {
        if POSIX.identity(ofFileAt: target) != nil {
          POSIX.removeFile(target)
          POSIX.synchronizeFolder(file.url.deletingLastPathComponent().path)
        }
      } else {
        outcome.version = try file.writeReturningVersion(.dictionary(contents), format: format)
      }
      return outcome
    }
    version = outcome.version
    if let recovery { recoveries.append(recovery) }
    return outcome
  }

  /// Reads the file again if another process changed or replaced it since this one last read or
  /// wrote it, carefully, writing `held` back over a corrupt file (see
  /// ``read(holdingLock:rewritesSalvagedEntries:replacingACorruptFileWith:reportingClashesAs:isSecret:)``).
  ///
  /// Within ``exclusively(_:)``.
  ///
  /// - Parameters:
  ///   - held: What the file held as this process last read or wrote it (its values less its
  ///     unsaved changes), to write back over a corrupt file rather than leave none.
  ///   - isSecret: Whether a key is secret (see the read).
  /// - Returns: The entries to take in, except unsaved keys; `nil` if the file is unchanged, or
  ///   if it was corrupt with nothing to write back (the owner keeps what it has, and the next
  ///   save writes it).
  /// - Throws: What reading throws.
  package func reloadLocked(
    held: () -> [String: PropertyListValue], isSecret: (String) -> Bool = { _ in false }
  ) throws(SettingsError) -> [String: PropertyListValue]? {
    let target = AtomicFile.resolvedTarget(of: file.url).path
    guard !version.isCurrent(atPath: target) else { return nil }
    let read = try self.read(
      holdingLock: false, rewritesSalvagedEntries: true, replacingACorruptFileWith: held(),
      isSecret: isSecret)
    if let recovery = read.recovery {
      recoveries.append(recovery)
      if read.entries.isEmpty {
        version = nil
        return nil
      }
    }
    version = read.version
    return read.entries
  }
}
