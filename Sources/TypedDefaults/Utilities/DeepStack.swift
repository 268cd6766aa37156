import Foundation

/// Runs work that recurses once per level of a value on a thread whose stack holds the deepest
/// value the limits allow.
///
/// The readers, the encoder and the decoder recurse once per level of nesting. Values nest a few
/// levels; one nested as deep as ``FoundationBridge/maximumDepth`` allows can need more stack
/// than a small thread has (a Dispatch worker on Linux and a secondary thread on Apple platforms
/// have 512 KiB). Each of them first works on the calling thread with a small budget of levels
/// and, past it, starts again here: on a thread of its own with a 64 MiB stack, which the calling
/// thread waits for.
enum DeepStack {
  /// The stack of the thread ``run(_:)`` starts, in bytes.
  static let stackSize = 64 << 20

  /// How many levels work on the calling thread may recurse before it starts again with
  /// ``run(_:)``: a few kilobytes of stack each in a debug build, so a small thread keeps most of
  /// its stack for its caller.
  static let levelsOnCallingThread = 48

  /// Runs `body` on a new thread with a ``stackSize`` stack and returns its result; the calling
  /// thread waits.
  ///
  /// `body` runs on another thread but not concurrently with its caller, which is blocked until
  /// it returns: it may use what the caller holds, but not the caller's task-local values or
  /// actor isolation.
  static func run<Result>(_ body: () -> Result) -> Result {
    withoutActuallyEscaping(body) { body in
      let handoff = Handoff(body: body)
      let thread = Thread { handoff.run() }
      thread.stackSize = stackSize
      thread.start()
      handoff.done.wait()
      guard let result = handoff.result else { preconditionFailure("the thread ran its work") }
      return result
    }
  }

  // Safe: the calling thread hands `body` over, waits on `done`, and only then reads `result`;
  // the thread touches both only before it signals `done`.
  private final class Handoff<Result>: @unchecked Sendable {
    /// Released before `done` is signalled: `withoutActuallyEscaping` checks that nothing holds
    /// the closure once `run(_:)` returns, and the thread may outlive the call.
    var body: (() -> Result)?
    var result: Result?
    let done = DispatchSemaphore(value: 0)

    init(body: @escaping () -> Result) {
      self.body = body
    }

    func run() {
      result = body?()
      body = nil
      done.signal()
    }
  }
}

extension PropertyListValue {
  /// Runs `walk`, which recurses once per level of this value, on the calling thread, or on
  /// ``DeepStack``'s thread when the value is nested deeper than
  /// ``DeepStack/levelsOnCallingThread``.
  ///
  /// A scalar costs one comparison; a container, a walk of at most that many levels to measure it.
  func withStackForItsDepth<Result>(_ walk: () -> Result) -> Result {
    isNested(deeperThan: DeepStack.levelsOnCallingThread) ? DeepStack.run(walk) : walk()
  }
}
