import Dispatch
import TypedDefaults

/// Where the demo's diagnostics go: a layer's refused value is kept for the demo to show, any
/// other diagnostic is printed to standard error as usual.
///
/// A store's watch reports from its own queue, so the demo waits here for the refusal it expects.
final class DiagnosticsInbox: Sendable {
  /// The refusals received, in order.
  private let rejections = Locked<[SettingsDiagnostic]>([])
  /// Signalled once per refusal.
  private let received = DispatchSemaphore(value: 0)

  /// Takes a diagnostic, from any thread.
  func receive(_ diagnostic: SettingsDiagnostic) {
    guard diagnostic.kind == .layerValueRejected else {
      return SettingsDiagnostics.standardErrorHandler(diagnostic)
    }
    rejections.withLock { $0.append(diagnostic) }
    received.signal()
  }

  /// The first refusal of a value of `key`, waited for at most `timeout` seconds.
  ///
  /// Returns `nil` if none came in time.
  func firstRejection(ofKey key: String, within timeout: Double) -> SettingsDiagnostic? {
    let deadline = DispatchTime.now() + timeout
    while true {
      if let found = rejections.withLock({ $0.first { $0.key == key } }) { return found }
      guard received.wait(timeout: deadline) == .success else { return nil }
    }
  }
}
