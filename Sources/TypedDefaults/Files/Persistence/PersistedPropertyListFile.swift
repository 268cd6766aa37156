import Dispatch
import Foundation

/// One property-list file the library keeps values in, shared with other processes: the engine
/// under both `LayeredPlistStore` (for `data.plist`) and, on Linux, ``UserDefaultsBackend``
/// (for a suite's `<suite>.plist`).
///
/// It owns what is the same for both: the careful read with recovery and move-aside
/// (``read(holdingLock:rewritesSalvagedEntries:replacingACorruptFileWith:reportingClashesAs:isSecret:)``),
/// what a file may hold (``storable(_:forKey:format:)``), the tidying up at open, the held
/// ``FileVersion``, the save under `flock` with merge-if-changed
/// (``saveLocked(_:format:removesEmptyFile:createsFolder:isSecret:updating:)``) and the reload,
/// serialized by ``exclusively(_:)``, and the unsaved-changes bookkeeping its owners keep in their
/// state (``UnsavedChanges``). Its owner keeps what is its own (layers, cells, an in-process
/// mirror) and hears of changed keys and recoveries once every lock is released. See "One engine
/// for a persisted file" in Docs/Design.md.
///
/// Lock order: the save lock (``exclusively(_:)``), then the owner's state lock, then the file
/// lock (`flock`), which is taken with no in-process lock but the save lock held.
// @unchecked Sendable: `version` and `recoveries` are only accessed while `saveLock` is held (or
// in `init`); everything else is immutable or a `Locked`.
package final class PersistedPropertyListFile: @unchecked Sendable {
  /// How the engine reads and saves its file.
  package struct Rules: Sendable {
    /// The format to save in; `nil` keeps the file's own (see ``savingFormat(option:file:)``).
    var format: PropertyListFile.Format?
    /// How keys read from the file are normalized; `nil` for none.
    var keyNormalization: (@Sendable (String) -> String)?
    /// Whether a corrupt file is moved aside (`true`) or reported by throwing and left in place.
    var movesCorruptFileAside = true

    /// Rules for a store's file: the format it saves in, its key normalization, and whether a
    /// corrupt file is moved aside.
    package init(
      format: PropertyListFile.Format? = nil,
      keyNormalization: (@Sendable (String) -> String)? = nil,
      movesCorruptFileAside: Bool = true
    ) {
      self.format = format
      self.keyNormalization = keyNormalization
      self.movesCorruptFileAside = movesCorruptFileAside
    }
  }

  /// The file, with its size limit (``PropertyListFile/maximumSize``), which every read and write
  /// keeps to.
  package let file: PropertyListFile
  /// How the file is read and saved.
  let rules: Rules
  /// Serializes this process's saves and reloads of the file.
  let saveLock = NSLock()
  /// The version of the file last read or written, held open: the owner's one open descriptor on
  /// it (see ``FileVersion``), closed when a newer version replaces it or the owner goes; `nil`
  /// if there was no file, or its version isn't known (the next save then reads the file first).
  ///
  /// Under `saveLock`.
  var version: FileVersion?
  /// Corrupt files recovered from under `saveLock`, handed over by ``exclusively(_:)``.
  var recoveries: [Recovery] = []
  /// When a save last removed stale temporary files (`DispatchTime` uptime, nanoseconds).
  let lastTemporaryFileCleanup = Locked(DispatchTime.now().uptimeNanoseconds)
  /// The debounced save's timer (``scheduleDebouncedSave(interval:_:)``).
  let debounce = Locked(Debounce())

  /// Creates the engine for a file; reads nothing.
  ///
  /// - Parameters:
  ///   - file: The file.
  ///   - rules: How it is read and saved.
  package init(file: PropertyListFile, rules: Rules) {
    self.file = file
    self.rules = rules
  }

  /// Opens the file: tidies up around it (``tidyUpAtOpen()``), reads it carefully, and holds the
  /// version read.
  ///
  /// - Parameter store: The owner's name, to report keys that normalize to one key; `nil` for no
  ///   report.
  /// - Returns: The leftovers of killed processes kept aside, to record, and what was read, or
  ///   what the read threw (no version is held then).
  package func open(
    reportingClashesAs store: String? = nil
  ) -> (leftovers: [Recovery], read: Result<Read, SettingsError>) {
    let leftovers = tidyUpAtOpen()
    let read = Result { () throws(SettingsError) in
      try self.read(holdingLock: false, rewritesSalvagedEntries: true, reportingClashesAs: store)
    }
    saveLock.lock()
    version = try? read.get().version
    saveLock.unlock()
    return (leftovers, read)
  }
}
