import Foundation
import TypedDefaults

/// The `--watch` mode: a long-running "player" that reacts when another process changes its
/// settings.
///
/// It plays while `allowsCellularPlayback` is on, and the moment another process turns the switch
/// off (`settings write --store defaults <suite> allowsCellularPlayback -bool false` in another
/// shell), it stops playback and exits. A volume change is applied as it arrives.
///
/// On Linux the suite's file is watched (``UserDefaultsBackend/startWatching()``), so a change
/// saved by any other process reaches the callbacks below within tens of milliseconds.
enum Player {
  /// What the player is doing; touched only from the settings' callbacks, which never overlap
  /// for one setting, and guarded by a lock because the two settings' callbacks can.
  // @unchecked Sendable: every access to `isPlaying` holds `lock`.
  final class State: @unchecked Sendable {
    private let lock = NSLock()
    private var isPlaying = false

    /// Records whether the player plays now; returns whether it played before.
    func setPlaying(_ playing: Bool) -> Bool {
      lock.lock()
      defer { lock.unlock() }
      defer { isPlaying = playing }
      return isPlaying
    }
  }

  /// Runs the player until cellular playback is turned off while it plays, or until `timeout`
  /// seconds pass; returns the process's exit status (0 when it stopped because of the switch).
  static func run(_ settings: VideoPlayerSettings, timeout: Double) -> Int32 {
    guard let backend = settings.backend as? UserDefaultsBackend else { return 1 }
    backend.startWatching()
    let state = State()
    let stopped = DispatchSemaphore(value: 0)

    say("Player: watching suite \(backend.suiteName ?? "standard") for changes by other processes.")
    let volume = settings.$volume.observe { volume in
      say("Player: volume is now \(volume), applied.")
    }
    let cellular = settings.$allowsCellularPlayback.observe(initial: true) { allowed in
      let wasPlaying = state.setPlaying(allowed)
      switch (wasPlaying, allowed) {
      case (false, true):
        say("Player: playing over cellular (allowsCellularPlayback = true).")
      case (true, false):
        say("Player: allowsCellularPlayback turned off by another process: playback stopped.")
        stopped.signal()
      case (false, false):
        say(
          "Player: cellular playback not allowed; waiting. Turn it on with\n"
            + "  settings write --store defaults \(backend.suiteName ?? "-") "
            + "allowsCellularPlayback -bool true")
      case (true, true):
        break
      }
    }
    let outcome = stopped.wait(timeout: .now() + timeout)
    cellular.cancel()
    volume.cancel()
    backend.stopWatching()
    guard outcome == .success else {
      say("Player: no change within \(timeout) s; giving up.")
      return 1
    }
    return 0
  }

  /// Prints a line at once, also when standard output is a pipe (another process waits for it).
  static func say(_ line: String) {
    print(line)
    fflush(nil)  // every stream: `stdout` itself is a global Swift 6 refuses to touch
  }
}
