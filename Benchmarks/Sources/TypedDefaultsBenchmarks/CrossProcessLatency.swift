import Foundation
import Synchronization
import TypedDefaults

/// From a save in one process to the event in another process whose store watches the file
/// (`LayeredPlistStore.Options.watchesFiles`): median and 99th percentile over a number of saves.
///
/// The child (this executable with `--child save-each-acknowledged <data.plist>`) sets `k` to 1,
/// 2, 3… and saves each, printing `<value> <uptime ns when save() returned>`; it waits for a line
/// on standard input before the next save, so every save is seen on its own and none is
/// coalesced with the next. The parent times the observer's callback on the same monotonic
/// clock (`DispatchTime`, `CLOCK_MONOTONIC` on Linux, shared by all processes).
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
      try store.save()
      print(value, DispatchTime.now().uptimeNanoseconds)
      fflush(nil)
    }
  }

  /// Measures `saves` saves.
  static func measure(saves: Int) throws -> [Figure] {
    let folder = try ScratchFolder()
    defer { folder.remove() }
    let file = folder.file("data.plist")
    let store = try LayeredPlistStore(
      persistentFile: file, options: .init(savesAtExit: false, watchesFiles: true))
    defer { store.stopWatching() }
    let seen = Mutex<[Int64: UInt64]>([:])
    let arrived = DispatchSemaphore(value: 0)
    let token = store.observe(key: "k") { change in
      let now = DispatchTime.now().uptimeNanoseconds
      guard let value = change.newValue?.intValue else { return }
      seen.withLock { $0[Int64(value)] = now }
      arrived.signal()
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
    var lines = LineReader(output.fileHandleForReading)
    var samples: [Double] = []
    for expected in 1...Int64(saves) {
      input.fileHandleForWriting.write(Data("\n".utf8))
      guard let line = lines.next() else {
        throw failure("the child stopped after \(expected - 1) saves")
      }
      let fields = line.split(separator: " ")
      guard fields.count == 2, Int64(fields[0]) == expected, let saved = UInt64(fields[1]) else {
        throw failure("unexpected line from the child: '\(line)'")
      }
      // Wait for the event (at most 5 s: the watch delivers within tens of milliseconds).
      let deadline = DispatchTime.now() + 5
      var received = seen.withLock { $0[expected] }
      while received == nil {
        guard arrived.wait(timeout: deadline) == .success else {
          throw failure("no event for save \(expected) within 5 s")
        }
        received = seen.withLock { $0[expected] }
      }
      samples.append(Double((received ?? saved) &- saved) / 1_000)
    }
    try input.fileHandleForWriting.close()
    child.waitUntilExit()
    let name = "save in another process → event in a watching LayeredPlistStore (\(saves) saves)"
    return percentiles(samples, name: name, unit: "µs")
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
