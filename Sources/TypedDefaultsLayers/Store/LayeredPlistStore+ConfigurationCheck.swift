import Foundation
import TypedDefaults

extension LayeredPlistStore {
  /// One way a store's configuration isn't as its models declare it: a layer's value a setting
  /// refuses, or a problem a layer's source or file reported.
  ///
  /// Thread-safety: a value type, `Sendable`.
  public struct ConfigurationProblem: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is, as the store's diagnostic of it says:
    /// ``SettingsDiagnostic/Kind/layerValueRejected`` (a source's value passed over),
    /// ``SettingsDiagnostic/Kind/typeMismatch`` or ``SettingsDiagnostic/Kind/valueNotAllowed``
    /// (a value in `data.plist` or the runtime layer the setting refuses),
    /// ``SettingsDiagnostic/Kind/layerSourceProblem`` (a source's problem: an option,
    /// variable or mounted file naming no setting, an option given twice, an entry it couldn't
    /// read) or
    /// ``SettingsDiagnostic/Kind/corruptFile`` (a file that couldn't be read, or was recovered).
    public let kind: SettingsDiagnostic.Kind
    /// The key, or `nil` for a problem of a whole layer or file.
    public let key: String?
    /// The layer, or `nil` if the problem names no layer.
    public let layer: Layer?
    /// One line saying what is wrong, where, and what the store does about it; a secret's value
    /// is never in it.
    public let message: String

    /// Creates a problem.
    ///
    /// - Parameters:
    ///   - kind: The kind of problem.
    ///   - key: The key, or `nil`.
    ///   - layer: The layer, or `nil`.
    ///   - message: What is wrong.
    public init(kind: SettingsDiagnostic.Kind, key: String?, layer: Layer?, message: String) {
      self.kind = kind
      self.key = key
      self.layer = layer
      self.message = message
    }

