import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

// Each test has model types of its own: every problem is reported once per process.

private final class EmptyKeySettings: SettingsModel, @unchecked Sendable {
  @Setting("") var unnamed = 1
  @Setting var fine = 2
}

private struct ControlCharacterKeySettings: SettingsGroup {
  @Setting("bell\u{7}") var bell = false
}

private struct SDKOneSettings: SettingsGroup {
  static let keyPrefix = "com.example.sdk."
  @Setting var volume = 0.5
}

private struct SDKTwoSettings: SettingsGroup {
  static let keyPrefix = "com.example.sdk."
  @Setting var enabled = true
}

private struct SDKOverlappingSettings: SettingsGroup {
  static let keyPrefix = "com.example.sdk.player."
  @Setting var quality = "auto"
}

private struct UnprefixedOneSettings: SettingsGroup {
  @Setting var theme = "light"
}

private struct UnprefixedTwoSettings: SettingsGroup {
  @Setting var volume = 1
}

private struct AnotherSDKSettings: SettingsGroup {
  static let keyPrefix = "com.example.analytics."
  @Setting var enabled = true
}

/// What a model's declaration is checked for when it is first bound (debug builds).
@Suite struct ModelValidationTests {
  #if DEBUG
    @Test func anEmptyKeyIsReportedOnceNamingThePropertyAndType() {
      let (_, diagnostics) = collectingDiagnostics {
        let backend = InMemoryBackend()
        _ = EmptyKeySettings(backend: backend)
        _ = EmptyKeySettings(backend: backend)
      }
      #expect(diagnostics.map(\.kind) == [.invalidKey])
      #expect(
        diagnostics.first?.message
          == "EmptyKeySettings.unnamed (Int) is stored under the key '', which InMemoryBackend "
          + "can't store: A key can't be empty")
    }

    @Test func aKeyAnXMLStoreCantHoldIsReportedForThatStoreOnly() throws {
      let directory = try TemporaryDirectory()
      let (_, diagnostics) = try collectingDiagnostics {
        _ = ControlCharacterKeySettings(backend: InMemoryBackend())
        let store = try LayeredPlistStore(
          persistentFile: directory.file("data.plist"), options: .init(format: .xml))
        _ = ControlCharacterKeySettings(backend: store)
      }
      #expect(diagnostics.map(\.kind) == [.invalidKey])
      #expect(diagnostics.first?.key == "bell\u{7}")
      #expect(
        diagnostics.first?.message.contains("ControlCharacterKeySettings.bell (Bool)") == true)
      #expect(diagnostics.first?.message.contains("U+0007") == true)
    }

    @Test func twoModelTypesWithOnePrefixOnOneBackendAreReportedOnce() {
      let (_, diagnostics) = collectingDiagnostics {
        let backend = InMemoryBackend()
        _ = SDKOneSettings(backend: backend)
        _ = SDKTwoSettings(backend: backend)
        _ = SDKTwoSettings(backend: backend)
        _ = SDKOneSettings(backend: backend)
      }
      #expect(diagnostics.map(\.kind) == [.keyCollision])
      #expect(
        diagnostics.first?.message
          == "SDKTwoSettings (key prefix 'com.example.sdk.') and SDKOneSettings (key prefix "
          + "'com.example.sdk.') have the same key prefix on InMemoryBackend, so their keys can "
          + "collide; give each model type a prefix of its own")
    }

    @Test func aPrefixStartingAnotherModelsPrefixIsReportedAsOverlapping() {
      let (_, diagnostics) = collectingDiagnostics {
        let backend = InMemoryBackend()
        _ = SDKOverlappingSettings(backend: backend)
        _ = SDKOneSettings(backend: backend.scoped(to: ""))
      }
      #expect(diagnostics.count == 1)
      #expect(diagnostics.first?.message.contains("overlapping key prefixes") == true)
    }

    @Test func modelsWithoutPrefixesOrWithDistinctOnesAreNotReported() {
      let (_, diagnostics) = collectingDiagnostics {
        let backend = InMemoryBackend()
        _ = UnprefixedOneSettings(backend: backend)
        _ = UnprefixedTwoSettings(backend: backend)
        _ = AnotherSDKSettings(backend: backend)
        _ = SDKOneSettings(backend: InMemoryBackend())
      }
      #expect(diagnostics.isEmpty)
    }

    @Test func aNestedGroupsDuplicateKeyStopsTheProgram() async {
      await #expect(processExitsWith: .failure) {
        struct Inner: SettingsGroup {
          @Setting var volume = 1
        }
        struct Outer: SettingsGroup {
          @Setting("inner.volume") var clash = 2
          var inner = Inner()
        }
        _ = Outer(backend: InMemoryBackend())
      }
    }
  #endif

  @Test func aWrongTypedValueInAFileReadsAsThePrefixedSettingsDefault() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    // Written by another program: the library refuses to store the empty key, but reads it.
    try PropertyListFile(url: file).write([
      "com.example.sdk.volume": ["not", "a", "number"], "": "empty key",
    ])
    let store = try LayeredPlistStore(persistentFile: file)
    let (settings, diagnostics) = collectingDiagnostics {
      let settings = SDKOneSettings(backend: store)
      _ = settings.volume
      return settings
    }
    #expect(settings.volume == 0.5)
    #expect(diagnostics.contains { $0.kind == .typeMismatch })
    #expect(store.scoped(to: "").value(forKey: "") == "empty key")
    // Kept by a save, as another program's entry.
    try store.setValue(1, forKey: "written")
    try store.save()
    #expect(try PropertyListFile(url: file).readDictionary()?[""] == "empty key")
  }
}
