import Foundation
import TypedDefaults

extension SettingsDiagnostics {
  /// Runs `operation` and returns the diagnostics it reported, in the order they were reported,
  /// instead of sending them to ``SettingsDiagnostics/handler``.
  ///
  /// ```swift
  /// @Test func aWrongTypedCountReadsAsTheDefault() {
  ///   let diagnostics = SettingsDiagnostics.withCapture {
  ///     SettingsTesting.withBackend(InMemoryBackend(["count": "many"])) {
  ///       #expect(AppSettings.shared.count == 0)
  ///     }
  ///   }
  ///   #expect(diagnostics.map(\.kind) == [.typeMismatch])
  /// }
  /// ```
  ///
  /// The capture is task-local, like ``SettingsTesting/withBackend(_:operation:)``: it sees every
  /// report made by `operation` on this task, and none of the tests running in parallel. A
  /// problem the library reports only once (a model declaration's problem once per process, a
  /// wrong stored value once per setting until it changes) is reported once *per capture*: each
  /// capture sees it the first time it arises inside it, even if another test, or an earlier
  /// capture, saw it already. Reports from work `operation` hands to a Dispatch queue or a
  /// detached task (a file watch, a debounced save) go to the process-wide handler instead.
  ///
  /// - Parameter operation: The code whose diagnostics to capture.
  /// - Returns: The diagnostics reported.
  /// - Throws: What `operation` throws (the diagnostics are then lost with the result).
  public static func withCapture(_ operation: () throws -> Void) rethrows -> [SettingsDiagnostic] {
    let captured = CapturedDiagnostics()
    try withHandler(captured.append, operation: operation)
    return captured.all
  }

  /// Runs `operation` and returns the diagnostics it, and the child tasks it creates, reported,
  /// in the order they were reported, instead of sending them to ``SettingsDiagnostics/handler``.
  ///
  /// What a capture sees is described at the synchronous `withCapture(_:)`.
  ///
  /// - Parameter operation: The code whose diagnostics to capture.
  /// - Returns: The diagnostics reported.
  /// - Throws: What `operation` throws.
  public static func withCapture(
    _ operation: () async throws -> Void
  ) async rethrows -> [SettingsDiagnostic] {
    let captured = CapturedDiagnostics()
    try await withHandler(captured.append, operation: operation)
    return captured.all
  }
}

/// The diagnostics one capture collected.
// @unchecked Sendable: `diagnostics` is read and written only while `lock` is held.
private final class CapturedDiagnostics: @unchecked Sendable {
  private let lock = NSLock()
  private var diagnostics: [SettingsDiagnostic] = []

  var all: [SettingsDiagnostic] {
    lock.lock()
    defer { lock.unlock() }
    return diagnostics
  }

  @Sendable func append(_ diagnostic: SettingsDiagnostic) {
    lock.lock()
    diagnostics.append(diagnostic)
    lock.unlock()
  }
}
