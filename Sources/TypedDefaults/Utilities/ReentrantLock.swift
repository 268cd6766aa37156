import Foundation

/// A lock that the thread holding it may take again, and that tells each acquisition whether it
/// is the thread's outermost one: the registry's ordering lock, which a write holds while it may
/// call code (a diagnostics handler, a backend's own `setValue`) that writes or reports again.
// @unchecked Sendable: `owner` and `depth` are read and written only while `condition` is locked.
package final class ReentrantLock: @unchecked Sendable {
  private let condition = NSCondition()
  private var owner: pthread_t?
  private var depth = 0

  /// An unlocked lock.
  package init() {}

  /// Waits until no other thread holds the lock, takes it, and returns whether this thread
  /// didn't hold it already.
  package func lock() -> Bool {
    let thread = pthread_self()
    condition.lock()
    defer { condition.unlock() }
    if let owner, pthread_equal(owner, thread) != 0 {
      depth += 1
      return false
    }
    while owner != nil { condition.wait() }
    owner = thread
    depth = 1
    return true
  }

  /// Releases one acquisition.
  package func unlock() {
    condition.lock()
    defer { condition.unlock() }
    depth -= 1
    if depth == 0 {
      owner = nil
      condition.signal()
    }
  }
}
