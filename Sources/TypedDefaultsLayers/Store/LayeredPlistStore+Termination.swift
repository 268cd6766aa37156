import Foundation
import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The pipe's writing end the termination signal handler writes the signal's number to, or -1.
///
/// Set once, before the first handler is installed, and only read after: the handler, which must
/// be async-signal-safe, can't take a lock.
nonisolated(unsafe) private var terminationPipe: Int32 = -1

extension LayeredPlistStore {
  /// The signals ``saveOnTermination(signals:)`` handles.
  private static let handledSignals = Locked<Set<Int32>>([])

  /// Saves what is unsaved when the process is asked to stop by a signal (SIGTERM, as a
  /// container runtime or systemd sends it, and SIGINT, Control-C, by default), then lets the
  /// process end as that signal would have ended it.
  ///
  /// Without it, a signal's default action ends the process at once: `atexit` handlers don't
  /// run, so a store's pending debounced save (``Options/Autosave/debounced(seconds:)``) and its
  /// save at exit (``Options/savesAtExit``) are lost. With it, on the first such signal, every
  /// store opened with ``Options/savesAtExit`` (the default) that has unsaved changes saves, and
  /// every `UserDefaultsBackend` flushes, as at a normal exit; a failed save is reported
  /// (``SettingsDiagnostic/Kind/saveFailed``, saying the changes are lost). Then the signal's
  /// default action is restored and the signal raised again, so the process ends killed by it
  /// (exit status 143 for SIGTERM, 130 for SIGINT, in a shell), as a supervisor expects.
  ///
  /// ```swift
  /// let store = try LayeredPlistStore(
  ///   persistentFile: dataFile, options: .init(autosave: .debounced(seconds: 1)))
  /// LayeredPlistStore.saveOnTermination()
  /// ```
  ///
  /// How: a `sigaction` handler, installed before this returns (so a signal sent once it has
  /// returned is never lost), writes the signal's number to a pipe, the one async-signal-safe
  /// step; a thread of its own reads it, saves, restores the default action, unblocks the
  /// signal on its thread and raises it there (ending with `_exit(128 + signal)` should the
  /// process still be alive). A signal that arrives during the save is not handled twice.
  /// Calling it again, or for a signal already handled, changes nothing. Call it once the stores
  /// are open, and not if the program handles these signals itself: a service framework that
  /// ends the process by returning from `main` or calling `exit()` after its own graceful
  /// shutdown gets the same saves from the exit handlers, with nothing to install. Thread-safe.
  ///
  /// - Parameter signals: The signals to handle (`SIGTERM` and `SIGINT` by default); `SIGKILL`
  ///   and `SIGSTOP` can't be handled and are ignored.
  public static func saveOnTermination(signals: [Int32] = [SIGTERM, SIGINT]) {
    handledSignals.withLock { handled in
      if terminationPipe < 0 {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        terminationPipe = ends[1]
        let reading = ends[0]
        Thread.detachNewThread { waitForTermination(reading: reading) }
      }
      for signalNumber in signals
      where !handled.contains(signalNumber) && signalNumber != SIGKILL && signalNumber != SIGSTOP {
        var action = sigaction()
        #if canImport(Darwin)
          action.__sigaction_u.__sa_handler = terminationSignalHandler
        #else
          action.__sigaction_handler.sa_handler = terminationSignalHandler
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(signalNumber, &action, nil)
        handled.insert(signalNumber)
      }
    }
  }

  /// Reads the first signal's number from the pipe, saves, and ends the process by that signal.
  private static func waitForTermination(reading: Int32) {
    var number: UInt8 = 0
    while read(reading, &number, 1) < 0, errno == EINTR {}
    let signalNumber = Int32(number)
    ExitHandlers.runNow()
    signal(signalNumber, SIG_DFL)
    var unblocked = sigset_t()
    sigemptyset(&unblocked)
    sigaddset(&unblocked, signalNumber)
    pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    raise(signalNumber)
    // Not reached unless the signal's default action is to be ignored.
    _exit(128 + signalNumber)
  }
}

/// The signal handler: writes the signal's number to the pipe (async-signal-safe).
private func terminationSignalHandler(_ signalNumber: Int32) {
  var number = UInt8(truncatingIfNeeded: signalNumber)
  _ = write(terminationPipe, &number, 1)
}
