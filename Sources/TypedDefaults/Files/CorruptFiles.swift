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
}
