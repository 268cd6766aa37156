import Foundation

/// Conversions between ``PropertyListValue`` and the objects Foundation's two property-list edges
/// use: `UserDefaults` and `PropertyListSerialization`.
///
/// This is the only place such conversions live.
///
/// Foundation hands property-list values over in several shapes, which differ between Linux and
/// Apple platforms: native Swift values (`Int`, `Bool`, `String`…), `NSNumber`s whose `Bool`-ness
/// shows only in their class, containers whose elements are boxed as `Optional<Any>`, and
/// keyed-archiver UIDs. Numbers are classified by their stored type, never by a lenient cast
/// (`1 as? Bool` is `true` for an `NSNumber`).
package enum FoundationBridge {
  /// The deepest nesting of arrays and dictionaries accepted when reading; deeper input is refused
  /// rather than risk exhausting the stack.
  ///
  /// Writes are held to the same limit (see ``WriteValidation``), so whatever is written can be
  /// read back.
  static let maximumDepth = 512

  /// The most values (scalars and containers) one conversion produces.
  ///
  /// A binary property list can refer to one array from many places, so a few hundred bytes can
  /// describe billions of values; past this budget the input is refused rather than expanded.
  static let maximumValueCount = 1_000_000

  /// A value Foundation returned that is not a property-list value, with where it was found.
  package struct ConversionError: Error {
    /// The path of the offending value inside the root, for example `root["a"][3]`.
    var path: String
    /// What is wrong with it.
    var problem: String

    package var reason: String { "\(problem) at \(path)" }
  }

  // The class of a boxed Boolean (`__NSCFBoolean` on Linux and Apple platforms alike), which is how
  // a Boolean `NSNumber` differs from the integers 1 and 0.
  private static let booleanNumberClass: AnyClass = type(of: NSNumber(value: true))

  // MARK: - Foundation to PropertyListValue

  /// Converts a Foundation property-list object to a ``PropertyListValue``.
  ///
  /// - Parameter object: A value returned by `UserDefaults.object(forKey:)` or
  ///   `PropertyListSerialization`.
  /// - Returns: The object as a ``PropertyListValue``.
  /// - Throws: ``ConversionError`` for a value that is not a property-list value (a null, a
  ///   dictionary with a non-string key), nesting deeper than ``maximumDepth``, or more than
  ///   ``maximumValueCount`` values.
  package static func value(from object: Any) throws(ConversionError) -> PropertyListValue {
    var budget = maximumValueCount
    do {
      return try value(from: object, depth: 0, budget: &budget)
    } catch {
      throw ConversionError(path: "root" + error.path, problem: error.problem)
    }
  }

  // The path of a bad value is built as the error unwinds (each level prepends its key or index),
  // so that converting good values allocates nothing for it.
  private static func value(
    from object: Any,
    depth: Int,
    budget: inout Int
  ) throws(ConversionError) -> PropertyListValue {
    budget -= 1
    guard budget >= 0 else {
      throw ConversionError(
        path: "",
        problem:
          "More than \(maximumValueCount) values (shared references expand to more than the file holds)"
      )
    }
    // Exact types first: a type comparison is far cheaper than a bridging cast. corelibs'
    // UserDefaults returns native Swift values; PropertyListSerialization on Linux returns native
    // strings, dates, data and containers, and NSNumber for numbers.
    let objectType = type(of: object)
    if objectType == String.self { return .string(object as! String) }
    if objectType == NSNumber.self { return classify(object as! NSNumber) }
    if objectType == [AnyHashable: Any].self {
      return try dictionary(object as! [AnyHashable: Any], depth: depth, budget: &budget)
    }
    if objectType == Int.self { return .integer(.init(Int64(object as! Int))) }
    if objectType == Bool.self { return .bool(object as! Bool) }
    if objectType == Double.self { return .real(object as! Double) }
    if objectType == Date.self { return .date(object as! Date) }
    if objectType == Data.self { return .data(object as! Data) }
    if objectType == [Any].self {
      return try array(object as! [Any], depth: depth, budget: &budget)
    }
    if objectType == Float.self { return .real(Double(object as! Float)) }
    if objectType == UInt64.self { return .integer(.init(object as! UInt64)) }
    if objectType == Int64.self { return .integer(.init(object as! Int64)) }
    if objectType == Optional<Any>.self, let box = object as? any OptionalProtocol {
      // corelibs boxes the elements of containers it returns as `Optional<Any>`.
      guard let unboxed = box.wrappedAny else {
        throw ConversionError(path: "", problem: "A null value, which property lists cannot hold")
      }
      budget += 1  // the box is not a value of its own
      return try value(from: unboxed, depth: depth, budget: &budget)
    }

    // Bridged Objective-C objects (Apple platforms), and anything else castable.
    if let number = object as? NSNumber { return classify(number) }
    if let string = object as? String { return .string(string) }
    if let date = object as? Date { return .date(date) }
    if let data = object as? Data { return .data(data) }
    if let elements = object as? [Any] { return try array(elements, depth: depth, budget: &budget) }
    if let entries = object as? [AnyHashable: Any] {
      return try dictionary(entries, depth: depth, budget: &budget)
    }
    if let uid = keyedArchiverUID(object) {
      return .dictionary(["CF$UID": .integer(.init(UInt64(uid)))])
    }
    throw ConversionError(
      path: "", problem: "A value of type \(objectType), which is not a property-list type")
  }

  private static func array(
    _ array: [Any],
    depth: Int,
    budget: inout Int
  ) throws(ConversionError) -> PropertyListValue {
    guard depth < maximumDepth else {
      throw ConversionError(path: "", problem: "Nesting deeper than \(maximumDepth) levels")
    }
    var elements: [PropertyListValue] = []
    elements.reserveCapacity(array.count)
    for (index, element) in array.enumerated() {
      do {
        elements.append(try value(from: element, depth: depth + 1, budget: &budget))
      } catch {
        throw ConversionError(path: "[\(index)]" + error.path, problem: error.problem)
      }
    }
    return .array(elements)
  }

  private static func dictionary(
    _ dictionary: [AnyHashable: Any],
    depth: Int,
    budget: inout Int
  ) throws(ConversionError) -> PropertyListValue {
    guard depth < maximumDepth else {
      throw ConversionError(path: "", problem: "Nesting deeper than \(maximumDepth) levels")
    }
    var entries: [String: PropertyListValue] = [:]
    entries.reserveCapacity(dictionary.count)
    for (key, element) in dictionary {
      guard let key = key.base as? String else {
        throw ConversionError(
          path: "",
          problem: "A dictionary key of type \(type(of: key.base)); property-list keys are strings")
      }
      do {
        entries[key] = try value(from: element, depth: depth + 1, budget: &budget)
      } catch {
        throw ConversionError(path: "[\"\(key)\"]" + error.path, problem: error.problem)
      }
    }
    return .dictionary(entries)
  }

  private static func classify(_ number: NSNumber) -> PropertyListValue {
    if type(of: number) == booleanNumberClass {
      return .bool(number.boolValue)
    }
    switch UInt8(bitPattern: number.objCType.pointee) {
    case UInt8(ascii: "f"), UInt8(ascii: "d"):
      return .real(number.doubleValue)
    case UInt8(ascii: "Q"), UInt8(ascii: "L"):
      return .integer(.init(number.uint64Value))
    default:
      return .integer(.init(number.int64Value))
    }
  }

  /// The number inside a keyed-archiver UID object, which some binary plists (nibs,
  /// `NSKeyedArchiver` archives) contain; `nil` for any other object.
  private static func keyedArchiverUID(_ object: Any) -> UInt32? {
    #if canImport(Darwin)
      return keyedArchiverUID(fromDescription: String(describing: object))
    #else
      // swift-corelibs-foundation's UID class is internal; its stored `value` is visible to Mirror.
      guard String(describing: type(of: object)) == "_NSKeyedArchiverUID" else { return nil }
      return Mirror(reflecting: object).children.first { $0.label == "value" }?.value as? UInt32
    #endif
  }

  /// The number in CoreFoundation's description of a keyed-archiver UID.
  ///
  /// CoreFoundation's UID type is private, and its description is
  /// `<CFKeyedArchiverUID 0x…>{value = 7}`: how Apple platforms read one. Compiled everywhere, so
  /// that the parsing is tested on Linux too.
  ///
  /// - Parameter description: `String(describing:)` of the object.
  /// - Returns: The UID's number, or `nil` if the description isn't a UID's.
  static func keyedArchiverUID(fromDescription description: String) -> UInt32? {
    guard description.hasPrefix("<CFKeyedArchiverUID"),
      let start = description.range(of: "{value = "),
      let end = description[start.upperBound...].firstIndex(of: "}")
    else { return nil }
    return UInt32(description[start.upperBound..<end])
  }

  // MARK: - PropertyListValue to Foundation

  /// Converts a ``PropertyListValue`` to the Foundation object `UserDefaults.set(_:forKey:)` and
  /// `PropertyListSerialization` expect: `String`, `Int` or `NSNumber`, `Double`, `Bool`, `Date`,
  /// `Data`, `[Any]` and `[String: Any]`.
  ///
  /// - Parameter value: The value to convert.
  /// - Returns: An object that is a valid property list.
  static func object(from value: PropertyListValue) -> Any {
    switch value {
    case .string(let string):
      return string
    case .integer(let integer):
      if let signed = integer.int64Value {
        if let native = Int(exactly: signed) { return native }
        return NSNumber(value: signed)
      }
      return NSNumber(value: integer.uint64Value ?? 0)
    case .real(let real):
      return real
    case .bool(let bool):
      return bool
    case .date(let date):
      return date
    case .data(let data):
      return data
    case .array(let elements):
      return elements.map(object(from:))
    case .dictionary(let entries):
      return entries.mapValues(object(from:))
    }
  }
}
