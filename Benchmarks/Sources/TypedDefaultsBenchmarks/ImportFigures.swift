import Foundation
import TypedDefaults
import TypedDefaultsLayers

/// A model of 10,000 settings, one per key of `tenThousandValues()`, of the type each value
/// has.
///
/// Built at run time from standalone settings (`SettingDescriptor(_:)`): a class declaring 10,000
/// `@Setting`s takes the compiler more than ten minutes, and the import path (look up each key's
/// descriptor, check the value against its type, write one batch, save once) is the same for a
/// declared model.
struct TenThousandSettings: SettingsContainer {
  let allSettings: [SettingDescriptor]

  /// The dictionary entry's type, as a Codable struct.
  struct Limit: Codable, SettingValue, Equatable {
    var enabled: Bool
    var limit: Int
  }

  init(backend: any SettingsBackend) {
    var settings: [SettingDescriptor] = []
    settings.reserveCapacity(10_000)
    for index in 0..<10_000 {
      let key = "setting.\(index)"
      switch index % 6 {
      case 0: settings.append(SettingDescriptor(Setting(key, default: "", backend: backend)))
      case 1: settings.append(SettingDescriptor(Setting(key, default: 0, backend: backend)))
      case 2: settings.append(SettingDescriptor(Setting(key, default: 0.0, backend: backend)))
      case 3: settings.append(SettingDescriptor(Setting(key, default: false, backend: backend)))
      case 4:
        settings.append(
          SettingDescriptor(Setting(key, default: Date.distantPast, backend: backend)))
      default:
        settings.append(
          SettingDescriptor(
            Setting(key, default: Limit(enabled: false, limit: 0), backend: backend)))
      }
    }
    allSettings = settings
  }
}

extension Figures {
  /// Importing 10,000 keys into a model on a `LayeredPlistStore` (validation of every value
  /// against its setting's type, one `setValues` batch, one save) against the raw save of the same
  /// dictionary (`setValues` and `save()` on a store of its own).
  ///
  /// Both sides alternate between two versions of the values, so every import changes every integer
  /// and real.
  func importTenThousandKeys() throws -> Figure {
    let folder = try ScratchFolder()
    defer { folder.remove() }
    let options = LayeredPlistStore.Options(format: .binary, savesAtExit: false)
    let store = try LayeredPlistStore(persistentFile: folder.file("model.plist"), options: options)
    let raw = try LayeredPlistStore(persistentFile: folder.file("raw.plist"), options: options)
    let model = TenThousandSettings(backend: store)
    let first = tenThousandValues()
    var second = first
    for (key, value) in first {
      switch value {
      case .integer(let integer):
        second[key] = .integer(.init(Int64(Int(exactly: integer) ?? 0) + 1))
      case .real(let real): second[key] = .real(real + 0.5)
      default: break
      }
    }
    var ourTurn = 0
    var rawTurn = 0
    let (ours, baseline) = try compare(
      repeats: effort.fileRepeats, iterations: 1,
      ours: { _ in
        ourTurn += 1
        let result = try model.importValues(ourTurn % 2 == 0 ? first : second)
        precondition(result.importedKeys.count == 10_000 && result.unknownKeys.isEmpty)
      },
      baseline: { _ in
        rawTurn += 1
        try raw.setValues(rawTurn % 2 == 0 ? first : second)
        try raw.save()
      })
    return Figure(
      name: "import of 10,000 keys into a model, LayeredPlistStore (validation + one save)",
      ours: ours, baseline: baseline, target: 1.3, unit: "ns")
  }
}
