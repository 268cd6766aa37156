import Foundation
import Testing
import TypedDefaults

/// `PropertyListValue(parsing:as:)`: the `settings write` type flags' rules, as the library reads
/// text for the tool and for the layer sources whose values are text.
@Suite struct TextParsingTests {
  /// The reason of the error parsing `text` as `kind` throws, or `nil` if it parses.
  private func failure(_ text: String, _ kind: PropertyListValue.TextKind) -> String? {
    do {
      _ = try PropertyListValue(parsing: text, as: kind)
      return nil
    } catch {
      #expect(error.code == .unparsableText)
      #expect(error.key == nil)
      return error.reason
    }
  }

  /// The reason of the error parsing `text` for a setting of `type` throws, or `nil`.
  private func failure(_ text: String, _ type: any SettingValue.Type) -> String? {
    do {
      _ = try PropertyListValue(parsing: text, as: type)
      return nil
    } catch {
      #expect(error.code == .unparsableText)
      return error.reason
    }
  }

  // MARK: - Scalar kinds

  @Test func stringTakesAnyTextUnchanged() throws {
    for text in ["", " padded ", "42", "yes", "(a, b)", "-x", "é\u{0}"] {
      #expect(try PropertyListValue(parsing: text, as: .string) == .string(text))
    }
  }

