import Foundation
import TypedDefaults

/// The settings the per-call figures read and write.
struct BenchSettings: SettingsGroup {
  @Setting var count = 0
  @Setting var name = ""
  @Setting var profile = Profile(name: "", age: 0, tags: [], premium: false)
}

/// A small Codable struct, stored as a dictionary.
struct Profile: Codable, SettingValue, Equatable {
  var name: String
  var age: Int
  var tags: [String]
  var premium: Bool
}

/// A fresh folder under the temporary directory, removed by `remove()`.
struct ScratchFolder {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent(
        "TypedDefaultsBenchmarks-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func file(_ name: String) -> URL { url.appendingPathComponent(name) }

  func remove() { try? FileManager.default.removeItem(at: url) }
}

/// 10,000 keys of mixed kinds, as settings files hold them: strings, integers, reals, booleans,
/// dates and small dictionaries.
func tenThousandValues() -> [String: PropertyListValue] {
  mixedValues(count: 10_000)
}

/// `count` keys of mixed kinds, `setting.0`, `setting.1`…: those of ``tenThousandValues()``.
func mixedValues(count: Int) -> [String: PropertyListValue] {
  var values: [String: PropertyListValue] = [:]
  for index in 0..<count {
    let key = "setting.\(index)"
    switch index % 6 {
    case 0: values[key] = .string("value number \(index)")
    case 1: values[key] = .integer(.init(Int64(index)))
    case 2: values[key] = .real(Double(index) / 7)
    case 3: values[key] = .bool(index % 4 == 1)
    case 4: values[key] = .date(Date(timeIntervalSinceReferenceDate: Double(index) * 1000))
    default: values[key] = ["enabled": .bool(true), "limit": .integer(.init(Int64(index)))]
    }
  }
  return values
}

/// The same values as Foundation objects, for the raw baselines.
func foundationObjects(_ values: [String: PropertyListValue]) -> [String: Any] {
  func object(_ value: PropertyListValue) -> Any {
    switch value {
    case .string(let string): string
    case .integer(let integer): Int(exactly: integer) ?? 0
    case .real(let real): real
    case .bool(let bool): bool
    case .date(let date): date
    case .data(let data): data
    case .array(let elements): elements.map(object)
    case .dictionary(let entries): entries.mapValues(object)
    }
  }
  return values.mapValues(object)
}
