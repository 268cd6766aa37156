import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Replacing a file so that a crash at any moment leaves either the old or the new complete file,
/// and locking a file between processes.
package enum AtomicFile {
  /// The file a path finally refers to, following symbolic links (also a link to a file that
  /// doesn't exist yet), so that writing it keeps the links in place.
  static func resolvedTarget(of url: URL) -> URL {
    symbolicLinkChain(of: url).last?.url ?? url.standardizedFileURL
  }

  /// The paths a chain of symbolic links passes through, from `url` (standardized) to the path
  /// it finally refers to, which comes last; each with the destination its link names, as
  /// written (`nil` for the last).
  ///
  /// At most 32 links are followed.
  package static func symbolicLinkChain(of url: URL) -> [(url: URL, destination: String?)] {
    var chain: [(url: URL, destination: String?)] = []
    var current = url.standardizedFileURL
    for _ in 0..<32 {
      guard
        let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current.path)
      else { break }
      chain.append((current, destination))
      current =
        destination.hasPrefix("/")
        ? URL(fileURLWithPath: destination)
        : current.deletingLastPathComponent().appendingPathComponent(destination)
      current = current.standardizedFileURL
    }
    chain.append((current, nil))
    return chain
  }

  /// Replaces the file at `url` with `data`: writes a temporary file in the same folder, flushes
  /// it to disk, renames it over the file, then flushes the folder.
  ///
  /// A new file is created readable and writable by its owner only (0600); an existing file keeps
  /// its permissions. If `url` is a symbolic link, the file it points to is replaced and the link
  /// stays. A file this process may not write, or that grants write permission to nobody, is not
  /// replaced, though renaming over it would succeed; nor is anything but a regular file (a
  /// device, a FIFO, a folder).
  ///
  /// - Returns: The version written, held open (see ``FileVersion``): a read-only descriptor
  ///   opened on the temporary file before the rename, and `fstat`ed after it, so it is the inode
  ///   this call wrote even if another program replaces the file right after; `nil` if the
  ///   temporary file couldn't be opened for reading.
  /// - Throws: ``SettingsError/Code/fileNotWritable`` naming the path and the cause; the file is
  ///   unchanged then, and no temporary file is left behind.
  @discardableResult
  package static func replace(_ url: URL, with data: Data) throws(SettingsError) -> FileVersion? {
    let target = resolvedTarget(of: url)
    let folder = target.deletingLastPathComponent()
    switch POSIX.kind(ofFileAt: target.path) {
    case .missing, .unreachable:
      break  // created below; an unreachable path fails there with its cause
    case .regular:
      // Write permission for nobody is a deliberate "read-only", honoured even for root.
      let nobodyMayWrite = (POSIX.permissions(ofFileAt: target.path) ?? 0o200) & 0o222 == 0
      guard POSIX.isWritable(target.path), !nobodyMayWrite else {
        throw SettingsError(
          .fileNotWritable, path: url.path,
          reason: "It is read-only (permission denied); change its permissions to write it")
      }
    case .directory:
      throw SettingsError(.fileNotWritable, path: url.path, reason: "It is a directory")
    case .other:
      throw SettingsError(
        .fileNotWritable, path: url.path, reason: "It is not a regular file (a device or a FIFO)")
    }
    let mode = POSIX.permissions(ofFileAt: target.path) ?? 0o600
    // The owner to keep: an existing file's, or for a new file made by root, the folder's (so
    // `sudo` doesn't leave a user's settings owned by root). Kept where this process may.
    let owner =
      POSIX.owner(ofFileAt: target.path)
      ?? (POSIX.isRoot ? POSIX.owner(ofFileAt: folder.path) : nil)

    func failure(_ reason: String) -> SettingsError {
      SettingsError(.fileNotWritable, path: url.path, reason: reason)
    }

    // O_EXCL never follows a link planted at the name; another random name is tried then.
    var temporary = ""
    var descriptor: Int32 = -1
    for _ in 0..<8 {
      temporary = temporaryPath(for: target)
      descriptor = POSIX.openFile(
        temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
      if descriptor >= 0 || errno != EEXIST { break }
    }
    guard descriptor >= 0 else {
      let reason = POSIX.lastError
      throw failure(
        folderProblem(folder) ?? "Cannot create the temporary file '\(temporary)': \(reason)")
    }
    // Locked (`flock`, never contended: the file is new) until renamed, which tells any process
    // cleaning up, in whatever PID namespace, that it is live (see `removeStaleTemporaryFiles`);
    // the lock goes with this process if it is killed.
    _ = POSIX.lockExclusivelyIfFree(descriptor)
    defer { POSIX.closeFile(descriptor) }
    // Opened while the file is new and the owner's (0600), before a mode or owner that might
    // not let this process read it.
    let reader = POSIX.openFile(temporary, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    if let owner { POSIX.setOwner(descriptor, owner) }
    let written =
      data.withUnsafeBytes { POSIX.writeAll(descriptor, $0) }
      && POSIX.setMode(descriptor, mode) && POSIX.synchronize(descriptor)
    let writeError = POSIX.lastError
    guard written else {
      if reader >= 0 { POSIX.closeFile(reader) }
      POSIX.removeFile(temporary)
      throw failure(writeError)
    }
    guard POSIX.renameFile(temporary, target.path) else {
      let reason = POSIX.lastError
      if reader >= 0 { POSIX.closeFile(reader) }
      POSIX.removeFile(temporary)
      throw failure(reason)
    }
    // The identity after the rename, which changes the status change time.
    let version = reader >= 0 ? FileVersion.adopting(reader) : nil
    // Make the rename itself durable; a failure here leaves a correct file, so it is ignored.
    POSIX.synchronizeFolder(folder.path)
    return version
  }

  /// Creates the folder `url`'s file goes in, and any missing folder above it, readable and
  /// writable by its owner only (0700), as corelibs does for `~/.config`; does nothing if the
  /// folder exists.
  ///
  /// - Throws: ``SettingsError/Code/fileNotWritable`` naming the file and why the folder can't
  ///   be created.
  package static func createMissingFolder(of url: URL) throws(SettingsError) {
    let folder = resolvedTarget(of: url).deletingLastPathComponent()
    guard case .missing = POSIX.kind(ofFileAt: folder.path) else { return }
    do {
      try FileManager.default.createDirectory(
        at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw SettingsError(
        .fileNotWritable, path: url.path,
        reason: "The folder '\(folder.path)' does not exist and can't be created: "
          + PropertyListFile.describe(error))
    }
  }

  /// Why a file can't be created in `folder`, when the folder itself is the problem: Foundation
  /// and POSIX report a missing folder as a missing file.
  private static func folderProblem(_ folder: URL) -> String? {
    var isDirectory: ObjCBool = false
    if !FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
      return "The folder '\(folder.path)' does not exist"
    }
    return isDirectory.boolValue ? nil : "'\(folder.path)' is not a folder"
  }

  /// The name of a temporary file for replacing `target`: `.<name>.<pid>.<random>.tmp` beside it,
  /// hidden, and naming the process that made it so that a stale one can be recognised.
  static func temporaryPath(for target: URL) -> String {
    let process = ProcessInfo.processInfo.processIdentifier
    return target.deletingLastPathComponent().appendingPathComponent(
      temporaryPrefix(for: target) + "\(process).\(UInt32.random(in: 0...UInt32.max)).tmp"
    ).path
  }

  /// `.<name>.`, with the name shortened so that the whole temporary name (a process number and
  /// a random number of up to 10 digits each, `.tmp`) fits the file system's 255-byte limit.
  static func temporaryPrefix(for target: URL) -> String {
    ".\(shortened(target.lastPathComponent, toBytes: 255 - 2 - 10 - 1 - 10 - 4))."
  }

  /// The name cut at a character boundary to at most `limit` bytes of UTF-8.
  static func shortened(_ name: String, toBytes limit: Int) -> String {
    guard name.utf8.count > limit else { return name }
    var result = ""
    for character in name {
      guard result.utf8.count + character.utf8.count <= limit else { break }
      result.append(character)
    }
    return result
  }

  /// The lock file of a file: `<name>.lock` beside it, the name shortened to fit 255 bytes.
  static func lockPath(for target: URL) -> String {
    target.deletingLastPathComponent().appendingPathComponent(
      shortened(target.lastPathComponent, toBytes: 255 - 5) + ".lock"
    ).path
  }

  /// The temporary files of `url` that look stale: `.<name>.<pid>.<random>.tmp` beside the file
  /// it replaces, whose process can't be seen from here (it is dead, or in another PID
  /// namespace) and which no process holds locked (``replace(_:with:)`` holds its temporary
  /// file locked until it is renamed, and a killed process's locks go with it).
  ///
  /// A link in such a name is never followed, and counts as stale: no save makes one.
  ///
  /// - Returns: The paths.
  static func staleTemporaryFiles(of url: URL) -> [String] {
    let target = resolvedTarget(of: url)
    let folder = target.deletingLastPathComponent().path
    let prefix = temporaryPrefix(for: target)
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
      return []
    }
    let ownProcess = ProcessInfo.processInfo.processIdentifier
    var stale: [String] = []
    for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
      let middle = name.dropFirst(prefix.count).dropLast(4).split(separator: ".")
      guard middle.count == 2, let process = Int32(middle[0]), UInt32(middle[1]) != nil,
        process != ownProcess, !POSIX.processExists(process)
      else { continue }
      let path = folder + "/" + name
      // Opening never blocks (a FIFO planted there) and never follows a link.
      let descriptor = POSIX.openFile(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
      if descriptor < 0 {
        if errno == ELOOP { stale.append(path) }
        continue
      }
      if POSIX.lockExclusivelyIfFree(descriptor) { stale.append(path) }
      POSIX.closeFile(descriptor)
    }
    return stale
  }

  /// Removes the temporary files that processes killed while replacing `url` left beside it
  /// (see ``staleTemporaryFiles(of:)``).
  ///
  /// The caller holds the file's lock (``withLock(on:_:)``): every save by the library makes its
  /// temporary file and renames it while holding that lock, so no save can be between making its
  /// file and locking it. Whose file it is isn't told by its process number, which means nothing
  /// across PID namespaces (another container sharing the folder), but by these two locks, which
  /// hold across them. This process's files and anything else are left alone; failures are ignored.
  static func removeStaleTemporaryFiles(of url: URL) {
    for path in staleTemporaryFiles(of: url) { POSIX.removeFile(path) }
  }

  /// Runs `body` holding an exclusive advisory lock shared by every process that uses this
  /// function on the same path: `flock` on `<file>.lock` beside it (created 0600 if missing, and
  /// never deleted, so every process locks the same lock file).
  ///
  /// For a `data.plist` that is a symbolic link, the lock file is beside the link, in the store's
  /// own folder, never beside the file the link points to (which may be anywhere of the user's):
  /// processes that share a file must open it through the same path, as stores at a standard
  /// location do. A lock file that is a symbolic link is never followed (a link planted there must
  /// not make the store create or open a file elsewhere); one this process may only read is locked
  /// read-only, which `flock` allows.
  ///
  /// - Throws: ``SettingsError/Code/fileNotWritable`` if the lock file can't be opened or locked;
  ///   whatever `body` throws.
  package static func withLock<Result>(
    on url: URL,
    _ body: () throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    // Waiting, the lock is always taken or throws.
    try withLock(on: url, waiting: true, body)!
  }

  /// Runs `body` holding the lock ``withLock(on:_:)`` takes, if no other process (or other open
  /// of the lock file in this one) holds it at the moment.
  ///
  /// - Returns: What `body` returned; `nil`, without running it, if the lock is held elsewhere
  ///   or can't be taken at all.
  static func withLockIfFree<Result>(on url: URL, _ body: () -> Result) -> Result? {
    try? withLock(on: url, waiting: false) { () throws(SettingsError) in body() }
  }

  private static func withLock<Result>(
    on url: URL,
    waiting: Bool,
    _ body: () throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result? {
    let link = url.standardizedFileURL
    let lockPath = lockPath(for: link)
    let folder = link.deletingLastPathComponent()
    var descriptor = POSIX.openFile(
      lockPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
    if descriptor >= 0 {
      // A new lock file made by root in a user's folder belongs to the folder's owner.
      if POSIX.isRoot, let owner = POSIX.owner(ofFileAt: folder.path) {
        POSIX.setOwner(descriptor, owner)
      }
    } else if errno == EEXIST {
      descriptor = POSIX.openFile(lockPath, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
      if descriptor < 0, errno == EACCES || errno == EROFS || errno == EPERM {
        descriptor = POSIX.openFile(lockPath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
      }
    }
    guard descriptor >= 0 else {
      let reason =
        errno == ELOOP
        ? "The lock file '\(lockPath)' is a symbolic link, which is never followed; remove it"
        : "Cannot open the lock file '\(lockPath)': \(POSIX.lastError)"
      throw SettingsError(.fileNotWritable, path: url.path, reason: folderProblem(folder) ?? reason)
    }
    defer { POSIX.closeFile(descriptor) }
    if !waiting {
      guard POSIX.lockExclusivelyIfFree(descriptor) else { return nil }
    } else if !POSIX.lockExclusively(descriptor) {
      throw SettingsError(
        .fileNotWritable, path: url.path,
        reason: "Cannot lock '\(lockPath)': \(POSIX.lastError)")
    }
    defer { POSIX.unlock(descriptor) }
    return try body()
  }
}
