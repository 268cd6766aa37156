import Synchronization
import TypedDefaults

/// The baseline of the model-creation figures: a plain class with the properties of
/// ``HundredSettings`` (the same names, types and defaults), each loaded from a locked dictionary
/// of property-list values as the instance is made, as a settings class written by hand does.
final class HundredPlainProperties {
  var setting000: Int
  var setting001: Double
  var setting002: String
  var setting003: Bool
  var setting004: [String]
  var setting005: Int
  var setting006: Double
  var setting007: String
  var setting008: Bool
  var setting009: [String]
  var setting010: Int
  var setting011: Double
  var setting012: String
  var setting013: Bool
  var setting014: [String]
  var setting015: Int
  var setting016: Double
  var setting017: String
  var setting018: Bool
  var setting019: [String]
  var setting020: Int
  var setting021: Double
  var setting022: String
  var setting023: Bool
  var setting024: [String]
  var setting025: Int
  var setting026: Double
  var setting027: String
  var setting028: Bool
  var setting029: [String]
  var setting030: Int
  var setting031: Double
  var setting032: String
  var setting033: Bool
  var setting034: [String]
  var setting035: Int
  var setting036: Double
  var setting037: String
  var setting038: Bool
  var setting039: [String]
  var setting040: Int
  var setting041: Double
  var setting042: String
  var setting043: Bool
  var setting044: [String]
  var setting045: Int
  var setting046: Double
  var setting047: String
  var setting048: Bool
  var setting049: [String]
  var setting050: Int
  var setting051: Double
  var setting052: String
  var setting053: Bool
  var setting054: [String]
  var setting055: Int
  var setting056: Double
  var setting057: String
  var setting058: Bool
  var setting059: [String]
  var setting060: Int
  var setting061: Double
  var setting062: String
  var setting063: Bool
  var setting064: [String]
  var setting065: Int
  var setting066: Double
  var setting067: String
  var setting068: Bool
  var setting069: [String]
  var setting070: Int
  var setting071: Double
  var setting072: String
  var setting073: Bool
  var setting074: [String]
  var setting075: Int
  var setting076: Double
  var setting077: String
  var setting078: Bool
  var setting079: [String]
  var setting080: Int
  var setting081: Double
  var setting082: String
  var setting083: Bool
  var setting084: [String]
  var setting085: Int
  var setting086: Double
  var setting087: String
  var setting088: Bool
  var setting089: [String]
  var setting090: Int
  var setting091: Double
  var setting092: String
  var setting093: Bool
  var setting094: [String]
  var setting095: Int
  var setting096: Double
  var setting097: String
  var setting098: Bool
  var setting099: [String]

