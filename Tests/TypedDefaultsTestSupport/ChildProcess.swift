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
