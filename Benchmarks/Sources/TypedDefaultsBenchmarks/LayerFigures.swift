import Foundation
import Synchronization
import TypedDefaults
import TypedDefaultsLayers

/// A read-only layer holding fixed values, as a user writes a `LayerSource`.
final class BenchSource: LayerSource {
  let layer: LayeredPlistStore.Layer
  let values: [String: PropertyListValue]

  init(_ name: String, values: [String: PropertyListValue]) {
    layer = LayeredPlistStore.Layer(name)
    self.values = values
  }

  func read() throws(SettingsError) -> LayerContents {
    LayerContents(values: values)
  }
}

extension Figures {
  /// A `@Setting` read of a key found only in the lowest of eight layers (runtime, persistent and
  /// six sources, 100 keys each), against a read of a locked dictionary.
  func layeredReadFromLowestOfEightLayers() throws -> Figure {
    let folder = try ScratchFolder()
    defer { folder.remove() }
    var definitions: [LayeredPlistStore.LayerDefinition] = [.runtime, .persistent]
    for layer in 0..<6 {
      var values = Dictionary(
        uniqueKeysWithValues: (0..<100).map {
          ("source\(layer).key\($0)", PropertyListValue.integer(1))
        })
      if layer == 5 { values["count"] = 42 }
      definitions.append(.source(BenchSource("source\(layer)", values: values)))
    }
    let store = try LayeredPlistStore(
      persistentFile: folder.file("data.plist"), layers: definitions,
      options: .init(savesAtExit: false))
    for index in 0..<100 {
      try store.setValue(.integer(1), forKey: "runtime.key\(index)", in: .runtime)
      try store.setValue(.integer(1), forKey: "persistent.key\(index)")
    }
    let settings = BenchSettings(backend: store)
    let baseline = Mutex<[String: Int]>(
      Dictionary(uniqueKeysWithValues: (0..<800).map { ("key\($0)", $0) }).merging(["count": 42]) {
        $1
      })
    let (ours, raw) = compare(
      repeats: effort.repeats, iterations: effort.iterations,
      ours: { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= settings.count }
        consume(sum)
      },
      baseline: { iterations in
        var sum = 0
        for _ in 0..<iterations { sum &+= baseline.withLock { $0["count"] ?? 0 } }
        consume(sum)
      })
    return Figure(
      name: "LayeredPlistStore @Setting read, value only in the lowest of 8 layers (6 sources)",
      ours: ours, baseline: raw, target: 1.5, unit: "ns")
  }

  /// Opening a store whose 10,000 keys are spread across six sources and data.plist, against
  /// opening the same 10,000 keys in data.plist alone (reported, no target).
  func openWithSources() throws -> Figure {
    let folder = try ScratchFolder()
    defer { folder.remove() }
    let all = tenThousandValues().sorted { $0.key < $1.key }
    var parts = Array(repeating: [String: PropertyListValue](), count: 7)
    for (index, entry) in all.enumerated() { parts[index % 7][entry.key] = entry.value }
    let spread = folder.file("spread.plist")
    try PropertyListFile(url: spread).write(.dictionary(parts[6]), format: .binary)
    let alone = folder.file("alone.plist")
    try PropertyListFile(url: alone).write(
      .dictionary(Dictionary(uniqueKeysWithValues: all)), format: .binary)
    let sources = (0..<6).map { BenchSource("source\($0)", values: parts[$0]) }
    let (ours, baseline) = try compare(
      repeats: effort.fileRepeats, iterations: 1,
      ours: { _ in
        consume(
          try LayeredPlistStore(
            persistentFile: spread,
            layers: [.runtime, .persistent] + sources.map { .source($0) },
            options: .init(savesAtExit: false)))
      },
      baseline: { _ in
        consume(try LayeredPlistStore(persistentFile: alone, options: .init(savesAtExit: false)))
      })
    return Figure(
      name: "open of a store with 6 sources, 10,000 keys spread across them and data.plist "
        + "(baseline: the 10,000 keys in data.plist alone)",
      ours: ours, baseline: baseline, target: nil, unit: "ns")
  }
}
