import Dispatch
import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// The watch Apple platforms arm (a dispatch source on the folder's descriptor), run on Linux:
/// `FileWatcher` takes its three system calls as a value (`FolderDescriptorWatch`), and these
/// tests give it fakes whose events they fire by hand, so that everything but the calls
/// themselves (`open(O_EVTONLY)`, `makeFileSystemObjectSource`, `close`) is checked here.
@Suite struct FileWatcherDescriptorWatchTests {
  // MARK: - What an event means, what a failure says

  @Test func anEventNamingTheFolderItselfRearmsAndAnyOtherComparesTheFiles() {
    typealias Event = DispatchSource.FileSystemEvent
    let rearming: [Event] = [.delete, .rename, .revoke, [.write, .delete], [.rename, .revoke]]
    for event in rearming {
      #expect(FolderDescriptorWatch.response(to: event) == .rearm, "\(event.rawValue)")
    }
    let comparing: [Event] = [.write, [], .extend, .attrib, .link, [.write, .attrib]]
    for event in comparing {
      #expect(FolderDescriptorWatch.response(to: event) == .compareFiles, "\(event.rawValue)")
    }
    #expect(FolderDescriptorWatch.eventMask == [.write, .delete, .rename, .revoke])
  }

  @Test func aFolderThatCannotBeOpenedIsReportedInTheWordsEveryPlatformUses() {
    #expect(
      FolderDescriptorWatch.openFailureReason(folder: "/x/y", code: ENOENT)
        == "can't watch /x/y: the folder doesn't exist")
    #expect(
      FolderDescriptorWatch.openFailureReason(folder: "/x/y", code: EACCES)
        == "can't watch /x/y: \(String(cString: strerror(EACCES)))")
  }

  // MARK: - A watcher armed through the descriptor watch

  @Test func aWriteEventReportsExactlyTheFilesWhoseIdentityChanged() async throws {
    let directory = try TemporaryDirectory()
    try Data("0".utf8).write(to: directory.file("a.plist"))
    let fake = FakeFolderWatch()
    let events = Received<FileWatcher.Event>()
    let watcher = FileWatcher(
      folder: directory.url, names: ["a.plist", "b.plist"], coalescingInterval: 0,
      descriptorWatch: fake.calls
    ) { events.append($0) }
    defer { watcher.stop() }
    #expect(watcher.isArmed)
    #expect(fake.opened == [directory.url.standardizedFileURL.path])
    #expect(watcher.openWatches.withLock { $0 } == 1)
    #expect(fake.resumed == 1)
    // The report every arming makes.
    await eventually("the first report") { events.count == 1 }
    #expect(events.all == [.changed(["a.plist", "b.plist"])])

    try Data("1".utf8).write(to: directory.file("b.plist"))
    fake.fire(.write)
    await eventually("b.plist reported") { events.count == 2 }
    // A write event after which no watched file changed reports nothing: the next report names
    // only the file changed after it.
    fake.fire(.write)
    fake.drain()
    #expect(events.count == 2)
    try Data("22".utf8).write(to: directory.file("a.plist"))
    fake.fire([.write, .attrib])
    await eventually("a.plist reported") { events.count == 3 }
    #expect(
      events.all == [
        .changed(["a.plist", "b.plist"]), .changed(["b.plist"]), .changed(["a.plist"]),
      ]
    )
  }

  @Test func theFolderGoingAwayClosesTheDescriptorReportsEveryFileAndArmsAgain() async throws {
    let directory = try TemporaryDirectory()
    let fake = FakeFolderWatch()
    let events = Received<FileWatcher.Event>()
    let watcher = FileWatcher(
      folder: directory.url, names: ["a.plist"], coalescingInterval: 0,
      descriptorWatch: fake.calls
    ) { events.append($0) }
    await eventually("the first report") { events.count == 1 }

    fake.fire(.delete)
    // Disarmed (its descriptor closed), every file reported, then armed again by the retry.
    await eventually("the first descriptor closed") { fake.closed.count == 1 }
    await eventually("a second report") { events.count >= 2 }
    await eventually("armed again") { fake.opened.count == 2 && watcher.isArmed }
    #expect(fake.closed == [fake.descriptors[0]])
    #expect(watcher.openWatches.withLock { $0 } == 1)
    #expect(events.all.allSatisfy { $0 == .changed(["a.plist"]) })

    watcher.stop()
    await eventually("the second descriptor closed") { fake.closed.count == 2 }
    #expect(fake.closed == fake.descriptors)
    #expect(watcher.openWatches.withLock { $0 } == 0)
    #expect(!watcher.isArmed && !watcher.isRetrying)
  }

  @Test func aFolderThatCannotBeOpenedIsReportedOnceAndPolled() async throws {
    let directory = try TemporaryDirectory()
    let fake = FakeFolderWatch(failingWith: ENOENT)
    let events = Received<FileWatcher.Event>()
    let watcher = FileWatcher(
      folder: directory.url, names: ["a.plist"], coalescingInterval: 0,
      descriptorWatch: fake.calls
    ) { events.append($0) }
    defer { watcher.stop() }
    #expect(!watcher.isArmed && watcher.isRetrying)
    let path = directory.url.standardizedFileURL.path
    #expect(events.all == [.armingFailed("can't watch \(path): the folder doesn't exist")])
    #expect(watcher.openWatches.withLock { $0 } == 0)
    // Polling sees a file created meanwhile; the failure isn't reported again.
    try Data("1".utf8).write(to: directory.file("a.plist"))
    await eventually("polling reports a.plist") { events.all.contains(.changed(["a.plist"])) }
    #expect(events.all.filter { $0 != .changed(["a.plist"]) }.count == 1)
    #expect(fake.opened.count >= 2)
    #expect(fake.closed.isEmpty)
  }
}

