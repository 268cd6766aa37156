import Foundation
import Synchronization
import TypedDefaults
import TypedDefaultsLayers

#if os(Linux)
  import Glibc
#endif

/// From a save in one process to the event in another process whose store watches the file
/// (`LayeredPlistStore.startWatching()`), against a raw inotify watcher of the same folder that
/// reads and decodes the file (Linux): median and 99th percentile over a number of saves each.
///
/// The child (this executable with `--child save-each-acknowledged <data.plist>`) sets `k` to 1,
/// 2, 3… and saves each, printing `<value> <uptime ns as save() was called> <uptime ns when it
/// returned>`; it waits for a line on standard input before the next save, so every save is seen
/// on its own and none is coalesced with the next. The saves go in blocks of five, alternately to
/// the watching store and to the raw watcher (the other one not watching), so that drifts in the
/// machine's speed affect both alike.
///
/// The clocks compared: the child's timestamps and the parent's are all
/// `DispatchTime.now().uptimeNanoseconds`, which is `clock_gettime(CLOCK_MONOTONIC)` on Linux and
/// `mach_absolute_time()` on Apple platforms: one clock for every process of the machine, so
/// they can be subtracted. The latency is measured from the call of `save()`, so it includes the
/// save itself (encoding, the fsync'd write, the rename), the same for both watchers: the
/// timestamp after `save()` returned comes after the rename the watchers see and after what
/// `save()` does once the file is in place (its file lock, its bookkeeping), and the raw watcher
/// has mostly read and decoded the file by then (on two cores, the child loses its core to it). A difference is taken signed
/// (`Int64`); one below 0 (an event timed before the save was called: none is expected) is
/// recorded as 0 and counted in a figure of its own, never wrapped around as unsigned (an earlier
/// version, measuring from the end of `save()`, printed a p99 of 18,446,744,073,709,148 µs).
enum CrossProcessLatency {
  static let task = "save-each-acknowledged"

  /// Runs in the child: one save per line read from standard input.
  static func runChild(path: String) throws {
    let store = try LayeredPlistStore(
      persistentFile: URL(fileURLWithPath: path), options: .init(savesAtExit: false))
    var value: Int64 = 0
    while readLine() != nil {
      value += 1
      try store.setValue(.integer(.init(value)), forKey: "k")
      let called = DispatchTime.now().uptimeNanoseconds
      try store.save()
      print(value, called, DispatchTime.now().uptimeNanoseconds)
      fflush(nil)
    }
  }

  /// When each value of `k` arrived, by value, at one watcher.
  final class Arrivals: Sendable {
    private let times = Mutex<[Int64: UInt64]>([:])
    private let arrived = DispatchSemaphore(value: 0)

    /// Records that `value` arrived now (the first arrival of a value counts).
    func record(_ value: Int64) {
      let now = DispatchTime.now().uptimeNanoseconds
      times.withLock { times in
        if times[value] == nil { times[value] = now }
      }
      arrived.signal()
    }

    /// When `value` arrived, waiting for it until `deadline`; `nil` if it didn't by then.
    func time(of value: Int64, before deadline: DispatchTime) -> UInt64? {
      while true {
        if let time = times.withLock({ $0[value] }) { return time }
        guard arrived.wait(timeout: deadline) == .success else { return nil }
      }
    }
  }

  /// The latencies measured, in µs, and how many events were timed before the save was called.
  struct Samples {
    var latencies: [Double] = []
    var early = 0

    /// Adds the latency from `saved` (the child's timestamp) to `received` (the watcher's).
    mutating func add(saved: UInt64, received: UInt64) {
      // Signed, and never wrapped around: see above.
      let nanoseconds = Int64(bitPattern: received) - Int64(bitPattern: saved)
      if nanoseconds < 0 { early += 1 }
      latencies.append(Double(max(0, nanoseconds)) / 1_000)
    }
  }

