import Foundation
import TypedDefaults

/// The app's configuration: every key it reads, typed, with a default, in one place.
///
/// Each key is a key of the plist files; the store decides which layer a value comes from.
struct AppConfig: SettingsGroup {
  // Shipped in the bundled Info.plist only.
  @Setting("CFBundleIdentifier") var bundleIdentifier = "unknown"
  @Setting("CFBundleShortVersionString") var version = "0.0"
  @Setting("CFBundleVersion") var build = "0"
  @Setting("FeatureOfflineDownloads") var offlineDownloadsEnabled = false

  // Shipped in Info.plist, overridden by the deployment's JF-info.plist.
  @Setting("ServerURL") var serverURL = URL(string: "https://api.example.com")!
  @Setting("RequestTimeout") var requestTimeout = 60.0
  @Setting("SupportedLanguages") var supportedLanguages = ["en"]
  @Setting("DeliveryChannel") var deliveryChannel = "app-store"

  // Delivered by the server, or written by the app: stored in data.plist.
  @Setting("FeatureNewPlayer") var newPlayerEnabled = false
  @Setting("LastConfigSync") var lastConfigSync: Date?
  @Setting("LaunchCount") var launchCount = 0
  @Setting("Theme") var theme = "light"
}
