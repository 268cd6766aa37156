import TypedDefaults

/// The watch of one ``LayerSource``, shared by every store that layers the source while it
/// watches: the source is given one reporter, which passes each report on to each such store,
/// so that a managed file layered by an app's store and by its extension's updates both.
///
/// The source's ``LayerSource/startWatching(reportingTo:)`` is called when the first store
/// subscribes, and its ``LayerSource/stopWatching()`` when the last one unsubscribes; a store
/// stopping its watch no longer stops the source for the others.
///
/// Thread-safety: all of it goes through two locks: `transitions`, held while the source's watch
/// is started or stopped (reentrant, since a source may report, and an observer stop a store's
/// watch, from within `startWatching`), and `watches`, held only to read or change the table.
enum SharedSourceWatch {
  /// A store's subscription to a source's watch; ``unsubscribe()`` ends it.
  final class Subscription: Sendable {
    fileprivate let source: ObjectIdentifier
    fileprivate let number: Int
    fileprivate let reporter: LayerSourceReporter

    fileprivate init(source: ObjectIdentifier, number: Int, reporter: LayerSourceReporter) {
      self.source = source
      self.number = number
      self.reporter = reporter
    }

    /// Stops passing the source's reports to the store, and stops the source's watch if no
    /// other store watches it.
    func unsubscribe() {
      reporter.disconnect()
      SharedSourceWatch.unsubscribe(self)
    }
  }

  /// One watched source: the reporter it was given and the stores' reporters.
  private struct Watch {
    let source: any LayerSource
    let reporter: LayerSourceReporter
    var subscribers: [Int: LayerSourceReporter] = [:]
  }

  /// Held while a source's watch starts or stops, so that a start and a stop never interleave.
  private static let transitions = ReentrantLock()
  /// The watched sources, and the next subscription's number.
  private static let watches = Locked<(bySource: [ObjectIdentifier: Watch], next: Int)>(([:], 0))

  /// Passes `source`'s reports on to `reporter` (a store's), starting the source's watch if no
  /// other store watches it.
  static func subscribe(
    _ reporter: LayerSourceReporter, to source: any LayerSource
  ) -> Subscription {
    let id = ObjectIdentifier(source)
    _ = transitions.lock()
    defer { transitions.unlock() }
    let (number, starting) = watches.withLock { table -> (Int, LayerSourceReporter?) in
      table.next += 1
      var starting: LayerSourceReporter?
      if table.bySource[id] == nil {
        let shared = LayerSourceReporter { keys in forward(keys, of: id) }
        table.bySource[id] = Watch(source: source, reporter: shared)
        starting = shared
      }
      table.bySource[id]?.subscribers[table.next] = reporter
      return (table.next, starting)
    }
    if let starting { source.startWatching(reportingTo: starting) }
    return Subscription(source: id, number: number, reporter: reporter)
  }

  /// Ends a subscription (see ``Subscription/unsubscribe()``).
  private static func unsubscribe(_ subscription: Subscription) {
    _ = transitions.lock()
    defer { transitions.unlock() }
    let stopping = watches.withLock { table -> Watch? in
      guard var watch = table.bySource[subscription.source],
        watch.subscribers.removeValue(forKey: subscription.number) != nil
      else { return nil }
      guard watch.subscribers.isEmpty else {
        table.bySource[subscription.source] = watch
        return nil
      }
      table.bySource[subscription.source] = nil
      return watch
    }
    guard let stopping else { return }
    stopping.reporter.disconnect()
    stopping.source.stopWatching()
  }

  /// Passes a source's report on to every store watching it, holding no lock.
  private static func forward(_ keys: [String]?, of source: ObjectIdentifier) {
    let subscribers = watches.withLock { table in
      table.bySource[source].map { $0.subscribers.sorted { $0.key < $1.key }.map(\.value) } ?? []
    }
    for subscriber in subscribers { subscriber.forward(keys) }
  }
}
