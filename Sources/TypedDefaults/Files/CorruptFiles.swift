import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Keeping corrupt files: a file that can't be read is judged carefully, then moved aside, never
/// overwritten.
enum CorruptFiles {
  /// What a careful read of a settings file found.
  enum Reading {
    /// No file.
    case missing
    /// The file's dictionary (empty for a zero-byte file, whose `format` is `nil`), with the
    /// version read, held open. With salvaging, `unreadable` lists the entries left out because
    /// their values could not be read (see ``PropertyListReaders/Result``).
    case read(
      entries: [String: PropertyListValue], format: PropertyListFile.Format?,
      unreadable: [SettingsError], version: FileVersion)
    /// The file stayed unreadable (or not a dictionary) and unchanged over several reads: the
    /// error, and the version judged, held open.
    case corrupt(SettingsError, version: FileVersion)
  }

  /// Reads a dictionary file that other programs may be rewriting in place, which leaves it
  /// briefly empty or half-written: it is judged (corrupt, partly unreadable, or empty) only if
  /// it gives the same outcome and stays unchanged (same inode, size and modification time) over
  /// three more reads `retryInterval` seconds apart. A file still changing after 20 attempts is
  /// not judged at all: that is ``SettingsError/Code/fileNotReadable``, which no caller moves
  /// aside. A zero-byte file that stays so is an empty dictionary, as Foundation's preferences
  /// treat one.
  ///
  /// - Parameters:
  ///   - file: The file.
  ///   - retryInterval: The wait between reads, in seconds.
  ///   - salvaging: Whether an entry whose value can't be read is left out (and listed) rather
  ///     than making the whole file corrupt.
  /// - Throws: ``SettingsError/Code/fileNotReadable`` for a file that kept changing, and what
  ///   ``PropertyListFile/read()`` throws for reasons other than the contents, at once.
  static func read(
    _ file: PropertyListFile, retryInterval: Double, salvaging: Bool
  ) throws(SettingsError) -> Reading {
    let path = AtomicFile.resolvedTarget(of: file.url).path
    // Held open, so that an unchanged identity means the same inode (see `FileVersion`).
    var previous: FileVersion?
    var stableFailures = 0
    var attempts = 0
    while true {
      guard let (data, version) = try file.readVersion() else { return .missing }
      let outcome: Reading
      do {
        if data.isEmpty {
          outcome = .read(entries: [:], format: nil, unreadable: [], version: version)
        } else {
          let decoded = try PropertyListFile.decode(
            data, path: file.url.path, salvagingEntries: salvaging)
          let entries = try file.dictionary(
            in: PropertyListFile.Contents(root: decoded.root, format: decoded.format))
          outcome = .read(
            entries: entries, format: decoded.format, unreadable: decoded.unreadableEntries,
            version: version)
          if decoded.unreadableEntries.isEmpty { return outcome }
        }
      } catch  where error.code == .corruptFile || error.code == .wrongRootType {
        outcome = .corrupt(error, version: version)
      }
      // Empty, partly unreadable or corrupt: judge only a file that isn't being written.
      attempts += 1
      let unchanged = version.isCurrent(atPath: path)
      stableFailures =
        unchanged && attempts > 1 && version.identity == previous?.identity
        ? stableFailures + 1 : 0
      previous = unchanged ? version : nil
      if stableFailures >= 3 { return outcome }
      if attempts >= 20 {
        throw SettingsError(
          .fileNotReadable, path: file.url.path,
          reason: "It kept changing and could not be read whole (another program is "
            + "rewriting it in place); it was left as it is")
      }
      Thread.sleep(forTimeInterval: retryInterval)
    }
  }

  /// Reads a dictionary file as ``read(_:retryInterval:salvaging:)`` does, without salvaging,
  /// throwing for a file judged corrupt.
  ///
  /// - Returns: The file's dictionary, or `nil` if there is no file.
  /// - Throws: ``SettingsError/Code/corruptFile`` or ``SettingsError/Code/wrongRootType`` for a
  ///   file judged corrupt; what ``read(_:retryInterval:salvaging:)`` throws.
  static func readDictionary(
    _ file: PropertyListFile, retryInterval: Double
  ) throws(SettingsError) -> [String: PropertyListValue]? {
    switch try read(file, retryInterval: retryInterval, salvaging: false) {
    case .missing: return nil
    case .read(let entries, _, _, _): return entries
    case .corrupt(let error, _): throw error
    }
  }

