import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The tool's two output streams. Standard output gets results; standard error gets one line per
/// error or warning, each starting with `settings:`.
enum Output {
  /// Writes text to standard output as it is (add the newline yourself).
  static func write(_ text: String) {
    write(Data(text.utf8))
  }

  /// Writes bytes to standard output.
  static func write(_ data: Data) {
    FileHandle.standardOutput.write(data)
  }

  /// Writes `settings: <message>` as one line to standard error (line breaks in the message
  /// become spaces).
  static func error(_ message: String) {
    let line = message.split(whereSeparator: \.isNewline).joined(separator: " ")
    standardError.write(Data("settings: \(line)\n".utf8))
  }

  /// Standard error as it was when the tool started, a copy of its descriptor: messages written
  /// here get out even while file reading silences descriptor 2 (see
  /// ``withStandardErrorSilenced(_:)``), so a library diagnostic reported meanwhile isn't lost.
  /// `main` opens it before anything is read.
  static let standardError: FileHandle = {
    let copy = dup(STDERR_FILENO)
    return copy >= 0 ? FileHandle(fileDescriptor: copy, closeOnDealloc: true) : .standardError
  }()
}
