import Foundation
import TypedDefaults

/// How the bytes of an etcd value become a setting's value; see ``EtcdSource`` for the rules.
enum EtcdValueEncoding {
  /// The largest value read, in bytes: a setting, not a file store.
  static let maximumValueSize = 1024 * 1024

  /// Decodes one value.
  ///
  /// - Parameters:
  ///   - bytes: The value's bytes, as etcd holds them.
  ///   - key: The setting's key, for the error.
  ///   - origin: The etcd key, for the error.
  /// - Returns: A property list's root value, or the text as a ``PropertyListValue/string(_:)``
  ///   that the store reads as the declared type.
  /// - Throws: ``SettingsError/Code/layerValueUnreadable`` naming the key and why: not UTF-8
  ///   text and not a property list, a property list that doesn't decode, too large.
  static func decode(
    _ bytes: [UInt8], key: String, origin: String
  ) throws(SettingsError) -> PropertyListValue {
    guard bytes.count <= maximumValueSize else {
      throw SettingsError(
        .layerValueUnreadable, path: origin, key: key,
        reason: "The value has \(bytes.count) bytes, above the limit of \(maximumValueSize) bytes")
    }
    if isPropertyList(bytes) {
      do {
        return try PropertyListFile.decode(Data(bytes), path: origin).root
      } catch {
        throw SettingsError(
          .layerValueUnreadable, path: origin, key: key,
          reason: "The value looks like a property list but can't be read: \(error.reason)")
      }
    }
    guard let text = validatedUTF8(bytes) else {
      throw SettingsError(
        .layerValueUnreadable, path: origin, key: key,
        reason: "The value is neither UTF-8 text nor a property list (\(bytes.count) bytes)")
    }
    return .string(text)
  }

  /// Whether the bytes are a binary (`bplist00`) or an XML property list (`<?xml`, `<!DOCTYPE
  /// plist`, `<plist`, after any leading white space).
  static func isPropertyList(_ bytes: [UInt8]) -> Bool {
    if bytes.starts(with: Array("bplist00".utf8)) { return true }
    let start = bytes.drop { $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }
    // A UTF-8 byte order mark may precede the XML declaration.
    let text = start.starts(with: [0xEF, 0xBB, 0xBF]) ? start.dropFirst(3) : start
    return ["<?xml", "<!DOCTYPE plist", "<plist"].contains { text.starts(with: Array($0.utf8)) }
  }
}
