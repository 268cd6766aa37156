import Foundation

// The careful read of a persisted property-list file: recovery from a corrupt or partly
// unreadable file (moved or kept aside, never written over), the values a file may hold (what can
// be written back in its format and within its size limit), and the tidying up at open.

extension PersistedPropertyListFile {
  /// What a careful read of the file gave, after any recovery from a corrupt or partly unreadable
  /// file.
  package struct Read {
    /// The entries to use: the file's, or what could be saved of them.
    package var entries: [String: PropertyListValue] = [:]
    /// The file's format; `nil` if there was no file or it was empty.
    package var format: PropertyListFile.Format?
    /// The version of the file the entries came from, held open (after a rewrite of salvaged
    /// entries, the new file's); `nil` if no file holds them, or its version isn't known.
    package var version: FileVersion?
    /// The corruption found, with the entries that were left out (empty for a file corrupt as a
    /// whole), and what became of the original file.
    package var recovery: Recovery?
    /// For each entry, an upper bound of its share of the file when saved (see
    /// ``EncodedSizeBound``); `nil` when not computed.
    package var sizeBounds: [String: Int]?
  }

  /// A corrupt or partly unreadable file and what the engine did about it.
  package struct Recovery {
    /// The problem, as its owner records it (`LayeredPlistStore.recoveredProblems`).
    package var problem: SettingsError
    /// One error per entry left out, naming its key.
    package var unreadableEntries: [SettingsError]
    /// Where the original bytes were moved, or why they couldn't be (the file is then left
    /// where it is and saves refuse to write over it).
    package var setAside: Result<URL, SettingsError>
    /// Whether the entries that could be read were written back as a new `data.plist`.
    package var rewroteSalvagedEntries: Bool
    /// What the store carried on with.
    var carriedOn = CarriedOn.readableEntries

    /// What a store carried on with after a corrupt file.
    enum CarriedOn {
      /// The entries of the file that could be read: none for a file corrupt as a whole (a
      /// store opening on it has an empty persistent layer).
      case readableEntries
      /// The values the store held already (a reload or save that found the file corrupt).
      case heldValues
      /// The file itself, untouched: what was found was a leftover beside it.
      case unaffectedFile
    }

    /// For a save that found this: throws if the corrupt file could not be kept aside, since a
    /// save must never write over it.
    ///
    /// - Parameter path: The file's path, for the error.
    /// - Throws: ``SettingsError/Code/fileNotWritable`` naming the path and both causes.
    func refuseToWriteOverAKeptFile(path: String) throws(SettingsError) {
      guard case .failure(let failure) = setAside else { return }
      throw SettingsError(
        .fileNotWritable, path: path,
        reason: "\(problem.reason); it could not be kept aside (\(failure.reason)), so nothing "
          + "was written over it")
    }

    /// Reports the problem and what was done about it as a ``SettingsDiagnostic``.
    ///
    /// - Parameter backend: The backend's name.
    package func report(backend: String) {
      var outcome: String
      switch setAside {
      case .success(let aside): outcome = "moved it to '\(aside.path)'"
      case .failure(let failure):
        outcome = "could not move it aside (\(failure.reason)), so saves won't write over it"
      }
      switch carriedOn {
      case .unaffectedFile:
        outcome += "; the file that now has the name was left as it is"
      case .heldValues:
        outcome += " and kept the values the store had"
        outcome += rewroteSalvagedEntries ? ", written back as a new file" : ", which a save writes"
      case .readableEntries where unreadableEntries.isEmpty:
        outcome += " and carried on without its values"
      case .readableEntries:
        outcome += " and carried on with the entries that could be read"
        if rewroteSalvagedEntries { outcome += ", written back as a new file" }
      }
      SettingsDiagnostics.report(
        SettingsDiagnostic(
          kind: .corruptFile, key: nil, backend: backend, message: "\(problem); \(outcome)"))
    }
  }

