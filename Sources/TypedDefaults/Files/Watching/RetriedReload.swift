import Dispatch

/// The reading again of a watched file after a change, tried again later while it fails, so that
/// a change is never lost to a passing failure.
///
/// A watch reports a change once; a read of the file that fails then (the process at its limit of
/// open files, `EMFILE`, while hundreds of watching stores each hold a descriptor of their file
/// and read their files at once; a file briefly unreadable) used to be reported and dropped, and
/// the store kept its old values until the next change, which may never come. Now the read is
/// tried again after ``firstRetryInterval``, the wait doubling up to ``maximumRetryInterval``,
/// until one succeeds or the watch stops; each failure is reported once while its reason stays
/// the same, through `report`.
///
/// Thread-safe: ``run()`` may be called from any thread, also while a retry is under way (the
/// later run takes over: a retry scheduled before it is dropped).
package final class RetriedReload: Sendable {
  /// The first wait before a failed read is tried again, in seconds.
  package static let firstRetryInterval = 0.05
  /// The longest wait between attempts, in seconds.
  package static let maximumRetryInterval = 1.0

  private let reload: @Sendable () throws(SettingsError) -> Void
  private let report: @Sendable (SettingsError) -> Void
  private let state = Locked(State())

  private struct State {
    /// The number of runs started: a retry runs only if no run started after the one that
    /// scheduled it.
    var runs = 0
    var retryInterval = RetriedReload.firstRetryInterval
    /// The last failure reported, so that each is reported once.
    var lastProblem: SettingsError?
    var stopped = false
  }

  /// Creates the reading again of a file.
  ///
  /// - Parameters:
  ///   - reload: Reads the file again and takes in what changed; throws if it can't.
  ///   - report: Reports a failure, once while its reason stays the same (from any thread).
  package init(
    reload: @escaping @Sendable () throws(SettingsError) -> Void,
    report: @escaping @Sendable (SettingsError) -> Void
  ) {
    self.reload = reload
    self.report = report
  }

  /// Reads the file again now; if that fails, reports it (unless the last failure had the same
  /// reason) and tries again later, until a read succeeds or ``stop()``.
  package func run() {
    let run = state.withLock { state -> Int? in
      guard !state.stopped else { return nil }
      state.runs += 1
      return state.runs
    }
    guard let run else { return }
    do {
      try reload()
      state.withLock { state in
        guard state.runs == run else { return }
        state.retryInterval = Self.firstRetryInterval
        state.lastProblem = nil
      }
    } catch {
      let retry = state.withLock { state -> (reports: Bool, after: Double)? in
        // Stopped, or a later run took over (and retries itself if it fails).
        guard !state.stopped, state.runs == run else { return nil }
        defer {
          state.lastProblem = error
          state.retryInterval = min(state.retryInterval * 2, Self.maximumRetryInterval)
        }
        return (state.lastProblem != error, state.retryInterval)
      }
      guard let retry else { return }
      if retry.reports { report(error) }
      DispatchQueue.global().asyncAfter(deadline: .now() + retry.after) { [weak self] in
        guard let self, self.state.withLock({ !$0.stopped && $0.runs == run }) else { return }
        self.run()
      }
    }
  }

  /// Stops retrying: a retry scheduled is dropped, and ``run()`` does nothing from now on.
  package func stop() {
    state.withLock { $0.stopped = true }
  }
}
