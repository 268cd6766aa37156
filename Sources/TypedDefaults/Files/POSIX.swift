import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The few POSIX calls Foundation has no equivalent for: `fsync` before a rename (and of the
/// folder after it), creating a file with an exact mode, and advisory locks between processes.
///
/// Each retries when a signal interrupts it.
package enum POSIX {
  /// The message for the current `errno`, as `strerror` gives it.
  package static var lastError: String {
    String(cString: strerror(errno))
  }

  static func openFile(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    while true {
      let descriptor = open(path, flags, mode)
      if descriptor >= 0 || errno != EINTR { return descriptor }
    }
  }

  /// Writes all of `bytes`; `false` on failure (`errno` says why).
  static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    guard var cursor = bytes.baseAddress else { return true }
    var remaining = bytes.count
    while remaining > 0 {
      let written = write(descriptor, cursor, remaining)
      if written < 0 {
        if errno == EINTR { continue }
        return false
      }
      cursor += written
      remaining -= written
    }
    return true
  }

  static func synchronize(_ descriptor: Int32) -> Bool {
    while true {
      if fsync(descriptor) == 0 { return true }
      if errno != EINTR { return false }
    }
  }

  /// Flushes a folder's entries (a rename or link in it) to disk; failures are ignored, since the
  /// folder's files are correct either way.
  static func synchronizeFolder(_ path: String) {
    let descriptor = openFile(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    _ = synchronize(descriptor)
    closeFile(descriptor)
  }

  static func setMode(_ descriptor: Int32, _ mode: mode_t) -> Bool {
    fchmod(descriptor, mode) == 0
  }

  static func renameFile(_ source: String, _ destination: String) -> Bool {
    rename(source, destination) == 0
  }

  static func removeFile(_ path: String) {
    _ = unlink(path)
  }

  /// Takes, waiting if needed, an exclusive advisory lock on an open file (`flock`).
  static func lockExclusively(_ descriptor: Int32) -> Bool {
    while true {
      if flock(descriptor, LOCK_EX) == 0 { return true }
      if errno != EINTR { return false }
    }
  }

  /// Takes an exclusive advisory lock on an open file (`flock`) if no other open file holds it:
  /// `true` if taken, `false` if it is held elsewhere (`errno` is `EWOULDBLOCK`) or can't be
  /// taken.
  static func lockExclusivelyIfFree(_ descriptor: Int32) -> Bool {
    while true {
      if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
      if errno != EINTR { return false }
    }
  }

  static func unlock(_ descriptor: Int32) {
    _ = flock(descriptor, LOCK_UN)
  }

  static func closeFile(_ descriptor: Int32) {
    _ = close(descriptor)
  }

  /// A file's owner and group.
  struct Owner: Equatable {
    var user: uid_t
    var group: gid_t
  }

  /// The owner and group of an existing file, following symbolic links; `nil` if there is none.
  static func owner(ofFileAt path: String) -> Owner? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Owner(user: info.st_uid, group: info.st_gid)
  }

  /// Gives an open file an owner and group, where this process may (root may; others only their
  /// own groups); a refusal is ignored, since the file is correct either way.
  static func setOwner(_ descriptor: Int32, _ owner: Owner) {
    _ = fchown(descriptor, owner.user, owner.group)
  }

  /// Whether this process runs as root, which may give files to other users.
  static var isRoot: Bool { geteuid() == 0 }

  /// Whether a process with this identifier exists (`kill(pid, 0)`; one owned by another user
  /// exists too).
  static func processExists(_ process: Int32) -> Bool {
    kill(process, 0) == 0 || errno == EPERM
  }

  /// The permission bits of an existing file, following symbolic links; `nil` if there is none.
  static func permissions(ofFileAt path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o7777
  }

  /// Whether this process may write the existing file at `path` (`access(W_OK)`, following
  /// symbolic links): what a shell's `-w` test says.
  static func isWritable(_ path: String) -> Bool {
    access(path, W_OK) == 0
  }

  /// What is at a path, following symbolic links.
  package enum FileKind: Equatable {
    case missing, directory, other
    /// A regular file of `size` bytes.
    case regular(size: Int64)
    /// The path can't be examined (a loop of links, a component that isn't a folder, no
    /// permission), with the reason.
    case unreachable(String)
  }

  /// What is at `path`, following symbolic links, and a regular file's size: one `stat`.
  package static func kind(ofFileAt path: String) -> FileKind {
    var info = stat()
    guard stat(path, &info) == 0 else {
      return errno == ENOENT ? .missing : .unreachable(lastError)
    }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return .regular(size: Int64(info.st_size))
    case S_IFDIR: return .directory
    default: return .other
    }
  }

  /// What identifies a file's current version: device, inode, size, and modification and status
  /// change times.
  ///
  /// An atomic replacement gives a new inode; an in-place rewrite, a new time or size. Only a
  /// ``FileVersion`` held open makes the inode number safe to compare: a freed inode number is soon
  /// given to a new file.
  static func identity(ofFileAt path: String) -> FileIdentity? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return FileIdentity(info)
  }

  /// The status of an open file (`fstat`); `nil` on failure (`errno` says why).
  static func status(_ descriptor: Int32) -> stat? {
    var info = stat()
    return fstat(descriptor, &info) == 0 ? info : nil
  }

  /// Reads an open file from its current offset to its end, or to `limit + 1` bytes if it is
  /// longer (so a caller sees it is over `limit`); `sizeHint` bytes (the size `fstat` gave) are
  /// allocated at once.
  ///
  /// `nil` on failure (`errno` says why).
  static func readToEnd(_ descriptor: Int32, sizeHint: Int, limit: Int) -> Data? {
    // One byte more than expected, to see the end of the file in the first read.
    var data = Data(count: min(max(sizeHint, 0), limit) + 1)
    var filled = 0
    while true {
      if filled == data.count {
        guard data.count <= limit else { break }
        data.count = min(data.count * 2, limit + 1)
      }
      let count = data.withUnsafeMutableBytes { buffer -> Int in
        guard let start = buffer.baseAddress else { return 0 }
        return read(descriptor, start + filled, buffer.count - filled)
      }
      if count < 0 {
        if errno == EINTR { continue }
        return nil
      }
      if count == 0 { break }
      filled += count
    }
    data.count = filled
    return data
  }
}

extension FileIdentity {
  /// The identity in a `stat` or `fstat` result.
  init(_ info: stat) {
    #if canImport(Darwin)
      let modified = (Int64(info.st_mtimespec.tv_sec), Int64(info.st_mtimespec.tv_nsec))
      let changed = (Int64(info.st_ctimespec.tv_sec), Int64(info.st_ctimespec.tv_nsec))
    #else
      let modified = (Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec))
      let changed = (Int64(info.st_ctim.tv_sec), Int64(info.st_ctim.tv_nsec))
    #endif
    self.init(
      device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
      modificationSeconds: modified.0, modificationNanoseconds: modified.1,
      statusChangeSeconds: changed.0, statusChangeNanoseconds: changed.1)
  }
}

/// A file's identity and version, to notice that another process changed or replaced it.
struct FileIdentity: Hashable, Sendable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  var modificationSeconds: Int64
  var modificationNanoseconds: Int64
  /// The status change time (`st_ctime`), which no program can set back: a rewrite in place
  /// that keeps the size and restores the modification time (`cp -p`, `rsync -t`, or a file
  /// system with one-second timestamps) still changes it.
  var statusChangeSeconds: Int64
  var statusChangeNanoseconds: Int64
}
