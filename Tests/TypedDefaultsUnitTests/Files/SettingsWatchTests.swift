import Foundation
import Testing
import TypedDefaultsSchema
import TypedDefaultsTestSupport

@testable import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `settings watch`, run as a child process while other `settings` processes change the domain.
@Suite struct SettingsWatchTests {
  let directory: TemporaryDirectory

  init() throws {
    directory = try TemporaryDirectory()
  }

  var environment: [String: String] { ["XDG_CONFIG_HOME": directory.file("config").path] }

  /// A running `settings watch`, its standard output collected as it arrives.
  // @unchecked Sendable: `process` is only started and waited for by the test, the rest is locked.
  final class Watcher: @unchecked Sendable {
    let process: Process
    private let output = Locked("")
    private let errors = Locked("")

    init(_ arguments: [String], environment: [String: String]) throws {
      process = Process()
      process.executableURL = TestPaths.productsDirectory.appendingPathComponent("settings")
      process.arguments = ["watch"] + arguments
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
      let standardOutput = Pipe()
      let standardError = Pipe()
      process.standardOutput = standardOutput
      process.standardError = standardError
      try process.run()
      for (pipe, text) in [(standardOutput, output), (standardError, errors)] {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread {
          while true {
            let data = handle.availableData
            if data.isEmpty { break }
            text.withLock { $0 += String(decoding: data, as: UTF8.self) }
          }
        }
      }
    }

    var standardOutput: String { output.withLock { $0 } }
    var standardError: String { errors.withLock { $0 } }

    /// Waits (polling every 2 ms, for up to 10 s) until standard output has `lines` lines.
    func waitForLines(_ lines: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
      for _ in 0..<5000 {
        if standardOutput.filter({ $0 == "\n" }).count >= lines { return }
        try? await Task.sleep(nanoseconds: 2_000_000)
      }
      let got = standardOutput.debugDescription
      let errors = standardError.debugDescription
      Issue.record(
        "timed out after 10 s waiting for \(lines) lines; got \(got), standard error \(errors)",
        sourceLocation: sourceLocation)
    }

    /// Sends a signal and waits (up to 10 s) for the process to exit; kills it if it doesn't.
    func stop(with signalNumber: Int32) async -> (exited: Bool, status: Int32) {
      kill(process.processIdentifier, signalNumber)
      for _ in 0..<5000 where process.isRunning {
        try? await Task.sleep(nanoseconds: 2_000_000)
      }
      if process.isRunning {
        Issue.record("settings watch did not stop on signal \(signalNumber) within 10 s")
        kill(process.processIdentifier, SIGKILL)
      }
      let processEnding = process.waitForExit()
      return (!processEnding.signalled, processEnding.status)
    }
  }

  func settings(_ arguments: [String]) throws {
    let run = try runProduct("settings", arguments, environment: environment)
    #expect(run.status == 0 && run.standardError == "", "\(arguments): \(run.standardError)")
  }

  @Test func watchPrintsEachChangeAnotherProcessMakesToAStoreFolderAndStopsOnSIGTERM() async throws
  {
    let store = directory.file("store")
    try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
    try settings(["write", store.path, "Theme", "dark"])
    let watcher = try Watcher([store.path], environment: environment)
    await watcher.waitForLines(1)
    try settings(["write", store.path, "Theme", "light"])
    await watcher.waitForLines(2)
    try settings(["write", store.path, "Count", "-int", "3"])
    await watcher.waitForLines(3)
    try settings(["delete", store.path, "Theme"])
    await watcher.waitForLines(4)
    let stopped = await watcher.stop(with: SIGTERM)
    #expect(stopped.exited && stopped.status == 0)
    #expect(
      watcher.standardOutput == """
        watching \(store.path) (stop with Ctrl-C)
        Theme: dark -> light [persistent]
        Count: (none) -> 3 [persistent]
        Theme: light -> (none)

        """)
    #expect(watcher.standardError == "")
  }

  @Test func watchOfAPlistFileShowsOnlyTheKeysNamedAndStopsOnSIGINT() async throws {
    let file = directory.file("config.plist")
    let watcher = try Watcher([file.path, "Name"], environment: environment)
    await watcher.waitForLines(1)
    try settings(["write", file.path, "Other", "x"])
    try settings(["write", file.path, "Name", "Ada"])
    await watcher.waitForLines(2)
    let stopped = await watcher.stop(with: SIGINT)
    #expect(stopped.exited && stopped.status == 0)
    #expect(
      watcher.standardOutput == """
        watching \(file.path) (stop with Ctrl-C)
        Name: (none) -> Ada

        """)
  }

  #if !canImport(Darwin)
    @Test func watchOfASuitePrintsWhatAnotherProcessSavesAndStopsOnSIGTERM() async throws {
      try settings(["write", "--store", "defaults", "com.example.watch", "volume", "-int", "1"])
      let watcher = try Watcher(
        ["--store", "defaults", "com.example.watch", "volume"], environment: environment)
      await watcher.waitForLines(1)
      // The library's atomic save (`settings write`) and a plain UserDefaults program's in-place
      // rewrite at synchronize() are both seen.
      try settings(["write", "--store", "defaults", "com.example.watch", "volume", "-int", "3"])
      await watcher.waitForLines(2)
      let raw = try runProduct(
        "SettingsProbe", ["raw", "com.example.watch", "raw-set", "volume", "int:4"],
        environment: environment)
      #expect(raw.status == 0, "\(raw.standardError)")
      await watcher.waitForLines(3)
      let stopped = await watcher.stop(with: SIGTERM)
      #expect(stopped.exited && stopped.status == 0)
      #expect(
        watcher.standardOutput == """
          watching com.example.watch (stop with Ctrl-C)
          volume: 1 -> 3
          volume: 3 -> 4

          """)
      #expect(watcher.standardError == "")
    }
  #endif
}
