import Foundation

/// The checks a model's declaration gets when it is first bound to a backend, in every build:
/// they run once per model type and backend, never on a read, so a release build keeps them for
/// the cost of one lookup per model created.
///
/// - Two settings of one model with the same key stop the program, with a message naming both
///   in release builds too (`fatalError`, not `preconditionFailure`, whose message `-O` drops):
///   a mistake in the declaration that would make them share one value.
/// - A key prefix that doesn't end in a separator (`"com.example.kit"`, whose keys read
///   `com.example.kitvolume`) is reported as a ``SettingsDiagnostic/Kind/invalidKey``
///   diagnostic: the keys work, and a store may already hold values under them, so it is not a
///   trap; the message says to end the prefix with a `.`.
/// - A key the backend can't store (empty, or holding a character its file format can't keep) is
///   reported as a ``SettingsDiagnostic/Kind/invalidKey`` diagnostic.
/// - Two model types on one backend whose key prefixes are equal or one starts the other, or
///   which store one key as different types, are reported as a
///   ``SettingsDiagnostic/Kind/keyCollision`` diagnostic naming both types and properties.
///
/// Each model type is checked once per backend (the first instance), and each problem is
/// reported once per process, so creating many instances costs one set lookup each; inside a
/// diagnostics scope (`SettingsDiagnostics.withHandler(_:operation:)`, a test capturing
/// them) the check runs for every instance, and each problem is reported once per scope.
enum SettingsValidation {
  /// What was bound to one backend: its model types, with their prefixes and keys in the
  /// backend's base (a view's prefix applied).
  private struct BackendModels {
    /// The backend's identity, held weakly so that a new backend at the address of a released
    /// one doesn't inherit its models: a cell backend's ``CellsIdentity`` (a weak reference to
    /// the backend itself would give it a side table, and its reads the slow retain path), else
    /// the backend.
    weak var identity: (any AnyObject & Sendable)?
    var models: [ObjectIdentifier: ModelKeys] = [:]
  }

  /// The object standing for a backend in the table (see ``BackendModels/identity``).
  private static func identity(of backend: any SettingsBackend) -> any AnyObject & Sendable {
    (backend as? any CellBackend)?.cellsIdentity ?? backend
  }

  private struct ModelKeys {
    let typeName: String
    /// The model's key prefix in the base, with a view's prefix; empty for an unprefixed model.
    let prefix: String
    let declaresPrefix: Bool
    /// Each key in the base, with the property and value type stored under it.
    let keys: [String: (property: String, valueType: String)]
  }

  private struct State {
    var backends: [ObjectIdentifier: BackendModels] = [:]
    var sweepThreshold = 16
  }

  private static let state = Locked(State())

  /// Checks a model type's settings as bound to `binding`'s backend, and declares its keys to a
  /// backend that ``LearnsDeclaredKeys``, the first time the type is bound to that backend; see
  /// the type's documentation.
  ///
  /// - Parameters:
  ///   - type: The model type.
  ///   - keyPrefix: The model type's key prefix.
  ///   - binding: The binding the model is bound through, to the backend checked.
  ///   - settings: The model's settings, discovered only the first time.
  static func checkOnce(
    _ type: Any.Type, keyPrefix: String, on binding: BackendBinding,
    settings: @autoclosure () -> [SettingDescriptor]
  ) {
    let root = binding.target
    let rootIdentity = identity(of: root)
    let typeID = ObjectIdentifier(type)
    let alreadyChecked = state.withLock { state in
      state.backends[ObjectIdentifier(root)].map {
        $0.identity === rootIdentity && $0.models[typeID] != nil
      } ?? false
    }
    // In a diagnostics scope (a test capturing them), reporting once is the scope's: check again.
    guard !alreadyChecked || SettingsDiagnostics.isScoped else { return }
    check(settings(), of: type, keyPrefix: keyPrefix, on: binding)
  }

