import Foundation

/// Keeping corrupt files: a file that can't be read is moved aside, never overwritten.
enum CorruptFiles {
  /// Renames `url` to `<name>.corrupt-<UTC date and time>` in the same folder (with a counter if
  /// that name is taken), and returns the new location.
  ///
  /// - Throws: ``SettingsError/Code/fileNotWritable`` if the file can't be renamed.
  static func moveAside(_ url: URL, now: Date = Date()) throws(SettingsError) -> URL {
    // 20261130T154000Z: sorts by time, and holds no character a file name can't.
    let stamp = now.formatted(
      Date.ISO8601FormatStyle(
        dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted,
        timeZone: .gmt))
    var candidate = url.deletingLastPathComponent()
      .appendingPathComponent("\(url.lastPathComponent).corrupt-\(stamp)")
    var counter = 1
    while FileManager.default.fileExists(atPath: candidate.path) {
      counter += 1
      candidate = url.deletingLastPathComponent()
        .appendingPathComponent("\(url.lastPathComponent).corrupt-\(stamp)-\(counter)")
    }
    do {
      try FileManager.default.moveItem(at: url, to: candidate)
    } catch {
      throw SettingsError(
        .fileNotWritable, path: url.path, reason: PropertyListFile.describe(error))
    }
    return candidate
  }

  /// Reads a dictionary file that other programs may be rewriting in place, which leaves it
  /// briefly empty or half-written: it is judged corrupt only if it stays unreadable and
  /// unchanged (same inode, size and modification time) over three more reads `retryInterval`
  /// seconds apart. A file still changing, and never readable whole, after 20 attempts is not
  /// judged at all: that is ``SettingsError/Code/fileNotReadable``, which no caller moves aside.
  ///
  /// - Parameters:
  ///   - file: The file.
  ///   - retryInterval: The wait between reads, in seconds.
  /// - Returns: The file's dictionary and format (`nil` if there is no file), and the file's
  ///   identity taken just before the read that succeeded: the version read.
  /// - Throws: ``SettingsError/Code/corruptFile`` or ``SettingsError/Code/wrongRootType`` for a
  ///   file judged corrupt; ``SettingsError/Code/fileNotReadable`` for one that kept changing;
  ///   what ``PropertyListFile/read()`` throws for other reasons, at once.
  static func readDictionary(
    _ file: PropertyListFile,
    retryInterval: Double
  ) throws(SettingsError) -> (
    contents: (entries: [String: PropertyListValue], format: PropertyListFile.Format)?,
    identity: FileIdentity?
  ) {
    let path = AtomicFile.resolvedTarget(of: file.url).path
    var previous: FileIdentity?
    var stableFailures = 0
    var attempts = 0
    while true {
      let identity = POSIX.identity(ofFileAt: path)
      do {
        guard let contents = try file.read() else { return (nil, identity) }
        return ((try file.dictionary(in: contents), contents.format), identity)
      } catch  where error.code == .corruptFile || error.code == .wrongRootType {
        attempts += 1
        // Unchanged while it was read, and since the last failed read: not being written.
        let unchanged = identity == POSIX.identity(ofFileAt: path)
        stableFailures = unchanged && attempts > 1 && identity == previous ? stableFailures + 1 : 0
        previous = unchanged ? identity : nil
        if stableFailures >= 3 { throw error }
        if attempts >= 20 {
          throw SettingsError(
            .fileNotReadable, path: file.url.path,
            reason: "It kept changing and could not be read whole (another program is "
              + "rewriting it in place); it was left as it is")
        }
        Thread.sleep(forTimeInterval: retryInterval)
      }
    }
  }
}
