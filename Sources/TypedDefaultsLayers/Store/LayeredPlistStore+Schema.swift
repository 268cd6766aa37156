import Foundation
import TypedDefaults

// A process with no model, the `settings` tool, judges a store's layers as the app does: from the
// schema the app wrote (`writeSchema()`), the store learns what the app's model declares, and the
// one rule for a refused value (``LayeredPlistStore/settle(_:in:state:)``) does the rest: a text
// layer's text is read as the declared type, a value the setting refuses is passed over.
extension LayeredPlistStore {
  /// Learns what a schema declares of each of its keys, as a bound model declares them: a text
  /// layer's values are read as the declared types from now on, and a layer's value the
  /// declaration refuses is passed over (``Provenance/passedOver``), reported once as a model's
  /// store reports it.
  ///
  /// The declared types are stand-ins chosen by the schema's type names and shapes (`Int` for an
  /// integer, `URL` for a URL string, `[String]` for an array of strings, `PropertyListValue`
  /// for a shape the schema leaves open); the ranges and allowed values are the schema's.
  ///
  /// - Parameter schema: The schema the app wrote next to the store.
  package func learn(_ schema: SettingsSchema) {
    var keys: [String: DeclaredKey] = [:]
    for setting in schema.settings { keys[setting.key] = DeclaredKey(declaredBy: setting) }
    learn(keys)
  }

  /// A layer's value the store passes over (``Provenance/passedOver``): what is wrong with it,
  /// and the whole report of it, as the store's diagnostic says it.
  package struct PassedOverValue: Sendable, Hashable {
    /// What is wrong with it: `is not allowed (the setting accepts in 1...65535)`, `can't be
    /// read as Int (it is not an integer)`.
    package let problem: String
    /// The diagnostic's message: the layer, where its source holds the key, the value (never a
    /// secret's), why, and what the setting reads instead.
    package let message: String
  }

  /// Why each layer's value of a key is passed over, judged as the store judged it (the one
  /// rule, ``judge(_:in:declared:)``), in the words of its `layerValueRejected` diagnostic.
  ///
  /// - Parameter key: The key (normalized first, if the store normalizes keys).
  /// - Returns: Each layer passed over for the key; empty when none is.
  package func passedOverValues(ofKey key: String) -> [Layer: PassedOverValue] {
    let key = normalizedKey(key)
    guard let declared = declaredKey(key) else { return [:] }
    return state.withLock { state in
      var found: [Layer: PassedOverValue] = [:]
      for slot in sourceSlots {
        guard let refused = state.refused[slot.index]?[key],
          case .refused(let problem) = judge(refused, in: slot, declared: declared)
        else { continue }
        let diagnostic = passedOver(key, in: slot, problem: problem, state: state)
        found[slot.layer] = PassedOverValue(problem: problem, message: diagnostic.message)
      }
      return found
    }
  }
}

extension DeclaredKey {
  /// What a schema's setting declares, with a stand-in for its Swift type (see
  /// ``LayeredPlistStore/learn(_:)``) and the schema's range and allowed values as the check.
  init(declaredBy setting: SettingSchema) {
    let valueType = Self.standIn(named: setting.typeName, shape: setting.shape)
    let isConstrained =
      setting.allowedValues != nil || setting.minimum != nil || setting.maximum != nil
    let accepts = isConstrained ? Self.check(of: setting) : nil
    self.init(
      isSecret: setting.isSecret, valueType: valueType,
      annotations: SettingAnnotations(
        help: setting.help, allowedValues: setting.allowedValues, minimum: setting.minimum,
        maximum: setting.maximum, accepts: accepts))
  }

  /// Whether a typed value, stored, is one the setting's range and allowed values accept.
  private static func check(of setting: SettingSchema) -> @Sendable (Any) -> Bool {
    { typed in
      guard let value = typed as? any SettingValue, let stored = try? value.propertyListValue()
      else { return false }
      return setting.problem(with: stored) == nil
    }
  }

  /// The types whose names a schema spells as the standard library and Foundation do.
  private static let namedTypes: [String: any SettingValue.Type] = [
    "Int": Int.self, "Int8": Int8.self, "Int16": Int16.self, "Int32": Int32.self,
    "Int64": Int64.self, "UInt": UInt.self, "UInt8": UInt8.self, "UInt16": UInt16.self,
    "UInt32": UInt32.self, "UInt64": UInt64.self, "Double": Double.self, "Float": Float.self,
  ]

  /// A type that reads what a setting of this type name and shape reads: the named numeric type
  /// itself, else one chosen by the shape.
  static func standIn(named typeName: String, shape: SettingSchema.Shape) -> any SettingValue.Type {
    var name = Substring(typeName)
    while name.hasSuffix("?") { name = name.dropLast() }
    if let named = namedTypes[String(name)], shape == .integer || shape == .real { return named }
    switch shape {
    case .array(let element): return scalar(element).map(\.arrayType) ?? [PropertyListValue].self
    case .dictionary(let element):
      return scalar(element).map(\.dictionaryType) ?? [String: PropertyListValue].self
    default: return scalar(shape)?.type ?? PropertyListValue.self
    }
  }

  /// A scalar shape's stand-in, with the array and dictionary types of it.
  private static func scalar(
    _ shape: SettingSchema.Shape
  ) -> (
    type: any SettingValue.Type, arrayType: any SettingValue.Type,
    dictionaryType: any SettingValue.Type
  )? {
    switch shape {
    case .string(nil): (String.self, [String].self, [String: String].self)
    case .string(.url?): (URL.self, [URL].self, [String: URL].self)
    case .string(.uuid?): (UUID.self, [UUID].self, [String: UUID].self)
    case .integer: (Int64.self, [Int64].self, [String: Int64].self)
    case .real: (Double.self, [Double].self, [String: Double].self)
    case .bool: (Bool.self, [Bool].self, [String: Bool].self)
    case .date: (Date.self, [Date].self, [String: Date].self)
    case .data: (Data.self, [Data].self, [String: Data].self)
    case .array, .dictionary, .any: nil
    }
  }
}
