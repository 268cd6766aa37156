import Foundation
import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The tool's two output streams.
///
/// Standard output gets results; standard error gets one line per error or warning, each starting
/// with `settings:`.
///
/// Both are written with `write(2)` loops, never with `FileHandle.write(_:)`, which traps when the
/// write fails (`settings read dom > /dev/full`, a closed descriptor).
enum Output {
  /// Writes text to standard output as it is (add the newline yourself).
  ///
  /// - Throws: `cannot write to standard output: <reason>` if it can't be written (a full disk,
  ///   a closed descriptor).
  static func write(_ text: String) throws(Failure) {
    try write(Data(text.utf8))
  }

  /// Writes bytes to standard output.
  ///
  /// - Throws: `cannot write to standard output: <reason>` if they can't be written.
  static func write(_ data: Data) throws(Failure) {
    if let reason = writeAll(data, to: STDOUT_FILENO) {
      throw Failure("cannot write to standard output: \(reason)")
    }
  }

  /// Writes `settings: <message>` as one line to standard error, best effort: if standard error
  /// can't be written either, nothing more can be said, and the exit status tells.
  ///
  /// Every control character in the message (C0, including line breaks, DEL and C1), and the
  /// Unicode line and paragraph separators, is written as a Swift escape such as `\u{1B}`, so a
  /// message quoting a file's bytes or an argument stays one line and can't drive the terminal.
  static func error(_ message: String) {
    _ = writeAll(Data("settings: \(escapingControlCharacters(message))\n".utf8), to: standardError)
  }

  /// The text with every character that could drive a terminal written as `\u{…}`
  /// (``TerminalText/escaping(_:keepingLinesAndTabs:)``, the library's rule for its diagnostics).
  ///
  /// With `keepingLinesAndTabs`, line feeds and tabs stay as they are (a multi-line value
  /// prints on several lines), while escape sequences still can't reach the terminal.
  ///
  /// - Parameters:
  ///   - text: The text to print.
  ///   - keepingLinesAndTabs: Whether line feeds and tabs stay as they are.
  /// - Returns: The escaped text.
  static func escapingControlCharacters(
    _ text: String, keepingLinesAndTabs: Bool = false
  ) -> String {
    TerminalText.escaping(text, keepingLinesAndTabs: keepingLinesAndTabs)
  }

  /// Standard error as it was when the tool started, a copy of its descriptor: messages written
  /// here get out even while file reading silences descriptor 2 (see
  /// ``withStandardErrorSilenced(_:)``), so a library diagnostic reported meanwhile isn't lost.
  ///
  /// `main` opens it before anything is read. The copy is numbered 3 or above, so it never takes
  /// the place of a closed standard output.
  static let standardError: Int32 = {
    let copy = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)
    return copy >= 0 ? copy : STDERR_FILENO
  }()

  /// Opens `/dev/null` in place of any of descriptors 0, 1 and 2 that is closed, the wrong way
  /// round (standard input write-only, the other two read-only), so that no file the tool opens
  /// later gets one of their numbers: results are never written into a store's file or lock
  /// file, and a write to a closed standard output still fails ("Bad file descriptor").
  static func reserveClosedStandardDescriptors() {
    for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO]
    where fcntl(descriptor, F_GETFD) < 0 && errno == EBADF {
      // The lowest free number is `descriptor`: the ones below it are open by now.
      let null = open("/dev/null", descriptor == STDIN_FILENO ? O_WRONLY : O_RDONLY)
      if null >= 0, null != descriptor {
        _ = dup2(null, descriptor)
        close(null)
      }
    }
  }

  /// Writes all of `data` to a descriptor, retrying after interruptions and short writes.
  ///
  /// - Returns: `nil` once everything is written, else why it couldn't be (`strerror`).
  private static func writeAll(_ data: Data, to descriptor: Int32) -> String? {
    data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> String? in
      guard let base = buffer.baseAddress else { return nil }
      var offset = 0
      while offset < buffer.count {
        let written = systemWrite(descriptor, base + offset, buffer.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          return String(cString: strerror(errno))
        }
        offset += written
      }
      return nil
    }
  }
}

/// `write(2)`, under a name `Output`'s own `write` doesn't hide.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, bytes, count)
}
