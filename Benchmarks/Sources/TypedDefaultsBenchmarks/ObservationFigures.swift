import Dispatch
import Foundation
import Observation
import Synchronization
import TypedDefaults

/// The baseline of the tracked-read figure: what the `@Observable` macro makes of a class with a
/// stored `count`, written out (the macro works with this toolchain, but the baseline is plainer
/// spelled out): the getter tells the registrar of the access, then returns the stored value.
final class ObservableCounter: Observable {
  private let registrar = ObservationRegistrar()
  private var storedCount: Int

  init(count: Int) { storedCount = count }

  var count: Int {
    get {
      registrar.access(self, keyPath: \.count)
      return storedCount
    }
    set {
      registrar.withMutation(of: self, keyPath: \.count) { storedCount = newValue }
    }
  }
}

/// The baseline of the write-with-an-observer figure: a locked dictionary, and a callback kept in
/// a property and called after each write, as an observer's is.
final class CallbackDictionary {
  private let values = Mutex<[String: Int]>(["count": 42, "name": 0])
  /// Called with each value written.
  var callback: (Int) -> Void = { _ in }

  func set(_ value: Int, forKey key: String) {
    values.withLock { $0[key] = value }
    callback(value)
  }
}

/// Counts the calls of an observer's callback: the same trivial work in ours and the baseline.
final class CallCounter: Sendable {
  private let calls = Atomic<Int>(0)

  var count: Int { calls.load(ordering: .relaxed) }

  func called() { calls.wrappingAdd(1, ordering: .relaxed) }
}

/// The observation figures: what observing costs readers and writers, and how long a change takes
/// to reach an observer.
extension Figures {
  /// A read inside `withObservationTracking`, which records each access, against the read of an
  /// `@Observable`-style class (``ObservableCounter``) inside `withObservationTracking` too.
  func settingIntReadTrackedInMemory() -> Figure {
    let settings = BenchSettings(backend: InMemoryBackend(["count": 42, "name": "x"]))
    let counter = ObservableCounter(count: 42)
    let (ours, raw) = compare(
      repeats: effort.repeats, iterations: effort.iterations,
      ours: { iterations in
        var sum = 0
        withObservationTracking {
          for _ in 0..<iterations { sum &+= settings.count }
        } onChange: {
        }
        consume(sum)
      },
      baseline: { iterations in
        var sum = 0
        withObservationTracking {
          for _ in 0..<iterations { sum &+= counter.count }
        } onChange: {
        }
        consume(sum)
      })
    return Figure(
      name: "@Setting Int read inside withObservationTracking, InMemoryBackend "
        + "(baseline: an @Observable-style class's read, tracked too)",
      ours: ours, baseline: raw, target: 1.5, unit: "ns")
  }

  /// A write while `observers` observers watch other keys (or, with `ofTheKey`, the written key).
  ///
  /// With `ofTheKey`, every write calls the observer, which counts the call; the baseline is then
  /// a locked dictionary's write followed by a call of a stored closure doing the same
  /// (``CallbackDictionary``), target 3. Otherwise it is the locked dictionary's write alone.
  func settingIntWriteInMemory(observing observers: Int, ofTheKey: Bool = false) -> Figure {
    let backend = InMemoryBackend(["count": 42, "name": "x"])
    let settings = BenchSettings(backend: backend)
    let oursCalls = CallCounter()
    let tokens = (0..<observers).map { index in
      backend.observe(key: ofTheKey ? "count" : "other.\(index)") { _ in oursCalls.called() }
    }
    defer { tokens.forEach { $0.cancel() } }
    let baseline = Mutex<[String: Int]>(["count": 42, "name": 0])
    let withCallback = CallbackDictionary()
    let baselineCalls = CallCounter()
    withCallback.callback = { _ in baselineCalls.called() }
    var writes = 0
    let (ours, raw) = compare(
      repeats: effort.repeats, iterations: effort.iterations,
      ours: { iterations in
        for _ in 0..<iterations {
          writes += 1
          settings.count = writes
        }
      },
      baseline: { iterations in
        if ofTheKey {
          for index in 0..<iterations { withCallback.set(index, forKey: "count") }
        } else {
          for index in 0..<iterations { baseline.withLock { $0["count"] = index } }
        }
      })
    precondition(oursCalls.count == (ofTheKey ? writes : 0))
    precondition(baselineCalls.count == (ofTheKey ? oursCalls.count : 0))
    let who =
      ofTheKey
      ? "\(observers) observer\(observers == 1 ? "" : "s") of the key"
      : "\(observers) observer\(observers == 1 ? "" : "s") of other keys"
    let target: Double? = ofTheKey ? 3 : observers == 1 ? nil : 1.5
    return Figure(
      name: "@Setting Int write, InMemoryBackend, \(who)", ours: ours, baseline: raw,
      target: target, unit: "ns")
  }

