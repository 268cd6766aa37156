import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// An exclusive lock that `settings` processes take around everything they do to one
/// `UserDefaults` suite, from reading its file to `synchronize()`.
///
/// swift-corelibs-foundation rewrites a suite's file in place (truncate, then write) and takes no
/// lock, so two processes changing one suite at once can each read it while the other is
/// writing, see it empty, and save only their own key. `settings` processes lock
/// `<suite file>.lock` (`flock`, the lock file convention `LayeredPlistStore` uses) so they take
/// turns; an app writing the suite at the same moment is not covered (it doesn't take the lock).
/// On Apple platforms the system's preferences daemon serializes access, and no lock is taken.
final class SuiteLock {
  private let descriptor: Int32

  /// Takes the lock, waiting for other `settings` processes to release it.
  ///
  /// - Parameters:
  ///   - file: The suite's file.
  ///   - creatingFolder: Whether to create the suites folder if it is missing (for a write);
  ///     otherwise a missing folder means there is no suite, and nothing is locked.
  /// - Returns: The lock, held until it is released; `nil` where no lock is needed.
  /// - Throws: A ``Failure`` if the lock file can't be created or locked.
  static func acquire(for file: URL, creatingFolder: Bool) throws(Failure) -> SuiteLock? {
    #if canImport(Darwin)
      return nil
    #else
      let folder = file.deletingLastPathComponent()
      if !FileManager.default.fileExists(atPath: folder.path) {
        guard creatingFolder else { return nil }
        do {
          try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
          throw Failure("Cannot create the folder '\(folder.path)': \(error.localizedDescription)")
        }
      }
      let path = file.path + ".lock"
      let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
      guard descriptor >= 0 else {
        throw Failure("Cannot open the lock file '\(path)': \(String(cString: strerror(errno)))")
      }
      while flock(descriptor, LOCK_EX) != 0 {
        guard errno == EINTR else {
          let reason = String(cString: strerror(errno))
          close(descriptor)
          throw Failure("Cannot lock '\(path)': \(reason)")
        }
      }
      return SuiteLock(descriptor: descriptor)
    #endif
  }

  private init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  deinit {
    // Closing the descriptor releases the lock.
    close(descriptor)
  }
}