  /// Loads every property from `values`, one locked lookup each; a missing key, or a value of
  /// another type, is the default.
  ///
  /// - Parameter values: The stored values, by key (the property's name).
  init(_ values: borrowing Mutex<[String: PropertyListValue]>) {
    setting000 = Self.value("setting000", in: values)?.intValue ?? 0
    setting001 = Self.value("setting001", in: values)?.doubleValue ?? 0.5
    setting002 = Self.value("setting002", in: values)?.stringValue ?? ""
    setting003 = Self.value("setting003", in: values)?.boolValue ?? false
    setting004 = Self.value("setting004", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting005 = Self.value("setting005", in: values)?.intValue ?? 0
    setting006 = Self.value("setting006", in: values)?.doubleValue ?? 0.5
    setting007 = Self.value("setting007", in: values)?.stringValue ?? ""
    setting008 = Self.value("setting008", in: values)?.boolValue ?? false
    setting009 = Self.value("setting009", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting010 = Self.value("setting010", in: values)?.intValue ?? 0
    setting011 = Self.value("setting011", in: values)?.doubleValue ?? 0.5
    setting012 = Self.value("setting012", in: values)?.stringValue ?? ""
    setting013 = Self.value("setting013", in: values)?.boolValue ?? false
    setting014 = Self.value("setting014", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting015 = Self.value("setting015", in: values)?.intValue ?? 0
    setting016 = Self.value("setting016", in: values)?.doubleValue ?? 0.5
    setting017 = Self.value("setting017", in: values)?.stringValue ?? ""
    setting018 = Self.value("setting018", in: values)?.boolValue ?? false
    setting019 = Self.value("setting019", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting020 = Self.value("setting020", in: values)?.intValue ?? 0
    setting021 = Self.value("setting021", in: values)?.doubleValue ?? 0.5
    setting022 = Self.value("setting022", in: values)?.stringValue ?? ""
    setting023 = Self.value("setting023", in: values)?.boolValue ?? false
    setting024 = Self.value("setting024", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting025 = Self.value("setting025", in: values)?.intValue ?? 0
    setting026 = Self.value("setting026", in: values)?.doubleValue ?? 0.5
    setting027 = Self.value("setting027", in: values)?.stringValue ?? ""
    setting028 = Self.value("setting028", in: values)?.boolValue ?? false
    setting029 = Self.value("setting029", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting030 = Self.value("setting030", in: values)?.intValue ?? 0
    setting031 = Self.value("setting031", in: values)?.doubleValue ?? 0.5
    setting032 = Self.value("setting032", in: values)?.stringValue ?? ""
    setting033 = Self.value("setting033", in: values)?.boolValue ?? false
    setting034 = Self.value("setting034", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting035 = Self.value("setting035", in: values)?.intValue ?? 0
    setting036 = Self.value("setting036", in: values)?.doubleValue ?? 0.5
    setting037 = Self.value("setting037", in: values)?.stringValue ?? ""
    setting038 = Self.value("setting038", in: values)?.boolValue ?? false
    setting039 = Self.value("setting039", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting040 = Self.value("setting040", in: values)?.intValue ?? 0
    setting041 = Self.value("setting041", in: values)?.doubleValue ?? 0.5
    setting042 = Self.value("setting042", in: values)?.stringValue ?? ""
    setting043 = Self.value("setting043", in: values)?.boolValue ?? false
    setting044 = Self.value("setting044", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting045 = Self.value("setting045", in: values)?.intValue ?? 0
    setting046 = Self.value("setting046", in: values)?.doubleValue ?? 0.5
    setting047 = Self.value("setting047", in: values)?.stringValue ?? ""
    setting048 = Self.value("setting048", in: values)?.boolValue ?? false
    setting049 = Self.value("setting049", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting050 = Self.value("setting050", in: values)?.intValue ?? 0
    setting051 = Self.value("setting051", in: values)?.doubleValue ?? 0.5
    setting052 = Self.value("setting052", in: values)?.stringValue ?? ""
    setting053 = Self.value("setting053", in: values)?.boolValue ?? false
    setting054 = Self.value("setting054", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting055 = Self.value("setting055", in: values)?.intValue ?? 0
    setting056 = Self.value("setting056", in: values)?.doubleValue ?? 0.5
    setting057 = Self.value("setting057", in: values)?.stringValue ?? ""
    setting058 = Self.value("setting058", in: values)?.boolValue ?? false
    setting059 = Self.value("setting059", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting060 = Self.value("setting060", in: values)?.intValue ?? 0
    setting061 = Self.value("setting061", in: values)?.doubleValue ?? 0.5
    setting062 = Self.value("setting062", in: values)?.stringValue ?? ""
    setting063 = Self.value("setting063", in: values)?.boolValue ?? false
    setting064 = Self.value("setting064", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting065 = Self.value("setting065", in: values)?.intValue ?? 0
    setting066 = Self.value("setting066", in: values)?.doubleValue ?? 0.5
    setting067 = Self.value("setting067", in: values)?.stringValue ?? ""
    setting068 = Self.value("setting068", in: values)?.boolValue ?? false
    setting069 = Self.value("setting069", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting070 = Self.value("setting070", in: values)?.intValue ?? 0
    setting071 = Self.value("setting071", in: values)?.doubleValue ?? 0.5
    setting072 = Self.value("setting072", in: values)?.stringValue ?? ""
    setting073 = Self.value("setting073", in: values)?.boolValue ?? false
    setting074 = Self.value("setting074", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting075 = Self.value("setting075", in: values)?.intValue ?? 0
    setting076 = Self.value("setting076", in: values)?.doubleValue ?? 0.5
    setting077 = Self.value("setting077", in: values)?.stringValue ?? ""
    setting078 = Self.value("setting078", in: values)?.boolValue ?? false
    setting079 = Self.value("setting079", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting080 = Self.value("setting080", in: values)?.intValue ?? 0
    setting081 = Self.value("setting081", in: values)?.doubleValue ?? 0.5
    setting082 = Self.value("setting082", in: values)?.stringValue ?? ""
    setting083 = Self.value("setting083", in: values)?.boolValue ?? false
    setting084 = Self.value("setting084", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting085 = Self.value("setting085", in: values)?.intValue ?? 0
    setting086 = Self.value("setting086", in: values)?.doubleValue ?? 0.5
    setting087 = Self.value("setting087", in: values)?.stringValue ?? ""
    setting088 = Self.value("setting088", in: values)?.boolValue ?? false
    setting089 = Self.value("setting089", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting090 = Self.value("setting090", in: values)?.intValue ?? 0
    setting091 = Self.value("setting091", in: values)?.doubleValue ?? 0.5
    setting092 = Self.value("setting092", in: values)?.stringValue ?? ""
    setting093 = Self.value("setting093", in: values)?.boolValue ?? false
    setting094 = Self.value("setting094", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
    setting095 = Self.value("setting095", in: values)?.intValue ?? 0
    setting096 = Self.value("setting096", in: values)?.doubleValue ?? 0.5
    setting097 = Self.value("setting097", in: values)?.stringValue ?? ""
    setting098 = Self.value("setting098", in: values)?.boolValue ?? false
    setting099 = Self.value("setting099", in: values)?.arrayValue?.compactMap(\.stringValue) ?? []
  }

  /// A value for each of the 100 keys, of the type of its property and not its default.
  static let storedValues: [String: PropertyListValue] = Dictionary(
    uniqueKeysWithValues: (0..<100).map { index in
      let key = "setting" + String(index + 1000).dropFirst()
      switch index % 5 {
      case 0: return (key, .integer(.init(Int64(index))))
      case 1: return (key, .real(Double(index) + 0.25))
      case 2: return (key, .string("value \(index)"))
      case 3: return (key, .bool(true))
      default: return (key, .array([.string("jazz"), .string("piano")]))
      }
    })

  /// The value of `key` in `values`, under the lock; not inlined, so that the initializer stays
  /// 100 calls rather than 100 inlined dictionary lookups (which took the optimizer many minutes).
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - values: The locked dictionary.
  /// - Returns: The value, or `nil` if there is none.
  @inline(never)
  private static func value(
    _ key: String, in values: borrowing Mutex<[String: PropertyListValue]>
  ) -> PropertyListValue? {
    values.withLock { $0[key] }
  }
}
