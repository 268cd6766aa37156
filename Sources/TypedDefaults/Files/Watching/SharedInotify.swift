#if os(Linux)
  import Dispatch
  import Foundation
  import Glibc

  /// One inotify instance for the whole process, shared by every ``FileWatcher``: a user has
  /// only `fs.inotify.max_user_instances` instances (128 by default) across all their processes,
  /// while watches (`fs.inotify.max_user_watches`) are plentiful, so a process with hundreds of
  /// watching stores uses one instance and one descriptor.
  ///
  /// The descriptor is opened with the first watch and closed when the last one is removed.
  ///
  /// Watches of one folder by several watchers share the kernel's watch descriptor, which is
  /// removed when the last of them is.
  final class SharedInotify: Sendable {
    /// What a watcher is told of its watch (by its descriptor): the names of the files events
    /// named (`nil`: the queue overflowed, so any file may have changed), those of them that a
    /// writer finished (`IN_CLOSE_WRITE`, or `IN_MOVED_TO`: renamed into place, the last step of
    /// an atomic save), and whether the folder went away (removed, moved or unmounted: the watch
    /// is gone).
    typealias Delivery =
      @Sendable (
        _ watch: Int32, _ names: Set<String>?, _ finished: Set<String>, _ wentAway: Bool
      ) -> Void

    /// The process's instance.
    static let shared = SharedInotify()

    /// The events every watch asks for.
    static let mask =
      UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM) | UInt32(IN_CREATE)
      | UInt32(IN_DELETE) | UInt32(IN_ATTRIB) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)
      | UInt32(IN_ONLYDIR)

    private let queue = DispatchQueue(label: "TypedDefaults.SharedInotify")
    private let state = Locked(State())

    private struct State: @unchecked Sendable {
      // @unchecked Sendable: the read source is only touched under the lock.
      var descriptor: Int32 = -1
      var source: (any DispatchSourceRead)?
      /// The watchers of each kernel watch descriptor.
      var watches: [Int32: [ObjectIdentifier: Delivery]] = [:]
    }

    /// Watches a folder for a watcher.
    ///
    /// - Returns: The watch descriptor, or why the watch can't be set up.
    func addWatch(
      _ path: String, for watcher: ObjectIdentifier, simulatedError: Int32?,
      delivery: @escaping Delivery
    ) -> Result<Int32, FileWatcher.ArmingFailure> {
      // A simulated failure is one of inotify_init1, whether or not the instance is open.
      if let simulatedError { return .failure(Self.initFailure(simulatedError)) }
      return state.withLock { state in
        if state.descriptor < 0 {
          let descriptor = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
          guard descriptor >= 0 else { return .failure(Self.initFailure(errno)) }
          let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
          source.setEventHandler { [weak self] in self?.readEvents(from: descriptor) }
          source.setCancelHandler { close(descriptor) }
          source.resume()
          state.descriptor = descriptor
          state.source = source
        }
        let watch = inotify_add_watch(state.descriptor, path, Self.mask)
        guard watch >= 0 else {
          let code = errno
          var reason = String(cString: strerror(code))
          switch code {
          case ENOENT: reason = "the folder doesn't exist"
          case ENOTDIR: reason = "it is not a folder"
          case ENOSPC:
            reason +=
              " (the per-user limit of inotify watches, sysctl fs.inotify.max_user_watches,"
              + " is reached)"
          default: break
          }
          Self.closeIfUnused(&state)
          return .failure(FileWatcher.ArmingFailure(reason: reason))
        }
        state.watches[watch, default: [:]][watcher] = delivery
        return .success(watch)
      }
    }

    /// Removes a watcher's watch; the kernel's watch goes with its last watcher, and the
    /// descriptor with the last watch.
    func removeWatch(_ watch: Int32, for watcher: ObjectIdentifier) {
      state.withLock { state in
        guard state.watches[watch]?.removeValue(forKey: watcher) != nil else { return }
        if state.watches[watch]?.isEmpty == true {
          state.watches[watch] = nil
          inotify_rm_watch(state.descriptor, watch)
        }
        Self.closeIfUnused(&state)
      }
    }

    private static func initFailure(_ code: Int32) -> FileWatcher.ArmingFailure {
      var reason = "inotify_init1 failed: \(String(cString: strerror(code)))"
      if code == EMFILE {
        reason +=
          " (the per-user limit of inotify instances, sysctl fs.inotify.max_user_instances"
          + ", or of open files is reached)"
      }
      return FileWatcher.ArmingFailure(reason: reason)
    }

    private static func closeIfUnused(_ state: inout State) {
      guard state.watches.isEmpty, let source = state.source else { return }
      source.cancel()  // closes the descriptor
      state.source = nil
      state.descriptor = -1
    }

    /// Reads every waiting event and tells each watch's watchers.
    private func readEvents(from descriptor: Int32) {
      let capacity = 16 * 1024
      let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
      defer { buffer.deallocate() }
      var names: [Int32: Set<String>] = [:]
      var finished: [Int32: Set<String>] = [:]
      var gone: Set<Int32> = []
      var overflowed = false
      while true {
        let count = read(descriptor, buffer, capacity)
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { break }
        var offset = 0
        let headerSize = MemoryLayout<inotify_event>.size
        while offset + headerSize <= count {
          let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
          let nameLength = Int(event.len)
          let selfGone = UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_IGNORED)
          if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
            overflowed = true
          } else if event.mask & selfGone != 0 {
            gone.insert(event.wd)
          } else if nameLength > 0 {
            let start = buffer.advanced(by: offset + headerSize).assumingMemoryBound(to: CChar.self)
            let name = String(cString: start)
            names[event.wd, default: []].insert(name)
            if event.mask & (UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO)) != 0 {
              finished[event.wd, default: []].insert(name)
            }
          }
          offset += headerSize + nameLength
        }
      }
      typealias Pending = (Delivery, Int32, Set<String>?, Set<String>, Bool)
      let deliveries = state.withLock { state -> [Pending] in
        guard state.descriptor == descriptor else { return [] }
        var deliveries: [Pending] = []
        for (watch, watchers) in state.watches {
          let wentAway = gone.contains(watch)
          let seen: Set<String>? = overflowed ? nil : names[watch] ?? []
          guard wentAway || seen?.isEmpty != true else { continue }
          let done = finished[watch] ?? []
          for delivery in watchers.values {
            deliveries.append((delivery, watch, seen, done, wentAway))
          }
        }
        return deliveries
      }
      for (delivery, watch, seen, done, wentAway) in deliveries {
        delivery(watch, seen, done, wentAway)
      }
    }
  }
#endif
