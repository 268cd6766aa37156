import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults
@testable import TypedDefaultsLayers

/// The code only older or Apple systems run, compiled everywhere and checked here: the UTF-8
/// validation of systems without `String(validating:as:)`, the parsing of CoreFoundation's
/// keyed-archiver UID description, and the folders Apple platforms ask `FileManager` for.
@Suite struct PlatformFallbackTests {
  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  @Test func theUTF8FallbackAcceptsAndRefusesExactlyWhatStringValidatingDoes() {
    let cases: [[UInt8]] = [
      [], Array("plain ASCII".utf8), Array("é €  𝄞".utf8),
      [0xC0, 0xAF],  // overlong "/"
      [0xE0, 0x80, 0xAF],  // overlong, three bytes
      [0xED, 0xA0, 0x80],  // a surrogate
      [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
      [0xE2, 0x82],  // truncated
      [0x80],  // a stray continuation byte
      [0xFF], [0x61, 0x00, 0x62],
    ]
    var generator = SplitMix64(seed: 23)
    let alphabet: [UInt8] = [
      0x00, 0x41, 0x7F, 0x80, 0xBF, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5,
    ]
    let random = (0..<3000).map { _ in
      (0..<generator.below(7)).map { _ in generator.pick(alphabet) }
    }
    for bytes in cases + random {
      #expect(
        validatedUTF8ByDecoding(bytes) == String(validating: bytes, as: UTF8.self),
        "\(bytes.map { String($0, radix: 16) })")
      #expect(validatedUTF8(bytes) == String(validating: bytes, as: UTF8.self))
      #expect(validatedUTF8ByDecoding(bytes[...]) == String(validating: bytes[...], as: UTF8.self))
    }
    #expect(random.contains { validatedUTF8ByDecoding($0) == nil })
    #expect(random.contains { !$0.isEmpty && validatedUTF8ByDecoding($0) != nil })
  }

  @Test func aKeyedArchiverUIDIsReadFromCoreFoundationsDescriptionOnly() {
    #expect(
      FoundationBridge.keyedArchiverUID(
        fromDescription: "<CFKeyedArchiverUID 0x600000c8c000 [0x1f06a0d48]>{value = 7}") == 7)
    #expect(
      FoundationBridge.keyedArchiverUID(fromDescription: "<CFKeyedArchiverUID 0x1>{value = 0}")
        == 0)
    #expect(
      FoundationBridge.keyedArchiverUID(
        fromDescription: "<CFKeyedArchiverUID 0x1>{value = 4294967295}") == .max)
    for description in [
      "<CFKeyedArchiverUID 0x1>{value = 4294967296}", "<CFKeyedArchiverUID 0x1>{value = x}",
      "<CFKeyedArchiverUID 0x1>", "{value = 7}", "<NSObject 0x1>{value = 7}", "",
    ] {
      #expect(
        FoundationBridge.keyedArchiverUID(fromDescription: description) == nil, "\(description)")
    }
  }

  @Test func eachStandardLocationNamesTheFolderApplePlatformsAskFor() {
    #expect(StandardLocation.data.searchPathDirectory == .applicationSupportDirectory)
    #expect(StandardLocation.configuration.searchPathDirectory == .applicationSupportDirectory)
    #expect(StandardLocation.documents.searchPathDirectory == .documentDirectory)
    #expect(StandardLocation.cache.searchPathDirectory == .cachesDirectory)
  }
}
