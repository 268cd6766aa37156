import Foundation

/// One property-list file the library keeps values in, shared with other processes: the engine
/// under both ``LayeredPlistStore`` (for `data.plist`) and, on Linux, ``UserDefaultsBackend``
/// (for a suite's `<suite>.plist`).
///
/// It owns what is the same for both: the careful read with recovery and move-aside
/// (``read(holdingLock:rewritesSalvagedEntries:replacingACorruptFileWith:reportingClashesAs:isSecret:)``),
/// what a file may hold (``storable(_:forKey:format:)``) and the tidying up at open. Its owner
/// keeps what is its own (layers, cells, an in-process mirror) and hears of changed keys and
/// recoveries once every lock is released. See "One engine for a persisted file" in
/// Docs/Design.md.
final class PersistedPropertyListFile: Sendable {
  /// How the engine reads and saves its file.
  struct Rules: Sendable {
    /// The format to save in; `nil` keeps the file's own (see ``savingFormat(option:file:)``).
    var format: PropertyListFile.Format?
    /// How keys read from the file are normalized; `nil` for none.
    var keyNormalization: (@Sendable (String) -> String)?
    /// Whether a corrupt file is moved aside (`true`) or reported by throwing and left in place.
    var movesCorruptFileAside = true
  }

  /// The file, with its size limit (``PropertyListFile/maximumSize``), which every read and write
  /// keeps to.
  let file: PropertyListFile
  /// How the file is read and saved.
  let rules: Rules

  /// Creates the engine for a file; reads nothing.
  ///
  /// - Parameters:
  ///   - file: The file.
  ///   - rules: How it is read and saved.
  init(file: PropertyListFile, rules: Rules) {
    self.file = file
    self.rules = rules
  }
}
