import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Watches one folder for changes to some of the files in it, by name (or to any of them), and
/// tells its owner on a private serial queue.
///
/// The folder is watched, not the files: a save by atomic rename replaces a file's inode, so a
/// watch on the file itself would go deaf after the first save, and a file that doesn't exist
/// yet can't be watched at all. On Linux the watch is an inotify watch (`IN_CLOSE_WRITE`,
/// `IN_MOVED_TO`, `IN_MOVED_FROM`, `IN_CREATE`, `IN_DELETE`, `IN_ATTRIB`, filtered by name) on the
/// process's one shared inotify instance (``SharedInotify``, read through
/// `DispatchSource.makeReadSource`), so hundreds of watchers cost one descriptor; on Apple
/// platforms a `DispatchSource.makeFileSystemObjectSource` on the folder
/// (``FolderDescriptorWatch``), which says only that the folder changed, so the named files'
/// identities (device, inode, size, modification time) are compared to tell which. That watch's
/// logic is compiled everywhere and tested on Linux through fake system calls
/// (`descriptorWatch:`); only the calls themselves are Apple's.
///
/// - **Coalescing.** Events arriving within ``coalescingInterval`` of the first are delivered
///   as one ``Event/changed(_:)`` naming every file involved, except that a file a writer
///   finished (on Linux `IN_CLOSE_WRITE`, or `IN_MOVED_TO`: renamed into place, the last step of
///   an atomic save) is delivered at once, with whatever is pending: its contents are complete,
///   and waiting would only add the window to every change's latency. The steps an editor adds
///   around its save (a backup renamed away, a `chmod` after the rename) arrive as other events,
///   coalesced as before, and an owner that compares contents (every store) finds nothing more
///   changed when it reads the file again.
/// - **Arming can fail** (the folder is missing or unreadable; on Linux, the inotify limits
///   `fs.inotify.max_user_instances` or `fs.inotify.max_user_watches` are reached). The failure
///   is delivered once as ``Event/armingFailed(_:)`` (again only if the reason changes), and the
///   watcher falls back to polling: it retries arming after ``firstRetryInterval``, doubling the
///   interval up to ``maximumRetryInterval``, and on each attempt compares the files' identities
///   to what it saw last, reporting those that differ. Nothing blocks or hangs.
/// - **A folder removed, moved or unmounted** (`IN_DELETE_SELF`, `IN_MOVE_SELF`, `IN_IGNORED`)
///   disarms the watch, reports every file as changed, and retries arming as above, so a folder
///   recreated later is watched again.
/// - After every successful arming, every file is reported as changed once, so that a change
///   made while the watch was being set up (or was down) is not missed. Owners must tolerate a
///   report of a file that didn't change.
/// - **Every name.** Made with `names: nil`, the watcher reports every entry of the folder (a
///   folder of one file per key, `DirectorySource`): "every file" above is then each entry the
///   folder holds as the watcher looks, and each it held when last looked at (so that a removal
///   is reported once).
///
/// ``stop()`` (also run at deinit) cancels the watch and every retry, and releases the watch (on
/// Apple platforms closes its descriptor; on Linux removes it, the shared descriptor being closed
/// with the last watch);
/// a delivery already under way on the queue may finish, but none starts after the watcher saw
/// the stop.
package final class FileWatcher: Sendable {
  /// What a watcher delivers.
  package enum Event: Sendable, Equatable {
    /// These files (by name) may have changed: written, replaced, created or removed.
    case changed(Set<String>)
    /// The watch couldn't be armed, for this reason; the watcher polls until it can be.
    case armingFailed(String)
  }

  /// How long events no writer finished are gathered before they are delivered, in seconds, by
  /// default.
  static let coalescingInterval = 0.02
  /// The first wait before arming is retried, in seconds.
  static let firstRetryInterval = 0.05
  /// The longest wait between attempts to arm (and polls of the files), in seconds.
  static let maximumRetryInterval = 1.0

  /// The folder watched.
  let folder: URL
  /// The names of the files in it that are reported; `nil`: every entry of the folder.
  let names: Set<String>?

  /// How long events no writer finished are gathered before they are delivered, in seconds.
  private let coalescingInterval: Double
  private let queue: DispatchQueue
  private let handler: @Sendable (Event) -> Void
  private let state: Locked<State>
  // The test hooks `openWatches`, `simulatedArmingError`, `isArmed` and `isRetrying` stay in the
  // type: they read or steer its private state and the system calls arming makes, which no seam
  // outside it reaches without making that state internal; they cost a counter and a nil check.
  /// The number of watches the watcher holds (0 or 1; on Apple platforms each holds a
  /// descriptor), for tests.
  let openWatches = Locked(0)
  /// For tests: the error every attempt to arm fails with, as if the system had returned it.
  private let simulatedArmingError: Int32?
  /// For tests: the calls that arm the watch Apple platforms use, in place of the system's
  /// watch; `nil` for the system's.
  private let descriptorWatch: FolderDescriptorWatch?

  /// Everything that changes, guarded by `state`'s lock.
  private struct State: @unchecked Sendable {
    // @unchecked Sendable: the timer it holds is created and stored under the lock; it is
    // configured, resumed (`scheduleRetry`) and cancelled outside it, which is safe because
    // dispatch sources are thread-safe, and the `Armed` watch is itself Sendable.
    var stopped = false
    /// The armed watch, if any.
    var source: Armed?
    /// The timer retrying arming and polling the files while the watch isn't armed.
    var retry: (any DispatchSourceTimer)?
    var retryInterval = FileWatcher.firstRetryInterval
    /// Names seen changed but not yet delivered.
    var pending: Set<String> = []
    var deliveryScheduled = false
    /// The files' identities as last seen (by polling or comparing), by name; a file missing
    /// when last seen has none.
    var identities: [String: FileIdentity] = [:]
    /// The last failure delivered, so that each is delivered once.
    var lastProblem: String?
  }

  /// Starts watching: arms the watch before returning (or reports why it can't and starts
  /// retrying).
  ///
  /// - Parameters:
  ///   - folder: The folder holding the files; it need not exist.
  ///   - names: The names of the files to report; they need not exist. `nil` reports every
  ///     entry of the folder, whatever its name.
  ///   - simulatedArmingError: For tests: an `errno` value every attempt to arm fails with (on
  ///     Linux as from `inotify_init1`), so that the polling fallback can be exercised.
  ///   - coalescingInterval: How long events no writer finished are gathered, in seconds;
  ///     ``coalescingInterval`` by default (tests set others).
  ///   - descriptorWatch: For tests: arms the watch Apple platforms use (a source on the
  ///     folder's descriptor) through these calls, instead of the system's watch; `nil` (the
  ///     default) for the system's.
  ///   - handler: Called on the watcher's serial queue with each event; calls never overlap.
  package init(
    folder: URL, names: Set<String>?, simulatedArmingError: Int32? = nil,
    coalescingInterval: Double = FileWatcher.coalescingInterval,
    descriptorWatch: FolderDescriptorWatch? = nil,
    handler: @escaping @Sendable (Event) -> Void
  ) {
    self.simulatedArmingError = simulatedArmingError
    self.descriptorWatch = descriptorWatch
    self.coalescingInterval = coalescingInterval
    self.folder = folder.standardizedFileURL
    self.names = names
    self.handler = handler
    self.queue = DispatchQueue(label: "TypedDefaults.FileWatcher(\(folder.path))")
    var initial = State()
    for name in names ?? Self.entries(of: self.folder) {
      initial.identities[name] = POSIX.identity(
        ofFileAt: self.folder.appendingPathComponent(name).path)
    }
    self.state = Locked(initial)
    queue.sync { armOrRetry() }
  }

  deinit {
    stop()
  }

  /// Whether the watch is armed now (rather than polling), for tests.
  var isArmed: Bool {
    state.withLock { $0.source != nil }
  }

  /// Whether the watcher is polling and retrying to arm, for tests.
  var isRetrying: Bool {
    state.withLock { $0.retry != nil }
  }

  /// Stops watching: cancels the watch and any retry, and closes the descriptor.
  ///
  /// Safe from any thread, also from inside the handler; stopping twice does nothing more.
  package func stop() {
    let (source, retry) = state.withLock { state in
      state.stopped = true
      defer { (state.source, state.retry) = (nil, nil) }
      return (state.source, state.retry)
    }
    source?.cancel()
    retry?.cancel()
  }

  // MARK: - Arming (on the queue)

  /// Arms the watch; on failure reports it (once) and schedules a retry.
  private func armOrRetry() {
    if state.withLock({ $0.stopped }) { return }
    switch arm() {
    case .success(let source):
      let installed = state.withLock { state -> Bool in
        guard !state.stopped else { return false }
        state.source = source
        state.lastProblem = nil
        state.retryInterval = Self.firstRetryInterval
        return true
      }
      if installed {
        source.resume()
        // Whatever happened before the watch was in place.
        note(watchedNames())
      } else {
        source.resume()
        source.cancel()
      }
    case .failure(let problem):
      let report = state.withLock { state -> Bool in
        defer { state.lastProblem = problem.reason }
        return state.lastProblem != problem.reason && !state.stopped
      }
      if report { handler(.armingFailed(problem.reason)) }
      scheduleRetry()
    }
  }

  /// Disarms after the folder went away, reports every file, and retries arming.
  private func folderWentAway() {
    let source = state.withLock { state in
      defer { state.source = nil }
      return state.source
    }
    source?.cancel()
    note(watchedNames())
    scheduleRetry()
  }

  private func scheduleRetry() {
    let timer = state.withLock { state -> (any DispatchSourceTimer)? in
      guard !state.stopped, state.retry == nil else { return nil }
      let timer = DispatchSource.makeTimerSource(queue: queue)
      state.retry = timer
      return timer
    }
    guard let timer else { return }
    timer.setEventHandler { [weak self] in self?.retryFired() }
    let interval = state.withLock { $0.retryInterval }
    timer.schedule(deadline: .now() + interval)
    timer.resume()
  }

  private func retryFired() {
    let timer = state.withLock { state in
      defer {
        state.retry = nil
        state.retryInterval = min(state.retryInterval * 2, Self.maximumRetryInterval)
      }
      return state.retry
    }
    timer?.cancel()
    pollIdentities()
    armOrRetry()
  }

  /// Notes the files whose identity changed since last seen.
  private func pollIdentities() {
    var changed: Set<String> = []
    for name in watchedNames() {
      let identity = POSIX.identity(ofFileAt: folder.appendingPathComponent(name).path)
      state.withLock { state in
        if state.identities[name] != identity {
          state.identities[name] = identity
          changed.insert(name)
        }
      }
    }
    note(changed)
  }

  /// The names reported when any file may have changed: ``names``, or (watching every name) the
  /// folder's entries now and those it had when last looked at.
  private func watchedNames() -> Set<String> {
    if let names { return names }
    return Self.entries(of: folder).union(state.withLock { $0.identities.keys })
  }

  /// The names of a folder's entries; none if it can't be listed.
  private static func entries(of folder: URL) -> Set<String> {
    Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
  }

  /// Adds names to the pending delivery, scheduling it if none is.
  ///
  /// - Parameters:
  ///   - changed: The names seen changed.
  ///   - finished: Whether a writer finished one of them (closed it after writing, or renamed
  ///     it into place): then the pending names are delivered at once, with no coalescing
  ///     window, a scheduled delivery finding nothing left to deliver.
  private func note(_ changed: Set<String>, finished: Bool = false) {
    guard !changed.isEmpty else { return }
    let schedule = state.withLock { state -> Bool in
      state.pending.formUnion(changed)
      defer { state.deliveryScheduled = true }
      return (finished || !state.deliveryScheduled) && !state.stopped
    }
    guard schedule else { return }
    // Every delivery takes all pending names and clears `deliveryScheduled` in one step under
    // the lock, so names noted afterwards schedule a delivery of their own: none is left behind.
    if finished {
      queue.async { [weak self] in self?.deliver() }
    } else {
      queue.asyncAfter(deadline: .now() + coalescingInterval) { [weak self] in
        self?.deliver()
      }
    }
  }

  private func deliver() {
    let pending = state.withLock { state -> Set<String>? in
      defer {
        state.pending = []
        state.deliveryScheduled = false
      }
      return state.stopped ? nil : state.pending
    }
    guard let pending, !pending.isEmpty else { return }
    // Keep the identities current, so a later poll reports only later changes.
    for name in pending {
      let identity = POSIX.identity(ofFileAt: folder.appendingPathComponent(name).path)
      state.withLock { $0.identities[name] = identity }
    }
    handler(.changed(pending))
  }

  /// Why arming failed.
  struct ArmingFailure: Error {
    var reason: String
  }

  /// An armed watch: resumed once installed, cancelled once when disarmed (which closes or
  /// releases what it holds).
  private struct Armed: @unchecked Sendable {
    // @unchecked Sendable: `resume` and `cancel` are a dispatch source's (thread-safe) or the
    // shared inotify instance's (locked).
    /// The inotify watch descriptor, or -1.
    var watch: Int32
    var resume: () -> Void
    var cancel: () -> Void
  }

  /// Arms the watch: the one ``descriptorWatch`` makes (tests), or the system's (inotify on
  /// Linux, a source on the folder's descriptor on Apple platforms).
  private func arm() -> Result<Armed, ArmingFailure> {
    if let descriptorWatch { return arm(through: descriptorWatch) }
    #if os(Linux)
      return armInotify()
    #elseif canImport(Darwin)
      return arm(through: .system)
    #else
      return .failure(
        ArmingFailure(reason: "can't watch \(folder.path): not supported on this platform"))
    #endif
  }

  /// Opens the folder for events and makes a source on its descriptor (not resumed), with
  /// `watch`'s calls: the watch of Apple platforms.
  ///
  /// The descriptor is counted in ``openWatches`` from its opening to the source's cancel
  /// handler, which closes it.
  private func arm(through watch: FolderDescriptorWatch) -> Result<Armed, ArmingFailure> {
    let descriptor = simulatedArmingError == nil ? watch.openFolder(folder.path) : -1
    guard descriptor >= 0 else {
      let code = simulatedArmingError ?? errno
      return .failure(
        ArmingFailure(
          reason: FolderDescriptorWatch.openFailureReason(folder: folder.path, code: code)))
    }
    openWatches.withLock { $0 += 1 }
    let source = watch.makeSource(
      descriptor, queue,
      { [weak self] event in self?.receivedFolderEvent(event) },
      { [openWatches] in
        watch.closeDescriptor(descriptor)
        openWatches.withLock { $0 -= 1 }
      })
    return .success(Armed(watch: -1, resume: source.resume, cancel: source.cancel))
  }

  /// Takes in an event of the folder's descriptor source (on the queue): the folder went away,
  /// or some entry changed and the files' identities tell which.
  private func receivedFolderEvent(_ event: DispatchSource.FileSystemEvent) {
    switch FolderDescriptorWatch.response(to: event) {
    case .rearm: folderWentAway()
    case .compareFiles: pollIdentities()
    }
  }

  #if os(Linux)
    /// Adds a watch of the folder to the process's shared inotify instance.
    private func armInotify() -> Result<Armed, ArmingFailure> {
      let identifier = ObjectIdentifier(self)
      let added = SharedInotify.shared.addWatch(
        folder.path, for: identifier, simulatedError: simulatedArmingError
      ) { [weak self] watch, names, finished, wentAway in
        self?.received(names, finished: finished, wentAway: wentAway, watch: watch)
      }
      switch added {
      case .failure(let failure):
        return .failure(ArmingFailure(reason: "can't watch \(folder.path): \(failure.reason)"))
      case .success(let watch):
        openWatches.withLock { $0 += 1 }
        return .success(
          Armed(
            watch: watch, resume: {},
            cancel: { [openWatches] in
              SharedInotify.shared.removeWatch(watch, for: identifier)
              openWatches.withLock { $0 -= 1 }
            }))
      }
    }

    /// Takes in what the shared instance read for this watcher's watch, unless the watcher has
    /// disarmed (and maybe re-armed) since.
    private func received(
      _ seen: Set<String>?, finished: Set<String>, wentAway: Bool, watch: Int32
    ) {
      queue.async { [weak self] in
        guard let self, self.state.withLock({ $0.source?.watch }) == watch else { return }
        let names = self.names
        let changed =
          seen.map { seen in names.map { seen.intersection($0) } ?? seen } ?? self.watchedNames()
        self.note(changed, finished: !changed.isDisjoint(with: finished))
        if wentAway { self.folderWentAway() }
      }
    }
  #endif
}
