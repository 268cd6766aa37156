import Foundation

/// Conversions between ``PropertyListValue`` and the objects Foundation's two property-list edges
/// use: `UserDefaults` and `PropertyListSerialization`. This is the only place such conversions
/// live.
///
/// Foundation hands property-list values over in several shapes, which differ between Linux and
/// Apple platforms: native Swift values (`Int`, `Bool`, `String`…), `NSNumber`s whose `Bool`-ness
/// shows only in their class, containers whose elements are boxed as `Optional<Any>`, and
/// keyed-archiver UIDs. Numbers are classified by their stored type, never by a lenient cast
/// (`1 as? Bool` is `true` for an `NSNumber`).
enum FoundationBridge {
  /// The deepest nesting of arrays and dictionaries accepted when reading; deeper input is refused
  /// rather than risk exhausting the stack. Writes are held to the same limit (see
  /// ``WriteValidation``), so whatever is written can be read back.
  static let maximumDepth = 512

  /// The most values (scalars and containers) one conversion produces. A binary property list
  /// can refer to one array from many places, so a few hundred bytes can describe billions of
  /// values; past this budget the input is refused rather than expanded.
  static let maximumValueCount = 1_000_000

  /// A value Foundation returned that is not a property-list value, with where it was found.
  struct ConversionError: Error {
    /// The path of the offending value inside the root, for example `root["a"][3]`.
    var path: String
    /// What is wrong with it.
    var problem: String

    var reason: String { "\(problem) at \(path)" }
  }

  // The class of a boxed Boolean (`__NSCFBoolean` on Linux and Apple platforms alike), which is how
  // a Boolean `NSNumber` differs from the integers 1 and 0.
  private static let booleanNumberClass: AnyClass = type(of: NSNumber(value: true))

  // MARK: - Foundation to PropertyListValue

  /// Converts a Foundation property-list object to a ``PropertyListValue``.
  ///
  /// - Parameter object: A value returned by `UserDefaults.object(forKey:)` or
  ///   `PropertyListSerialization`.
  /// - Throws: ``ConversionError`` for a value that is not a property-list value (a null, a
  ///   dictionary with a non-string key), or nesting deeper than ``maximumDepth``.
  static func value(from object: Any) throws(ConversionError) -> PropertyListValue {
    var budget = maximumValueCount
    return try value(from: object, path: "root", depth: 0, budget: &budget)
  }

  private static func value(
    from object: Any,
    path: @autoclosure () -> String,
    depth: Int,
    budget: inout Int
  ) throws(ConversionError) -> PropertyListValue {
    budget -= 1
    guard budget >= 0 else {
      throw ConversionError(
        path: path(),
        problem:
          "More than \(maximumValueCount) values (shared references expand to more than the file holds)"
      )
    }
    // Exact native types first: they are what corelibs' UserDefaults returns, and a type check is
    // far cheaper than a bridging cast.
    let objectType = type(of: object)
    if objectType == String.self, let value = object as? String { return .string(value) }
    if objectType == Int.self, let value = object as? Int { return .integer(.init(Int64(value))) }
    if objectType == Bool.self, let value = object as? Bool { return .bool(value) }
    if objectType == Double.self, let value = object as? Double { return .real(value) }
    if objectType == Float.self, let value = object as? Float { return .real(Double(value)) }
    if objectType == UInt64.self, let value = object as? UInt64 { return .integer(.init(value)) }
    if objectType == Int64.self, let value = object as? Int64 { return .integer(.init(value)) }
    if objectType == Optional<Any>.self, let box = object as? any OptionalProtocol {
      // corelibs boxes the elements of containers it returns as `Optional<Any>`.
      guard let unboxed = box.wrappedAny else {
        throw ConversionError(
          path: path(), problem: "A null value, which property lists cannot hold")
      }
      budget += 1  // the box is not a value of its own
      return try value(from: unboxed, path: path(), depth: depth, budget: &budget)
    }

    if let number = object as? NSNumber {
      return classify(number)
    }
    if let string = object as? String { return .string(string) }
    if let date = object as? Date { return .date(date) }
    if let data = object as? Data { return .data(data) }

    if let array = object as? [Any] {
      guard depth < maximumDepth else {
        throw ConversionError(path: path(), problem: "Nesting deeper than \(maximumDepth) levels")
      }
      var elements: [PropertyListValue] = []
      elements.reserveCapacity(array.count)
      for (index, element) in array.enumerated() {
        elements.append(
          try value(from: element, path: "\(path())[\(index)]", depth: depth + 1, budget: &budget))
      }
      return .array(elements)
    }
    if let dictionary = object as? [AnyHashable: Any] {
      guard depth < maximumDepth else {
        throw ConversionError(path: path(), problem: "Nesting deeper than \(maximumDepth) levels")
      }
      var entries: [String: PropertyListValue] = [:]
      entries.reserveCapacity(dictionary.count)
      for (key, element) in dictionary {
        guard let key = key.base as? String else {
          throw ConversionError(
            path: path(),
            problem:
              "A dictionary key of type \(type(of: key.base)); property-list keys are strings"
          )
        }
        entries[key] = try value(
          from: element, path: "\(path())[\"\(key)\"]", depth: depth + 1, budget: &budget)
      }
      return .dictionary(entries)
    }
    if let uid = keyedArchiverUID(object) {
      return .dictionary(["CF$UID": .integer(.init(UInt64(uid)))])
    }
    throw ConversionError(
      path: path(),
      problem: "A value of type \(objectType), which is not a property-list type"
    )
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
      // CoreFoundation's UID type is private; its description is `<CFKeyedArchiverUID …>{value = 7}`.
      let description = String(describing: object)
      guard description.hasPrefix("<CFKeyedArchiverUID"),
        let start = description.range(of: "{value = "),
        let end = description[start.upperBound...].firstIndex(of: "}")
      else { return nil }
      return UInt32(description[start.upperBound..<end])
    #else
      // swift-corelibs-foundation's UID class is internal; its stored `value` is visible to Mirror.
      guard String(describing: type(of: object)) == "_NSKeyedArchiverUID" else { return nil }
      return Mirror(reflecting: object).children.first { $0.label == "value" }?.value as? UInt32
    #endif
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
