/// The embedded sample files the demo writes into its data directory on every run, standing in for
/// files a real app ships.
enum SamplePlists {
  /// The app bundle's `Info.plist`: the bundled layer, read-only, lowest priority.
  ///
  /// Shaped like a real iOS app's, plus the app's own configuration keys.
  static let infoPlist = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
      <key>CFBundleDevelopmentRegion</key>
      <string>en</string>
      <key>CFBundleDisplayName</key>
      <string>Video Player</string>
      <key>CFBundleExecutable</key>
      <string>VideoPlayer</string>
      <key>CFBundleIdentifier</key>
      <string>com.example.videoplayer</string>
      <key>CFBundleInfoDictionaryVersion</key>
      <string>6.0</string>
      <key>CFBundleName</key>
      <string>VideoPlayer</string>
      <key>CFBundlePackageType</key>
      <string>APPL</string>
      <key>CFBundleShortVersionString</key>
      <string>2.4.0</string>
      <key>CFBundleVersion</key>
      <string>312</string>
      <key>LSRequiresIPhoneOS</key>
      <true/>
      <key>UILaunchStoryboardName</key>
      <string>LaunchScreen</string>
      <key>UIRequiredDeviceCapabilities</key>
      <array>
        <string>arm64</string>
      </array>
      <key>UISupportedInterfaceOrientations</key>
      <array>
        <string>UIInterfaceOrientationPortrait</string>
        <string>UIInterfaceOrientationLandscapeLeft</string>
        <string>UIInterfaceOrientationLandscapeRight</string>
      </array>
      <key>ServerURL</key>
      <string>https://api.example.com/v1</string>
      <key>RequestTimeout</key>
      <integer>30</integer>
      <key>SupportedLanguages</key>
      <array>
        <string>en</string>
        <string>zh-Hans</string>
      </array>
      <key>FeatureNewPlayer</key>
      <false/>
      <key>FeatureOfflineDownloads</key>
      <true/>
    </dict>
    </plist>
    """

  /// `JF-info.plist`: the configuration a deployment delivers with the app.
  ///
  /// The delivered layer: read-only, overrides `Info.plist`.
  static let deliveredPlist = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
      <key>DeliveryChannel</key>
      <string>JF</string>
      <key>ServerURL</key>
      <string>https://jf.example.net/api/v1</string>
      <key>RequestTimeout</key>
      <real>45</real>
      <key>SupportedLanguages</key>
      <array>
        <string>en</string>
        <string>zh-Hans</string>
        <string>ja</string>
      </array>
    </dict>
    </plist>
    """
}
