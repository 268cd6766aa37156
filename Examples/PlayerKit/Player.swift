import TypedDefaults

/// PlayerKit's player: it reads and writes its settings, never a backend directly.
public final class Player: Sendable {
  /// The most items ``PlaybackSettings/recentlyPlayed`` keeps.
  public static let recentLimit = 3

  /// The settings the player uses, on the host's backend.
  public let settings: PlayerKitSettings

  /// Creates a player on settings the host created.
  ///
  /// - Parameter settings: PlayerKit's settings, on the host's backend.
  public init(settings: PlayerKitSettings) {
    self.settings = settings
  }

  /// Plays an item: it becomes the first of the recently played ones.
  ///
  /// - Parameter item: The item's name.
  /// - Returns: A line describing what plays, at which volume and quality.
  @discardableResult
  public func play(_ item: String) -> String {
    let recent = [item] + settings.playback.recentlyPlayed.filter { $0 != item }
    settings.playback.recentlyPlayed = Array(recent.prefix(Self.recentLimit))
    return "playing \(item) at volume \(settings.volume), quality \(settings.playback.quality)"
  }
}
