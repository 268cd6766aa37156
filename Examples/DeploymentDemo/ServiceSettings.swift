import Foundation
import TypedDefaults

/// The service's settings: every key it reads, typed, with a default, in one place.
///
/// The store decides which layer each value comes from; the model only declares the types, which
/// the store also uses to check a layer's new values before it applies them.
struct ServiceSettings: SettingsGroup {
  @Setting var serverURL = URL(string: "https://api.example.com")!
  @Setting var volume = Volume(clamping: 0.8)
  @Setting var logLevel = LogLevel.info
  @Setting var maxConnections = 8
  @Setting("apiToken", secret: true) var apiToken = ""
  @Setting var telemetryEnabled = true
}

/// How much the service logs.
enum LogLevel: String, SettingValue, CaseIterable {
  case debug, info, warning, error
}

/// A volume level: a `Double` from 0 to 1, stored as a property-list real.
///
/// A stored value outside the range doesn't read as a volume, so a layer that delivers one (a
/// mount swapped to `volume: 1.5`) is passed over by the store for the next layer's value.
struct Volume: SettingValue, Hashable, CustomStringConvertible {
  /// The levels a volume can have.
  static let range = 0.0...1.0

  /// The level, in `range`.
  let level: Double

  /// The volume of `level`, or `nil` if it is outside `range`.
  init?(_ level: Double) {
    guard Self.range.contains(level) else { return nil }
    self.level = level
  }

  /// The volume nearest to `level`.
  init(clamping level: Double) {
    self.level = min(max(level, Self.range.lowerBound), Self.range.upperBound)
  }

  /// Reads a number (as `Double` reads one) in `range`.
  init?(propertyListValue: PropertyListValue) {
    guard let level = Double(propertyListValue: propertyListValue) else { return nil }
    self.init(level)
  }

  /// Stores the level as a real.
  func propertyListValue() -> PropertyListValue? { .real(level) }

  /// Says that a number is outside `range`: `1.5 is outside 0.0...1.0`.
  static func readFailureReason(for value: PropertyListValue) -> String? {
    Double(propertyListValue: value).map { "\($0) is outside \(range)" }
  }

  /// The level: `0.5`.
  var description: String { "\(level)" }
}
