#if canImport(SwiftUI)
  import SwiftUI
  import Testing
  import TypedDefaults

  // The views of the "SwiftUI and Combine" section of the ObservingChanges article, compiled
  // (and their bindings checked) where SwiftUI exists. The library itself never imports SwiftUI.

  /// The article's model.
  // @unchecked Sendable: its stored properties are `@Setting`s (see SettingsModel).
  private final class PlayerSettings: SettingsModel, @unchecked Sendable {
    @Setting var volume = 0.8
    @Setting var allowsCellularPlayback = false
  }

  /// A view bound to a whole model: `@Bindable`, `$settings.volume`.
  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  private struct PlayerSettingsView: View {
    @Bindable var settings: PlayerSettings

    var body: some View {
      Form {
        Slider(value: $settings.volume, in: 0...1)
        Toggle("Cellular playback", isOn: $settings.allowsCellularPlayback)
      }
    }
  }

  /// A view bound to a single setting, passed as its projected value.
  private struct CellularToggle: View {
    let setting: Setting<Bool>

    var isOn: Binding<Bool> {
      Binding(get: { setting.wrappedValue }, set: { setting.wrappedValue = $0 })
    }

    var body: some View {
      Toggle("Cellular playback", isOn: isOn)
    }
  }

  @MainActor @Suite struct SwiftUIExampleTests {
    @Test func aBindableModelsBindingsReadAndWriteItsSettings() {
      guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *) else {
        return
      }
      let settings = PlayerSettings(backend: InMemoryBackend())
      let view = PlayerSettingsView(settings: settings)
      let volume = view.$settings.volume
      volume.wrappedValue = 0.3
      #expect(settings.volume == 0.3)
      settings.volume = 0.5
      #expect(volume.wrappedValue == 0.5)
      view.$settings.allowsCellularPlayback.wrappedValue = true
      #expect(settings.allowsCellularPlayback)
    }

    @Test func aBindingToASingleSettingReadsAndWritesIt() {
      let settings = PlayerSettings(backend: InMemoryBackend())
      let toggle = CellularToggle(setting: settings.$allowsCellularPlayback)
      toggle.isOn.wrappedValue = true
      #expect(settings.allowsCellularPlayback)
      settings.allowsCellularPlayback = false
      #expect(!toggle.isOn.wrappedValue)
    }
  }
#endif