  /// Checks a model type's settings as bound to `binding`'s backend, and declares its keys.
  private static func check(
    _ settings: [SettingDescriptor], of type: Any.Type, keyPrefix: String,
    on binding: BackendBinding
  ) {
    let backend = binding.backend
    let root = binding.target
    let rootIdentity = identity(of: root)
    let typeID = ObjectIdentifier(type)
    let typeName = String(describing: type)

    var owners: [String: String] = [:]
    var keys: [String: (property: String, valueType: String)] = [:]
    var declared: [String: DeclaredKey] = [:]
    var diagnostics: [(id: String, SettingsDiagnostic)] = []
    if let problem = prefixProblem(keyPrefix, of: typeName, firstKey: settings.first?.key) {
      diagnostics.append(
        (
          "prefix \(typeName)",
          SettingsDiagnostic(
            kind: .invalidKey, key: nil, backend: backend.name, message: problem)
        ))
    }
    for descriptor in settings {
      let owner = "\(descriptor.declaringTypeName).\(descriptor.propertyPath)"
      if let first = owners.updateValue(owner, forKey: descriptor.key) {
        fatalError(duplicateKeyMessage(first, owner, key: descriptor.key))
      }
      let baseKey = binding.targetPrefix + descriptor.key
      keys[baseKey] = ("\(typeName).\(descriptor.propertyPath)", descriptor.typeName)
      declared[baseKey] = DeclaredKey(
        isSecret: descriptor.isSecret, valueType: descriptor.valueType,
        annotations: descriptor.setting.untypedStorage.annotations)
      if let problem = defaultProblem(of: descriptor) {
        diagnostics.append(
          (
            "default \(typeName).\(descriptor.propertyPath)",
            SettingsDiagnostic(
              kind: .valueNotAllowed, key: descriptor.key, backend: backend.name,
              message: "\(typeName).\(descriptor.propertyPath) (\(descriptor.typeName)) has a "
                + "default its declaration doesn't accept: \(problem); the setting reads it while "
                + "nothing is stored, but can't store it")
          ))
      }
      if let problem = problem(storing: baseKey, in: root) {
        diagnostics.append(
          (
            "invalidKey \(typeName).\(descriptor.propertyPath) \(root.name)",
            SettingsDiagnostic(
              kind: .invalidKey, key: descriptor.key, backend: backend.name,
              message: "\(typeName).\(descriptor.propertyPath) (\(descriptor.typeName)) is stored "
                + "under the key '\(descriptor.key)', which \(backend.name) can't store: \(problem)"
            )
          ))
      }
    }
    let model = ModelKeys(
      typeName: typeName, prefix: binding.targetPrefix + keyPrefix,
      declaresPrefix: !keyPrefix.isEmpty, keys: keys)

    let reports = state.withLock { state -> [(id: String, SettingsDiagnostic)] in
      let id = ObjectIdentifier(root)
      if state.backends[id]?.identity !== rootIdentity {
        sweep(&state)
        state.backends[id] = BackendModels(identity: rootIdentity)
      }
      let others = state.backends[id]?.models ?? [:]
      state.backends[id]?.models[typeID] = model
      for (otherID, other) in others where otherID != typeID {
        diagnostics += collisions(between: model, and: other, on: backend)
      }
      return diagnostics
    }
    (root as? any LearnsDeclaredKeys)?.learn(declared)
    SecretRedaction.noteSecret(
      settings.lazy.filter(\.isSecret).flatMap { [$0.key, binding.targetPrefix + $0.key] })
    for (id, diagnostic) in reports { SettingsDiagnostics.report(diagnostic, once: id) }
  }

  /// What stops the program when two settings of one model share a key.
  static func duplicateKeyMessage(_ first: String, _ second: String, key: String) -> String {
    "\(first) and \(second) are both stored under the key '\(key)'; give one of them a "
      + "different key"
  }

