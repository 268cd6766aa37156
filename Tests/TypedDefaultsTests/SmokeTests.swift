import Foundation
import Testing

@testable import TypedDefaults

private final class PlayerSettings: SettingsModel, @unchecked Sendable {
  @Setting var allowsCellularPlayback = false
  @Setting("volume", default: 0.8) var volume: Double
  @Setting var lastOpened: Date?
}

@Suite struct SmokeTests {
  @Test func basics() throws {
    let backend = InMemoryBackend()
    let settings = PlayerSettings(backend: backend)
    #expect(settings.volume == 0.8)
    settings.volume = 0.5
    #expect(backend.value(forKey: "volume") == .real(0.5))
    #expect(settings.allSettings.map(\.key) == ["allowsCellularPlayback", "volume", "lastOpened"])
    print(settings.allSettings)
  }
}
