import TypedDefaults

/// Where a ``LayerSource`` reports that its values changed: the store that layers it.
///
/// The layer's counterpart of ``SettingsBackend/reportChanges(forKeys:)``, the one entry point for
/// changes the library doesn't make itself: the store reads the source again, validates the new
/// values, and tells its observers of exactly the keys whose effective value changed, each once.
/// Reporting a key that didn't change delivers nothing, so reporting too many is safe.
///
/// Thread-safety: `Sendable`; call it from any thread, holding no lock the source's ``LayerSource/read()``
/// takes. Observers run on the calling thread before the call returns. Once the store is
/// released or stops watching, reports do nothing.
public final class LayerSourceReporter: Sendable {
  /// The store's handler: the keys that may have changed, or `nil` for any key; held in a
  /// struct, as a bare (optional) function type as a `Locked` state is wrapped in one more thunk
  /// on every access (see `Locked`).
  private let handler: Locked<Handler>

  private struct Handler: Sendable {
    var forward: (@Sendable ([String]?) -> Void)?
  }

  package init(_ handler: @escaping @Sendable ([String]?) -> Void) {
    self.handler = Locked(Handler(forward: handler))
  }

  /// Tells the store that some keys' values may have changed.
  ///
  /// - Parameter keys: The keys, as the source names them.
  public func reportChanges(forKeys keys: some Sequence<String>) {
    handler.withLock { $0.forward }?(Array(keys))
  }

  /// Tells the store that any of the source's values may have changed (a file replaced, a
  /// dictionary delivered anew).
  public func reportChanges() {
    handler.withLock { $0.forward }?(nil)
  }

  /// Passes a report on: `keys`, or `nil` for any key.
  func forward(_ keys: [String]?) {
    handler.withLock { $0.forward }?(keys)
  }

  /// Stops passing reports on.
  package func disconnect() {
    handler.withLock { $0.forward = nil }
  }
}
