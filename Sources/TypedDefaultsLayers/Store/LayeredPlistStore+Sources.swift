import Foundation
import TypedDefaults

extension LayeredPlistStore {
  /// A read-only layer of the store that a ``LayerSource`` fills: the source, where the layer
  /// sits, and the reporter the source reports changes to while the store watches.
  final class SourceSlot: Sendable {
    /// The layer's position in the store's order.
    let index: Int
    /// The source.
    let source: any LayerSource
    /// The layer it fills.
    let layer: Layer
    /// Whether its values are text (``LayerSource/valuesAreText``), read once.
    let isText: Bool
    /// The file the source reads, for diagnostics (a managed file, a delivered or bundled
    /// file); `nil` for another source.
    let file: String?
    /// Whether its values are secret (``LayerSource/holdsSecrets``), read once.
    let holdsSecrets: Bool
    /// The number of reads started, so that a late read never replaces a later one.
    let reads = Locked(0)
    /// The store's subscription to the source's watch (shared with other stores layering the
    /// source), and the reading again of the source after a report (retried while it fails),
    /// while the store watches.
    let subscription = Locked<(SharedSourceWatch.Subscription, RetriedReload)?>(nil)
    /// The problems of the source's latest read, so that a reread records and reports only the
    /// new ones.
    let problems = Locked<[SettingsError]>([])
    /// The keys of the source's latest applied read, as the source named them (before the
    /// store's key normalization): a mounted folder's file names, for
    /// ``LayeredPlistStore/undeclaredKeyProblems(declared:)``.
    let names = Locked<[String]>([])

    init(index: Int, source: any LayerSource) {
      self.index = index
      self.source = source
      layer = source.layer
      isText = source.valuesAreText
      holdsSecrets = source.holdsSecrets
      file =
        (source as? ManagedSettingsSource)?.file?.path
        ?? (source as? PropertyListFileSource)?.file.url.path
    }
  }

  /// Whether a key's value is enforced: a layer whose source ``LayerSource/isForced`` (managed
  /// settings) holds the key, so that writes of it are refused with
  /// ``SettingsError/Code/forcedValue``.
  ///
  /// The counterpart of `UserDefaults.objectIsForced(forKey:)`: a UI disables the control of a
  /// forced setting (`$setting.isForced`). Thread-safe.
  ///
  /// - Parameter key: The key (normalized first, if the store normalizes keys).
  /// - Returns: Whether a forced layer holds the key.
  public func isForced(forKey key: String) -> Bool {
    guard !forcedLayers.isEmpty else { return false }
    let key = normalizedKey(key)
    return state.withLock { $0.forcingLayer(ofKey: key) != nil }
  }

  /// The error a write of a forced key throws.
  static func forcedError(key: String, layer: Layer) -> SettingsError {
    SettingsError(
      .forcedValue, key: key,
      reason: "it is managed by the '\(layer)' layer, which can't be overridden")
  }

  /// Subscribes to every source's watch (``SharedSourceWatch``), each report read by a reporter
  /// of the store's own that reads the source again (``reread(_:)``); a read that throws is
  /// reported once per reason and tried again (``RetriedReload``) until it succeeds, the layer
  /// keeping its values meanwhile.
  func connectSources() {
    let name = name
    for slot in sourceSlots {
      let layer = slot.layer
      let reloading = RetriedReload(
        reload: { [weak self, weak slot] () throws(SettingsError) in
          guard let self, let slot else { return }
          try self.reread(slot)
        },
        report: { error in
          SettingsDiagnostics.report(
            SettingsDiagnostic(
              kind: .watchFailed, key: nil, backend: name,
              message: "\(error); the \(layer) layer keeps the values it had, and its source is "
                + "read again, every second at most, until it can"))
        })
      let reporter = LayerSourceReporter { _ in reloading.run() }
      let subscription = SharedSourceWatch.subscribe(reporter, to: slot.source)
      let previous = slot.subscription.withLock { current in
        defer { current = (subscription, reloading) }
        return current
      }
      previous?.0.unsubscribe()
      previous?.1.stop()
    }
  }

