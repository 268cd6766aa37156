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
    /// Whether the state keeps the values its source gave beside the layer (`State.given`): a
    /// text layer's, converted to the declared types, and a forced layer's, whose values a
    /// declared type can't read are passed over (left out of the layer) rather than read as
    /// defaults over the layers below.
    let keepsGiven: Bool
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

    init(index: Int, source: any LayerSource) {
      self.index = index
      self.source = source
      layer = source.layer
      isText = source.valuesAreText
      keepsGiven = isText || source.isForced
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
      return apply(values, to: slot, in: &state, rejections: &rejections)
    }
    for rejection in rejections { SettingsDiagnostics.report(rejection) }
    return changed
  }

  /// Takes a source's new values into its layer, validated before they are applied: a key whose
  /// new value the type a model declared for it can't read (or whose text doesn't parse as that
  /// type) keeps its last value in the layer, and a diagnostic is added to `rejections`, once
  /// for as long as the source keeps giving that value.
  ///
  /// Called under the state lock.
  private func apply(
    _ new: [String: PropertyListValue], to slot: SourceSlot, in state: inout State,
    rejections: inout [SettingsDiagnostic]
  ) -> Bool {
    let index = slot.index
    // A refusal is remembered while the source still gives that value, and forgotten once it
    // gives another (or none), which is then judged, and reported, anew.
    if let refused = state.refused[index] {
      state.refused[index] = refused.filter { new[$0.key] == $0.value }
    }
    let previous = slot.keepsGiven ? state.given[index] ?? [:] : state.layers[index]
    guard previous != new else { return false }
    var changed = false
    for key in Set(previous.keys).union(new.keys) where previous[key] != new[key] {
      guard let given = new[key] else {
        state.layers[index][key] = nil
        if slot.keepsGiven { state.given[index]?[key] = nil }
        state.resolve(key)
        changed = true
        continue
      }
      var value = given
      if let declared = declaredKey(key) {
        var parseError: SettingsError?
        if slot.isText, case .string(let text) = given {
          switch Self.parse(text, as: declared.valueType) {
          case .success(let parsed): value = parsed
          case .failure(let error): parseError = error
          }
        }
        if parseError != nil || !declared.reads(value) {
          // Refused again (the source was reread for a change of another key): reported once.
          if state.refused[index]?[key] != given {
            state.refused[index, default: [:]][key] = given
            rejections.append(
              rejection(
                of: given, forKey: key, in: slot, declared: declared, parseError: parseError,
                kept: state.layers[index][key]))
          }
          continue
        }
      }
      state.layers[index][key] = value
      if slot.keepsGiven { state.given[index, default: [:]][key] = given }
      state.resolve(key)
      changed = true
    }
    return changed
  }

  /// The diagnostic of a source's new value refused (see ``apply(_:to:in:rejections:)``).
  private func rejection(
    of value: PropertyListValue, forKey key: String, in slot: SourceSlot, declared: DeclaredKey,
    parseError: SettingsError?, kept: PropertyListValue?
  ) -> SettingsDiagnostic {
    let secret = slot.holdsSecrets || declared.isSecret
    let shown = secret ? SecretRedaction.placeholder : String(describing: value)
    let type = TypeNames.sugared(declared.valueType)
    let cause = Self.cause(of: parseError, text: value.stringValue, type: type, secret: secret)
    let keeps = kept.map { secret ? SecretRedaction.placeholder : String(describing: $0) }
    return SettingsDiagnostic(
      kind: .layerValueRejected, key: key, backend: name, expectedType: type,
      storedValue: secret ? nil : value,
      message: "The \(slot.layer) layer's new value \(shown) for '\(key)'\(Self.inFile(slot)) "
        + "can't be read as \(type)\(cause); "
        + (keeps.map { "the layer keeps its last value, \($0)" } ?? "the layer still lacks the key")
    )
  }

  /// Judges the values the text and forced layers were given for `keys` by the types models now
  /// declare for them (``learn(_:)``), publishing the keys whose effective value changed: a text
  /// is converted into the type, a forced layer's typed value is kept if the type reads it.
  ///
  /// A text that doesn't parse, or a value the type can't read, is reported
  /// (``SettingsDiagnostic/Kind/layerValueRejected``, naming the layer, its file if any, and the
  /// key) and never shadows the layers below: the layer keeps the value it had already read as
  /// the type, if any, and otherwise leaves the key out, so that a bad deployment text, or a
  /// wrong-typed value in the managed file, never replaces the value saved in `data.plist` with
  /// the setting's default. A forced layer that leaves a key out doesn't force it.
  func convertGivenValues(ofKeys keys: [String]) {
    let givenSlots = sourceSlots.filter(\.keepsGiven)
    guard !givenSlots.isEmpty, !keys.isEmpty else { return }
    var problems: [SettingsDiagnostic] = []
    changingState { state in
      for slot in givenSlots {
        guard let givenValues = state.given[slot.index] else { continue }
        for key in keys {
          guard let given = givenValues[key] else { continue }
          var value: PropertyListValue? = given
          if let declared = declaredKey(key) {
            var parseError: SettingsError?
            if slot.isText, case .string(let text) = given {
              switch Self.parse(text, as: declared.valueType) {
              case .success(let parsed): value = parsed
              case .failure(let error): parseError = error
              }
            }
            // A text that doesn't parse, or a typed value the type can't read (a bare option's
            // `true` for a `String`, a managed file's string for a `Double`): a value read as the
            // type before (another model's declaration) is the last good one; what was given is
            // none.
            if parseError != nil || (value == given && !declared.reads(given)) {
              let current = state.layers[slot.index][key]
              value = current == given ? nil : current
              problems.append(
                unreadableGiven(
                  given, forKey: key, in: slot, declared: declared, parseError: parseError,
                  kept: value))
            }
          }
          if state.layers[slot.index][key] != value {
            state.layers[slot.index][key] = value
            state.resolve(key)
          }
        }
      }
    }
    for problem in problems { SettingsDiagnostics.report(problem) }
  }

  /// The diagnostic of a text or forced layer's value held at declaration that the declared type
  /// can't read: a text that doesn't parse, or a typed value (see
  /// ``convertGivenValues(ofKeys:)``).
  private func unreadableGiven(
    _ given: PropertyListValue, forKey key: String, in slot: SourceSlot, declared: DeclaredKey,
    parseError: SettingsError?, kept: PropertyListValue?
  ) -> SettingsDiagnostic {
    let secret = slot.holdsSecrets || declared.isSecret
    let text = slot.isText ? given.stringValue : nil
    let shown =
      secret
      ? (slot.isText ? "text " : "value ") + SecretRedaction.placeholder
      : text.map { "text '\($0)'" } ?? "value \(given)"
    let type = TypeNames.sugared(declared.valueType)
    let keeps = kept.map { secret ? SecretRedaction.placeholder : String(describing: $0) }
    let leavesOut =
      slot.source.isForced
      ? "the layer leaves the key out, so it isn't forced, and the layers below it give the value"
      : "the layer leaves the key out, and the layers below it give the value"
    return SettingsDiagnostic(
      kind: .layerValueRejected, key: key, backend: name, expectedType: type,
      storedValue: secret ? nil : given,
      message: "The \(slot.layer) layer's \(shown) for '\(key)'\(Self.inFile(slot)) can't be "
        + "read as \(type)\(Self.cause(of: parseError, text: text, type: type, secret: secret)); "
        + (keeps.map { "the layer keeps its last value, \($0)" } ?? leavesOut))
  }

  /// ` in '<file>'` for a layer read from a file, for a diagnostic after the key; empty for
  /// another.
  private static func inFile(_ slot: SourceSlot) -> String {
    slot.file.map { " in '\($0)'" } ?? ""
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
