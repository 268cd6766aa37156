import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs `body` with standard error sent to `/dev/null`.
///
/// CoreFoundation's old-style (OpenStep) parser logs some syntax errors itself, as a dated line on
/// standard error ("CFPropertyListCreateFromXMLData(): Old-style plist parser: missing semicolon
/// in dictionary…"), before reporting the same error to the caller. The tool reports every error
/// as exactly one line of its own, so it silences standard error around the calls that parse:
/// reading a file, and trying a `write` value as an old-style plist literal. The tool is single-
/// threaded at that point; its own messages are written after `body` returns.
///
/// The saved copy of descriptor 2 is numbered 3 or above (`F_DUPFD_CLOEXEC`): with standard output
/// closed, a plain `dup` would hand out descriptor 1, and results would go to standard error.
func withStandardErrorSilenced<Result, Failure: Error>(
  _ body: () throws(Failure) -> Result
) throws(Failure) -> Result {
  let saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)
  let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
  guard saved >= 0, null >= 0 else {
    if saved >= 0 { close(saved) }
    if null >= 0 { close(null) }
    return try body()
  }
  dup2(null, STDERR_FILENO)
  close(null)
  defer {
    dup2(saved, STDERR_FILENO)
    close(saved)
  }
  return try body()
}