  /// Ends every source's subscription, stopping the source's watch unless another store
  /// watches it.
  func disconnectSources() {
    for slot in sourceSlots {
      let subscription = slot.subscription.withLock { current in
        defer { current = nil }
        return current
      }
      subscription?.0.unsubscribe()
      subscription?.1.stop()
    }
  }

  /// Reads a source again and applies what changed: every key whose value in the layer changed
  /// is re-resolved (validated first, see ``apply(_:to:in:rejections:)``), and observers of those
  /// whose effective value changed are told, once each.
  ///
  /// - Returns: Whether the layer's values changed.
  /// - Throws: What the source's read throws; the layer keeps its values.
  @discardableResult
  func reread(_ slot: SourceSlot) throws(SettingsError) -> Bool {
    let read = slot.reads.withLock { reads in
      reads += 1
      return reads
    }
    let contents = try slot.source.read()
    let values = normalizingKeys(of: contents.values, layer: slot.layer)
    if slot.holdsSecrets { SecretRedaction.noteSecret(values.keys) }
    // A problem the previous read had already is recorded and reported once, not on every read.
    let known = slot.problems.withLock { known in
      defer { known = contents.problems }
      return Set(known)
    }
    for problem in contents.problems where !known.contains(problem) {
      record(unreadableShippedEntry: problem)
    }
    var rejections: [SettingsDiagnostic] = []
    let changed = changingState { state in
      guard state.appliedReads[slot.index, default: 0] < read else { return false }
      state.appliedReads[slot.index] = read
      slot.names.withLock { $0 = Array(contents.values.keys) }
      return apply(values, to: slot, in: &state, rejections: &rejections)
    }
    for rejection in rejections { SettingsDiagnostics.report(rejection) }
    return changed
  }

  /// Takes a source's new values: each key whose given value changed is judged again
  /// (``settle(_:in:state:)``), so a value the setting refuses is passed over, as at open.
  ///
  /// Called under the state lock; returns whether the layer's values changed.
  private func apply(
    _ new: [String: PropertyListValue], to slot: SourceSlot, in state: inout State,
    rejections: inout [SettingsDiagnostic]
  ) -> Bool {
    let index = slot.index
    let previous = state.given[index] ?? [:]
    guard previous != new else { return false }
    state.given[index] = new
    var changed = false
    var refused: [(key: String, problem: String)] = []
    for key in Set(previous.keys).union(new.keys) where previous[key] != new[key] {
      let (layerChanged, problem) = settle(key, in: slot, state: &state)
      changed = changed || layerChanged
      if let problem { refused.append((key, problem)) }
    }
    // Once every key is resolved, so that each says what is read instead.
    for (key, problem) in refused {
      rejections.append(passedOver(key, in: slot, problem: problem, state: state))
    }
    return changed
  }

  /// Judges the values the source layers were given for `keys` by the types and accepted values
  /// models now declare for them (``learn(_:)``), publishing the keys whose effective value
  /// changed, and reporting each value refused (see ``settle(_:in:state:)``).
  func convertGivenValues(ofKeys keys: [String]) {
    guard !sourceSlots.isEmpty, !keys.isEmpty else { return }
    let problems = changingState { state in
      var refused: [(key: String, slot: SourceSlot, problem: String)] = []
      for slot in sourceSlots {
        guard let given = state.given[slot.index] else { continue }
        for key in keys where given[key] != nil {
          // Declared anew: a refusal is judged and reported anew.
          state.refused[slot.index]?[key] = nil
          if case (_, let problem?) = settle(key, in: slot, state: &state) {
            refused.append((key, slot, problem))
          }
        }
      }
      // Once every layer is settled, so that each says what is read instead.
      return refused.map { passedOver($0.key, in: $0.slot, problem: $0.problem, state: state) }
    }
    for problem in problems { SettingsDiagnostics.report(problem) }
  }