    /// `[layer] message`, or the message alone for a problem of no layer.
    public var description: String {
      (layer.map { "[\($0)] " } ?? "") + message
    }
  }

  /// The error ``checkConfiguration()`` throws: every problem found.
  ///
  /// Thread-safety: a value type, `Sendable`.
  public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The store's name (``LayeredPlistStore/name``).
    public let store: String
    /// Every problem, by layer (highest first), then by key; never empty.
    public let problems: [ConfigurationProblem]

    /// `The configuration of <store> is not as declared (2 problems):` and one problem a line.
    public var description: String {
      let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
      return "The configuration of \(store) is not as declared (\(count)):"
        + problems.map { "\n  \($0)" }.joined()
    }
  }

  /// Every way the store's configuration isn't as its models declare it, now: each declared
  /// setting checked against every layer, and what each layer's source or file reported.
  ///
  /// Lists, by layer (highest first), then by key:
  ///
  /// - each value a source's layer holds that the setting refuses (its type can't read it, its
  ///   declaration doesn't accept it, a bare option for a setting that isn't a `Bool`), which the
  ///   store passes over for the next layer's (``SettingsDiagnostic/Kind/layerValueRejected``);
  /// - each value the runtime layer or `data.plist` holds that the setting refuses, which the
  ///   setting reads as its default (``SettingsDiagnostic/Kind/typeMismatch``,
  ///   ``SettingsDiagnostic/Kind/valueNotAllowed``);
  /// - each file of a mounted folder (``DirectorySource``) whose name, normalized as the store
  ///   normalizes keys, is no declared key (`reqestTimeout` for `requestTimeout`, with a
  ///   "did you mean" for a near one), named by its path, never its contents; Kubernetes' own
  ///   entries (`..data`, the timestamped folders) and other names starting with `.` are never
  ///   keys, and nothing is listed before a model declares a key;
  /// - what each source's latest read reported: an option or a variable naming no setting, an
  ///   option given twice, an entry it couldn't read, a file opened as an empty layer
  ///   (``Options/opensDespiteUnreadableReadOnlyFiles``);
  /// - what the store recovered from in `data.plist` (an unreadable entry left out, a corrupt
  ///   file moved aside).
  ///
  /// Only keys a model bound to the store declared are checked against the layers: bind every
  /// model first (create them on the store), then ask. Each of these was also reported as a
  /// diagnostic when it happened; none stops the store, which reads what it can. Safe to call
  /// from any thread.
  ///
  /// - Returns: The problems, or an empty array if the configuration is as declared.
  public func configurationProblems() -> [ConfigurationProblem] {
    var found: [ConfigurationProblem] = []
    let order = layers
    let declared = declaredKeys.withLock { $0 }
    let slotsByIndex = Dictionary(uniqueKeysWithValues: sourceSlots.map { ($0.index, $0) })
    // The values passed over and the own layers' refused values, under the state lock.
    let values = state.withLock { state -> [ConfigurationProblem] in
      var values: [ConfigurationProblem] = []
      for (index, layer) in order.enumerated() {
        if let slot = slotsByIndex[index] {
          for key in (state.refused[index] ?? [:]).keys.sorted() {
            guard let declared = declared[key], let given = state.refused[index]?[key],
              case .refused(let problem) = judge(given, in: slot, declared: declared)
            else { continue }
            let diagnostic = passedOver(key, in: slot, problem: problem, state: state)
            values.append(
              ConfigurationProblem(
                kind: .layerValueRejected, key: key, layer: layer, message: diagnostic.message))
          }
        } else {
          for key in state.layers[index].keys.sorted() {
            guard let declared = declared[key], let value = state.layers[index][key],
              let refusal = declared.refusal(of: value)
            else { continue }
            values.append(ownLayerProblem(value, forKey: key, in: layer, refusal, declared))
          }
        }
      }
      return values
    }
    found += values
    // The keys a mounted folder's files name that no model declared.
    found += undeclaredKeyProblems(declared: declared)
    // What the sources and files reported.
    for slot in sourceSlots {
      for problem in slot.problems.withLock({ $0 }) {
        found.append(
          ConfigurationProblem(
            kind: problem.code == .corruptFile || problem.code == .fileNotReadable
              ? .corruptFile : .layerSourceProblem,
            key: problem.key, layer: slot.layer, message: "\(problem)"))
      }
    }
    for problem in recoveredProblems where problem.path == persistentFile.url.path {
      found.append(
        ConfigurationProblem(
          kind: .corruptFile, key: problem.key, layer: .persistent, message: "\(problem)"))
    }
    let rank = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
    return found.enumerated().sorted { lhs, rhs in
      let left = lhs.element.layer.flatMap { rank[$0] } ?? order.count
      let right = rhs.element.layer.flatMap { rank[$0] } ?? order.count
      return left != right ? left < right : lhs.offset < rhs.offset
    }.map(\.element)
  }

  /// Checks that the store's configuration is as its models declare it, for a service that
  /// fails fast: throws every problem ``configurationProblems()`` finds.
  ///
  /// ```swift
  /// let settings = ServiceSettings(backend: store)  // bind every model first
  /// do {
  ///   try store.checkConfiguration()
  /// } catch {
  ///   print(error)  // one problem a line, by layer and key
  ///   exit(78)      // EX_CONFIG
  /// }
  /// ```
  ///
  /// What stops a start and what doesn't: the store's initializer throws for what it can't read
  /// at all (`data.plist` unreadable, a source whose read throws: a malformed delivered file, an
  /// untrusted managed file), unless ``Options/opensDespiteUnreadableReadOnlyFiles`` opens such a
  /// layer empty; every other problem (a value refused, an unknown option, an entry left out) is
  /// recovered from and reported as a diagnostic, and this check is where a service turns them
  /// into a failed start. Safe to call from any thread.
  ///
  /// - Throws: ``ConfigurationError`` listing every problem, if there is one.
  public func checkConfiguration() throws(ConfigurationError) {
    let problems = configurationProblems()
    guard problems.isEmpty else { throw ConfigurationError(store: name, problems: problems) }
  }

  /// The problem of a value the runtime layer or `data.plist` holds that the setting refuses.
  private func ownLayerProblem(
    _ value: PropertyListValue, forKey key: String, in layer: Layer,
    _ refusal: DeclaredKey.Refusal, _ declared: DeclaredKey
  ) -> ConfigurationProblem {
    let shown = declared.isSecret ? SecretRedaction.placeholder : "\(value)"
    let place = layer == .persistent ? " ('\(persistentFile.url.path)')" : ""
    switch refusal {
    case .unreadable(let reason):
      let because = declared.isSecret ? "" : reason.map { " (\($0))" } ?? ""
      return ConfigurationProblem(
        kind: .typeMismatch, key: key, layer: layer,
        message: "The \(layer) layer\(place) holds \(shown) for '\(key)', which can't be read as "
          + "\(TypeNames.sugared(declared.valueType))\(because); the setting reads its default")
    case .notAllowed(let accepted):
      return ConfigurationProblem(
        kind: .valueNotAllowed, key: key, layer: layer,
        message: "The \(layer) layer\(place) holds \(shown) for '\(key)', which is not allowed "
          + "(the setting accepts \(accepted)); the setting reads its default")
    }
  }
}
