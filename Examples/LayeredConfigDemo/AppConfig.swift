import Foundation
import TypedDefaults

/// The app's configuration: every key it reads, typed, with a default, in one place.
///
/// Each key is a key of the plist files; the store decides which layer a value comes from. Help
/// texts and accepted values describe the keys to people and tools: `--schema` prints them as
/// JSON Schema, and the `settings` tool refuses a write that doesn't fit (the demo writes the
/// schema next to data.plist).
struct AppConfig: SettingsGroup {
  // Shipped in the bundled Info.plist only.
  @Setting("CFBundleIdentifier") var bundleIdentifier = "unknown"
  @Setting("CFBundleShortVersionString") var version = "0.0"
  @Setting("CFBundleVersion") var build = "0"
  @Setting("FeatureOfflineDownloads") var offlineDownloadsEnabled = false

  // Shipped in Info.plist, overridden by the deployment's JF-info.plist.
  @Setting("ServerURL", help: "The API server every request goes to.")
  var serverURL = URL(string: "https://api.example.com")!
  @Setting("RequestTimeout", in: 1...600, help: "Seconds a request may take before it fails.")
  var requestTimeout = 60.0
  @Setting("SupportedLanguages") var supportedLanguages = ["en"]
  @Setting("DeliveryChannel", help: "Where this build was delivered from (app-store, JF, …).")
  var deliveryChannel = "app-store"

  // Delivered by the server, or written by the app: stored in data.plist.
  @Setting("FeatureNewPlayer") var newPlayerEnabled = false
  @Setting("LastConfigSync") var lastConfigSync: Date?
  @Setting("LaunchCount", in: 0..., help: "Launches so far, counted by the app.")
  var launchCount = 0
  @Setting("Theme", allowedValues: ["light", "dark"], help: "The interface's colours.")
  var theme = "light"
}