  /// Applies the one rule for a source layer's value of `key`.
  ///
  /// At open, when a model declares the key, and on every change: the value the source gave is read as the type a model declared for the key (a
  /// text layer's text parsed as it); a value the setting refuses (its type can't read it, its
  /// declaration doesn't accept it, or it is a bare option's `true` for a setting that isn't a
  /// `Bool`) is passed over: the layer leaves the key out, so the next layer holding it gives
  /// the value, or the setting its default. A key no model declared is taken as given.
  ///
  /// Called under the state lock. Returns whether the layer's value changed, and what is wrong
  /// with a refused value, once for as long as the source keeps giving that value, for
  /// ``passedOver(_:in:problem:state:)`` to report once every layer is settled.
  private func settle(
    _ key: String, in slot: SourceSlot, state: inout State
  ) -> (changed: Bool, problem: String?) {
    let index = slot.index
    let given = state.given[index]?[key]
    var value = given
    var problem: String?
    if let given, let declared = declaredKey(key) {
      switch judge(given, in: slot, declared: declared) {
      case .reads(let read): value = read
      case .refused(let why):
        value = nil
        problem = why
      }
    }
    let changed = state.layers[index][key] != value
    if changed {
      state.layers[index][key] = value
      state.resolve(key)
    }
    guard let given, let problem else {
      state.refused[index]?[key] = nil
      return (changed, nil)
    }
    guard state.refused[index]?[key] != given else { return (changed, nil) }
    state.refused[index, default: [:]][key] = given
    return (changed, problem)
  }

  /// What ``judge(_:in:declared:)`` finds.
  enum Judgement {
    /// The value as the setting reads it.
    case reads(PropertyListValue)
    /// What is wrong with it.
    case refused(String)
  }

  /// Reads a source's value as the declared type: the value the setting reads, or what is wrong
  /// with it (`can't be read as Int (it is not an integer)`, `is not allowed (it accepts in
  /// 1...65535)`), the value itself never quoted for a secret.
  func judge(
    _ given: PropertyListValue, in slot: SourceSlot, declared: DeclaredKey
  ) -> Judgement {
    let type = TypeNames.sugared(declared.valueType)
    let secret = slot.holdsSecrets || declared.isSecret
    var value = given
    if slot.isText {
      switch given {
      case .string(let text):
        switch Self.parse(text, as: declared.valueType) {
        case .success(let parsed): value = parsed
        case .failure(let error):
          let cause = Self.cause(of: error, text: text, type: type, secret: secret)
          return .refused("can't be read as \(type)\(cause)")
        }
      case .bool(let flag):
        // A bare option (`--port`, `--no-port`): only a `Bool` setting takes one.
        guard case .success(.bool) = Self.parse(flag ? "true" : "false", as: declared.valueType)
        else {
          return .refused("has no value, which only a Bool setting's option may lack")
        }
      default: break
      }
    }
    switch declared.refusal(of: value) {
    case nil: return .reads(value)
    case .unreadable(let reason)?:
      let because = secret ? "" : reason.map { " (\($0))" } ?? ""
      return .refused("can't be read as \(type)\(because)")
    case .notAllowed(let accepted)?:
      return .refused("is not allowed (the setting accepts \(accepted))")
    }
  }