  /// Measures `saves` saves seen by the watching store, and on Linux as many seen by the raw
  /// watcher.
  static func measure(saves: Int) throws -> [Figure] {
    let folder = try ScratchFolder()
    defer { folder.remove() }
    let file = folder.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    defer { store.stopWatching() }
    let storeArrivals = Arrivals()
    let token = store.observe(key: "k") { change in
      guard let value = change.newValue?.intValue else { return }
      storeArrivals.record(Int64(value))
    }
    defer { token.cancel() }

    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    child.arguments = [ChildProcesses.flag, task, file.path]
    let input = Pipe()
    let output = Pipe()
    child.standardInput = input
    child.standardOutput = output
    try child.run()
    defer { child.waitUntilExit() }
    defer { try? input.fileHandleForWriting.close() }
    var lines = LineReader(output.fileHandleForReading)
    var value: Int64 = 0
    /// Has the child save once, and adds the time until `arrivals` has the value.
    func saveOnce(into samples: inout Samples, arrivals: Arrivals) throws {
      value += 1
      input.fileHandleForWriting.write(Data("\n".utf8))
      guard let line = lines.next() else {
        throw failure("the child stopped after \(value - 1) saves")
      }
      let fields = line.split(separator: " ")
      guard fields.count == 3, Int64(fields[0]) == value, let saved = UInt64(fields[1]) else {
        throw failure("unexpected line from the child: '\(line)'")
      }
      // At most 5 s: the watch delivers within tens of milliseconds.
      guard let received = arrivals.time(of: value, before: .now() + 5) else {
        throw failure("no event for save \(value) within 5 s")
      }
      samples.add(saved: saved, received: received)
    }

    let block = 5
    var ours = Samples()
    #if os(Linux)
      var raw = Samples()
      let rawArrivals = Arrivals()
    #else
      let raw = Samples()  // no raw baseline: it watches with inotify
    #endif
    while ours.latencies.count < saves {
      let count = min(block, saves - ours.latencies.count)
      store.startWatching()
      for _ in 0..<count { try saveOnce(into: &ours, arrivals: storeArrivals) }
      store.stopWatching()
      #if os(Linux)
        let watcher = try RawFolderWatcher(folder: folder.url, name: "data.plist") {
          // What a hand-written watcher does with the event: read the file and decode it.
          guard let data = try? Data(contentsOf: file),
            let plist = try? PropertyListSerialization.propertyList(
              from: data, options: [], format: nil) as? [String: Any],
            let value = plist["k"] as? Int
          else { return }
          rawArrivals.record(Int64(value))
        }
        defer { watcher.stop() }
        for _ in 0..<count { try saveOnce(into: &raw, arrivals: rawArrivals) }
      #endif
    }

    let name =
      "save() called in another process → event in a watching LayeredPlistStore (\(saves) saves)"
    let oursMedian = median(ours.latencies)
    var figures: [Figure] = []
    if raw.latencies.isEmpty {
      figures.append(
        Figure(
          name: "\(name), median", ours: oursMedian, baseline: nil, target: nil, unit: "µs"))
    } else {
      figures.append(
        Figure(
          name: "\(name), median (baseline: a raw inotify watcher reading and decoding the file)",
          ours: oursMedian, baseline: median(raw.latencies), target: 2, unit: "µs"))
    }
    figures.append(
      Figure(
        name: "\(name), p99", ours: percentile99(ours.latencies), baseline: nil, target: nil,
        unit: "µs"))
    if !raw.latencies.isEmpty {
      figures.append(
        Figure(
          name: "save() called in another process → a raw inotify watcher's read and decode of "
            + "the file (\(saves) saves), p99",
          ours: percentile99(raw.latencies), baseline: nil, target: nil, unit: "µs"))
    }
    figures.append(
      Figure(
        name: "cross-process saves whose event was timed before the child called save() "
          + "(counted as 0 µs), of \(ours.latencies.count + raw.latencies.count)",
        ours: Double(ours.early + raw.early), baseline: nil, target: nil, unit: "saves"))
    return figures
  }

  private static func failure(_ message: String) -> any Error {
    CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: message])
  }

  /// Splits what a pipe delivers into lines.
  struct LineReader {
    let handle: FileHandle
    var buffer = Data()

    init(_ handle: FileHandle) { self.handle = handle }

    mutating func next() -> String? {
      while true {
        if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
          let line = String(decoding: buffer[..<newline], as: UTF8.self)
          buffer.removeSubrange(...newline)
          return line
        }
        let chunk = handle.availableData
        if chunk.isEmpty { return nil }
        buffer.append(chunk)
      }
    }
  }
}

#if os(Linux)
  /// The raw baseline of the cross-process figure: an inotify watch of a folder
  /// (`IN_MOVED_TO | IN_CLOSE_WRITE`) and a thread blocked in `read` on it, which calls `onChange`
  /// for each event naming the file (replaced by a rename, or written in place and closed).
  final class RawFolderWatcher: Sendable {
    private let descriptor: Int32
    private let watch: Int32
    private let ended = DispatchSemaphore(value: 0)

    /// Starts watching `folder` for `name`.
    ///
    /// - Parameters:
    ///   - folder: The folder to watch.
    ///   - name: The file's name in it.
    ///   - onChange: Called on the watcher's thread for each event naming the file.
    /// - Throws: When inotify refuses the watch.
    init(folder: URL, name: String, onChange: @escaping @Sendable () -> Void) throws {
      descriptor = inotify_init1(Int32(IN_CLOEXEC))
      guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
      watch = inotify_add_watch(
        descriptor, folder.path, UInt32(IN_MOVED_TO) | UInt32(IN_CLOSE_WRITE))
      guard watch >= 0 else {
        let code = errno
        close(descriptor)
        throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
      }
      let thread = Thread { [descriptor, ended] in
        Self.readEvents(from: descriptor, naming: Array(name.utf8), onChange)
        close(descriptor)
        ended.signal()
      }
      thread.start()
    }

    /// Stops watching, and waits for the watcher's thread to end.
    func stop() {
      // Removing the watch queues an IN_IGNORED event, which ends the thread's read loop.
      inotify_rm_watch(descriptor, watch)
      ended.wait()
    }

    /// Reads events until the watch is removed (`IN_IGNORED`) or `read` fails.
    private static func readEvents(
      from descriptor: Int32, naming name: [UInt8], _ onChange: () -> Void
    ) {
      // struct inotify_event: wd (Int32), mask, cookie, len (UInt32 each), then len bytes of
      // name padded with NULs.
      let header = 16
      var buffer = [UInt8](repeating: 0, count: 64 * 1024)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return }
        var offset = 0
        while offset + header <= count {
          let (mask, length) = buffer.withUnsafeBytes { bytes in
            (
              bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
              Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            )
          }
          let named = buffer[(offset + header)..<(offset + header + length)].prefix { $0 != 0 }
          offset += header + length
          if mask & UInt32(IN_IGNORED) != 0 { return }
          if mask & (UInt32(IN_MOVED_TO) | UInt32(IN_CLOSE_WRITE)) != 0, named.elementsEqual(name) {
            onChange()
          }
        }
      }
    }
  }
#endif
