import Foundation
import TypedDefaults
import TypedDefaultsLayers

/// A layer source for tests, written through the public protocol: its values are set by the
/// test, which can make its next read throw; it reports each change to the store's reporter.
final class LayerTestSource: LayerSource {
  private struct State {
    var values: [String: PropertyListValue]
    var problems: [SettingsError] = []
    var failure: SettingsError?
    var reporter: LayerSourceReporter?
    var starts = 0
    var stops = 0
    var reads = 0
  }

  let layer: LayeredPlistStore.Layer
  let isForced: Bool
  let holdsSecrets: Bool
  let valuesAreText: Bool
  let recordedSource: RecordedLayerSource?
  private let state: Locked<State>

  init(
    _ layer: LayeredPlistStore.Layer, _ values: [String: PropertyListValue] = [:],
    isForced: Bool = false, holdsSecrets: Bool = false, valuesAreText: Bool = false,
    recordedSource: RecordedLayerSource? = nil, failure: SettingsError? = nil
  ) {
    self.layer = layer
    self.isForced = isForced
    self.holdsSecrets = holdsSecrets
    self.valuesAreText = valuesAreText
    self.recordedSource = recordedSource
    state = Locked(State(values: values, failure: failure))
  }

  func read() throws(SettingsError) -> LayerContents {
    let (values, problems, failure) = state.withLock { state in
      state.reads += 1
      return (state.values, state.problems, state.failure)
    }
    if let failure { throw failure }
    return LayerContents(values: values, problems: problems)
  }

  func startWatching(reportingTo reporter: LayerSourceReporter) {
    state.withLock { state in
      state.reporter = reporter
      state.starts += 1
    }
  }

  func stopWatching() {
    state.withLock { state in
      state.reporter = nil
      state.stops += 1
    }
  }

  /// The reporter the store gave, if it watches.
  var reporter: LayerSourceReporter? { state.withLock { $0.reporter } }
  /// How many times the store started the source's watch.
  var starts: Int { state.withLock { $0.starts } }
  /// How many times the store stopped the source's watch.
  var stops: Int { state.withLock { $0.stops } }
  /// How many times the store read the source.
  var reads: Int { state.withLock { $0.reads } }

  /// Replaces the values (and the entries the source couldn't read) and reports the change, as a
  /// source whose values changed does.
  func set(_ values: [String: PropertyListValue], problems: [SettingsError] = []) {
    let reporter = state.withLock { state in
      state.values = values
      state.problems = problems
      return state.reporter
    }
    reporter?.reportChanges()
  }

  /// Makes the next reads throw `failure` (or read again, for `nil`), and reports a change
  /// (unless `reporting` is off).
  func fail(with failure: SettingsError?, reporting: Bool = true) {
    let reporter = state.withLock { state in
      state.failure = failure
      return state.reporter
    }
    if reporting { reporter?.reportChanges() }
  }

  /// Replaces the values without reporting the change.
  func setSilently(_ values: [String: PropertyListValue]) {
    state.withLock { $0.values = values }
  }
}
