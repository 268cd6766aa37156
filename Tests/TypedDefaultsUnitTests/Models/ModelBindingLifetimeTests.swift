import Dispatch
import Foundation
import Observation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

// Model types only this suite creates, so that each type's cache of cells is the suite's alone.

private final class BreakSettings: SettingsModel, @unchecked Sendable {
  @Setting var volume = 1
  @Setting("quality") var quality = "auto"
  @Setting var tags: [String] = []
  @Setting var ratio: Double?
}

private struct BreakGroup: SettingsGroup {
  @Setting var volume = 1
  @Setting("name") var name = "x"
}

private final class NestedBreakSettings: SettingsModel, @unchecked Sendable {
  @Setting var top = 0
  var group = BreakGroup()
}

/// Two backends the settings below are declared with, alive for the whole process.
private enum OwnBackends {
  static let own = InMemoryBackend(name: "own")
}

private final class OwnBackendSettings: SettingsModel, @unchecked Sendable {
  @Setting var before = 0
  @Setting("own", default: 1, backend: OwnBackends.own) var own: Int
  @Setting var after = 0
}

/// A key prefix read from a value the test changes, so that later instances of the type are
/// planned with another prefix than the first and fall back to `Mirror`.
private enum RuntimePrefix {
  static let current = Locked("first.")
}

private final class RuntimePrefixSettings: SettingsModel, @unchecked Sendable {
  override class var keyPrefix: String { RuntimePrefix.current.withLock { $0 } }
  @Setting var volume = 1
  @Setting("quality") var quality = "auto"
  var group = BreakGroup()
}

private final class ConcurrentSettings: SettingsModel, @unchecked Sendable {
  @Setting var a = 0
  @Setting var b = 0
  @Setting("c") var c = "c"
  @Setting var d: [Int] = []
}

/// A reference holder a `@Sendable` closure can empty.
private final class Box<Value>: @unchecked Sendable {
  // @unchecked Sendable: `value` is only read and written under `lock`.
  private let lock = NSLock()
  private var stored: Value?

  init(_ value: Value?) { stored = value }

  var value: Value? {
    lock.lock()
    defer { lock.unlock() }
    return stored
  }

  func clear() {
    lock.lock()
    let old = stored
    stored = nil
    lock.unlock()
    withExtendedLifetime(old) {}
  }
}

