/// Keeps an observation alive: cancel it, or release it, to stop the deliveries.
///
/// Returned by the callback forms of observation (``SettingsBackend/observe(key:initial:_:)``,
/// ``Setting/observe(initial:_:)``). Hold it as long as you want changes; releasing the last
/// reference cancels the observation. A token keeps its backend alive.
///
/// Thread-safe: ``cancel()`` may be called from any thread, any number of times, and from inside
/// the observation's own callback.
public final class ObservationToken: Sendable {
  private let observer: Observer
  private let registry: ObserverRegistry
  /// Held strongly: a weak reference would give the backend a side table, and every retain and
  /// release of it (on every read) the slow path.
  private let backend: (any SettingsBackend)?
  /// The backend, held weakly, for an observation that must not keep it alive (``unretained``).
  private let unretainedBackend: UnretainedBackend?

  init(observer: Observer, registry: ObserverRegistry, backend: any SettingsBackend) {
    self.observer = observer
    self.registry = registry
    self.backend = backend
    self.unretainedBackend = nil
  }

  /// A token that doesn't keep `backend` alive: Swift Observation's tracking of a setting read
  /// through a test's backend, which the setting's model may outlive.
  init(observer: Observer, registry: ObserverRegistry, unretained backend: any SettingsBackend) {
    self.observer = observer
    self.registry = registry
    self.backend = nil
    self.unretainedBackend = UnretainedBackend(backend)
  }

  deinit {
    cancel()
  }

  /// Stops the observation.
  ///
  /// Once this returns, the callback is not called again: a callback running at that moment on
  /// another thread is waited for (so don't cancel from a thread the callback waits for), while
  /// a callback cancelling its own observation returns from `cancel()` at once. The registration
  /// is removed, so the callback and what it captures are released. Cancelling again does
  /// nothing.
  public func cancel() {
    observer.cancel()
    registry.unregister(observer, from: backend ?? unretainedBackend?.backend)
  }
}

/// A weak reference to a backend.
// @unchecked Sendable: `backend` is set once, in `init`, and weak references are thread-safe.
final class UnretainedBackend: @unchecked Sendable {
  weak var backend: (any SettingsBackend)?

  init(_ backend: any SettingsBackend) { self.backend = backend }
}
