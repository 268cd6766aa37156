import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// A library's model, which an app subclasses.
private class LibrarySettings: SettingsModel, @unchecked Sendable {
  @Setting("library.enabled") var enabled = true
  @Setting var logLevel = 2
  let notASetting = "ignored"
  var alsoNotASetting: Int { 3 }
}

private final class AppSettings: LibrarySettings, @unchecked Sendable {
  @Setting var volume = 0.8
  @Setting("user.name") var name = "Anonymous"
  @Setting var lastOpened: Date?
  let formatter = "not a setting either"
}

private struct GroupSettings: SettingsGroup, Sendable {
  @Setting var volume = 0.5
  @Setting("theme") var appearance = "dark"
  var plain = 3
}

@Suite struct ReflectionTests {
  @Test func discoveryListsExactlyTheDeclaredSettingsSuperclassFirst() {
    let settings = AppSettings(backend: InMemoryBackend())
    let found = settings.allSettings
    #expect(found.map(\.propertyName) == ["enabled", "logLevel", "volume", "name", "lastOpened"])
    #expect(
      found.map(\.key) == ["library.enabled", "logLevel", "volume", "user.name", "lastOpened"])
    #expect(
      found.map(\.declaringTypeName)
        == ["LibrarySettings", "LibrarySettings", "AppSettings", "AppSettings", "AppSettings"]
    )
    #expect(found.map(\.typeName) == ["Bool", "Int", "Double", "String", "Date?"])
  }

  @Test func aSuperclassSettingReadsAndWritesThroughTheSubclassesBackend() {
    let backend = InMemoryBackend()
    let settings = AppSettings(backend: backend)
    settings.logLevel = 4
    settings.enabled = false
    #expect(backend.dictionaryRepresentation() == ["logLevel": 4, "library.enabled": false])
  }

  @Test func descriptorsShowDefaultStoredAndCurrentValues() throws {
    let backend = InMemoryBackend(["volume": 1, "logLevel": "verbose"])
    let settings = AppSettings(backend: backend)
    let byKey = Dictionary(uniqueKeysWithValues: settings.allSettings.map { ($0.key, $0) })

    let volume = try #require(byKey["volume"])
    #expect(volume.defaultValue == 0.8)
    #expect(volume.storedValue == 1)
    #expect(volume.value == 1.0)  // the integer 1, read as a Double
    #expect(volume.hasStoredValue)
    #expect(volume.description == "volume: Double = 1.0")

    let name = try #require(byKey["user.name"])
    #expect(name.storedValue == nil)
    #expect(name.value == "Anonymous")
    #expect(name.description == "user.name: String = Anonymous (default)")

    let lastOpened = try #require(byKey["lastOpened"])
    #expect(lastOpened.defaultValue == nil)
    #expect(lastOpened.value == nil)
    #expect(lastOpened.description == "lastOpened: Date? = nil (default)")

    // A wrong-typed stored value: the descriptor shows both what is stored and what is read.
    let logLevel = try #require(byKey["logLevel"])
    #expect(logLevel.storedValue == "verbose")
    #expect(logLevel.value == 2)
  }

  @Test func typeNamesAreSpelledAsInCode() {
    #expect(TypeNames.sugared([String: [Int?]].self) == "[String: [Int?]]")
    #expect(TypeNames.sugared(Set<Int>.self) == "Set<Int>")
    #expect(TypeNames.sugared(Quality.self) == "Quality")
  }

  @Test func snapshotHoldsEveryCurrentValueByKey() {
    let settings = AppSettings(backend: InMemoryBackend(["volume": 0.25]))
    #expect(
      settings.snapshot() == [
        "library.enabled": true, "logLevel": 2, "volume": 0.25, "user.name": "Anonymous",
      ]
    )
  }

  @Test func resetAllRemovesOnlyTheModelsOwnKeys() {
    let backend = InMemoryBackend(["volume": 0.25, "user.name": "Ann", "someoneElse": 1])
    let settings = AppSettings(backend: backend)
    settings.resetAll()
    #expect(backend.dictionaryRepresentation() == ["someoneElse": 1])
    #expect(settings.volume == 0.8)
  }

  @Test func aStructGroupIsDiscoveredAndBoundLikeAModel() {
    let backend = InMemoryBackend()
    let group = GroupSettings(backend: backend)
    #expect(group.allSettings.map(\.key) == ["volume", "theme"])
    group.appearance = "light"
    #expect(backend.value(forKey: "theme") == "light")
    // Copies share the binding.
    let copy = group
    copy.volume = 0.9
    #expect(group.volume == 0.9)
    #expect(group.snapshot() == ["volume": 0.9, "theme": "light"])
    group.resetAll()
    #expect(backend.dictionaryRepresentation().isEmpty)
  }

  @Test func twoModelsOnOneBackendShareValues() {
    let backend = InMemoryBackend()
    let first = AppSettings(backend: backend)
    let second = AppSettings(backend: backend)
    first.volume = 0.1
    #expect(second.volume == 0.1)
  }

  @Test func twoInstancesOnDifferentBackendsAreIndependent() {
    let first = GroupSettings(backend: InMemoryBackend())
    let second = GroupSettings(backend: InMemoryBackend())
    first.volume = 0.1
    #expect(second.volume == 0.5)
  }

  #if DEBUG
    @Test func twoSettingsWithOneKeyStopTheProgramInDebugBuilds() async {
      await #expect(processExitsWith: .failure) {
        final class Clashing: SettingsModel, @unchecked Sendable {
          @Setting("same") var first = 1
          @Setting("same") var second = 2
        }
        _ = Clashing(backend: InMemoryBackend())
      }
    }
  #endif

  @Test func readingAnUnboundSettingStopsTheProgramWithAnExplanation() async {
    await #expect(processExitsWith: .failure) {
      let unbound = GroupSettings()
      _ = unbound.volume
    }
  }
}