  /// A `@Setting` Int write received by a `for await` loop over the setting's changes, against
  /// an `AsyncStream<Int>`'s yield received the same way (reported, no target).
  ///
  /// The loop (over `$count.changes()`, in another task) tells the writer of each value it
  /// receives, and the writer waits for that before the next write, so no change is coalesced
  /// with the next.
  func streamDeliveryInMemory() -> Figure {
    let settings = BenchSettings(backend: InMemoryBackend(["count": 0]))
    let changes = settings.$count.changes()
    let ready = DispatchSemaphore(value: 0)
    let received = DispatchSemaphore(value: 0)
    let consumer = Task.detached {
      var values = changes.makeAsyncIterator()
      ready.signal()
      while let _ = await values.next() { received.signal() }
    }
    defer { consumer.cancel() }
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    let rawReceived = DispatchSemaphore(value: 0)
    let rawConsumer = Task.detached {
      for await _ in stream { rawReceived.signal() }
    }
    defer {
      continuation.finish()
      rawConsumer.cancel()
    }
    ready.wait()
    var value = 0
    let (ours, raw) = compare(
      repeats: effort.repeats, iterations: max(100, effort.iterations / 40),
      ours: { iterations in
        for _ in 0..<iterations {
          value += 1
          settings.count = value
          received.wait()
        }
      },
      baseline: { iterations in
        for index in 0..<iterations {
          continuation.yield(index)
          rawReceived.wait()
        }
      })
    return Figure(
      name: "@Setting Int write → for-await receipt of the value ($count.changes()), "
        + "InMemoryBackend (baseline: AsyncStream<Int> yield → for-await)",
      ours: ours, baseline: raw, target: nil, unit: "ns")
  }

  /// From the start of a write to the observer's callback, which runs on the writing thread:
  /// median and 99th percentile.
  func callbackLatencyInMemory() -> [Figure] {
    let backend = InMemoryBackend()
    let received = Mutex<UInt64>(0)
    let token = backend.observe(key: "count") { _ in
      let now = DispatchTime.now().uptimeNanoseconds
      received.withLock { $0 = now }
    }
    defer { token.cancel() }
    var samples: [Double] = []
    let count = effort.iterations / 4
    samples.reserveCapacity(count)
    for index in 0..<count {
      let start = DispatchTime.now().uptimeNanoseconds
      try? backend.setValue(.integer(.init(Int64(index))), forKey: "count")
      samples.append(Double(received.withLock { $0 } &- start))
    }
    return percentiles(samples, name: "write → callback latency, InMemoryBackend")
  }

  /// From the start of a write to a `for await` consumer in another task receiving it: median and
  /// 99th percentile.
  func streamLatencyInMemory() -> [Figure] {
    let backend = InMemoryBackend()
    let count = max(1_000, effort.iterations / 40)
    let ready = DispatchSemaphore(value: 0)
    let received = DispatchSemaphore(value: 0)
    let times = Mutex<[UInt64]>([])
    let consumer = Task.detached {
      var changes = backend.changes(forKey: "count").makeAsyncIterator()
      ready.signal()
      while let _ = await changes.next() {
        let now = DispatchTime.now().uptimeNanoseconds
        times.withLock { $0.append(now) }
        received.signal()
      }
    }
    ready.wait()
    var samples: [Double] = []
    for index in 0..<count {
      let start = DispatchTime.now().uptimeNanoseconds
      try? backend.setValue(.integer(.init(Int64(index))), forKey: "count")
      received.wait()
      samples.append(Double(times.withLock { $0.last ?? start } &- start))
    }
    consumer.cancel()
    return percentiles(samples, name: "write → for-await consumer latency, InMemoryBackend")
  }
}