  /// The format the file is saved in: the option, else the file's own (OpenStep, which can't be
  /// written, and a new or empty file get binary).
  package static func savingFormat(
    option: PropertyListFile.Format?, file: PropertyListFile.Format?
  ) -> PropertyListFile.Format {
    if let option { return option }
    return file == .xml ? .xml : .binary
  }

  /// Checks a value can be stored in a file saved as `format`, and returns it as it will be
  /// stored (XML's rules for an XML file).
  ///
  /// A write under the empty key is refused; an entry read from a file (`isWrite` false) is kept
  /// under whatever key it has.
  package static func storable(
    _ value: PropertyListValue, forKey key: String, format: PropertyListFile.Format,
    isWrite: Bool = true
  ) throws(SettingsError) -> PropertyListValue {
    if isWrite { try WriteValidation.check(key: key) }
    try WriteValidation.check(value, key: key, checkingKey: false)
    return format == .xml ? try XMLPropertyListRules.normalized(value, key: key) : value
  }

  /// Reads the file and, if it is corrupt or holds entries that can't be read (or can't be
  /// written back in the saving format, or within the size limit), recovers from it: under the file lock, and only if the
  /// file is still the version judged, the original is moved aside (never a file reached through
  /// a symbolic link, which is the user's and left where it is), and the entries that could be
  /// read are written back as a new `data.plist` when `rewritesSalvagedEntries`.
  ///
  /// - Parameters:
  ///   - holdingLock: Whether the caller already holds the file lock (a save).
  ///   - rewritesSalvagedEntries: Whether salvaged entries are written back at once.
  ///   - held: The values the owner holds for the file (reloading or saving), which
  ///     take the place of a file corrupt as a whole: written back as the new `data.plist` with
  ///     `rewritesSalvagedEntries`, rather than leaving no file; `nil` at open.
  ///   - store: The owner's name, to report keys that normalize to one key; `nil` for no report.
  ///   - isSecret: Whether a model bound to the owner declared a key (as the file spells it)
  ///     secret: an unreadable entry of such a key is reported without the reader's reason,
  ///     which quotes the text found in place of the value.
  /// - Returns: The entries to use, the file's format and version, the recovery made (if any),
  ///   and the entries' size bounds when computed.
  /// - Throws: For a corrupt file with ``Rules/movesCorruptFileAside`` off, the corruption
  ///   (the first unreadable entry for a partly unreadable file); ``SettingsError/Code/fileNotReadable``
  ///   for a file that keeps changing; what reading throws for other reasons.
  func read(
    holdingLock: Bool,
    rewritesSalvagedEntries: Bool,
    replacingACorruptFileWith held: [String: PropertyListValue]? = nil,
    reportingClashesAs store: String? = nil,
    isSecret: (String) -> Bool = { _ in false }
  ) throws(SettingsError) -> Read {
    let (file, rules) = (self.file, self.rules)
    let target = AtomicFile.resolvedTarget(of: file.url)
    for _ in 0..<8 {
      var entries: [String: PropertyListValue] = [:]
      var unreadable: [SettingsError] = []
      let problem: SettingsError
      let judged: FileVersion
      var format: PropertyListFile.Format?
      var sizeBoundsOfRest: [String: Int]?
      switch try CorruptFiles.read(file, retryInterval: 0.05, salvaging: true) {
      case .missing:
        return Read()
      case .corrupt(let error, let version):
        (problem, judged) = (error, version)
        entries = held ?? [:]
      case .read(let read, let readFormat, let unreadableEntries, let version):
        format = readFormat
        unreadable = unreadableEntries
        entries = Self.normalizingKeys(
          of: read, by: rules.keyNormalization, layer: "persistent", store: store)
        // Never keep what can't be written back: a save would fail on it for ever.
        let saving = Self.savingFormat(option: rules.format, file: readFormat)
        let limit = file.maximumSize
        for (key, value) in entries {
          do {
            // An empty key another program wrote is kept: only a write refuses one.
            entries[key] = try Self.storable(value, forKey: key, format: saving, isWrite: false)
          } catch {
            entries[key] = nil
            unreadable.append(
              SettingsError(
                .corruptFile, path: file.url.path, key: key,
                reason: "Its value can't be written back as \(saving): \(error.reason)"))
          }
        }
        // Nor what can't be written back within the size limit (a small binary file can refer to
        // one object many times over, which a save writes out in full): the largest entries go
        // first until the rest fits.
        var bounds: [String: Int] = [:]
        bounds.reserveCapacity(entries.count)
        var total = EncodedSizeBound.emptyFile(format: saving)
        for (key, value) in entries {
          let bound = EncodedSizeBound.entry(key: key, value: value, format: saving, limit: limit)
          bounds[key] = bound
          total += bound
        }
        if total > limit {
          for (key, bound) in bounds.sorted(by: { $0.value > $1.value }) where total > limit {
            entries[key] = nil
            bounds[key] = nil
            total -= bound
            unreadable.append(
              SettingsError(
                .corruptFile, path: file.url.path, key: key,
                reason: bound > limit
                  ? "Its value would take more than the \(limit) bytes the store writes and reads back"
                  : "With it, the file would take more than the \(limit) bytes the store writes and reads back"
              ))
          }
        }
        if unreadable.isEmpty {
          return Read(
            entries: entries, format: readFormat, version: version, sizeBounds: bounds)
        }
        sizeBoundsOfRest = bounds
        unreadable = unreadable.map { entry in
          guard let key = entry.key, isSecret(key) else { return entry }
          return SettingsError(
            entry.code, path: entry.path, key: key,
            reason: "The secret value of '\(key)' can't be read (details withheld)")
        }
        unreadable.sort { ($0.key ?? "") < ($1.key ?? "") }
        judged = version
        let keys = unreadable.compactMap(\.key).map { "'\($0)'" }.joined(separator: ", ")
        problem = SettingsError(
          .corruptFile, path: file.url.path,
          reason: "\(unreadable.count) of its entries can't be read (\(keys)): "
            + (unreadable.first?.reason ?? ""))
      }
      guard rules.movesCorruptFileAside else { throw unreadable.first ?? problem }
      let carriedOn: Recovery.CarriedOn =
        held != nil && unreadable.isEmpty ? .heldValues : .readableEntries

      // Judge and move under the lock, and only the version judged.
      let recover = { () throws(SettingsError) -> Read? in
        guard judged.isCurrent(atPath: target.path) else { return nil }
        let setAside: Result<URL, SettingsError>
        if CorruptFiles.isSymbolicLink(file.url) {
          setAside = .failure(
            SettingsError(
              .fileNotWritable, path: file.url.path,
              reason: "It is a symbolic link to '\(target.path)'; a corrupt file reached "
                + "through a link is not the store's to move, so it is left as it is"))
        } else if rewritesSalvagedEntries, !entries.isEmpty {
          // Keep the original's bytes aside, then replace it with what could be read, which
          // keeps its mode and owner.
          setAside = Result { () throws(SettingsError) in try CorruptFiles.keepCopyAside(target) }
        } else {
          setAside = Result { () throws(SettingsError) in
            try CorruptFiles.moveAside(target, expected: judged.identity)
          }
        }
        var rewrote = false
        var version: FileVersion?
        if case .success = setAside, rewritesSalvagedEntries, !entries.isEmpty {
          let saving = Self.savingFormat(option: rules.format, file: format)
          do {
            version = try file.writeReturningVersion(.dictionary(entries), format: saving)
            rewrote = true
          } catch {
            // Finish the move, so the copy kept aside is the only one; the next save writes
            // the entries.
            POSIX.removeFile(target.path)
          }
        }
        return Read(
          entries: entries, format: format, version: version,
          recovery: Recovery(
            problem: problem, unreadableEntries: unreadable, setAside: setAside,
            rewroteSalvagedEntries: rewrote, carriedOn: carriedOn),
          sizeBounds: sizeBoundsOfRest)
      }
      let recovered: Read?
      if holdingLock {
        recovered = try recover()
      } else {
        do {
          recovered = try AtomicFile.withLock(on: file.url) { () throws(SettingsError) in
            try recover()
          }
        } catch {
          // No lock (a read-only file system, a lock file planted as a link): nothing is moved,
          // the store opens with what could be read, and saves refuse to write over the file.
          return Read(
            entries: entries, format: format, version: nil,
            recovery: Recovery(
              problem: problem, unreadableEntries: unreadable, setAside: .failure(error),
              rewroteSalvagedEntries: false, carriedOn: carriedOn),
            sizeBounds: sizeBoundsOfRest)
        }
      }
      if let recovered { return recovered }
      // Another process replaced the file since it was judged: read the new one.
    }
    throw SettingsError(
      .fileNotReadable, path: file.url.path,
      reason: "It kept being replaced while the store recovered from a corrupt version")
  }

