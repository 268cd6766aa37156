#if canImport(Darwin)
  import Darwin
  import Dispatch

  extension FolderDescriptorWatch {
    /// The system's calls: `open(O_EVTONLY)`, `DispatchSource.makeFileSystemObjectSource` and
    /// `close` (Apple platforms only; the logic around them is ``FileWatcher``'s, tested on
    /// Linux with fakes).
    static let system = FolderDescriptorWatch(
      openFolder: { path in open(path, O_EVTONLY) },
      makeSource: { descriptor, queue, events, cancelled in
        let box = DispatchSourceBox(
          DispatchSource.makeFileSystemObjectSource(
            fileDescriptor: descriptor, eventMask: FolderDescriptorWatch.eventMask, queue: queue))
        // Weak: the source holds its handler, and the watcher's `Source` holds the box.
        box.source.setEventHandler { [weak box] in
          if let box { events(box.source.data) }
        }
        box.source.setCancelHandler { cancelled() }
        return Source(resume: { box.source.resume() }, cancel: { box.source.cancel() })
      },
      closeDescriptor: { descriptor in _ = close(descriptor) })
  }

  /// A dispatch source, for the `Sendable` closures of a ``FolderDescriptorWatch/Source``.
  // @unchecked Sendable: the reference is immutable, and a dispatch source is thread-safe (its
  // resume, cancel and handler setters may be called from any thread).
  private final class DispatchSourceBox: @unchecked Sendable {
    let source: any DispatchSourceFileSystemObject
    init(_ source: any DispatchSourceFileSystemObject) { self.source = source }
  }
#endif
