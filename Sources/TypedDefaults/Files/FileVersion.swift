import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A version of a file that this process read or wrote, held open: a read-only descriptor on its
/// inode, and the ``FileIdentity`` that `fstat` gave through that descriptor.
///
/// A store compares the identity it recorded with the file's current one to know whether another
/// process saved since (see ``isCurrent(atPath:)``). Saves replace the file by renaming a new one
/// over it, which frees the old inode, and the file system soon gives that inode number to a new
/// file; one with the same size, saved within the clock's granularity (a few milliseconds), then
/// had the same identity, and a save skipped reading another process's changes. While a
/// descriptor holds the inode it can't be freed, so no other file can get its number: a file at
/// the path with this identity is this very inode, unchanged in size and times.
///
/// A store or suite holds one at a time (the version of its file it last read or wrote), and for
/// a moment two while a save or read replaces it; the descriptor is closed when the last
/// reference goes (a newer version replaces it, the store is deinitialized). Opened with
/// `O_CLOEXEC`, so child processes don't inherit it.
package final class FileVersion: Sendable {
  /// The identity of the inode held.
  let identity: FileIdentity
  private let descriptor: Int32

  /// Takes ownership of an open descriptor (closed at deinit) and its `fstat` result.
  private init(descriptor: Int32, identity: FileIdentity) {
    self.descriptor = descriptor
    self.identity = identity
  }

  deinit { POSIX.closeFile(descriptor) }

  /// What opening a file for reading found.
  enum Opening {
    /// No file (also a symbolic link to nothing).
    case missing
    /// The version opened, and its `fstat` result (kind and size).
    case opened(FileVersion, stat)
    /// The file can't be opened or examined, with the reason (`strerror`).
    case failed(String)
  }

  /// Opens the file at `path` read-only, following symbolic links and without waiting on a FIFO
  /// (`O_NONBLOCK`), and takes its identity with `fstat` on the new descriptor; the caller reads
  /// through ``read(sizeHint:limit:)`` so that the bytes and the identity are of one version.
  static func open(_ path: String) -> Opening {
    let descriptor = POSIX.openFile(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    guard descriptor >= 0 else {
      return errno == ENOENT ? .missing : .failed(POSIX.lastError)
    }
    guard let info = POSIX.status(descriptor) else {
      let reason = POSIX.lastError
      POSIX.closeFile(descriptor)
      return .failed(reason)
    }
    return .opened(FileVersion(descriptor: descriptor, identity: FileIdentity(info)), info)
  }

  /// Holds the inode an open descriptor refers to (a file this process just wrote and renamed
  /// into place), taking ownership of the descriptor; `nil`, with the descriptor closed, if
  /// `fstat` fails.
  static func adopting(_ descriptor: Int32) -> FileVersion? {
    guard let info = POSIX.status(descriptor) else {
      POSIX.closeFile(descriptor)
      return nil
    }
    return FileVersion(descriptor: descriptor, identity: FileIdentity(info))
  }

  /// Reads the version's bytes, from the start, to its end or to `limit + 1` bytes (see
  /// ``POSIX/readToEnd(_:sizeHint:limit:)``); `nil` on failure (`errno` says why).
  ///
  /// Once only.
  func read(sizeHint: Int, limit: Int) -> Data? {
    POSIX.readToEnd(descriptor, sizeHint: sizeHint, limit: limit)
  }

  /// Whether the file at `path` (following symbolic links) is still this version: the same
  /// inode, not rewritten in place since (same size, modification and status change times).
  ///
  /// `false` if there is no file there.
  func isCurrent(atPath path: String) -> Bool {
    POSIX.identity(ofFileAt: path) == identity
  }
}

extension FileVersion? {
  /// Whether the file at `path` is still the version known (`nil`: that there is no file there).
  ///
  /// - Parameter path: The file's path, links already followed or not.
  /// - Returns: `true` if the file there has this version's identity or, for `nil`, if there is
  ///   no file there.
  func isCurrent(atPath path: String) -> Bool {
    POSIX.identity(ofFileAt: path) == self?.identity
  }
}