@Suite(.tags(.breakIt)) struct ModelBindingLifetimeTests {
  // MARK: - Lifetimes

  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  @Test(arguments: BackendFactory.allWithScopedViews)
  func aSettingCopiedOutOfAReleasedModelKeepsReadingWritingAndTracking(
    _ factory: BackendFactory
  ) async throws {
    try await factory.withBackend { backend in
      weak var weakModel: BreakSettings?
      let (volume, tags) = { () -> (Setting<Int>, Setting<[String]>) in
        let model = BreakSettings(backend: backend)
        weakModel = model
        return (model.$volume, model.$tags)
      }()
      #expect(weakModel == nil)
      // Other models of the type come and go, taking observables from the pool.
      for _ in 0..<5 { _ = BreakSettings(backend: InMemoryBackend()) }
      try volume.set(4)
      tags.wrappedValue = ["a"]
      #expect(volume.wrappedValue == 4)
      #expect(tags.wrappedValue == ["a"])
      #expect(BreakSettings(backend: backend).volume == 4)
      let calls = Received<Int>()
      _ = withObservationTracking {
        volume.wrappedValue
      } onChange: {
        calls.append(1)
      }
      let seen = Received<Int>()
      let token = volume.observe { seen.append($0) }
      try volume.set(5)
      #expect(calls.count == 1)
      #expect(seen.all == [5])
      token.cancel()
    }
  }

  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  @Test func anOnChangeThatReleasesTheLastReferenceToItsModelEndsItsTracking() throws {
    let backend = InMemoryBackend()
    let box = Box(BreakSettings(backend: backend))
    let calls = Received<Int>()
    _ = withObservationTracking {
      (box.value?.volume ?? 0) + (box.value?.tags.count ?? 0)
    } onChange: {
      calls.append(1)
      box.clear()
    }
    #expect(observerCount(backend) == 2)
    try backend.setValue(2, forKey: "volume")
    #expect(box.value == nil)
    #expect(calls.count == 1)
    #expect(observerCount(backend) == 0)
    try backend.setValue(3, forKey: "volume")
    try backend.setValue(["x"], forKey: "tags")
    #expect(calls.count == 1)
  }

  // MARK: - Cells

  @Test func alternatingBackendsViewsAndPrefixesEachReadTheirOwnValues() throws {
    let first = InMemoryBackend(["volume": 10, "a.volume": 20, "b.volume": 30])
    let second = InMemoryBackend(["volume": 40])
    let backends: [any SettingsBackend] = [
      first, second, first.scoped(to: "a."), first, first.scoped(to: "b."), first.scoped(to: "a."),
      second.scoped(to: "a."),
    ]
    for round in 0..<6 {
      for (index, backend) in backends.enumerated() {
        let model = BreakSettings(backend: backend)
        let before = backend.value(forKey: "volume").flatMap(Int.init(propertyListValue:)) ?? 1
        #expect(model.volume == before, "round \(round), backend \(index)")
        model.volume = before + 1
        #expect(backend.value(forKey: "volume") == stored(before + 1))
      }
    }
    #expect(first.value(forKey: "volume") == 22)
    #expect(first.value(forKey: "a.volume") == 32)
    #expect(first.value(forKey: "b.volume") == 36)
    #expect(second.value(forKey: "volume") == 46)
    #expect(second.value(forKey: "a.volume") == 7)
  }

  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  @Test func aSettingWithItsOwnBackendKeepsItInEveryInstance() throws {
    let backend = InMemoryBackend()
    for round in 0..<3 {
      let model = OwnBackendSettings(backend: backend)
      #expect(model.$own.backend === OwnBackends.own)
      model.own = round + 10
      model.before = round
      model.after = round
      #expect(OwnBackends.own.value(forKey: "own") == stored(round + 10))
      #expect(backend.value(forKey: "own") == nil)
      #expect(backend.value(forKey: "before") == stored(round))
      #expect(backend.value(forKey: "after") == stored(round))
      let calls = Received<Int>()
      _ = withObservationTracking {
        model.own
      } onChange: {
        calls.append(1)
      }
      try OwnBackends.own.setValue(0, forKey: "own")
      #expect(calls.count == 1)
    }
  }

  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  @Test func modelsFoundByMirrorBindTheirKeysAndTrack() throws {
    let backend = InMemoryBackend()
    RuntimePrefix.current.withLock { $0 = "first." }
    let planned = RuntimePrefixSettings(backend: backend)
    planned.volume = 1_000
    for round in 0..<3 {
      RuntimePrefix.current.withLock { $0 = "mirror\(round)." }
      let model = RuntimePrefixSettings(backend: backend)
      #expect(model.$volume.key == "mirror\(round).volume")
      #expect(model.$quality.key == "mirror\(round).quality")
      #expect(model.group.$name.key == "mirror\(round).group.name")
      model.volume = round
      model.group.volume = round + 100
      #expect(backend.value(forKey: "mirror\(round).volume") == stored(round))
      #expect(backend.value(forKey: "mirror\(round).group.volume") == stored(round + 100))
      #expect(
        model.allSettings.map(\.key).sorted() == [
          "mirror\(round).group.name", "mirror\(round).group.volume", "mirror\(round).quality",
          "mirror\(round).volume",
        ])
      let calls = Received<Int>()
      _ = withObservationTracking {
        model.group.volume
      } onChange: {
        calls.append(1)
      }
      model.group.volume = 0
      #expect(calls.count == 1)
    }
    RuntimePrefix.current.withLock { $0 = "first." }
    #expect(RuntimePrefixSettings(backend: backend).volume == 1_000)
  }

  // MARK: - Observation

  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  @Test func observablesReusedAcrossModelsOfOtherSizesTrackOnlyTheirOwnSetting() throws {
    let backend = InMemoryBackend()
    // Give back batches of 4, 2 and 5 observables, some of them tracked.
    for round in 0..<4 {
      let big = BreakSettings(backend: backend)
      let group = BreakGroup(backend: backend)
      let nested = NestedBreakSettings(backend: backend)
      if round.isMultiple(of: 2) {
        _ = withObservationTracking {
          big.quality + group.name
        } onChange: {
        }
      }
      _ = nested.top
    }
    let big = BreakSettings(backend: backend)
    let group = BreakGroup(backend: InMemoryBackend())
    let nested = NestedBreakSettings(backend: backend)
    let writes: [(String, () -> Void)] = [
      ("big.volume", { big.volume += 1 }), ("big.quality", { big.quality += "!" }),
      ("big.tags", { big.tags.append("t") }), ("big.ratio", { big.ratio = (big.ratio ?? 0) + 1 }),
      ("group.volume", { group.volume += 1 }), ("group.name", { group.name += "!" }),
      ("nested.top", { nested.top += 1 }), ("nested.group.volume", { nested.group.volume += 1 }),
    ]
    let reads: [String: () -> Int] = [
      "big.volume": { big.volume }, "big.quality": { big.quality.count },
      "big.tags": { big.tags.count }, "big.ratio": { big.ratio == nil ? 0 : 1 },
      "group.volume": { group.volume }, "group.name": { group.name.count },
      "nested.top": { nested.top }, "nested.group.volume": { nested.group.volume },
    ]
    for (tracked, _) in writes {
      let calls = Received<String>()
      _ = withObservationTracking {
        reads[tracked]!()
      } onChange: {
        calls.append(tracked)
      }
      for (written, write) in writes where written != tracked { write() }
      #expect(calls.count == 0, "\(tracked)")
      writes.first { $0.0 == tracked }!.1()
      #expect(calls.all == [tracked])
    }
  }

  // MARK: - Concurrency

  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  @Test func modelsCreatedAndReleasedOnEightThreadsReadWriteAndTrackTheirOwnBackends() throws {
    let shared = InMemoryBackend()
    let privates = (0..<8).map { InMemoryBackend(name: "private \($0)") }
    let longLived = ConcurrentSettings(backend: shared)
    let exchange = Locked<[ConcurrentSettings]>([])
    let changes = Received<Int>()
    _ = withObservationTracking {
      longLived.a
    } onChange: {
      changes.append(1)
    }
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for round in 0..<150 {
        let own = ConcurrentSettings(backend: privates[thread])
        #expect(own.b == (round == 0 ? 0 : round - 1))
        own.b = round
        own.d = [thread, round]
        let onShared = ConcurrentSettings(
          backend: round.isMultiple(of: 2) ? shared : privates[thread])
        if round.isMultiple(of: 5) {
          _ = withObservationTracking {
            onShared.c.count + onShared.d.count
          } onChange: {
          }
        }
        onShared.c = "\(thread)"
        _ = onShared.d
        _ = longLived.b
        if thread == 0 { longLived.b = round }
        // Hand the model to another thread, which tracks and releases it: bindings go, and
        // their observables are taken again, on threads other than the one that bound them.
        let handedOver = exchange.withLock { slots -> ConcurrentSettings? in
          slots.append(onShared)
          return slots.count > 4 ? slots.removeFirst() : nil
        }
        if let handedOver {
          _ = withObservationTracking {
            handedOver.a + handedOver.d.count
          } onChange: {
          }
          handedOver.c = "handed over"
        }
      }
    }
    exchange.withLock { $0.removeAll() }
    for (thread, backend) in privates.enumerated() {
      let model = ConcurrentSettings(backend: backend)
      #expect(model.b == 149)
      #expect(model.d == [thread, 149])
    }
    #expect(changes.count == 0)
    #expect(longLived.b == 149)
    #expect(observerCount(shared) == 1)
    longLived.a = 1
    #expect(changes.count == 1)
  }

  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  @Test func aTrackedModelReleasedWhileAnotherThreadWritesItsKeysStopsObserving() throws {
    let backend = InMemoryBackend()
    let stop = Locked(false)
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
      var value = 0
      while !stop.withLock({ $0 }) {
        value += 1
        try? backend.setValue(stored(value), forKey: "volume")
        try? backend.setValue(.string("\(value)"), forKey: "quality")
      }
    }
    for _ in 0..<300 {
      let model = BreakSettings(backend: backend)
      _ = withObservationTracking {
        model.volume + model.quality.count
      } onChange: {
      }
      _ = model.tags
    }
    stop.withLock { $0 = true }
    group.wait()
    #expect(observerCount(backend) == 0)
  }
}

/// `value` as a backend stores it.
private func stored(_ value: Int) -> PropertyListValue {
  .integer(.init(Int64(value)))
}