/// Fake system calls of a ``FolderDescriptorWatch``: descriptors are numbers from 1000, and
/// each source delivers the events the test fires, on the watcher's queue, as a dispatch source
/// does (none after it is cancelled; the cancel handler once, on the queue).
final class FakeFolderWatch: Sendable {
  private struct Source {
    var descriptor: Int32
    var queue: DispatchQueue
    var events: @Sendable (DispatchSource.FileSystemEvent) -> Void
    var cancelled: @Sendable () -> Void
    var isCancelled = false
  }
  private struct State {
    var opened: [String] = []
    var descriptors: [Int32] = []
    var closed: [Int32] = []
    var resumed = 0
    var sources: [Source] = []
  }
  private let state = Locked(State())
  private let failure: Int32?

  /// - Parameter failure: The `errno` every open fails with; `nil` for opens that succeed.
  init(failingWith failure: Int32? = nil) { self.failure = failure }

  var opened: [String] { state.withLock { $0.opened } }
  var descriptors: [Int32] { state.withLock { $0.descriptors } }
  var closed: [Int32] { state.withLock { $0.closed } }
  var resumed: Int { state.withLock { $0.resumed } }

  var calls: FolderDescriptorWatch {
    FolderDescriptorWatch(
      openFolder: { [self] path in
        let descriptor = state.withLock { state -> Int32 in
          state.opened.append(path)
          guard failure == nil else { return -1 }
          let descriptor = Int32(1000 + state.descriptors.count)
          state.descriptors.append(descriptor)
          return descriptor
        }
        if let failure { errno = failure }
        return descriptor
      },
      makeSource: { [self] descriptor, queue, events, cancelled in
        let index = state.withLock { state -> Int in
          state.sources.append(
            Source(descriptor: descriptor, queue: queue, events: events, cancelled: cancelled))
          return state.sources.count - 1
        }
        return FolderDescriptorWatch.Source(
          resume: { [self] in state.withLock { $0.resumed += 1 } },
          cancel: { [self] in
            let source = state.withLock { state -> Source? in
              guard !state.sources[index].isCancelled else { return nil }
              state.sources[index].isCancelled = true
              return state.sources[index]
            }
            if let source { source.queue.async { source.cancelled() } }
          })
      },
      closeDescriptor: { [self] descriptor in state.withLock { $0.closed.append(descriptor) } })
  }

  /// Delivers `event` to the newest source, on its queue, unless it was cancelled by then.
  func fire(_ event: DispatchSource.FileSystemEvent) {
    guard
      let (index, queue) = state.withLock({ state in
        state.sources.indices.last.map { ($0, state.sources[$0].queue) }
      })
    else { return }
    let raw = event.rawValue
    queue.async { [self] in
      let source = state.withLock { $0.sources[index] }
      if !source.isCancelled { source.events(DispatchSource.FileSystemEvent(rawValue: raw)) }
    }
  }

  /// Waits until the newest source's queue has run what was queued on it (the events fired).
  func drain() {
    state.withLock { $0.sources.last?.queue }?.sync {}
  }
}
