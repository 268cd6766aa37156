import Foundation
import TypedDefaults

/// The video quality the player asks for.
///
/// Stored as its raw string: the conformance to `SettingValue` is all it takes. `CaseIterable`
/// lists its cases as the setting's allowed values in the schema (`--schema`).
enum VideoQuality: String, SettingValue, CaseIterable {
  case auto
  case sd = "480p"
  case hd = "720p"
  case fullHD = "1080p"
}

/// Every preference of the video player, typed, in one place: UDUserDefaultsModel in Swift. Each
/// property's name is its key in the suite, and its initial value is its default.
// @unchecked Sendable is safe: its only stored properties are @Settings over a thread-safe backend.
final class VideoPlayerSettings: SettingsModel, @unchecked Sendable {
  /// The "allow playback on cellular" switch: off, playback waits for Wi-Fi.
  @Setting var allowsCellularPlayback = false
  @Setting var name = "Guest"
  @Setting var volume = 0.8
  @Setting var playbackRate = 1.0
  @Setting var preferredQuality = VideoQuality.auto
  @Setting var recentSearches: [String] = []
  @Setting var lastPlayedAt: Date?
  @Setting var launchCount = 0

  /// The app-wide instance, over the suite named on the command line (`--suite`), or the
  /// standard defaults (`--standard`).
  static let shared = VideoPlayerSettings(
    backend: LaunchOptions.current.standard
      ? .standard : UserDefaultsBackend(suiteName: LaunchOptions.current.suiteName))
}
