import Dispatch
import Foundation
import Observation
import Synchronization
import TypedDefaults

/// The observation figures: what observing costs readers and writers, and how long a change takes
/// to reach an observer.
extension Figures {
  /// A read inside `withObservationTracking`, which records each access (reported, no target).
  func settingIntReadTrackedInMemory() -> Figure {
    let settings = BenchSettings(backend: InMemoryBackend(["count": 42, "name": "x"]))
    let baseline = Mutex<[String: Int]>(["count": 42, "name": 0])
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
        for _ in 0..<iterations { sum &+= baseline.withLock { $0["count"] ?? 0 } }
        consume(sum)
      })
    return Figure(
      name: "@Setting Int read inside withObservationTracking, InMemoryBackend", ours: ours,
      baseline: raw, target: nil, unit: "ns")
  }

  /// A write while `observers` observers watch other keys (or, with `ofTheKey`, the written key).
  func settingIntWriteInMemory(observing observers: Int, ofTheKey: Bool = false) -> Figure {
    let backend = InMemoryBackend(["count": 42, "name": "x"])
    let settings = BenchSettings(backend: backend)
    let tokens = (0..<observers).map { index in
      backend.observe(key: ofTheKey ? "count" : "other.\(index)") { _ in }
    }
    defer { tokens.forEach { $0.cancel() } }
    let baseline = Mutex<[String: Int]>(["count": 42, "name": 0])
    let (ours, raw) = compare(
      repeats: effort.repeats, iterations: effort.iterations,
      ours: { iterations in
        for index in 0..<iterations { settings.count = index }
      },
      baseline: { iterations in
        for index in 0..<iterations { baseline.withLock { $0["count"] = index } }
      })
    let who =
      ofTheKey
      ? "\(observers) observer\(observers == 1 ? "" : "s") of the key"
      : "\(observers) observer\(observers == 1 ? "" : "s") of other keys"
    return Figure(
      name: "@Setting Int write, InMemoryBackend, \(who)", ours: ours, baseline: raw,
      target: ofTheKey || observers == 1 ? nil : 1.5, unit: "ns")
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