  /// Tidies up around the file as its owner opens it, under the file lock if no other process
  /// holds it at the moment, and only if there is something to do: removes the temporary files
  /// of killed saves (``AtomicFile/removeStaleTemporaryFiles(of:)``), and finishes the moves aside that
  /// killed processes left half done (``CorruptFiles/finishInterruptedMovesAside(of:now:)``),
  /// which puts a hidden leftover back as `data.plist` if there is none, to be judged as the
  /// owner reads it.
  ///
  /// A process holding the lock is saving or recovering, and the files it is working on are live:
  /// nothing is touched then, and a later open, or a save's cleanup of temporary files, does it.
  ///
  /// - Returns: One recovery for each leftover kept aside beside a newer `data.plist`, to record
  ///   and report.
  func tidyUpAtOpen() -> [Recovery] {
    let target = AtomicFile.resolvedTarget(of: file.url)
    // Looked for first, so that a clean folder costs no lock (nor a lock file).
    guard
      !AtomicFile.staleTemporaryFiles(of: file.url).isEmpty
        || !CorruptFiles.interruptedMovesAside(of: target).isEmpty
    else { return [] }
    let found = AtomicFile.withLockIfFree(on: file.url) {
      AtomicFile.removeStaleTemporaryFiles(of: file.url)
      return CorruptFiles.finishInterruptedMovesAside(of: target)
    }
    return (found ?? []).map { leftover in
      Recovery(
        problem: leftover.problem, unreadableEntries: [], setAside: leftover.keptAt,
        rewroteSalvagedEntries: false, carriedOn: .unaffectedFile)
    }
  }