  /// Copies a file's bytes to a new file (created exclusively, flushed); `false` on failure.
  private static func copy(_ source: URL, to destination: URL) -> Bool {
    guard let data = try? Data(contentsOf: source) else { return false }
    let descriptor = POSIX.openFile(
      destination.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard descriptor >= 0 else { return false }
    let written =
      data.withUnsafeBytes { POSIX.writeAll(descriptor, $0) } && POSIX.synchronize(descriptor)
    POSIX.closeFile(descriptor)
    if !written { POSIX.removeFile(destination.path) }
    return written
  }

  /// Whether `url` itself (its last component) is a symbolic link.
  static func isSymbolicLink(_ url: URL) -> Bool {
    var info = stat()
    return lstat(url.path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
  }

  /// Renames the file at `url` to `<name>.corrupt-<UTC date and time>` in the same folder (with a
  /// counter if that name is taken), and returns the new location.
  ///
  /// Never replaces anything: the new name is made with `link(2)`, which fails if anything, even
  /// a dangling symbolic link, is there, and then the old name is removed. The name is shortened
  /// to fit the file system's 255-byte limit. On a file system without hard links, the file is
  /// renamed to a name checked to be free.
  ///
  /// With `expected`, only that file (device and inode) is moved: the file at `url` is first
  /// renamed to a private name, which takes exactly one file atomically, and if another program
  /// replaced the judged file since (without the lock), that file is put back under `url` (never
  /// over a newer one) and nothing is moved. Nothing is lost either way.
  ///
  /// - Throws: ``SettingsError/Code/fileNotWritable`` naming the path and the cause if the file
  ///   can't be moved, or if it is no longer the file judged; it is then where it was.
  static func moveAside(
    _ url: URL, expected: FileIdentity? = nil, now: Date = Date()
  ) throws(SettingsError) -> URL {
    guard let expected else { return try keepAside(url, removingOriginal: true, now: now) }
    let folder = url.deletingLastPathComponent()
    let holding = folder.appendingPathComponent(
      ".aside-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp")
    guard POSIX.renameFile(url.path, holding.path) else {
      throw SettingsError(
        .fileNotWritable, path: url.path, reason: "Cannot move it aside: \(POSIX.lastError)")
    }
    let moved = POSIX.identity(ofFileAt: holding.path)
    guard moved?.device == expected.device, moved?.inode == expected.inode else {
      // Another program replaced the judged file: put its file back, unless a newer one has
      // taken the name meanwhile (then it stays under the private name, kept, not lost).
      if link(holding.path, url.path) == 0 { _ = unlink(holding.path) }
      throw SettingsError(
        .fileNotWritable, path: url.path,
        reason: "It was replaced while being moved aside; the new file is left as it is")
    }
    do {
      return try keepAside(holding, named: url, removingOriginal: true, now: now)
    } catch {
      // Back where it was (never over a newer file).
      if link(holding.path, url.path) == 0 { _ = unlink(holding.path) }
      throw error
    }
  }

  /// Keeps a copy of the file at `url` under the name ``moveAside(_:now:)`` would give it, and
  /// leaves the original in place: a hard link (the same bytes, owner and mode), or where the
  /// file system has none, a copy. For replacing the original right after with what could be
  /// read of it, through ``AtomicFile/replace(_:with:)``, which keeps its mode and owner.
  ///
  /// - Throws: ``SettingsError/Code/fileNotWritable`` naming the path and the cause.
  static func keepCopyAside(_ url: URL, now: Date = Date()) throws(SettingsError) -> URL {
    try keepAside(url, removingOriginal: false, now: now)
  }

  private static func keepAside(
    _ url: URL, named original: URL? = nil, removingOriginal: Bool, now: Date
  ) throws(SettingsError) -> URL {
    // 20261130T154000Z: sorts by time, and holds no character a file name can't.
    let stamp = now.formatted(
      Date.ISO8601FormatStyle(
        dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted,
        timeZone: .gmt))
    let folder = url.deletingLastPathComponent()
    var base = (original ?? url).lastPathComponent
    let suffix = ".corrupt-\(stamp)"
    // Room for the suffix and a counter within NAME_MAX.
    while base.utf8.count + suffix.utf8.count + 4 > 255, !base.isEmpty { base.removeLast() }
    var lastError = ""
    for counter in 1...64 {
      let candidate = folder.appendingPathComponent(
        base + suffix + (counter == 1 ? "" : "-\(counter)"))
      if link(url.path, candidate.path) == 0 {
        guard !removingOriginal || unlink(url.path) == 0 else {
          let reason = POSIX.lastError
          _ = unlink(candidate.path)
          throw SettingsError(
            .fileNotWritable, path: url.path, reason: "Cannot move it aside: \(reason)")
        }
        POSIX.synchronizeFolder(folder.path)
        return candidate
      }
      let code = errno
      lastError = POSIX.lastError
      if code == EEXIST { continue }
      guard code == EPERM || code == EXDEV || code == EOPNOTSUPP || code == EMLINK else { break }
      // No hard links here: rename (or copy) to a name nothing holds (lstat sees dangling
      // links too).
      var info = stat()
      guard lstat(candidate.path, &info) != 0, errno == ENOENT else { continue }
      if removingOriginal ? POSIX.renameFile(url.path, candidate.path) : copy(url, to: candidate) {
        POSIX.synchronizeFolder(folder.path)
        return candidate
      }
      lastError = POSIX.lastError
      break
    }
    throw SettingsError(
      .fileNotWritable, path: url.path,
      reason: "Cannot move it aside to '\(folder.path)/\(base)\(suffix)': \(lastError)")
  }
}