  /// Why a model's key prefix runs into its keys, or `nil` if it doesn't: a prefix must end in a
  /// separator, a character that is not a letter or a digit (`.`, `-`, `_`, `/`, `:`).
  ///
  /// - Parameters:
  ///   - prefix: The model's own ``SettingsModel/keyPrefix`` (empty for none).
  ///   - typeName: The model type's name, for the message.
  ///   - firstKey: One of its full keys, to show what the prefix makes of them.
  /// - Returns: The message, suggesting the prefix ended with `.`; `nil` if the prefix is empty
  ///   or ends in a separator.
  static func prefixProblem(_ prefix: String, of typeName: String, firstKey: String?) -> String? {
    guard let last = prefix.unicodeScalars.last,
      CharacterSet.alphanumerics.contains(last)
    else { return nil }
    let example = firstKey.map { " (\($0))" } ?? ""
    return "\(typeName)'s key prefix '\(prefix)' doesn't end in a separator, so it runs into its "
      + "keys\(example); end it with '.', as in '\(prefix).'"
  }

  /// Why a setting's declared default is outside its declared range or allowed values.
  ///
  /// `nil` if it is inside, or the setting declares neither. A secret's default is not shown.
  static func defaultProblem(of descriptor: SettingDescriptor) -> String? {
    guard let annotations = descriptor.setting.untypedStorage.annotations,
      annotations.accepts != nil, let value = descriptor.defaultValue,
      let problem = descriptor.schema.problem(with: value)
    else { return nil }
    return descriptor.isSecret ? "the secret default is not allowed" : problem
  }

  /// Why `backend` can't store `key`, or `nil` if it can: no backend stores an empty key (the
  /// writes' own check, ``WriteValidation/check(key:)``), and a backend whose storage refuses
  /// some keys says which (``RestrictsKeys``).
  static func problem(storing key: String, in backend: any SettingsBackend) -> String? {
    do {
      try WriteValidation.check(key: key)
      try (backend as? any RestrictsKeys)?.checkStorable(key: key)
    } catch {
      return error.reason
    }
    return nil
  }

  /// The collisions between two model types on one backend: overlapping declared prefixes, and
  /// keys both store as different types.
  private static func collisions(
    between model: ModelKeys, and other: ModelKeys, on backend: any SettingsBackend
  ) -> [(id: String, SettingsDiagnostic)] {
    let pair = [model.typeName, other.typeName].sorted().joined(separator: " ")
    var found: [(id: String, SettingsDiagnostic)] = []
    if model.declaresPrefix, other.declaresPrefix,
      model.prefix.hasPrefix(other.prefix) || other.prefix.hasPrefix(model.prefix)
    {
      let how = model.prefix == other.prefix ? "the same key prefix" : "overlapping key prefixes"
      found.append(
        (
          "prefix \(pair) \(backend.name)",
          SettingsDiagnostic(
            kind: .keyCollision, key: nil, backend: backend.name,
            message: "\(model.typeName) (key prefix '\(model.prefix)') and \(other.typeName) "
              + "(key prefix '\(other.prefix)') have \(how) on \(backend.name), so their keys "
              + "can collide; give each model type a prefix of its own")
        ))
    }
    for key in model.keys.keys.sorted() {
      guard let mine = model.keys[key], let theirs = other.keys[key],
        mine.valueType != theirs.valueType
      else { continue }
      found.append(
        (
          "key \(pair) \(key) \(backend.name)",
          SettingsDiagnostic(
            kind: .keyCollision, key: key, backend: backend.name,
            message: "\(mine.property) (\(mine.valueType)) and \(theirs.property) "
              + "(\(theirs.valueType)) are both stored under the key '\(key)' in \(backend.name); "
              + "each reads the other's value as the wrong type")
        ))
    }
    return found
  }

  /// Drops the entries of released backends, once the table has doubled since the last sweep.
  private static func sweep(_ state: inout State) {
    guard state.backends.count >= state.sweepThreshold else { return }
    state.backends = state.backends.filter { $0.value.identity != nil }
    state.sweepThreshold = max(16, state.backends.count * 2)
  }
}