  /// The entries with a key normalization applied (on a clash, the key sorting last wins, with a
  /// ``SettingsDiagnostic/Kind/keyCollision`` diagnostic).
  ///
  /// - Parameters:
  ///   - entries: The entries as a file spells their keys.
  ///   - normalization: The normalization; `nil` for none.
  ///   - layer: What the entries are, for the diagnostic ("persistent", a layer's name).
  ///   - store: The owner's name, to report a clash; `nil` for no report.
  /// - Returns: The entries under their normalized keys; `entries` itself without a
  ///   normalization.
  package static func normalizingKeys(
    of entries: [String: PropertyListValue], by normalization: (@Sendable (String) -> String)?,
    layer: String, store: String?
  ) -> [String: PropertyListValue] {
    guard let normalization else { return entries }
    var result: [String: PropertyListValue] = [:]
    result.reserveCapacity(entries.count)
    for (key, value) in entries.sortedByKey() {
      let normalized = normalization(key)
      if result.updateValue(value, forKey: normalized) != nil, let store {
        SettingsDiagnostics.report(
          SettingsDiagnostic(
            kind: .keyCollision, key: normalized, backend: store,
            message: "Two keys of the \(layer) layer normalize to '\(normalized)'; "
              + "the value of '\(key)' is used"))
      }
    }
    return result
  }
}
