import AllocationCounter
import Foundation
import TypedDefaults
import TypedDefaultsLayers

/// Heap allocations per operation, counted by the `AllocationCounter` target (Linux only;
/// elsewhere the figures print "n/a").
extension Figures {
  /// The allocations counted while making arrays: at least one per array of capacity 4, or the
  /// counter is broken (the benchmark then stops, so that a shim counting nothing can't report
  /// zero allocations).
  ///
  /// - Returns: The figure, allocations per array (1 expected); "n/a" where allocations aren't
  ///   counted.
  func allocationCounterCheck() -> Figure {
    let name = "heap allocations counted per [Int] of capacity 4 (a check of the counter)"
    guard allocation_count() >= 0 else {
      return .unavailable(name: name, target: nil, unit: "allocs/op")
    }
    let count = max(1_000, effort.iterations / 10)
    var arrays: [[Int]] = []
    arrays.reserveCapacity(count)
    let perArray = allocationsPerOperation(count) { count in
      for index in 0..<count {
        var array: [Int] = []
        array.reserveCapacity(4)
        array.append(index)
        arrays.append(array)
      }
      // Keep this run's arrays out of the next run's count.
      consume(arrays)
      arrays.removeAll(keepingCapacity: true)
    }
    guard perArray >= 1 else {
      FileHandle.standardError.write(
        Data(
          ("TypedDefaultsBenchmarks: the allocation counter counted \(perArray) allocations per "
            + "[Int] of capacity 4, not at least 1: it does not see malloc\n").utf8))
      exit(1)
    }
    return Figure(name: name, ours: perArray, baseline: nil, target: nil, unit: "allocs/op")
  }

  /// Allocations per `@Setting` Int read and per write, with no observer, on `backend`: target 0.
  ///
  /// - Parameter kind: `InMemoryBackend`, or `LayeredPlistStore` (the value in data.plist;
  ///   written to the persistent layer, saved by nothing: autosave is manual).
  /// - Returns: The read's and the write's figures, after the counter's check.
  /// - Throws: When the store's folder or files can't be made.
  func allocationsPerReadAndWrite(on kind: ReadBackend) throws -> [Figure] {
    let names = [
      "heap allocations per @Setting Int read, \(kind.description), no observer",
      "heap allocations per @Setting Int write, \(kind.description), no observer",
    ]
    let check = allocationCounterCheck()
    guard check.isAvailable else {
      return names.map { Figure.unavailable(name: $0, target: 0, unit: "allocs/op") }
    }
    let folder = try ScratchFolder()
    defer { folder.remove() }
    let backend: any SettingsBackend
    switch kind {
    case .layered:
      let file = folder.file("data.plist")
      try PropertyListFile(url: file).write(.dictionary(ScalarSettings.stored))
      let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
      precondition(store.layer(forKey: "count") == .persistent)
      backend = store
    case .memory:
      backend = InMemoryBackend(ScalarSettings.stored)
    case .userDefaults, .promisedUserDefaults:
      preconditionFailure("allocations are counted on InMemoryBackend and LayeredPlistStore")
    }
    let settings = ScalarSettings(backend: backend)
    let reads = allocationsPerOperation(effort.iterations) { iterations in
      var sum = 0
      for _ in 0..<iterations { sum &+= settings.count }
      consume(sum)
    }
    var value = 0
    let writes = allocationsPerOperation(effort.iterations) { iterations in
      for _ in 0..<iterations {
        value &+= 1
        settings.count = value
      }
    }
    precondition(settings.count == value)
    return zip(names, [reads, writes]).map { name, allocations in
      Figure(name: name, ours: allocations, baseline: nil, target: 0, unit: "allocs/op")
    }
  }

  /// The allocations of `iterations` operations on this thread, per operation, counted from the
  /// counter before and after them (after a tenth as many, uncounted, to warm up).
  private func allocationsPerOperation(
    _ iterations: Int, _ body: (_ iterations: Int) -> Void
  ) -> Double {
    body(max(1, iterations / 10))
    allocation_counting_set_enabled(true)
    let before = allocation_count()
    body(iterations)
    let after = allocation_count()
    allocation_counting_set_enabled(false)
    return Double(after - before) / Double(iterations)
  }
}
