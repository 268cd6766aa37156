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
enum AtomicFile {
  /// The file a path finally refers to, following symbolic links (also a link to a file that
  /// doesn't exist yet), so that writing it keeps the links in place.
  static func resolvedTarget(of url: URL) -> URL {
    var current = url.standardizedFileURL
    for _ in 0..<32 {
      guard
        let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current.path)
      else { return current }
      current =
        destination.hasPrefix("/")
        ? URL(fileURLWithPath: destination)
        : current.deletingLastPathComponent().appendingPathComponent(destination)
      current = current.standardizedFileURL
    }
    return current
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
  /// - Throws: ``SettingsError/Code/fileNotWritable`` naming the path and the cause; the file is
  ///   unchanged then, and no temporary file is left behind.
  static func replace(_ url: URL, with data: Data) throws(SettingsError) {
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
    let temporary = folder.appendingPathComponent(
      ".\(target.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max)).tmp"
    ).path

    func failure(_ reason: String) -> SettingsError {
      SettingsError(.fileNotWritable, path: url.path, reason: reason)
    }

    let descriptor = POSIX.openFile(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      let reason = POSIX.lastError
      throw failure(folderProblem(folder) ?? reason)
    }
    let written =
      data.withUnsafeBytes { POSIX.writeAll(descriptor, $0) }
      && POSIX.setMode(descriptor, mode) && POSIX.synchronize(descriptor)
    let writeError = POSIX.lastError
    POSIX.closeFile(descriptor)
    guard written else {
      POSIX.removeFile(temporary)
      throw failure(writeError)
    }
    guard POSIX.renameFile(temporary, target.path) else {
      let reason = POSIX.lastError
      POSIX.removeFile(temporary)
      throw failure(reason)
    }
    // Make the rename itself durable; a failure here leaves a correct file, so it is ignored.
    let folderDescriptor = POSIX.openFile(folder.path, O_RDONLY | O_CLOEXEC)
    if folderDescriptor >= 0 {
      _ = POSIX.synchronize(folderDescriptor)
      POSIX.closeFile(folderDescriptor)
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

  /// Runs `body` holding an exclusive advisory lock shared by every process that uses this
  /// function on the same file: `flock` on `<file>.lock` beside it (created 0600 if missing, and
  /// never deleted, so every process locks the same lock file).
  ///
  /// - Throws: ``SettingsError/Code/fileNotWritable`` if the lock file can't be opened or locked;
  ///   whatever `body` throws.
  static func withLock<Result>(
    on url: URL,
    _ body: () throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    let target = resolvedTarget(of: url)
    let lockPath = target.path + ".lock"
    let descriptor = POSIX.openFile(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      let reason = POSIX.lastError
      throw SettingsError(
        .fileNotWritable, path: url.path,
        reason: folderProblem(target.deletingLastPathComponent())
          ?? "Cannot open the lock file '\(lockPath)': \(reason)")
    }
    defer { POSIX.closeFile(descriptor) }
    guard POSIX.lockExclusively(descriptor) else {
      throw SettingsError(
        .fileNotWritable, path: url.path,
        reason: "Cannot lock '\(lockPath)': \(POSIX.lastError)")
    }
    defer { POSIX.unlock(descriptor) }
    return try body()
  }
}
