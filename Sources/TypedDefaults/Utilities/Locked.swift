import Foundation

/// A value guarded by a lock; every access goes through ``withLock(_:)``.
///
/// Built on `NSLock` (a pthread mutex on Linux) rather than `Synchronization.Mutex`: on Linux,
/// `Mutex` uses futexes that ThreadSanitizer cannot see, so it reports correct code as racy, while
/// a pthread mutex is understood by TSan. Uncontended, the two cost about the same (see "Locks" in
/// Docs/Design.md).
///
/// The value lives in memory the class allocates itself rather than in a stored property, so
/// that reaching it inside the lock costs no dynamic exclusivity check (the lock already
/// guarantees exclusive access).
///
/// Don't make `State` a bare function type (or an optional one): passed `inout` to the generic
/// body, a function is converted to the generic representation and back, and what is written
/// back is the old function wrapped in a reabstraction thunk, one more on every access, until a
/// call through it overflows the stack. Hold it as a field of a struct, which keeps its own
/// representation (`SettingsDiagnostics.HandlerBox`; `LockedTests` pins it).
@usableFromInline
package final class Locked<State> {
  @usableFromInline let lock = NSLock()
  @usableFromInline let state: UnsafeMutablePointer<State>

  @usableFromInline
  package init(_ state: State) {
    self.state = .allocate(capacity: 1)
    self.state.initialize(to: state)
  }

  deinit {
    state.deinitialize(count: 1)
    state.deallocate()
  }

  /// Runs `body` with exclusive access to the state.
  @inlinable
  package func withLock<Result, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state.pointee)
  }
}

// @unchecked Sendable: the state is only read or written while `lock` is held.
extension Locked: @unchecked Sendable where State: Sendable {}
