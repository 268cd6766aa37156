import Dispatch
import Foundation
import Synchronization
import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The locked dictionary of the contended-read baseline, shared by its threads.
final class SharedLockedCounts: Sendable {
  let values = Mutex<[String: Int]>(["count": 42, "name": 0])
}

/// Whether the writer of a contended-read run should stop.
final class StopFlag: Sendable {
  private let stopped = Atomic<Bool>(false)

  var isSet: Bool { stopped.load(ordering: .relaxed) }

  func set() { stopped.store(true, ordering: .relaxed) }
}

/// The CPU time the calling thread has used, in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`).
func threadCPUNanoseconds() -> UInt64 {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

extension Figures {
  /// Reads under contention: 8 threads each read a `@Setting` Int (`InMemoryBackend`) a fixed
  /// number of times while another thread writes it every millisecond, against the same read on
  /// one thread alone, with no writer (target 1.5); and the same two runs of a locked
  /// dictionary's read, reported beside it (no target).
  ///
  /// The per-read cost is each reader thread's own CPU time (`CLOCK_THREAD_CPUTIME_ID`) over its
  /// reads, the median over the 8 threads; and the median of that over the repeats. CPU time,
  /// not wall time: the machine this runs on has 2 cores, so 8 readers are time-sliced, and a
  /// thread's wall time would count the time it waited for a core. What CPU time leaves out is
  /// time a reader slept in the kernel, blocked on a lock a writer or another reader held (a
  /// futex wait); time spent spinning on a lock or in the kernel's lock handover, or on cache
  /// lines the other core wrote, is in it.
  ///
  /// Each reader does 100,000 reads in the full run (a few milliseconds alone, so that the 8
  /// readers are time-sliced), 10,000 in the quick run; a run still going after 250 ms ends
  /// early, each reader's cost taken over the reads it did. Only the contended locked
  /// dictionary gets there: a Mutex held by a reader that loses its core makes the others wait
  /// in the kernel (on Linux, a priority-inheritance futex), tens of microseconds per read, and
  /// 800,000 reads would take minutes.
  ///
  /// - Returns: Ours against one thread alone (a class model, then a struct model), then the
  ///   locked dictionary's.
  func contendedReads() -> [Figure] {
    let readers = 8
    let reads = effort.iterations / 2
    let settings = ScalarSettings(backend: InMemoryBackend(ScalarSettings.stored))
    // The same setting in a struct model: reading a class model's property wrapper retains and
    // releases the wrapper's storage, a reference count all the readers write.
    let group = BenchSettings(backend: InMemoryBackend(["count": 42]))
    let dictionary = SharedLockedCounts()
    let readSetting: @Sendable (Int) -> Void = { reads in
      var sum = 0
      for _ in 0..<reads { sum &+= settings.count }
      consume(sum)
    }
    let readGroup: @Sendable (Int) -> Void = { reads in
      var sum = 0
      for _ in 0..<reads { sum &+= group.count }
      consume(sum)
    }
    let writeGroup: @Sendable (Int) -> Void = { group.count = $0 }
    let readDictionary: @Sendable (Int) -> Void = { reads in
      var sum = 0
      for _ in 0..<reads { sum &+= dictionary.values.withLock { $0["count"] ?? 0 } }
      consume(sum)
    }
    let writeSetting: @Sendable (Int) -> Void = { settings.count = $0 }
    let writeDictionary: @Sendable (Int) -> Void = { value in
      dictionary.values.withLock { $0["count"] = value }
    }
    // Warm up, a tenth as long.
    for (read, write) in [
      (readSetting, writeSetting), (readGroup, writeGroup), (readDictionary, writeDictionary),
    ] {
      consume(perReadCPUTime(threads: readers, reads: max(1, reads / 10), writer: write, read))
    }
    var samples: [[Double]] = Array(repeating: [], count: 6)
    for _ in 0..<effort.fileRepeats {
      samples[0].append(perReadCPUTime(threads: 1, reads: reads, writer: nil, readSetting))
      samples[1].append(
        perReadCPUTime(threads: readers, reads: reads, writer: writeSetting, readSetting))
      samples[2].append(perReadCPUTime(threads: 1, reads: reads, writer: nil, readDictionary))
      samples[3].append(
        perReadCPUTime(threads: readers, reads: reads, writer: writeDictionary, readDictionary))
      samples[4].append(perReadCPUTime(threads: 1, reads: reads, writer: nil, readGroup))
      samples[5].append(
        perReadCPUTime(threads: readers, reads: reads, writer: writeGroup, readGroup))
    }
    let medians = samples.map(median)
    let what = "\(readers) reader threads while a thread writes it every ms"
    let how = "CPU time of each reader per read, median over the threads"
    return [
      Figure(
        name: "@Setting Int read, InMemoryBackend, \(what) (\(how); baseline: one thread alone)",
        ours: medians[1], baseline: medians[0], target: 1.5, unit: "ns"),
      Figure(
        name:
          "@Setting Int read of a SettingsGroup struct, InMemoryBackend, \(what) (\(how); baseline: one thread alone)",
        ours: medians[5], baseline: medians[4], target: 1.5, unit: "ns"),
      Figure(
        name: "Mutex<[String: Int]> read, \(what) (\(how); baseline: one thread alone)",
        ours: medians[3], baseline: medians[2], target: nil, unit: "ns"),
    ]
  }

  /// Runs `read` on `threads` threads at once, `reads` times each in chunks of 1,000, while
  /// `writer` (if any) is called every millisecond on another thread with 1, 2, 3…; returns the
  /// median over the threads of each one's CPU time per read, in nanoseconds.
  ///
  /// A reader still reading 250 ms after the start stops at the end of its chunk.
  private func perReadCPUTime(
    threads: Int,
    reads: Int,
    writer: (@Sendable (Int) -> Void)?,
    _ read: @escaping @Sendable (_ reads: Int) -> Void
  ) -> Double {
    let start = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    let times = Mutex<[Double]>([])
    let stop = StopFlag()
    let writerStopped = DispatchSemaphore(value: 0)
    if let writer {
      let thread = Thread {
        var value = 0
        while !stop.isSet {
          value += 1
          writer(value)
          usleep(1000)
        }
        writerStopped.signal()
      }
      thread.start()
    }
    let deadline = Mutex<DispatchTime>(.distantFuture)
    for _ in 0..<threads {
      let thread = Thread {
        start.wait()
        let end = deadline.withLock { $0 }
        let before = threadCPUNanoseconds()
        var done = 0
        while done < reads, done == 0 || DispatchTime.now() < end {
          let chunk = min(1_000, reads - done)
          read(chunk)
          done += chunk
        }
        let elapsed = threadCPUNanoseconds() - before
        times.withLock { $0.append(Double(elapsed) / Double(done)) }
        finished.signal()
      }
      thread.start()
    }
    deadline.withLock { $0 = .now() + .milliseconds(250) }
    for _ in 0..<threads { start.signal() }
    for _ in 0..<threads { finished.wait() }
    if writer != nil {
      stop.set()
      writerStopped.wait()
    }
    return median(times.withLock { $0 })
  }
}
