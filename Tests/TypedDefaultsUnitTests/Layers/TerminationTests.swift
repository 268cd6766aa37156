import Foundation
import Testing
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A service's stop keeps its writes (issue 37, item 4).
///
/// `LayeredPlistStore.saveOnTermination()` saves a pending debounced write on SIGTERM or SIGINT, then the process ends as the signal
/// would have ended it. Each test starts `SettingsProbe terminate` and signals it.
@Suite struct TerminationTests {
  /// Starts the probe writing `greeting` into `file`, waits for "ready", sends `signal`, and
  /// returns how it ended.
  private func signalled(
    _ signal: Int32, file: URL, handled: Bool
  ) throws -> Process.Ending {
    let probe = Process()
    probe.executableURL = TestPaths.productsDirectory.appendingPathComponent("SettingsProbe")
    probe.arguments =
      ["terminate", file.path, "greeting", "string:saved on stop"] + (handled ? ["handled"] : [])
    let output = Pipe()
    probe.standardOutput = output
    try probe.run()
    // Blocks until the probe has written and installed its handler.
    #expect(output.fileHandleForReading.availableData == Data("ready\n".utf8))
    kill(probe.processIdentifier, signal)
    // A probe that outlives the signal fails the test (killed) rather than hanging it.
    return probe.waitForExit(killingAfter: 30)
  }

  @Test(arguments: [SIGTERM, SIGINT])
  func aPendingDebouncedWriteIsSavedOnTerminationAndTheProcessEndsByTheSignal(
    _ signal: Int32
  ) throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let ended = try signalled(signal, file: file, handled: true)
    #expect(ended.signalled)
    #expect(ended.status == signal)
    let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    #expect(store.value(forKey: "greeting") == "saved on stop")
  }

  /// Without it, the write is lost: what the call is for.
  @Test func withoutItSIGTERMLosesThePendingWrite() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let ended = try signalled(SIGTERM, file: file, handled: false)
    #expect(ended.signalled)
    #expect(ended.status == SIGTERM)
    #expect(!FileManager.default.fileExists(atPath: file.path))
  }
}
