import Foundation
import TypedDefaults

extension LayeredPlistStore {
  /// How the store reads, writes and saves its files.
  public struct Options: Sendable {
    /// The format `data.plist` is saved in; `nil` (the default) keeps the format the file had
    /// when it was opened, and uses binary for a new (or empty, or OpenStep) file, as Apple
    /// platforms keep preferences.
    ///
    /// A file in another format takes this one at the next save that writes (one with unsaved
    /// changes).
    ///
    /// Binary is smaller, faster to read and write, and keeps every value exactly (dates, `-0.0`,
    /// control characters); XML is readable and diffable by people and keeps dates to whole
    /// seconds. See
    /// <doc:ValueTypesAndConversions> for what XML can't hold.
    public var format: PropertyListFile.Format?
    /// The largest file, in bytes, the store reads or writes; a larger file is refused with
    /// ``SettingsError/Code/fileTooLarge``.
    ///
    /// 16 MiB by default.
    public var maximumFileSize: Int
    /// When `data.plist` is saved without an explicit ``LayeredPlistStore/save()``.
    public var autosave: AutosavePolicy
    /// Whether unsaved changes are saved when the process exits normally (returning from `main`
    /// or calling `exit()`) and when the store is released; `true` by default.
    ///
    /// Not when the process is killed by a signal or crashes.
    public var savesAtExit: Bool
    /// How keys are normalized, or `nil` (the default) to use keys as given.
    public var keyNormalization: KeyNormalization?
    /// What happens when `data.plist` turns out to be corrupt (not a property list, truncated,
    /// or not a dictionary).
    ///
    /// `true` (the default, right for an app): it is moved aside to `data.plist.corrupt-<date>`,
    /// reported in ``LayeredPlistStore/recoveredProblems``, and the store carries on without its
    /// values (at open), or with the values it has, written back as a new `data.plist` (found by a
    /// reload or a save). `false` (for tools that inspect or edit files they don't own): the
    /// initializer, ``LayeredPlistStore/save()`` and ``LayeredPlistStore/reload()`` throw
    /// ``SettingsError/Code/corruptFile`` (or ``SettingsError/Code/wrongRootType``) and the file
    /// stays where it is, untouched.
    public var movesCorruptFileAside: Bool
    /// Whether the store watches its files and takes in changes other processes (or an editor)
    /// make to them, as soon as they are made: `false` by default.
    ///
    /// When on, the store calls ``LayeredPlistStore/startWatching()`` as it opens: a change to
    /// `data.plist` is taken in by ``LayeredPlistStore/reload()``, a delivered or bundled file
    /// replaced on disk is read again, and observers get one event per key whose effective value
    /// changed. Off by default because each watching store holds a watch per folder (on Linux
    /// an inotify watch, from `fs.inotify.max_user_watches`, on the process's one shared inotify
    /// instance; on Apple platforms a descriptor per folder) and wakes up on every change in its
    /// folders, while most stores are only written by their own process; turn it on for a store
    /// another process shares, or call ``LayeredPlistStore/startWatching()`` when something
    /// starts observing.
    public var watchesFiles: Bool
    /// Whether the store records its layers, in order, and where their sources are (its delivered
    /// and bundled files, any ``LayerSource/recordedSource``), in `data.plist.layers` beside
    /// `data.plist`, so a tool opening its folder (the `settings` tool, by the app's identifier or
    /// the folder's path) sees the layers the app sees: `true` by default.
    ///
    /// The record is written as the store opens (or, with no folder yet, at the first save, which
    /// creates it), only if a layer's source can be recorded and the record differs; see ``LayeredPlistStore/recordedLayers(ofPersistentFile:)``.
    /// In a folder the process can't write (a read-only service's) the record is skipped
    /// quietly, with no ``SettingsDiagnostic/Kind/saveFailed`` at every start: it is
    /// bookkeeping for tools, which then see the layers of an earlier record, or none.
    public var recordsLayerFiles: Bool
    /// What a delivered or bundled file that can't be read (corrupt, truncated, too large, not a
    /// dictionary, not readable by this user) does as the store opens.
    ///
    /// `false` (the default): the initializer throws the file's ``SettingsError``, so a deployment
    /// mistake can't go unnoticed. `true` (for an app that must start with a broken deployment
    /// file): the layer is empty, the error is kept in ``LayeredPlistStore/recoveredProblems`` and
    /// reported as a ``SettingsDiagnostic/Kind/corruptFile`` diagnostic, the file is left where it
    /// is (the store never moves a file it doesn't own), and the layer is absent from
    /// ``LayeredPlistStore/layersLoadedFromDisk``; a watching store reads the file again when it is
    /// replaced.
    public var opensDespiteUnreadableReadOnlyFiles: Bool

