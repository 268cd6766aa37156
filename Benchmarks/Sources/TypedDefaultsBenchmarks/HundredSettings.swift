import TypedDefaults

/// The 100-setting model of the discovery figures.
typealias HundredSettings = HundredSettingsOf<Never>

/// A model with 100 settings of mixed types, for the discovery figures; each `Tag` makes a type
/// of its own, so that the first instance of a type can be measured more than once per run.
final class HundredSettingsOf<Tag>: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting (see SettingsModel).
  @Setting var setting000: Int = 0
  @Setting var setting001: Double = 0.5
  @Setting var setting002: String = ""
  @Setting var setting003: Bool = false
  @Setting var setting004: [String] = []
  @Setting var setting005: Int = 0
  @Setting var setting006: Double = 0.5
  @Setting var setting007: String = ""
  @Setting var setting008: Bool = false
  @Setting var setting009: [String] = []
  @Setting var setting010: Int = 0
  @Setting var setting011: Double = 0.5
  @Setting var setting012: String = ""
  @Setting var setting013: Bool = false
  @Setting var setting014: [String] = []
  @Setting var setting015: Int = 0
  @Setting var setting016: Double = 0.5
  @Setting var setting017: String = ""
  @Setting var setting018: Bool = false
  @Setting var setting019: [String] = []
  @Setting var setting020: Int = 0
  @Setting var setting021: Double = 0.5
  @Setting var setting022: String = ""
  @Setting var setting023: Bool = false
  @Setting var setting024: [String] = []
  @Setting var setting025: Int = 0
  @Setting var setting026: Double = 0.5
  @Setting var setting027: String = ""
  @Setting var setting028: Bool = false
  @Setting var setting029: [String] = []
  @Setting var setting030: Int = 0
  @Setting var setting031: Double = 0.5
  @Setting var setting032: String = ""
  @Setting var setting033: Bool = false
  @Setting var setting034: [String] = []
  @Setting var setting035: Int = 0
  @Setting var setting036: Double = 0.5
  @Setting var setting037: String = ""
  @Setting var setting038: Bool = false
  @Setting var setting039: [String] = []
  @Setting var setting040: Int = 0
  @Setting var setting041: Double = 0.5
  @Setting var setting042: String = ""
  @Setting var setting043: Bool = false
  @Setting var setting044: [String] = []
  @Setting var setting045: Int = 0
  @Setting var setting046: Double = 0.5
  @Setting var setting047: String = ""
  @Setting var setting048: Bool = false
  @Setting var setting049: [String] = []
  @Setting var setting050: Int = 0
  @Setting var setting051: Double = 0.5
  @Setting var setting052: String = ""
  @Setting var setting053: Bool = false
  @Setting var setting054: [String] = []
  @Setting var setting055: Int = 0
  @Setting var setting056: Double = 0.5
  @Setting var setting057: String = ""
  @Setting var setting058: Bool = false
  @Setting var setting059: [String] = []
  @Setting var setting060: Int = 0
  @Setting var setting061: Double = 0.5
  @Setting var setting062: String = ""
  @Setting var setting063: Bool = false
  @Setting var setting064: [String] = []
  @Setting var setting065: Int = 0
  @Setting var setting066: Double = 0.5
  @Setting var setting067: String = ""
  @Setting var setting068: Bool = false
  @Setting var setting069: [String] = []
  @Setting var setting070: Int = 0
  @Setting var setting071: Double = 0.5
  @Setting var setting072: String = ""
  @Setting var setting073: Bool = false
  @Setting var setting074: [String] = []
  @Setting var setting075: Int = 0
  @Setting var setting076: Double = 0.5
  @Setting var setting077: String = ""
  @Setting var setting078: Bool = false
  @Setting var setting079: [String] = []
  @Setting var setting080: Int = 0
  @Setting var setting081: Double = 0.5
  @Setting var setting082: String = ""
  @Setting var setting083: Bool = false
  @Setting var setting084: [String] = []
  @Setting var setting085: Int = 0
  @Setting var setting086: Double = 0.5
  @Setting var setting087: String = ""
  @Setting var setting088: Bool = false
  @Setting var setting089: [String] = []
  @Setting var setting090: Int = 0
  @Setting var setting091: Double = 0.5
  @Setting var setting092: String = ""
  @Setting var setting093: Bool = false
  @Setting var setting094: [String] = []
  @Setting var setting095: Int = 0
  @Setting var setting096: Double = 0.5
  @Setting var setting097: String = ""
  @Setting var setting098: Bool = false
  @Setting var setting099: [String] = []
}

/// Ten settings of mixed types: a nested group of ``HundredSettingsGroup``.
struct TenSettings: SettingsGroup {
  @Setting var setting0: Int = 0
  @Setting var setting1: Double = 0.5
  @Setting var setting2: String = ""
  @Setting var setting3: Bool = false
  @Setting var setting4: [String] = []
  @Setting var setting5: Int = 0
  @Setting var setting6: Double = 0.5
  @Setting var setting7: String = ""
  @Setting var setting8: Bool = false
  @Setting var setting9: [String] = []
}

/// A struct of 100 settings in ten nested groups, for the struct-group figures.
struct HundredSettingsGroup: SettingsGroup {
  var group0 = TenSettings()
  var group1 = TenSettings()
  var group2 = TenSettings()
  var group3 = TenSettings()
  var group4 = TenSettings()
  var group5 = TenSettings()
  var group6 = TenSettings()
  var group7 = TenSettings()
  var group8 = TenSettings()
  var group9 = TenSettings()
}
