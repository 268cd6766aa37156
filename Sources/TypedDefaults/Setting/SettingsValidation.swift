import Foundation

/// The checks a model's declaration gets when it is first bound to a backend, in debug builds:
/// the counterpart of swift-argument-parser's validators, which also run only in debug builds.
///
/// - Two settings of one model with the same key stop the program (a mistake in the declaration
///   that would make them overwrite each other).
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
    /// Held weakly (debug builds only) so that a new backend at the address of a released one
    /// doesn't inherit its models.
    weak var backend: (any SettingsBackend)?
    var models: [ObjectIdentifier: ModelKeys] = [:]
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

  /// Checks a model type's settings as bound to `backend`; see the type's documentation.
  static func check(
    _ settings: [SettingDescriptor], of type: Any.Type, keyPrefix: String,
    on binding: BackendBinding
  ) {
    let backend = binding.backend
    let root = binding.target
    let typeID = ObjectIdentifier(type)
    let typeName = String(describing: type)
    let alreadyChecked = state.withLock { state in
      let id = ObjectIdentifier(root)
      return state.backends[id].map { $0.backend === root && $0.models[typeID] != nil } ?? false
    }
    // In a diagnostics scope (a test capturing them), reporting once is the scope's: check again.
    guard !alreadyChecked || SettingsDiagnostics.isScoped else { return }

    var owners: [String: String] = [:]
    var keys: [String: (property: String, valueType: String)] = [:]
    var diagnostics: [(id: String, SettingsDiagnostic)] = []
    for descriptor in settings {
      let owner = "\(descriptor.declaringTypeName).\(descriptor.propertyPath)"
      if let first = owners.updateValue(owner, forKey: descriptor.key) {
        preconditionFailure(
          "\(first) and \(owner) are both stored under the key '\(descriptor.key)'; "
            + "give one of them a different key"
        )
      }
      let baseKey = binding.targetPrefix + descriptor.key
      keys[baseKey] = ("\(typeName).\(descriptor.propertyPath)", descriptor.typeName)
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
      if state.backends[id]?.backend !== root {
        sweep(&state)
        state.backends[id] = BackendModels(backend: root)
      }
      let others = state.backends[id]?.models ?? [:]
      state.backends[id]?.models[typeID] = model
      for (otherID, other) in others where otherID != typeID {
        diagnostics += collisions(between: model, and: other, on: backend)
      }
      return diagnostics
    }
    for (id, diagnostic) in reports { SettingsDiagnostics.report(diagnostic, once: id) }
  }

  /// Why `backend` can't store `key`, or `nil` if it can.
  static func problem(storing key: String, in backend: any SettingsBackend) -> String? {
    if key.isEmpty { return "a key can't be empty" }
    do {
      switch backend {
      case let store as LayeredPlistStore where store.persistentFormat == .xml:
        _ = try XMLPropertyListRules.normalized(true, key: key)
      case is UserDefaultsBackend:
        #if !canImport(Darwin)
          try XMLPropertyListRules.checkCharacters(true, key: key)
        #endif
      default:
        break
      }
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
    state.backends = state.backends.filter { $0.value.backend != nil }
    state.sweepThreshold = max(16, state.backends.count * 2)
  }
}