    /// Creates options.
    ///
    /// - Parameters:
    ///   - format: The format to save `data.plist` in; `nil` keeps the file's own (binary if new).
    ///   - maximumFileSize: The largest file, in bytes, to read or write; 16 MiB by default.
    ///   - autosave: When to save without an explicit call; ``AutosavePolicy/manual`` by default.
    ///   - savesAtExit: Whether to save unsaved changes at normal process exit and when the store
    ///     is released; `true` by default.
    ///   - keyNormalization: How to normalize keys; `nil` (none) by default.
    ///   - movesCorruptFileAside: Whether a corrupt `data.plist` is moved aside (`true`, the
    ///     default) or reported by throwing and left in place (`false`).
    ///   - watchesFiles: Whether the store watches its files for changes made by other
    ///     processes; `false` by default.
    ///   - recordsLayerFiles: Whether the store records where its read-only layers' files are,
    ///     in `data.plist.layers`; `true` by default.
    ///   - opensDespiteUnreadableReadOnlyFiles: Whether a delivered or bundled file that can't be
    ///     read is reported and read as an empty layer (`true`) rather than thrown (`false`, the
    ///     default).
    public init(
      format: PropertyListFile.Format? = nil,
      maximumFileSize: Int = PropertyListFile.defaultMaximumSize,
      autosave: AutosavePolicy = .manual,
      savesAtExit: Bool = true,
      keyNormalization: KeyNormalization? = nil,
      movesCorruptFileAside: Bool = true,
      watchesFiles: Bool = false,
      recordsLayerFiles: Bool = true,
      opensDespiteUnreadableReadOnlyFiles: Bool = false
    ) {
      self.format = format
      self.maximumFileSize = maximumFileSize
      self.autosave = autosave
      self.savesAtExit = savesAtExit
      self.keyNormalization = keyNormalization
      self.movesCorruptFileAside = movesCorruptFileAside
      self.watchesFiles = watchesFiles
      self.recordsLayerFiles = recordsLayerFiles
      self.opensDespiteUnreadableReadOnlyFiles = opensDespiteUnreadableReadOnlyFiles
    }
  }

  /// When a store saves `data.plist` on its own.
  ///
  /// Whatever the policy, a failed automatic save is reported as a ``SettingsDiagnostic`` of kind
  /// ``SettingsDiagnostic/Kind/saveFailed``, and the changes stay in memory for the next
  /// attempt.
  public enum AutosavePolicy: Sendable, Hashable {
    /// Only ``LayeredPlistStore/save()`` and ``LayeredPlistStore/saveIfNeeded()`` save (and the
    /// save at exit, see ``Options/savesAtExit``).
    case manual
    /// Every write that changes the file's contents saves it before returning, on the writing
    /// thread. Simple and durable; costs a file write (about a millisecond) per change.
    case afterEveryWrite
    /// Saves once writes have stopped for the given interval, in seconds, on a background
    /// thread: a burst of writes becomes one file write.
    case debounced(seconds: Double)
  }

  /// A rule that rewrites every key the store sees (in reads, writes, and the files it loads) to
  /// one canonical form, so `feature_x` and `feature-x` name the same setting.
  ///
  /// Keys in the files are normalized when the files are read. If two keys of one file normalize
  /// to the same key, the one sorting last wins and a ``SettingsDiagnostic`` reports the clash.
  public struct KeyNormalization: Sendable {
    /// The rule: from a key to its canonical form.
    ///
    /// Must be pure and fast; it runs on every read.
    public let normalize: @Sendable (String) -> String

    /// Creates a normalization from a rule.
    ///
    /// - Parameter normalize: Maps a key to its canonical form.
    public init(_ normalize: @escaping @Sendable (String) -> String) {
      self.normalize = normalize
    }

    /// Every underscore (`_`) becomes a hyphen (`-`), so `feature_x` and `feature-x` are one key.
    public static let underscoresToHyphens = KeyNormalization { key in
      key.contains("_") ? key.replacingOccurrences(of: "_", with: "-") : key
    }
  }
}
