/// The demo's default data, standing in for what a real deployment provides: written into the
/// scratch folder on every run.
enum EmbeddedData {
  /// The service's identifier: production reads managed settings from
  /// `/etc/<identifier>/managed.plist`.
  static let identifier = "com.example.deploymentdemo"

  /// What an administrator enforces (`managed.plist`): telemetry off, and the service can't
  /// turn it on.
  static let managedPlist = plist(
    """
      <key>telemetryEnabled</key>
      <false/>
    """)

  /// The environment a container spec's `env:` gives the service; the process's own
  /// `DEPLOYMENT_DEMO_*` variables are added to it and win.
  static let environment = ["DEPLOYMENT_DEMO_MAX_CONNECTIONS": "32"]

  /// What the service saved on an earlier run (`data.plist`, the persistent layer).
  static let dataPlist = plist(
    """
      <key>maxConnections</key>
      <integer>48</integer>
    """)

  /// The ConfigMap mounted at `config/`: one file per key.
  static let configMap = ["logLevel": "info\n", "volume": "0.5\n"]

  /// The ConfigMap's next version: a bad volume (out of its range) and a good log level.
  static let updatedConfigMap = ["logLevel": "debug\n", "volume": "1.5\n"]

  /// The Secret mounted at `secrets/`.
  static let secret = ["apiToken": "tok_live_8f3a2c91d7e4"]

  /// The property list delivered with the deployment (`deployment.plist`).
  static let deliveredPlist = plist(
    """
      <key>serverURL</key>
      <string>https://api.eu.example.net/v2</string>
      <key>maxConnections</key>
      <integer>16</integer>
    """)

  /// The `Settings.bundle`'s `Root.plist`: the defaults the Settings app shows.
  static let settingsBundleRoot = plist(
    """
      <key>PreferenceSpecifiers</key>
      <array>
        <dict>
          <key>Type</key>
          <string>PSGroupSpecifier</string>
          <key>Title</key>
          <string>Playback</string>
        </dict>
        <dict>
          <key>Type</key>
          <string>PSSliderSpecifier</string>
          <key>Key</key>
          <string>volume</string>
          <key>DefaultValue</key>
          <real>0.8</real>
          <key>MinimumValue</key>
          <real>0</real>
          <key>MaximumValue</key>
          <real>1</real>
        </dict>
        <dict>
          <key>Type</key>
          <string>PSToggleSwitchSpecifier</string>
          <key>Title</key>
          <string>Send usage data</string>
          <key>Key</key>
          <string>telemetryEnabled</string>
          <key>DefaultValue</key>
          <true/>
        </dict>
      </array>
    """)

  /// The app bundle's `Info.plist`: the lowest layer.
  static let infoPlist = plist(
    """
      <key>CFBundleIdentifier</key>
      <string>\(identifier)</string>
      <key>CFBundleShortVersionString</key>
      <string>1.0</string>
      <key>serverURL</key>
      <string>https://api.example.com</string>
      <key>logLevel</key>
      <string>warning</string>
      <key>maxConnections</key>
      <integer>8</integer>
    """)

  /// An XML property list whose root dictionary holds `entries`.
  private static func plist(_ entries: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
    \(entries)
    </dict>
    </plist>

    """
  }
}
