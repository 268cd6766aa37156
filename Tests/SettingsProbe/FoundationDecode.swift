// `SettingsProbe foundation-decode FILE`: what Foundation's `PropertyListSerialization` makes of a
// file, for the differential tests (DifferentialTests), which run it in this separate process
// because CoreFoundation can crash on malformed input.
//
// Prints one line: `OK <value>` with the value in the tagged JSON of
// Tests/PropertyListReaderTests/Fixtures/make_plistlib_expectations.py ({"s": string}, {"i": "n"},
// {"r": "repr"}, {"b": bool}, {"d": seconds since 2001, or "inf", "-inf", "nan"}, {"x": base64}, {"a": [...]},
// {"o": {...}}; a keyed-archiver UID is {"o": {"CF$UID": {"i": "n"}}}), keys sorted; or
// `FAIL: <reason>`. Exits 0 in both cases; a crash is the parent's to classify.
//
// The conversion here is deliberately independent of the library's own (FoundationBridge), so
// that the table compares readers, not one converter with itself.

import Foundation

enum FoundationDecode {
  /// Nesting deeper than this is reported as a failure of the probe, not of Foundation: walking
  /// it recursively could overflow this process's stack and be misread as Foundation crashing.
  static let maximumDepth = 10_000

  struct Unconvertible: Error {
    var reason: String
  }

  static func run(_ path: String) -> Never {
    let line: String
    do {
      let data = try Data(contentsOf: URL(fileURLWithPath: path))
      var format = PropertyListSerialization.PropertyListFormat.xml
      let object: Any
      do {
        object = try PropertyListSerialization.propertyList(
          from: data, options: [], format: &format)
      } catch {
        print("FAIL: \(describe(error))")
        exit(0)
      }
      var text = ""
      try tagged(object, depth: 0, into: &text)
      line = "OK \(text)"
    } catch let error as Unconvertible {
      line = "FAIL: \(error.reason)"
    } catch {
      line = "FAIL: cannot read the file: \(error)"
    }
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
    exit(0)
  }

  private static func describe(_ error: any Error) -> String {
    let nsError = error as NSError
    let debug = nsError.userInfo[NSDebugDescriptionErrorKey] as? String ?? ""
    let text = debug.isEmpty ? nsError.localizedDescription : debug
    return text.replacingOccurrences(of: "\n", with: " ")
  }

  private static let booleanNumberClass: AnyClass = type(of: NSNumber(value: true))

  /// Appends `object` as tagged JSON.
  private static func tagged(_ object: Any, depth: Int, into text: inout String) throws {
    guard depth <= maximumDepth else {
      throw Unconvertible(reason: "the probe stops at \(maximumDepth) levels of nesting")
    }
    // Exact native types first: a lenient cast (`NSNumber(1) as? Bool`) would misclassify.
    let objectType = type(of: object)
    if objectType == Bool.self {
      text += (object as! Bool) ? #"{"b":true}"# : #"{"b":false}"#
      return
    }
    if objectType == Int.self || objectType == Int64.self || objectType == UInt64.self {
      text += #"{"i":"\#(object)"}"#
      return
    }
    if objectType == Double.self {
      text += #"{"r":"\#(object as! Double)"}"#
      return
    }
    switch object {
    case let number as NSNumber where type(of: number) == booleanNumberClass:
      text += number.boolValue ? #"{"b":true}"# : #"{"b":false}"#
    case let number as NSNumber:
      switch UInt8(bitPattern: number.objCType.pointee) {
      case UInt8(ascii: "f"), UInt8(ascii: "d"): text += #"{"r":"\#(number.doubleValue)"}"#
      case UInt8(ascii: "Q"), UInt8(ascii: "L"): text += #"{"i":"\#(number.uint64Value)"}"#
      default: text += #"{"i":"\#(number.int64Value)"}"#
      }
    case let value as String: text += #"{"s":"# + quoted(value) + "}"
    case let value as Date:
      // JSON has no infinity or NaN: those are written as strings ("inf", "-inf", "nan").
      let seconds = value.timeIntervalSinceReferenceDate
      text += seconds.isFinite ? #"{"d":\#(seconds)}"# : #"{"d":"\#(seconds)"}"#
    case let value as Data: text += #"{"x":""# + value.base64EncodedString() + #""}"#
    case let elements as [Any]:
      text += #"{"a":["#
      for (index, element) in elements.enumerated() {
        if index > 0 { text += "," }
        try tagged(element, depth: depth + 1, into: &text)
      }
      text += "]}"
    case let entries as [AnyHashable: Any]:
      var keyed: [(String, Any)] = []
      for (key, value) in entries {
        guard let key = key.base as? String else {
          throw Unconvertible(reason: "a dictionary key of type \(type(of: key.base))")
        }
        keyed.append((key, value))
      }
      text += #"{"o":{"#
      for (index, (key, value)) in keyed.sorted(by: { $0.0 < $1.0 }).enumerated() {
        if index > 0 { text += "," }
        text += quoted(key) + ":"
        try tagged(value, depth: depth + 1, into: &text)
      }
      text += "}}"
    default:
      if let box = object as? any OptionalBox {
        guard let unboxed = box.unboxed else { throw Unconvertible(reason: "a null value") }
        try tagged(unboxed, depth: depth, into: &text)
      } else if String(describing: type(of: object)) == "_NSKeyedArchiverUID",
        let uid = Mirror(reflecting: object).children.first(where: { $0.label == "value" })?
          .value as? UInt32
      {
        text += #"{"o":{"CF$UID":{"i":"\#(uid)"}}}"#
      } else {
        throw Unconvertible(reason: "a value of type \(type(of: object))")
      }
    }
  }

  /// `string` as a JSON string literal.
  private static func quoted(_ string: String) -> String {
    var result = "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case _ where scalar.value < 0x20:
        result +=
          "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
          + String(scalar.value, radix: 16)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}

/// Unwraps an `Optional` held in an `Any` (corelibs boxes container elements so).
private protocol OptionalBox {
  var unboxed: Any? { get }
}

extension Optional: OptionalBox {
  fileprivate var unboxed: Any? {
    switch self {
    case .some(let wrapped): wrapped
    case .none: nil
    }
  }
}