  /// The diagnostic of a source's value passed over.
  ///
  /// Of kind ``SettingsDiagnostic/Kind/layerValueRejected`` (see ``settle(_:in:state:)``): the
  /// layer, where its source holds the key, the value, why,
  /// and what the setting reads instead. Made under the state lock once the key is resolved.
  func passedOver(
    _ key: String, in slot: SourceSlot, problem: String, state: State
  ) -> SettingsDiagnostic {
    let given = state.refused[slot.index]?[key] ?? state.given[slot.index]?[key] ?? ""
    let declared = declaredKey(key)
    let secret = slot.holdsSecrets || declared?.isSecret == true
    let shown: String
    var origin = Self.origin(ofKey: key, in: slot)
    if slot.isText, case .bool(let flag) = given {
      shown = "option " + (KeyWords.kebabCase(key).map { flag ? "--\($0)" : "--no-\($0)" } ?? key)
      origin = ""
    } else if secret {
      shown = (slot.isText ? "text " : "value ") + SecretRedaction.placeholder
    } else if slot.isText, case .string(let text) = given {
      shown = "text '\(text)'"
    } else {
      shown = "value \(given)"
    }
    let instead: String
    if let entry = state.effective[key] {
      let index = state.index(of: entry.layer)
      let hidden =
        secret || declared?.isSecret == true || secretLayers.contains(entry.layer)
      let value = hidden ? SecretRedaction.placeholder : String(describing: entry.value)
      let alsoRefused = declared.map { $0.refusal(of: entry.value) != nil } ?? false
      instead =
        (index ?? 0) < slot.index
        ? "the \(entry.layer) layer above it gives the value, \(value)"
        : alsoRefused
          ? "the \(entry.layer) layer's value \(value) is refused too, so the setting reads its "
            + "default"
          : "the setting reads the \(entry.layer) layer's value, \(value)"
    } else {
      instead = "no other layer holds the key, so the setting reads its default"
    }
    return SettingsDiagnostic(
      kind: .layerValueRejected, key: key, backend: name,
      expectedType: declared.map { TypeNames.sugared($0.valueType) },
      storedValue: secret ? nil : given,
      message: "The \(slot.layer) layer's \(shown) for '\(key)'\(origin) "
        + "\(problem); the layer is passed over for it"
        + (slot.source.isForced ? ", so the key isn't forced: " : ": ") + instead)
  }

  /// Where a source holds a key, for a diagnostic after the key: ` in '<file>'` for a file, the
  /// variable or option for the environment or arguments (` (SVC_PORT)`, ` (--port)`), the
  /// source otherwise (` (EtcdSource(…))`).
  static func origin(ofKey key: String, in slot: SourceSlot) -> String {
    if let file = slot.file { return " in '\(file)'" }
    switch slot.source {
    case let environment as EnvironmentVariablesSource:
      return environment.variableNames[key].map { " (\($0))" } ?? ""
    case is CommandLineArgumentsSource:
      return KeyWords.kebabCase(key).map { " (--\($0))" } ?? ""
    case let directory as DirectorySource:
      return " in '\(directory.directory.appendingPathComponent(key).path)'"
    case let described as any CustomStringConvertible:
      return " (\(described.description))"
    default:
      return ""
    }
  }

  /// Why a text didn't parse, as a diagnostic shows it after the type: ` (reason)`, without the
  /// reason's own `'text' can't be read as Type: ` that the diagnostic has just said; nothing
  /// for a secret (a key declared secret, or a layer holding secrets), since the reason quotes
  /// the text.
  static func cause(
    of parseError: SettingsError?, text: String?, type: String, secret: Bool
  ) -> String {
    guard let parseError, !secret else { return "" }
    var reason = Substring(parseError.reason)
    if let text {
      let said = "'\(text)' can't be read as \(type)"
      if reason.hasPrefix(said) {
        reason = reason.dropFirst(said.count)
        guard reason.hasPrefix(": ") else { return "" }
        reason = reason.dropFirst(2)
      }
    }
    return " (\(reason))"
  }

  /// A text read as a declared type (``PropertyListValue/init(parsing:as:)-(_,SettingValue.Type)``).
  static func parse(
    _ text: String, as type: any SettingValue.Type
  ) -> Result<PropertyListValue, SettingsError> {
    do {
      return .success(try PropertyListValue(parsing: text, as: type))
    } catch {
      return .failure(error)
    }
  }
}
