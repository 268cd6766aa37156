/// How deep one encoding or decoding may go, checked while descending, so that no value, however
/// deep (a recursive type, a linked list of 100,000 nodes, a hand-built property list), can
/// exhaust the stack.
///
/// Two limits: containers nest at most ``FoundationBridge/maximumDepth`` levels (what a property
/// list file can hold and be read back; the encoder checks it, and stored values never exceed
/// it), and `encode(to:)` or `init(from:)` calls nest at most `levels` (a type that wraps another
/// through a single-value container adds a call but no container). On the calling thread
/// `levels` is small (``DeepStack/levelsOnCallingThread``); past it the work starts again on
/// ``DeepStack``'s thread with ``maximumLevels``.
///
/// One instance per call of `encode`/`decode`, used by one thread at a time.
final class CodingBudget {
  /// The calls one encoding or decoding may nest on ``DeepStack``'s thread.
  static let maximumLevels = 4 * FoundationBridge.maximumDepth

  /// Why a value can't be encoded or decoded: the `debugDescription` of the error.
  static let tooDeepDescription =
    "The value is nested more than \(FoundationBridge.maximumDepth) levels deep (or its coding "
    + "calls more than \(maximumLevels)), deeper than a property list can hold"

  /// Thrown past the calling thread's budget: the work starts again with ``DeepStack``.
  struct NeedsDeeperStack: Error {}

  let levels: Int
  /// The `encode(to:)` or `init(from:)` calls in progress.
  var active = 0
  /// Whether the calls went past `levels` on the calling thread, below ``maximumLevels``.
  var neededDeeperStack = false
  /// Where the encoder began a container deeper than a property list can nest, if it did; once
  /// set, the encoding fails at its next step and builds no deeper node.
  var tooDeep: [any CodingKey]?

  init(levels: Int) {
    self.levels = levels
  }

  /// Whether the calls in progress are past the budget, for good (`true`); throws
  /// ``NeedsDeeperStack`` when only the calling thread's budget is spent.
  func isExceeded() throws(NeedsDeeperStack) -> Bool {
    guard active > levels else { return false }
    guard levels >= Self.maximumLevels else {
      neededDeeperStack = true
      throw NeedsDeeperStack()
    }
    return true
  }
}
