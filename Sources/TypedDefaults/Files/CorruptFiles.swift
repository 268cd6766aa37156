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

    /// The same outcome for another read of the same bytes.
    func with(_ version: FileVersion) -> Reading {
      switch self {
      case .missing: .missing
      case .read(let entries, let format, let unreadable, _):
        .read(entries: entries, format: format, unreadable: unreadable, version: version)
      case .corrupt(let error, _): .corrupt(error, version: version)
      }
    }
  }

  /// Reads a dictionary file that other programs may be rewriting in place, which leaves it
  /// briefly empty or half-written: it is judged (corrupt, partly unreadable, or empty) only if
  /// it gives the same outcome and stays unchanged (same inode, size and modification time) over
  /// three more reads `retryInterval` seconds apart (bytes read again unchanged are not parsed
  /// again: the outcome of the same bytes is the same).
  ///
  /// A zero-byte file is judged empty only once it has also been so for a second: its status
  /// changed at least a second ago, or this read has seen it unchanged for a second. A rewrite in
  /// place truncates the file first, and a rewriter descheduled on a busy machine can leave it
  /// empty for longer than the three reads (seen at a load average of 6 on 2 cores); a file that
  /// is really empty was usually made so long before it is opened, and costs nothing more.
  ///
  /// A file still changing after 20 attempts is not judged at all: that is
  /// ``SettingsError/Code/fileNotReadable``, which no caller moves aside. A zero-byte file that
  /// stays so is an empty dictionary, as Foundation's preferences treat one.
  ///
  /// - Parameters:
  ///   - file: The file.
  ///   - retryInterval: The wait between reads, in seconds.
  ///   - salvaging: Whether an entry whose value can't be read is left out (and listed) rather
  ///     than making the whole file corrupt.
  /// - Returns: What the read found: no file; the file's dictionary, with the version read; or
  ///   the error of a file judged corrupt, with the version judged.
  /// - Throws: ``SettingsError/Code/fileNotReadable`` for a file that kept changing, and what
  ///   ``PropertyListFile/read()`` throws for reasons other than the contents, at once.
  static func read(
    _ file: PropertyListFile, retryInterval: Double, salvaging: Bool
  ) throws(SettingsError) -> Reading {
    let path = AtomicFile.resolvedTarget(of: file.url).path
    // Held open, so that an unchanged identity means the same inode (see `FileVersion`).
    var previous: FileVersion?
    // The bytes last parsed and what they gave: the same bytes read again give the same outcome
    // without parsing them again (comparing bytes costs far less than parsing them).
    var parsed: (data: Data, outcome: Reading)?
    var stableFailures = 0
    var attempts = 0
    // When this read first saw the file unchanged and empty (see `FileIdentity.settled`).
    var emptySince: Date?
    while true {
      guard let (data, version) = try file.readVersion() else { return .missing }
      let outcome: Reading
      if let parsed, parsed.data == data {
        outcome = parsed.outcome.with(version)
      } else {
        outcome = try judge(data, of: file, version: version, salvaging: salvaging)
        parsed = (data, outcome)
      }
      if case .read(_, _, let unreadable, _) = outcome, unreadable.isEmpty, !data.isEmpty {
        return outcome
      }
      // Empty, partly unreadable or corrupt: judge only a file that isn't being written.
      attempts += 1
      let unchanged = version.isCurrent(atPath: path)
      stableFailures =
        unchanged && attempts > 1 && version.identity == previous?.identity
        ? stableFailures + 1 : 0
      previous = unchanged ? version : nil
      if stableFailures == 0 { emptySince = nil }
      if stableFailures >= 3 {
        guard data.isEmpty, !version.identity.settled(emptySince: &emptySince) else {
          return outcome
        }
        // A zero-byte file that changed under a second ago is most likely one a program rewriting
        // it in place has just truncated (and, on a busy machine, not yet written): wait for it.
        attempts -= 1
      }
      if attempts >= 20 {
        throw SettingsError(
          .fileNotReadable, path: file.url.path,
          reason: "It kept changing and could not be read whole (another program is "
            + "rewriting it in place); it was left as it is")
      }
      Thread.sleep(forTimeInterval: retryInterval)
    }
  }

  /// For tests: counts, in the task that sets it, how many times ``read(_:retryInterval:salvaging:)``
  /// parses a file's bytes.
  ///
  /// It stays here because the parse happens deep inside a store's open, which no seam reaches;
  /// unset, it costs one task-local lookup per parse.
  @TaskLocal static var parseCounter: Locked<Int>?

  /// What the bytes of a settings file are: its dictionary (empty for no bytes) or corrupt.
  ///
  /// - Throws: What parsing throws for reasons other than the contents.
  private static func judge(
    _ data: Data, of file: PropertyListFile, version: FileVersion, salvaging: Bool
  ) throws(SettingsError) -> Reading {
    parseCounter?.withLock { $0 += 1 }
    do {
      if data.isEmpty {
        return .read(entries: [:], format: nil, unreadable: [], version: version)
      }
      let decoded = try PropertyListFile.decode(
        data, path: file.url.path, salvagingEntries: salvaging)
      let entries = try file.dictionary(
        in: PropertyListFile.Contents(root: decoded.root, format: decoded.format))
      return .read(
        entries: entries, format: decoded.format, unreadable: decoded.unreadableEntries,
        version: version)
    } catch  where error.code == .corruptFile || error.code == .wrongRootType {
      return .corrupt(error, version: version)
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
    let holding = url.deletingLastPathComponent().appendingPathComponent(
      holdingPrefix(for: url) + "\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp")
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

  /// `.<name>.aside-`, the start of the private names ``moveAside(_:expected:now:)`` holds a file
  /// under (followed by `<pid>-<random>.tmp`), with the name shortened so that the whole fits
  /// the file system's 255-byte limit.
  static func holdingPrefix(for url: URL) -> String {
    ".\(AtomicFile.shortened(url.lastPathComponent, toBytes: 255 - 1 - 7 - 10 - 1 - 10 - 4)).aside-"
  }

  /// The regular files under the private names ``moveAside(_:expected:now:)`` holds `url` under
  /// (`.<name>.aside-<pid>-<random>.tmp`), sorted: left by processes killed during a move, if
  /// the caller holds the file's lock.
  static func interruptedMovesAside(of url: URL) -> [URL] {
    let folder = url.deletingLastPathComponent()
    let prefix = holdingPrefix(for: url)
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
      return []
    }
    return names.sorted().compactMap { name in
      guard name.hasPrefix(prefix), name.hasSuffix(".tmp") else { return nil }
      let middle = name.dropFirst(prefix.count).dropLast(4).split(separator: "-")
      guard middle.count == 2, Int32(middle[0]) != nil, UInt32(middle[1]) != nil else { return nil }
      var info = stat()
      let path = folder.appendingPathComponent(name)
      guard lstat(path.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
      return path
    }
  }

  /// Finishes the moves aside of the file at `url` that processes killed during one left half
  /// done: the judged file renamed to its private name (see ``moveAside(_:expected:now:)``),
  /// hidden, and `url` gone or replaced since.
  ///
  /// The caller holds the file's lock, which every move aside holds from start to end, so any such
  /// file found is a leftover.
  ///
  /// A leftover is put back under `url` if nothing is there (without replacing anything), so
  /// that the file is judged again as a store reads it: moved aside if it is still corrupt, read
  /// if it was a good file caught by the move. If `url` holds another file by now, the leftover
  /// is kept aside under the visible name ``moveAside(_:expected:now:)`` gives.
  ///
  /// - Parameters:
  ///   - url: The file.
  ///   - now: The time for the visible name.
  /// - Returns: One entry per leftover kept aside: the problem, naming `url` and the leftover,
  ///   and where it was kept, or why it couldn't be (it stays under its private name then).
  static func finishInterruptedMovesAside(
    of url: URL, now: Date = Date()
  ) -> [(problem: SettingsError, keptAt: Result<URL, SettingsError>)] {
    let folder = url.deletingLastPathComponent()
    var found: [(problem: SettingsError, keptAt: Result<URL, SettingsError>)] = []
    for holding in interruptedMovesAside(of: url) {
      let name = holding.lastPathComponent
      var info = stat()
      if lstat(url.path, &info) != 0, errno == ENOENT {
        if link(holding.path, url.path) == 0 {
          _ = unlink(holding.path)
          POSIX.synchronizeFolder(folder.path)
          continue
        }
        if [EPERM, EXDEV, EOPNOTSUPP, EMLINK].contains(errno),
          POSIX.renameFile(holding.path, url.path)
        {
          POSIX.synchronizeFolder(folder.path)
          continue
        }
      }
      let problem = SettingsError(
        .corruptFile, path: url.path,
        reason: "A process was killed while moving a corrupt version of it aside, which left "
          + "that version hidden as '\(name)', and the name now holds another file")
      found.append(
        (
          problem,
          Result { () throws(SettingsError) in
            try keepAside(holding, named: url, removingOriginal: true, now: now)
          }
        ))
    }
    return found
  }

  /// Keeps a copy of the file at `url` under the name ``moveAside(_:expected:now:)`` would give it, and
  /// leaves the original in place: a hard link (the same bytes, owner and mode), or where the
  /// file system has none, a copy.
  ///
  /// For replacing the original right after with what could be read of it, through
  /// ``AtomicFile/replace(_:with:)``, which keeps its mode and owner.
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

extension FileIdentity {
  /// How long a zero-byte file must have been so before a careful read takes it as empty, in
  /// seconds.
  static let emptyFileSettleInterval: TimeInterval = 1

  /// Whether a zero-byte file with this identity has been so for
  /// ``emptyFileSettleInterval``: its status changed that long ago by the clock, or the caller has
  /// seen it unchanged that long (which bounds the wait where the clock and the file system
  /// disagree).
  ///
  /// - Parameter emptySince: When the caller first saw it unchanged and empty; set on the first
  ///   call.
  /// - Returns: `true` once the file has been empty long enough to be judged.
  func settled(emptySince: inout Date?) -> Bool {
    let now = Date()
    let first = emptySince ?? now
    emptySince = first
    let changed = Date(
      timeIntervalSince1970: Double(statusChangeSeconds) + Double(statusChangeNanoseconds) / 1e9)
    return now.timeIntervalSince(changed) >= Self.emptyFileSettleInterval
      || now.timeIntervalSince(first) >= Self.emptyFileSettleInterval
  }
}
