import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// The library's own XML property-list reader: every element and edge value read exactly, XML
/// well-formedness enforced, the places Foundation on Linux is lenient or wrong, salvaging, and
/// the shared fixture corpus compared with Foundation.
@Suite struct XMLPropertyListReaderTests {
  // MARK: - Helpers

  private func plist(_ body: String) -> Data { xmlPropertyList(body) }

  private func read(
    _ data: Data, salvaging: Bool = false
  ) throws(SettingsError)
    -> PropertyListReaders.Result
  {
    try XMLPropertyListReader.read(data, path: "test.plist", salvagingEntries: salvaging)
  }

  private func value(_ text: String) throws -> PropertyListValue {
    try read(Data(text.utf8)).root
  }

  private func valueIn(_ body: String) throws -> PropertyListValue {
    try read(plist(body)).root
  }

  /// The error reading `text` fails with.
  private func failure(
    _ text: String, sourceLocation: SourceLocation = #_sourceLocation
  )
    -> SettingsError?
  {
    failure(Data(text.utf8), sourceLocation: sourceLocation)
  }

  private func failure(
    _ data: Data, sourceLocation: SourceLocation = #_sourceLocation
  )
    -> SettingsError?
  {
    do {
      let result = try read(data)
      Issue.record("read \(result.root), expected an error", sourceLocation: sourceLocation)
      return nil
    } catch {
      #expect(error.code == .corruptFile, sourceLocation: sourceLocation)
      #expect(error.path == "test.plist", sourceLocation: sourceLocation)
      #expect(
        error.reason.first?.isUppercase == true, "\(error.reason)", sourceLocation: sourceLocation)
      #expect(!error.reason.hasSuffix("."), sourceLocation: sourceLocation)
      return error
    }
  }

  private func date(_ seconds: Double) -> PropertyListValue {
    .date(Date(timeIntervalSinceReferenceDate: seconds))
  }

  // MARK: - Elements

  @Test func everyElementIsRead() throws {
    let root = try valueIn(
      """
      <dict>
        <key>string</key><string>hello</string>
        <key>empty</key><string/>
        <key>alsoEmpty</key><string></string>
        <key>integer</key><integer>42</integer>
        <key>real</key><real>0.5</real>
        <key>yes</key><true/>
        <key>no</key><false/>
        <key>longYes</key><true></true>
        <key>date</key><date>2001-01-01T00:00:00Z</date>
        <key>data</key><data>AAEC/w==</data>
        <key>emptyData</key><data/>
        <key>array</key><array><integer>1</integer><string>two</string></array>
        <key>emptyArray</key><array/>
        <key>emptyDict</key><dict/>
        <key>nested</key><dict><key>a</key><array><dict/></array></dict>
      </dict>
      """)
    #expect(
      root == [
        "string": "hello", "empty": "", "alsoEmpty": "", "integer": 42, "real": 0.5, "yes": true,
        "no": false, "longYes": true, "date": date(0), "data": .data(Data([0, 1, 2, 255])),
        "emptyData": .data(Data()), "array": [1, "two"], "emptyArray": [], "emptyDict": [:],
        "nested": ["a": [[:]]],
      ])
  }

  @Test func integersAreExactOverTheWholeRange() throws {
    let cases: [(String, PropertyListValue.Integer)] = [
      ("0", 0), ("-0", 0), ("+7", 7), ("007", 7), (" 12 ", 12), ("\n\t-3\n", -3),
      ("-9223372036854775808", .init(Int64.min)), ("9223372036854775807", .init(Int64.max)),
      ("9223372036854775808", .init(UInt64(1) << 63)),
      ("18446744073709551615", .init(UInt64.max)),
      ("0x10", 16), ("0XfF", 255), ("0xFFFFFFFFFFFFFFFF", .init(UInt64.max)), ("-0x10", -16),
    ]
    for (text, expected) in cases {
      #expect(try valueIn("<integer>\(text)</integer>") == .integer(expected), "\(text)")
    }
    for bad in [
      "", " ", "18446744073709551616", "-9223372036854775809", "0x", "0x1G", "1.0", "1e3", "12a",
      "--1", "+", "1 2", "0x10000000000000000", "１",
    ] {
      let error = failure(String(data: plist("<integer>\(bad)</integer>"), encoding: .utf8)!)
      #expect(
        error?.reason.hasPrefix("Line 4: expected an integer") == true,
        "\(bad): \(error?.reason ?? "")")
    }
  }

  @Test func realsAreBitExact() throws {
    let texts = [
      "0.1", "1e308", "1.7976931348623157e308", "4.9e-324", "2.2250738585072014e-308", "-1.5",
      "3", ".5", "5.", "1E+2", "1e-2", "123456789012345678901234567890",
      "0.30000000000000004", "2.718281828459045235360287471352662497757",
    ]
    for text in texts {
      let read = try valueIn("<real>\(text)</real>")
      let expected = try #require(Double(text))
      #expect(read.doubleValue?.bitPattern == expected.bitPattern, "\(text)")
    }
    let negativeZero = try #require(try valueIn("<real>-0.0</real>").doubleValue)
    #expect(negativeZero == 0 && negativeZero.sign == .minus)
    #expect(try valueIn("<real>nan</real>").doubleValue?.isNaN == true)
    #expect(try valueIn("<real>NaN</real>").doubleValue?.isNaN == true)
    for text in ["inf", "+inf", "INF", "infinity", "+Infinity"] {
      #expect(try valueIn("<real>\(text)</real>") == .real(.infinity), "\(text)")
    }
    #expect(try valueIn("<real>-inf</real>") == .real(-.infinity))
    #expect(try valueIn("<real>-infinity</real>") == .real(-.infinity))
    #expect(try valueIn("<real> 2.5\n</real>") == .real(2.5))
    for bad in ["", "0x10", "1.2.3", "abc", "1e", "e5", ".", "-", "+nan", "1,5", "infinit"] {
      let error = failure(String(data: plist("<real>\(bad)</real>"), encoding: .utf8)!)
      #expect(error?.reason.contains("expected a real number") == true, "\(bad)")
    }
  }

  @Test func datesAreExactRealCalendarDates() throws {
    #expect(try valueIn("<date>2001-01-01T00:00:00Z</date>") == date(0))
    #expect(try valueIn("<date>2001-01-01T00:00:01Z</date>") == date(1))
    #expect(try valueIn("<date>2000-12-31T23:59:59Z</date>") == date(-1))
    #expect(try valueIn("<date>1970-01-01T00:00:00Z</date>") == date(-978_307_200))
    #expect(try valueIn("<date>2024-02-29T12:00:00Z</date>") == date(730_900_800))
    #expect(try valueIn("<date>2000-02-29T00:00:00Z</date>") == date(-26_524_800))
    #expect(try valueIn("<date>0001-01-01T00:00:00Z</date>") == date(-63_113_904_000))
    // Fractions: the correctly rounded Double of whole.fraction, before 2001 too.
    #expect(
      try valueIn("<date>2014-02-23T09:21:06.034Z</date>") == date(Double("414840066.034")!))
    #expect(try valueIn("<date>2001-01-01T00:00:00.5Z</date>") == date(0.5))
    #expect(try valueIn("<date>2000-12-31T23:59:59.5Z</date>") == date(-0.5))
    #expect(try valueIn("<date>2000-12-31T23:59:58.966Z</date>") == date(Double("-1.034")!))
    #expect(try valueIn("<date>2001-01-01T00:00:00.000Z</date>") == date(0))
    #expect(try valueIn("<date> 2001-01-01T00:00:00Z </date>") == date(0))
    // Years outside 0001–9999, as Foundation writes them (astronomical years, 0000 is 1 BC).
    #expect(try valueIn("<date>33689-09-27T01:46:40Z</date>") == date(1e12))
    #expect(try valueIn("<date>-29688-04-06T22:13:20Z</date>") == date(-1e12))
    #expect(try valueIn("<date>0000-01-01T00:00:00Z</date>") == date(-63_145_526_400))
    for seconds in [-1e12, -63_145_526_400, -5e10, -1, 0, 1e9, 1e12] {
      let data = try PropertyListSerialization.data(
        fromPropertyList: ["d": Date(timeIntervalSinceReferenceDate: seconds)], format: .xml,
        options: 0)
      #expect(try read(data).root == ["d": date(seconds)], "\(seconds)")
    }

    for bad in [
      "2024-01-32T20:43:14Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
      "2024-04-31T00:00:00Z", "2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z",
      "2024-01-00T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z",
      "2024-01-01T00:00:60Z", "2024-01-01Z", "2024-01-01T00:00Z", "2024-01-01T00:00:00",
      "2024-01-01T00:00:00.Z", "2024-01-01 00:00:00Z", "24-01-01T00:00:00Z", "",
      "2024-01-01T00:00:00+01:00", "2024-01-01T00:00:00.5xZ", "123456789012-01-01T00:00:00Z",
      "+2024-01-01T00:00:00Z", "-01-01T00:00:00Z",
    ] {
      let error = failure(String(data: plist("<date>\(bad)</date>"), encoding: .utf8)!)
      #expect(error?.reason.contains("expected a date") == true, "\(bad): \(error?.reason ?? "")")
      if !bad.isEmpty { #expect(error?.reason.contains(bad) == true, "\(bad)") }
    }
  }

  @Test func dataIsStrictBase64WithWhiteSpaceAnywhere() throws {
    #expect(try valueIn("<data>\n\tAAEC\n\t/w==\n</data>") == .data(Data([0, 1, 2, 255])))
    #expect(try valueIn("<data>A A E C</data>") == .data(Data([0, 1, 2])))
    #expect(try valueIn("<data>aGVsbG8</data>") == .data(Data("hello".utf8)))
    #expect(try valueIn("<data>aGVsbG8=</data>") == .data(Data("hello".utf8)))
    #expect(try valueIn("<data>aGk=</data>") == .data(Data("hi".utf8)))
    #expect(try valueIn("<data></data>") == .data(Data()))
    for bad in ["*@&amp;%#helo", "A", "AAAAA", "AA=A", "A===", "AA==AA==", "AA=", "aGk-"] {
      let error = failure(String(data: plist("<data>\(bad)</data>"), encoding: .utf8)!)
      #expect(error?.reason.contains("expected base64 data") == true, "\(bad)")
    }
  }

  @Test func duplicateKeysKeepTheLastValue() throws {
    #expect(
      try valueIn("<dict><key>a</key><integer>1</integer><key>a</key><integer>2</integer></dict>")
        == ["a": 2])
  }

  @Test func aBareValueRootIsRead() throws {
    #expect(try value("<?xml version=\"1.0\"?><string>x</string>") == "x")
    #expect(try value("<plist><array/></plist>") == [])
  }

  // MARK: - Foundation's mistakes on Linux

  @Test func malformedAttributesAreRefused() throws {
    for text in [
      "<plist Q=\">\n<string>x</string></plist>",
      "<plist><string =\">apple</string></plist>",
      "<plist version=1.0><string>x</string></plist>",
      "<plist version=\"1.0'><string>x</string></plist>",
      "<plist version=\"1.0\"version=\"1.0\"><string>x</string></plist>",
      "<plist a=\"1\" a=\"2\"><string>x</string></plist>",
      "<plist a=\"<\"><string>x</string></plist>",
      "<plist a><string>x</string></plist>",
      "<plist a=\"&bogus;\"><string>x</string></plist>",
    ] {
      _ = failure(text)
    }
    // Well-formed attributes are ignored; '>' is allowed in a value.
    #expect(
      try value("<plist version=\"1.0\" x='a>b' y=\"&amp;\"><string>x</string></plist>") == "x")
    #expect(
      try value("<plist><dict><key Q=\">\">test</key><string>v</string></dict></plist>") == [
        "test": "v"
      ])
  }

  @Test func aCommentInsideAKeyIsRemoved() throws {
    #expect(try valueIn("<dict><key><!-- note --></key><string>v</string></dict>") == ["": "v"])
    #expect(try valueIn("<dict><key>a<!-- x -->b</key><string>v</string></dict>") == ["ab": "v"])
  }

  @Test func anImpossibleDateIsRefusedNamingIt() throws {
    let error = failure(String(data: plist("<date>2024-01-32T20:43:14Z</date>"), encoding: .utf8)!)
    #expect(
      error?.reason
        == "Line 4: expected a date 'YYYY-MM-DDTHH:MM:SSZ' that exists in <date> but found '2024-01-32T20:43:14Z'"
    )
  }

  // MARK: - XML

  @Test func commentsProcessingInstructionsCDATAAndReferencesInEveryLegalPlace() throws {
    let text = """
      <?xml version="1.0" encoding="utf-8" standalone="yes"?>
      <!-- before the DOCTYPE -->
      <?pi before?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <!-- after -->
      <plist version="1.0"><!-- in plist --><?pi in plist?>
      <dict><!-- in dict -->
        <key>a<?pi x?>&amp;&lt;&gt;&quot;&apos;</key><!-- between --><string>&#65;&#x42;&#x1F600;<![CDATA[<&]]>]]</string>
        <key>cdata</key><string><![CDATA[]]></string>
        <key>int</key><integer><!-- c -->1<!-- c -->2</integer>
        <key>arr</key><array><!-- c --><true/><?pi?><false/></array>
      </dict><!-- after dict -->
      </plist>
      <!-- after plist --><?pi end?>

      """
    #expect(
      try value(text) == [
        "a&<>\"'": "AB😀<&]]", "cdata": "", "int": 12, "arr": [true, false],
      ])
  }

  @Test func malformedXMLIsRefused() throws {
    let cases: [(String, String)] = [
      ("<plist><string>a</dict></plist>", "Line 1: expected '</string>' but found '</dict>'"),
      (
        "<plist><string>a &bogus; b</string></plist>", "Line 1: the entity '&bogus;' is not defined"
      ),
      ("<plist><string>a & b</string></plist>", "Line 1: '&' that does not start a reference"),
      ("<plist><string>&#xD800;</string></plist>", "Line 1: the string holds the reference"),
      ("<plist><string>&#;</string></plist>", "Line 1: expected a character reference"),
      ("<plist><string>a]]>b</string></plist>", "Line 1: ']]>' in text"),
      ("<plist><!-- a -- b --><string/></plist>", "Line 1: '--' inside a comment"),
      ("<plist><!-- a ---><string/></plist>", "Line 1: '--' inside a comment"),
      (
        "<plist>\n<string>a</string>\n<string>b</string></plist>",
        "Line 3: expected '</plist>' but found '<string>'"
      ),
      ("<plist>text<string/></plist>", "Line 1: expected a value but found text 'text'"),
      ("<plist><string/></plist>trailing", "Line 1: expected nothing more after the root element"),
      ("<plist><string/></plist><plist/>", "Line 1: expected nothing more after the root element"),
      ("<plist/>", "Line 1: expected a value inside '<plist>' but found '<plist/>'"),
      ("<plist></plist>", "Line 1: expected a value inside '<plist>' but found '</plist>'"),
      ("<plist><foo/></plist>", "Line 1: expected a value but found '<foo/>', an element"),
      ("<plist><key>a</key></plist>", "Line 1: expected a value but found '<key>'"),
      ("<plist><plist><true/></plist></plist>", "Line 1: expected a value but found '<plist>'"),
      ("<plist><dict><string>a</string></dict></plist>", "Line 1: expected '<key>' or '</dict>'"),
      ("<plist><dict><key>a</key></dict></plist>", "Line 1: expected a value for the key 'a'"),
      (
        "<plist><dict><key>a</key><key>b</key></dict></plist>",
        "Line 1: expected a value but found '<key>'"
      ),
      ("<plist><true>x</true></plist>", "Line 1: expected '</true>'"),
      ("<plist><string>a<b/></string></plist>", "Line 1: expected '</string>' but found '<b/>'"),
      ("<plist><string>a<!x></string></plist>", "Line 1: expected text, a comment"),
      ("\n<?xml version=\"1.0\"?><plist><true/></plist>", "Line 2: an XML declaration"),
      ("<?xml version=\"2.0\"?><plist><true/></plist>", "Line 1: expected the XML version"),
      ("<?xml encoding=\"UTF-8\"?><plist><true/></plist>", "Line 1: expected 'version'"),
      (
        "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><true/></plist>",
        "Line 1: the encoding 'ISO-8859-1' is not supported"
      ),
      (
        "<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><true/></plist>",
        "Line 1: the XML declaration says the encoding is 'UTF-16'"
      ),
      ("<!DOCTYPE plist><!DOCTYPE plist><plist><true/></plist>", "Line 1: a second DOCTYPE"),
      ("<!DOCTYPE test \">\n<plist><true/></plist>", "Line 2: expected a closing"),
      ("<plist><true/></plist><!DOCTYPE plist>", "Line 1: expected nothing more"),
      (
        "<plist><string>\u{1}</string></plist>",
        "Line 1: the string holds the control character U+0001"
      ),
      (
        "<plist><string>&#1;</string></plist>",
        "Line 1: the string holds the reference '&#1;' to U+0001"
      ),
      ("<plist><string>\u{FFFF}</string></plist>", "Line 1: the string holds the character U+FFFF"),
      ("<plist><string>a</string\n x></plist>", "Line 1: expected '</string>'"),
      ("<plist><String>a</String></plist>", "Line 1: expected a value but found '<String>'"),
      (
        "<plist><dict><key>\u{1}</key><true/></dict></plist>",
        "Line 1: the key holds the control character"
      ),
    ]
    for (text, prefix) in cases {
      let error = failure(text)
      #expect(error?.reason.hasPrefix(prefix) == true, "\(text): \(error?.reason ?? "")")
    }
  }

  @Test func theInternalSubsetIsSkippedAndItsEntitiesAreNeverDefined() throws {
    let subset = """
      <?xml version="1.0"?>
      <!DOCTYPE plist [
        <!-- a comment ] > -->
        <!ELEMENT plist (#PCDATA)>
        <!ATTLIST plist version CDATA "1.0">
        <!ENTITY name "value with ] and > inside">
        <?pi ]>?>
        %parameter;
      ]>
      <plist><string>ok</string></plist>
      """
    #expect(try value(subset) == "ok")
    let referenced = subset.replacingOccurrences(of: "<string>ok", with: "<string>&name;")
    #expect(
      failure(referenced)?.reason.hasPrefix("Line 10: the entity '&name;' is not defined") == true)
  }

  @Test func theBillionLaughsAreRefusedAtOnce() throws {
    var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n"
    for level in 1...9 {
      let previous = level == 1 ? "lol" : "lol\(level - 1)"
      text += " <!ENTITY lol\(level) \"\(String(repeating: "&\(previous);", count: 10))\">\n"
    }
    text += "]>\n<plist><string>&lol9;</string></plist>\n"
    let clock = ContinuousClock()
    let start = clock.now
    #expect(failure(text)?.reason.hasPrefix("Line 14: the entity '&lol9;' is not defined") == true)
    #expect(clock.now - start < .seconds(1))
  }

  @Test func lineEndsAreNormalisedToLineFeeds() throws {
    let text =
      "<plist>\r\n<array>\r\n<string>a\r\nb\rc\n\r</string><string><![CDATA[x\r\ny]]></string><string>&#13;</string></array></plist>"
    #expect(try value(text) == ["a\nb\nc\n\n", "x\ny", "\r"])
    let error = failure("<plist>\r\n<array>\r\r<foo/></array></plist>")
    #expect(error?.reason.hasPrefix("Line 4: ") == true, "\(error?.reason ?? "")")
  }

  // MARK: - Encodings

  private let sample = """
    <?xml version="1.0" encoding="ENCODING"?>
    <plist version="1.0"><dict><key>é😀</key><string>naïve ✓ 𝄞</string></dict></plist>

    """

  private func encoded(_ text: String, _ encoding: String.Encoding, bom: [UInt8]) -> Data {
    // Foundation's .utf16BigEndian etc. write no byte-order mark.
    Data(bom) + text.data(using: encoding)!
  }

  @Test func utf16AndUTF32WithAByteOrderMarkAreRead() throws {
    let expected: PropertyListValue = ["é😀": "naïve ✓ 𝄞"]
    let cases: [(String, String.Encoding, [UInt8])] = [
      ("UTF-16", .utf16LittleEndian, [0xFF, 0xFE]), ("UTF-16", .utf16BigEndian, [0xFE, 0xFF]),
      ("UTF-16LE", .utf16LittleEndian, [0xFF, 0xFE]),
      ("UTF-32", .utf32BigEndian, [0, 0, 0xFE, 0xFF]),
      ("UTF-32", .utf32LittleEndian, [0xFF, 0xFE, 0, 0]),
    ]
    for (name, encoding, bom) in cases {
      let data = encoded(
        sample.replacingOccurrences(of: "ENCODING", with: name), encoding, bom: bom)
      #expect(PropertyListFile.Format.detect(data) == .xml, "\(name)")
      #expect(try read(data).root == expected, "\(name) \(encoding)")
      #expect(try PropertyListFile.decode(data).root == expected, "\(name) \(encoding)")
    }
    // A declaration contradicting the mark.
    let wrong = encoded(
      sample.replacingOccurrences(of: "ENCODING", with: "UTF-8"), .utf16LittleEndian,
      bom: [0xFF, 0xFE])
    #expect(
      failure(wrong)?.reason.hasPrefix("Line 1: the XML declaration says the encoding is 'UTF-8'")
        == true)
    // No mark.
    let unmarked = sample.replacingOccurrences(of: "ENCODING", with: "UTF-16").data(
      using: .utf16BigEndian)!
    #expect(
      failure(unmarked)?.reason == "The file is UTF-16 without the byte-order mark XML requires")
    // An unpaired surrogate, a partial code unit.
    var lone = Data([0xFF, 0xFE]) + "<plist><string>".data(using: .utf16LittleEndian)!
    lone += Data([0x00, 0xD8, 0x41, 0x00]) + "</string></plist>".data(using: .utf16LittleEndian)!
    #expect(failure(lone)?.reason.contains("surrogate") == true)
    #expect(failure(Data([0xFF, 0xFE, 0x3C, 0x00, 0x70]))?.reason.contains("middle") == true)
    let tooLarge = Data([0, 0, 0xFE, 0xFF, 0, 0, 0, 0x3C, 0, 0x11, 0, 0])
    #expect(failure(tooLarge)?.reason.contains("not a Unicode scalar value") == true)
  }

  @Test func utf8WithAByteOrderMarkAndInvalidUTF8() throws {
    let text = sample.replacingOccurrences(of: "ENCODING", with: "UTF-8")
    #expect(try read(Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)).root == ["é😀": "naïve ✓ 𝄞"])
    for bad: [UInt8] in [
      [0xFF], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
      [0xC3], [0x80],
    ] {
      let data = Data("<plist>\n<string>".utf8) + Data(bad) + Data("</string></plist>".utf8)
      #expect(failure(data)?.reason.hasPrefix("Line 2: invalid UTF-8") == true, "\(bad)")
    }
    #expect(
      try value("<?xml version=\"1.0\" encoding=\"us-ascii\"?><plist><string>a</string></plist>")
        == "a")
  }

  // MARK: - Safety

  @Test func everyPrefixOfAFileIsRefused() throws {
    let data = plist(
      """
      <dict>
        <key>a&amp;</key><string>x<![CDATA[y]]><!-- c --></string>
        <key>n</key><array><integer>1</integer><real>2.5</real><true/><date>2001-01-01T00:00:00Z</date></array>
        <key>d</key><data>AAEC</data>
      </dict>
      """)
    // The whole file ends with "</plist>\n": every cut before the end of "</plist>" is refused.
    let end = data.count - 1
    for length in 0..<end {
      do {
        let result = try read(data.prefix(length))
        Issue.record("a prefix of \(length) bytes was read: \(result.root)")
      } catch {
        #expect(error.code == .corruptFile)
      }
    }
    #expect(try read(data.prefix(end)).root.dictionaryValue?.count == 3)
  }

  private func nestedArrays(_ depth: Int) -> String {
    String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
  }

  @Test func nestingIsBoundedLikeFoundationBridge() throws {
    let limit = PropertyListReaders.maximumDepth
    #expect(try value("<plist>\(nestedArrays(limit))</plist>").arrayValue?.count == 1)
    let error = failure("<plist>\(nestedArrays(limit + 1))</plist>")
    #expect(error?.reason == "Line 1: nesting deeper than \(limit) levels")
    // A million levels: refused at once, without recursion.
    let clock = ContinuousClock()
    let start = clock.now
    _ = failure("<plist>\(String(repeating: "<array>", count: 1_000_000))")
    #expect(clock.now - start < .seconds(5))
  }

  @Test func theValueCountIsBounded() throws {
    let many = String(repeating: "<true/>", count: PropertyListReaders.maximumValueCount)
    let error = failure("<plist><array>\(many)</array></plist>")
    #expect(error?.reason == "Line 1: more than \(PropertyListReaders.maximumValueCount) values")
  }

  /// CPython's deep-nesting test in XML (its fixture in the corpus is binary), in a dictionary
  /// so that salvaging applies too.
  @Test func aHundredThousandLevelsAreRefusedQuickly() throws {
    let data = plist(
      "<dict><key>deep</key>\(nestedArrays(100_000))<key>ok</key><true/></dict>")
    let clock = ContinuousClock()
    let start = clock.now
    let error = failure(data)
    #expect(error?.reason == "Line 4: nesting deeper than 512 levels")
    let salvaged = try read(data, salvaging: true)
    #expect(salvaged.root == ["ok": true])
    #expect(salvaged.unreadableEntries.map(\.key) == ["deep"])
    #expect(clock.now - start < .seconds(5))
  }

  // MARK: - Agreement with Foundation's writer

  @Test func whatFoundationWritesReadsBackExactly() throws {
    var root: [String: PropertyListValue] = [:]
    for index in 0..<600 {
      let key = "key \(index) <&> é"
      switch index % 9 {
      case 0: root[key] = .string("text <\(index)> & \"quoted\" 'single' ✓ 😀 ]]> \t\n")
      case 1: root[key] = .integer(.init(Int64(index) * 1_000_003 - 300_000_000))
      case 2: root[key] = .real(Double(index) * 0.1 - 17.3)
      case 3: root[key] = .bool(index % 2 == 0)
      case 4: root[key] = date(Double(index) * 86_399 - 20_000_000)
      case 5:
        root[key] = .data(Data((0..<(index % 50)).map { UInt8(truncatingIfNeeded: $0 * index) }))
      case 6:
        root[key] = [.integer(.init(UInt64.max)), .integer(.init(Int64.min)), .real(.infinity)]
      case 7: root[key] = ["nested": ["deeper": [.string(""), .dictionary([:]), .array([])]]]
      default: root[key] = .string(String(repeating: "long ", count: index))
      }
    }
    let value = PropertyListValue.dictionary(root)
    let data = try PropertyListSerialization.data(
      fromPropertyList: FoundationBridge.object(from: value), format: .xml, options: 0)
    #expect(try read(data).root == value)
    let object = try PropertyListSerialization.propertyList(from: data, format: nil)
    #expect(try FoundationBridge.value(from: object) == value)
  }

  @Test func aCarriageReturnIsWrittenAsAReferenceAndReadBack() throws {
    let data = try PropertyListFile.encode(["a\rb": "c\r\nd\r"], format: .xml)
    #expect(!data.contains(0x0D))
    #expect(String(decoding: data, as: UTF8.self).contains("c&#13;\nd&#13;"))
    #expect(try PropertyListFile.decode(data).root == ["a\rb": "c\r\nd\r"])
  }

  // MARK: - Salvaging

  @Test func salvagingLeavesOutUnreadableEntriesNamingTheirLines() throws {
    let data = plist(
      """
      <dict>
        <key>good</key><integer>1</integer>
        <key>badDate</key><date>2024-01-32T20:43:14Z</date>
        <key>badInteger</key><integer>12x</integer>
        <key>badNested</key><array><dict><key>x</key><real>oops</real><key>y</key><array><true/></array></dict><string>tail</string></array>
        <key>unknown</key><foo a="1"><bar>text &amp; more</bar><baz/></foo>
        <key>control</key><string>a\u{1}b</string>
        <key>badData</key><data>!!</data>
        <key>deep</key>\(nestedArrays(600))
        <key>keyAfterKey</key>
        <key>also good</key><string>yes</string>
      </dict>
      """)
    let result = try read(data, salvaging: true)
    #expect(result.root == ["good": 1, "also good": "yes"])
    let reported = result.unreadableEntries.map { "\($0.key ?? "?"): \($0.reason)" }
    #expect(
      reported == [
        "badDate: Line 6: expected a date 'YYYY-MM-DDTHH:MM:SSZ' that exists in <date> but found '2024-01-32T20:43:14Z'",
        "badInteger: Line 7: expected an integer from -9223372036854775808 to 18446744073709551615 (decimal, or hexadecimal after '0x') in <integer> but found '12x'",
        "badNested: Line 8: expected a real number in <real> but found 'oops'",
        "unknown: Line 9: expected a value but found '<foo a=\"1\">', an element no property list has",
        "control: Line 10: the string holds the control character U+0001, which XML forbids",
        "badData: Line 11: expected base64 data in <data> but found '!!'",
        "deep: Line 12: nesting deeper than 512 levels",
        "keyAfterKey: Line 14: expected a value but found '<key>', a misplaced one",
      ])
    for error in result.unreadableEntries {
      #expect(error.code == .corruptFile)
      #expect(error.path == "test.plist")
    }
    // Without salvaging, the first problem fails the read.
    #expect(
      failure(data)?.reason
        == "Line 6: expected a date 'YYYY-MM-DDTHH:MM:SSZ' that exists in <date> but found '2024-01-32T20:43:14Z'"
    )
  }

  @Test func salvagingStillRefusesMalformedXML() throws {
    for body in [
      "<dict><key>a</key><array><string>x</dict></dict>",
      "<dict><key>a</key><foo><bar></foo></dict>",
      "<dict><key>a</key><string>&bogus;</string></dict>",
      "<dict><key>a</key><integer>1</integer>",
      "<dict><key>a</key><foo x=1/></dict>",
      "<dict><string>a</string></dict>",
      "<array><integer>x</integer></array>",
    ] {
      #expect(throws: SettingsError.self, "\(body)") {
        try read(plist(body), salvaging: true)
      }
    }
  }

  // MARK: - The fixture corpus

  static let fixtures = TestPaths.sharedFixtures

  static func xmlFiles(in folder: String) -> [String] {
    let directory = fixtures.appendingPathComponent(folder)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.sorted().filter { name in
      guard let data = try? Data(contentsOf: directory.appendingPathComponent(name)) else {
        return false
      }
      return PropertyListFile.Format.detect(data) == .xml
    }
  }

  @Test(
    "Every valid XML fixture reads as Foundation reads it",
    .enabled(
      if: TestPaths.hasSharedFixtures,
      "The shared plist fixtures (../shared/fixtures/plists) are absent: skipping"),
    arguments: xmlFiles(in: "valid"))
  func validFixtureMatchesFoundation(_ name: String) throws {
    let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("valid/\(name)"))
    let ours = try read(data).root
    let object = try PropertyListSerialization.propertyList(from: data, format: nil)
    let foundation = try FoundationBridge.value(from: object)
    #expect(ours == foundation, "\(name)")
  }

  @Test(
    "Every invalid XML fixture ends in a value or a typed error",
    .enabled(
      if: TestPaths.hasSharedFixtures,
      "The shared plist fixtures (../shared/fixtures/plists) are absent: skipping"),
    arguments: xmlFiles(in: "invalid"))
  func invalidFixtureEndsCleanly(_ name: String) throws {
    let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("invalid/\(name)"))
    for salvaging in [false, true] {
      do {
        _ = try read(data, salvaging: salvaging)
      } catch {
        #expect(error.code == .corruptFile)
        #expect(error.reason.first?.isUppercase == true, "\(error.reason)")
      }
    }
  }
}
