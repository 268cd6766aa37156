import Synchronization

/// The flag behind ``BackendOverride/mayBeActive``, in a class because `Atomic` needs a fixed
/// address and, on Apple platforms, a system that has it.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
@usableFromInline
final class InstalledFlag: Sendable {
  @usableFromInline let flag = Atomic<Bool>(false)

  @inlinable
  var isSet: Bool { flag.load(ordering: .relaxed) }

  func set() { flag.store(true, ordering: .relaxed) }
}

/// The one ``InstalledFlag`` of the process (`nil` only on systems without `Atomic`).
@usableFromInline
let installedFlag: (any AnyObject & Sendable)? = {
  if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
    return InstalledFlag()
  }
  return nil
}()

/// The flag on systems without `Atomic` (macOS 13 and 14, iOS 16 and 17 and their
/// contemporaries): a plain Boolean.
// nonisolated(unsafe): written once, from false to true, by the task installing the first
// override, before it sets the task-local value; that task, and every child task (created after
// the store, which orders it after the store), reads true. A reader on another thread that still
// sees false runs in a task with no override, for which false is the right answer. Used only where
// `Atomic` is unavailable; the sanitizer runs on Linux, which uses the atomic flag.
@usableFromInline nonisolated(unsafe) var legacyInstalledFlag = false
