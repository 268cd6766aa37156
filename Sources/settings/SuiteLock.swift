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
///
/// Now that `UserDefaultsBackend` saves suites itself on Linux (atomically, under `flock` on that
/// same lock file, merging with other processes by key), `settings` no longer takes the lock:
/// ``acquire(for:creatingFolder:)`` only creates the folder and returns `nil`.
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
      // UserDefaultsBackend now takes this same lock itself around each save and merges with
      // other processes by key, so `settings` takes no lock of its own (flock on a second
      // descriptor of the lock file would wait for this process's own lock forever).
      return nil
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
