// PlayerKit: a small player SDK, the library half of the library-author example. It declares its
// settings once, under a key prefix of its own, and stores them wherever its host says: it never
// picks a backend itself.

import TypedDefaults

/// The video quality PlayerKit streams at.
public enum Quality: String, SettingValue, Sendable, CaseIterable {
  /// Chosen from the connection.
  case auto
  /// The highest available.
  case high
  /// The lowest available, to save data.
  case low
}

/// PlayerKit's settings.
///
/// The host app creates them on its own backend (a `UserDefaults` suite, a `LayeredPlistStore`,
/// anything), alongside its own settings: every key PlayerKit stores starts with
/// `com.example.playerkit.`, so it can't collide with the host's keys, and ``resetAll()`` resets
/// PlayerKit's settings and nothing else.
///
/// | Key | Type | Default |
/// |---|---|---|
/// | `com.example.playerkit.volume` | `Double`, `0...1` | `0.8` |
/// | `com.example.playerkit.allowsCellularPlayback` | `Bool` | `false` |
/// | `com.example.playerkit.playback.autoplay` | `Bool` | `true` |
/// | `com.example.playerkit.playback.quality` | `Quality` (`auto`, `high`, `low`) | `auto` |
/// | `com.example.playerkit.playback.recentlyPlayed` | `[String]` | `[]` |
///
/// ```swift
/// let settings = PlayerKitSettings(backend: UserDefaultsBackend(suiteName: "com.example.app"))
/// let player = Player(settings: settings)
/// ```
public final class PlayerKitSettings: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting or a group of them (see SettingsModel).

  /// Every PlayerKit key starts with this.
  override public class var keyPrefix: String { "com.example.playerkit." }

  /// The playback volume, from 0 to 1.
  @Setting(in: 0...1, help: "Playback volume, 0 to 1.") public var volume = 0.8
  /// Whether PlayerKit may stream over a cellular connection.
  @Setting(help: "Whether PlayerKit may stream over a cellular connection.")
  public var allowsCellularPlayback = false
  /// How playback behaves: keys `com.example.playerkit.playback.…`.
  public var playback = PlaybackSettings()
}

/// PlayerKit's playback settings: a nested group of ``PlayerKitSettings``.
public struct PlaybackSettings: SettingsGroup, Sendable {
  /// Whether the next item starts on its own.
  @Setting(help: "Whether the next item starts on its own.") public var autoplay = true
  /// The quality to stream at.
  @Setting(help: "The quality to stream at: auto (chosen from the connection), high or low.")
  public var quality = Quality.auto
  /// The items played last, newest first, at most ``Player/recentLimit``.
  @Setting(help: "The items played last, newest first (at most 3).")
  public var recentlyPlayed: [String] = []

  /// Creates the group unattached; ``PlayerKitSettings`` attaches it to its backend.
  public init() {}
}
