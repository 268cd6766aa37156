import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A child process run with `posix_spawn` and reaped with `waitpid`, for tests that start many
/// children at once: Foundation's `Process` on Linux watches for children's exits itself and was
/// seen to miss one, leaving `waitUntilExit()` waiting for ever.
package enum ChildProcess {
  /// How a child ended.
  package enum Outcome: Equatable {
    case exited(Int32)
    case signalled(Int32)
    case timedOut
    case notStarted(String)
  }

  /// Runs `executable` with `arguments` to completion, or kills it (SIGKILL) after `timeout`
  /// seconds, polling every 2 ms.
  ///
  /// - Parameters:
  ///   - executable: The program's path.
  ///   - arguments: Its arguments, without the program's name.
  ///   - environment: Its environment.
  ///   - standardOutput: A descriptor for its standard output; its standard error and input are
  ///     `/dev/null`.
  ///   - timeout: Seconds before it is killed.
  /// - Returns: How the child ended: its exit status, the signal that ended it, killed after
  ///   `timeout`, or why it could not be started.
  package static func run(
    _ executable: String, _ arguments: [String], environment: [String: String],
    standardOutput: Int32, timeout: Double
  ) -> Outcome {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { free(pointer) }
    }
    var child: pid_t = 0
    let spawned = posix_spawn(&child, executable, &actions, nil, argv, envp)
    guard spawned == 0 else { return .notStarted(String(cString: strerror(spawned))) }
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
    var status: Int32 = 0
    while true {
      let reaped = waitpid(child, &status, WNOHANG)
      if reaped == child { break }
      if reaped < 0, errno != EINTR {
        return .notStarted("waitpid: \(String(cString: strerror(errno)))")
      }
      if DispatchTime.now().uptimeNanoseconds > deadline {
        kill(child, SIGKILL)
        while waitpid(child, &status, 0) < 0, errno == EINTR {}
        return .timedOut
      }
      usleep(2_000)  // bounded polling of the child
    }
    // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift doesn't import as functions.
    if status & 0x7F == 0 { return .exited((status >> 8) & 0xFF) }
    return .signalled(status & 0x7F)
  }
}

extension Process {
  /// How a child ended, as ``Foundation/Process/waitForExit()`` found it.
  package struct Ending: Equatable, Sendable {
    /// The exit status, or the number of the signal that ended the child.
    package var status: Int32
    /// Whether a signal ended the child (`terminationReason == .uncaughtSignal`).
    package var signalled: Bool
  }

  /// Waits for the child to end and says how: `waitUntilExit()` with `terminationStatus` and
  /// `terminationReason`, except that on Linux the child is reaped here, with `waitpid`.
  ///
  /// Foundation on Linux learns that a child ended when a socket the child holds closes; a child
  /// started at the same moment (an etcd server a test keeps running) can inherit that socket and
  /// keep it open, and `waitUntilExit()` then waited for ever beside a zombie (a CI run timed out
  /// so, with another test's task spinning on the only other thread of the test pool).
  ///
  /// - Parameter seconds: How long the child may take before it is killed (SIGKILL), so that a
  ///   child that doesn't end fails its test (ending signalled by SIGKILL) rather than hanging it.
  /// - Returns: Its exit status, or the signal that ended it.
  package func waitForExit(killingAfter seconds: Double = 600) -> Ending {
    #if canImport(Glibc)
      let child = processIdentifier
      let deadline = Date().addingTimeInterval(seconds)
      var status: Int32 = 0
      while true {
        let reaped = waitpid(child, &status, WNOHANG)
        if reaped == child { break }
        if reaped < 0, errno != EINTR { return foundationsEnding() }  // Foundation reaped it
        if Date() > deadline { kill(child, SIGKILL) }
        usleep(2_000)  // bounded polling of the child
      }
      // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift doesn't import as functions.
      if status & 0x7F == 0 { return Ending(status: (status >> 8) & 0xFF, signalled: false) }
      return Ending(status: status & 0x7F, signalled: true)
    #else
      return foundationsEnding()
    #endif
  }

  private func foundationsEnding() -> Ending {
    waitUntilExit()
    return Ending(status: terminationStatus, signalled: terminationReason == .uncaughtSignal)
  }
}