  @Test func integerTakesDecimalDigitsWithOneSignAcrossTheWholePropertyListRange() throws {
    #expect(try PropertyListValue(parsing: "42", as: .integer) == 42)
    #expect(try PropertyListValue(parsing: "-5", as: .integer) == -5)
    #expect(try PropertyListValue(parsing: "+5", as: .integer) == 5)
    #expect(try PropertyListValue(parsing: "007", as: .integer) == 7)
    #expect(
      try PropertyListValue(parsing: "-9223372036854775808", as: .integer)
        == .integer(.init(Int64.min)))
    #expect(
      try PropertyListValue(parsing: "18446744073709551615", as: .integer)
        == .integer(.init(UInt64.max)))
  }

  @Test func integerRefusesSpacesUnderscoresHexDecimalsAndTwoSignsNamingTheText() {
    for text in ["", " 5", "5 ", "1_000", "0x10", "1.0", "1e3", "--5", "+-5", "five", "５", "٥"] {
      #expect(failure(text, .integer) == "'\(text)' is not an integer")
    }
  }

  @Test func integerOutOfRangeSaysTheRange() {
    let range = "is not in the integer range (-9223372036854775808 to 18446744073709551615)"
    #expect(failure("18446744073709551616", .integer) == "'18446744073709551616' \(range)")
    #expect(failure("-9223372036854775809", .integer) == "'-9223372036854775809' \(range)")
    #expect(failure("+99999999999999999999", .integer) == "'+99999999999999999999' \(range)")
  }

  @Test func realTakesDecimalsExponentsHexFloatsInfinitiesAndNaNInTheCLocale() throws {
    #expect(try PropertyListValue(parsing: "0.5", as: .real) == .real(0.5))
    #expect(try PropertyListValue(parsing: ".5", as: .real) == .real(0.5))
    #expect(try PropertyListValue(parsing: "5.", as: .real) == .real(5))
    #expect(try PropertyListValue(parsing: "+.5e-3", as: .real) == .real(0.0005))
    #expect(try PropertyListValue(parsing: "1E3", as: .real) == .real(1000))
    #expect(try PropertyListValue(parsing: "-0", as: .real) == .real(-0.0))
    #expect(try PropertyListValue(parsing: "42", as: .real) == .real(42))
    #expect(try PropertyListValue(parsing: "0x10", as: .real) == .real(16))
    #expect(try PropertyListValue(parsing: "0X1p4", as: .real) == .real(16))
    #expect(try PropertyListValue(parsing: "0x1.8p1", as: .real) == .real(3))
    #expect(try PropertyListValue(parsing: "inf", as: .real) == .real(.infinity))
    #expect(try PropertyListValue(parsing: "+Infinity", as: .real) == .real(.infinity))
    #expect(try PropertyListValue(parsing: "-INF", as: .real) == .real(-.infinity))
    guard case .real(let nan) = try PropertyListValue(parsing: "NaN", as: .real) else {
      Issue.record("nan is not a real")
      return
    }
    #expect(nan.isNaN)
    // Too small for a Double: zero, as the tool has always read it.
    #expect(try PropertyListValue(parsing: "1e-400", as: .real) == .real(0))
  }

  @Test func realRefusesTextTheCLibrariesReadDifferentlyOrLeniently() {
    // A comma decimal separator (a locale's), spaces, `_`, NaN payloads, `snan`, a bare
    // exponent, partial words and digits of other scripts are no number on any platform.
    for text in [
      "", "0,5", " 5", "5 ", "1_000", "nan(0x1)", "nan(123)", "snan", "1e", "1e+", "0x", "0x1p",
      ".", "-", "+", "infinit", "infinityx", "--5", "5\u{0}", "５", "0x1.8e1p", "loud",
    ] {
      #expect(failure(text, .real) == "'\(text)' is not a number")
    }
  }

  @Test func realRefusesAFiniteNumberTooLargeForADouble() {
    #expect(failure("1e400", .real) == "'1e400' is out of the range of a float")
    #expect(failure("-1e400", .real) == "'-1e400' is out of the range of a float")
  }

  @Test func boolTakesYesNoTrueFalseOneAndZeroInAnyCase() throws {
    for text in ["yes", "YES", "true", "True", "1"] {
      #expect(try PropertyListValue(parsing: text, as: .bool) == true)
    }
    for text in ["no", "No", "false", "FALSE", "0"] {
      #expect(try PropertyListValue(parsing: text, as: .bool) == false)
    }
    for text in ["", "y", "on", "2", " yes", "01"] {
      #expect(failure(text, .bool) == "'\(text)' is not a boolean (yes, no, true, false, 1 or 0)")
    }
  }

  @Test func dateTakesISO8601DefaultsOwnFormAndADayInUTC() throws {
    let expected = Date(timeIntervalSince1970: 1_796_052_753)  // 2026-11-30T15:32:33Z
    #expect(try PropertyListValue(parsing: "2026-11-30T15:32:33Z", as: .date) == .date(expected))
    #expect(
      try PropertyListValue(parsing: "2026-11-30 15:32:33 +0000", as: .date) == .date(expected))
    #expect(
      try PropertyListValue(parsing: "2026-11-30T16:32:33+01:00", as: .date) == .date(expected))
    #expect(
      try PropertyListValue(parsing: "2026-11-30T15:32:33.250Z", as: .date)
        == .date(expected.addingTimeInterval(0.25)))
    #expect(
      try PropertyListValue(parsing: "2026-11-30T15:32", as: .date)
        == .date(expected.addingTimeInterval(-33)))
    #expect(
      try PropertyListValue(parsing: "2026-11-30", as: .date)
        == .date(Date(timeIntervalSince1970: 1_795_996_800)))
  }

  @Test func dateRefusesImpossibleDaysAndOtherFormsNamingTheForms() {
    let forms = "is not a date (2026-11-30T15:32:33Z, 2026-11-30 15:32:33 +0000 or 2026-11-30)"
    for text in [
      "", "2026-02-30", "2025-02-29", "2026-13-01", "2026-11-30T24:00", "30/11/2026", "Nov 30 2026",
      "2026-11-30T15:32:33Zjunk", "1796052753",
    ] {
      #expect(failure(text, .date) == "'\(text)' \(forms)")
    }
  }

  @Test func dataTakesAnEvenNumberOfHexDigitsWithSpacesAPrefixOrAngleBrackets() throws {
    let bytes = PropertyListValue.data(Data([0x0f, 0xa1]))
    for text in ["0fa1", "0FA1", "0f a1", "0x0fa1", "<0fa1>", "< 0f a1 >"] {
      #expect(try PropertyListValue(parsing: text, as: .data) == bytes)
    }
    #expect(try PropertyListValue(parsing: "", as: .data) == .data(Data()))
    #expect(try PropertyListValue(parsing: "0x", as: .data) == .data(Data()))
    let rule = "is not hexadecimal data (an even number of hex digits, such as 0fa1)"
    for text in ["0fa", "zz", "0x0", "<0f", "０f"] {
      #expect(failure(text, .data) == "'\(text)' \(rule)")
    }
  }

  // MARK: - Declared types

  @Test func aStringSettingKeepsTextThatLooksLikeAnotherKind() throws {
    for text in ["42", "yes", "0.5", "2026-11-30", "0fa1", "(a, b)", ""] {
      #expect(try PropertyListValue(parsing: text, as: String.self) == .string(text))
    }
  }

  @Test func anIntSettingTakesIntegersOnlyAndRefusesBoolsAndReals() throws {
    #expect(try PropertyListValue(parsing: "42", as: Int.self) == 42)
    #expect(try PropertyListValue(parsing: "1", as: Int.self) == 1)
    #expect(try PropertyListValue(parsing: "-7", as: Int?.self) == -7)
    #expect(failure("yes", Int.self) == "'yes' can't be read as Int: it is not an integer")
    #expect(failure("1.0", Int.self) == "'1.0' can't be read as Int: it is not an integer")
    #expect(failure("loud", Int.self) == "'loud' can't be read as Int: it is not an integer")
    #expect(
      failure("300", UInt8.self)
        == "'300' can't be read as UInt8: out of the range of UInt8, 0...255")
  }

  @Test func boolDoubleDateAndDataSettingsTakeTheirFlagsText() throws {
    for (text, value) in [("yes", true), ("NO", false), ("1", true), ("0", false)] {
      #expect(try PropertyListValue(parsing: text, as: Bool.self) == .bool(value))
    }
    #expect(
      failure("2", Bool.self)
        == "'2' can't be read as Bool: it is not a boolean (yes, no, true, false, 1 or 0)")
    #expect(try PropertyListValue(parsing: "0.5", as: Double.self) == .real(0.5))
    #expect(try PropertyListValue(parsing: "3", as: Double.self) == .real(3))
    #expect(try PropertyListValue(parsing: "0.5", as: Float.self) == .real(0.5))
    // What a Float setting stores: the Double of the nearest Float.
    #expect(try PropertyListValue(parsing: "0.1", as: Float.self) == .real(Double(Float(0.1))))
    #expect(failure("loud", Double.self) == "'loud' can't be read as Double: it is not a number")
    #expect(
      try PropertyListValue(parsing: "2026-11-30T15:32:33Z", as: Date.self)
        == .date(Date(timeIntervalSince1970: 1_796_052_753)))
    #expect(try PropertyListValue(parsing: "0fa1", as: Data.self) == .data(Data([0x0f, 0xa1])))
    #expect(
      failure("0fa", Data.self)?.hasPrefix("'0fa' can't be read as Data: it is not hexadecimal")
        == true)
  }

  @Test func urlUUIDAndStringEnumSettingsReadTheirText() throws {
    #expect(
      try PropertyListValue(parsing: "https://example.com/a", as: URL.self)
        == .string("https://example.com/a"))
    #expect(failure("", URL.self) == "'' can't be read as URL")
    let uuid = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
    #expect(try PropertyListValue(parsing: uuid, as: UUID.self) == .string(uuid))
    #expect(try PropertyListValue(parsing: "high", as: TextQuality.self) == .string("high"))
    #expect(try PropertyListValue(parsing: "yes", as: TextQuality.self) == .string("yes"))
    #expect(failure("loud", TextQuality.self) == "'loud' can't be read as TextQuality")
    #expect(try PropertyListValue(parsing: "2", as: TextLevel.self) == 2)
    #expect(failure("9", TextLevel.self) == "'9' can't be read as TextLevel")
  }

  @Test func containerSettingsReadOldStyleLiteralsWithTheirElementsRead() throws {
    #expect(try PropertyListValue(parsing: "(a, \"b c\")", as: [String].self) == ["a", "b c"])
    // Old-style property lists have no numbers: the elements are strings, which Int reads, and
    // the value is what an [Int] stores.
    #expect(try PropertyListValue(parsing: "(1, 2)", as: [Int].self) == [1, 2])
    #expect(try PropertyListValue(parsing: " { a = 1; }", as: [String: Int].self) == ["a": 1])
    let flags = try PropertyListValue(parsing: "(yes, no)", as: Set<Bool>.self)
    #expect(Set<Bool>(propertyListValue: flags) == [true, false])
    #expect(flags.kind == .array)
    #expect(
      try PropertyListValue(parsing: "{ name = Ada; }", as: TextProfile.self) == ["name": "Ada"])
    #expect(
      failure("a", [String].self)
        == "'a' can't be read as [String]: give an old-style property-list array, such as (a, b)")
    #expect(
      failure("x", [String: Int].self)
        == "'x' can't be read as [String: Int]: give an old-style property-list dictionary, such as { key = value; }"
    )
    #expect(failure("(1, x)", [Int].self)?.hasPrefix("'(1, x)' can't be read as [Int]") == true)
    #expect(
      failure("(a, ", [String].self)?.hasPrefix(
        "'(a, ' can't be read as [String]: it is not an old-style property list (") == true)
    // JSON is not an old-style literal.
    #expect(failure("[\"a\"]", [String].self) != nil)
  }

  @Test func aLiteralNestedTooDeepIsRefusedBeforeAnyParserSeesIt() {
    let deep = String(repeating: "(", count: 600) + String(repeating: ")", count: 600)
    #expect(
      failure(deep, [PropertyListValue].self)
        == "'\(deep)' can't be read as [PropertyListValue]: it is not an old-style property list (nested more than 512 levels deep)"
    )
  }

  @Test func anUntypedSettingKeepsTheText() throws {
    #expect(try PropertyListValue(parsing: "42", as: PropertyListValue.self) == .string("42"))
  }
}

/// A `String`-backed enum setting with a case spelled like a bool.
private enum TextQuality: String, SettingValue {
  case high, low, yes
}

/// An `Int`-backed enum setting.
private enum TextLevel: Int, SettingValue {
  case one = 1, two = 2
}

/// A `Codable` struct setting.
private struct TextProfile: Codable, SettingValue {
  var name: String
}
