import Foundation

/// Encodes `Encodable` values directly as ``PropertyListValue``s: keyed containers become
/// dictionaries, unkeyed containers arrays, and single values scalars.
///
/// Unlike Foundation's `PropertyListEncoder`, it encodes a bare scalar at the top level (a
/// `String`-backed struct, a `Date` wrapper), needs no round trip through bytes, and never
/// invents a placeholder for `nil`: a `nil` in a keyed container leaves the key out (as
/// `encodeIfPresent` does), and a `nil` in an unkeyed container or at the top level is an error,
/// because property lists have no null.
///
/// ```swift
/// struct Profile: Codable { var name: String; var age: Int }
/// let value = try PropertyListValueEncoder().encode(Profile(name: "Ann", age: 7))
/// // ["name": "Ann", "age": 7]
/// ```
///
/// `Date`, `Data` and `URL` are encoded as a date, data and a string (the URL's absolute
/// string); every integer type as an integer; `Float` and `Double` as a real.
///
/// Thread-safe: the encoder is a value; each call to ``encode(_:)`` has its own state.
public struct PropertyListValueEncoder: Sendable {
  /// Values passed to every `Encoder` the encoder creates, as `Encoder.userInfo`.
  public var userInfo: [CodingUserInfoKey: any Sendable]

  /// Creates an encoder.
  ///
  /// - Parameter userInfo: Values made available to the values being encoded.
  public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
    self.userInfo = userInfo
  }

  /// Encodes a value.
  ///
  /// - Parameter value: The value to encode.
  /// - Returns: The value as a property list.
  /// - Throws: `EncodingError.invalidValue` for a value a property list can't hold (a `nil` in
  ///   an array or at the top level, an integer outside `Int64.min ... UInt64.max`, containers
  ///   nested more than 512 levels deep or `encode(to:)` calls more than 2,048, checked while
  ///   descending, so no depth exhausts the stack), or whatever the value's `encode(to:)` throws.
  public func encode<Value: Encodable>(_ value: Value) throws -> PropertyListValue {
    let budget = CodingBudget(levels: DeepStack.levelsOnCallingThread)
    let result = Result { try encode(value, budget: budget) }
    // Nested deeper than a small thread's stack surely holds (even if the value's own
    // encode(to:) caught the error): again, on a thread with a stack for the deepest value the
    // limit allows.
    guard budget.neededDeeperStack else { return try result.get() }
    return try DeepStack.run {
      Result { try encode(value, budget: CodingBudget(levels: CodingBudget.maximumLevels)) }
    }.get()
  }

  private func encode<Value: Encodable>(
    _ value: Value, budget: CodingBudget
  ) throws -> PropertyListValue {
    let node = EncodingNode(depth: 0, budget: budget)
    try node.encode(value, codingPath: [], userInfo: userInfo)
    return try node.finished(codingPath: [])
  }
}

// MARK: - Encoding tree

/// A value under construction: a scalar, or a container of child nodes filled in as encoding
/// proceeds.
///
/// Finished into a ``PropertyListValue`` once the whole value is encoded.
private final class EncodingNode {
  enum Kind {
    case unset, scalar, null, keyed, unkeyed
  }

  /// How many containers hold this node (the top-level value's is 0).
  let depth: Int
  let budget: CodingBudget
  var kind = Kind.unset
  var scalar: PropertyListValue?
  var keyed: [String: EncodingNode] = [:]
  var unkeyed: [EncodingNode] = []

  init(depth: Int, budget: CodingBudget) {
    self.depth = depth
    self.budget = budget
  }

  /// A node for a value this node holds, which the caller stores in ``keyed`` or ``unkeyed``.
  func child() -> EncodingNode {
    EncodingNode(depth: depth + 1, budget: budget)
  }

  /// Makes this node a keyed or unkeyed container; one deeper than a property list can nest
  /// marks the encoding as failed (the containers' methods can't throw), and its contents are
  /// then never attached, so the tree of nodes stays shallow.
  func becomeContainer(_ kind: Kind, codingPath: [any CodingKey]) {
    if depth >= FoundationBridge.maximumDepth, budget.tooDeep == nil {
      budget.tooDeep = codingPath
    }
    guard self.kind != kind else { return }
    self.kind = kind
    keyed = [:]
    unkeyed = []
  }

  /// Whether children may be attached: not once the encoding went too deep.
  var attachesChildren: Bool { budget.tooDeep == nil }

  func setScalar(_ value: PropertyListValue) {
    kind = .scalar
    scalar = value
  }

  /// Encodes `value` into this node, writing the types property lists have natively as scalars.
  func encode<Value: Encodable>(
    _ value: Value,
    codingPath: [any CodingKey],
    userInfo: [CodingUserInfoKey: any Sendable]
  ) throws {
    budget.active += 1
    defer { budget.active -= 1 }
    if let path = budget.tooDeep { throw tooDeep(at: path) }
    if try budget.isExceeded() { throw tooDeep(at: codingPath) }
    switch value {
    case let date as Date: setScalar(.date(date))
    case let data as Data: setScalar(.data(data))
    case let url as URL: setScalar(.string(url.absoluteString))
    default:
      try value.encode(to: ValueEncoder(node: self, codingPath: codingPath, userInfo: userInfo))
    }
  }

  func finished(codingPath: [any CodingKey]) throws -> PropertyListValue {
    if let path = budget.tooDeep { throw tooDeep(at: path) }
    switch kind {
    case .unset:
      // A value whose encode(to:) encoded nothing: an empty keyed container, as JSONEncoder does.
      return .dictionary([:])
    case .scalar:
      return scalar ?? .dictionary([:])
    case .null:
      throw EncodingError.invalidValue(
        Optional<Any>.none as Any,
        EncodingError.Context(
          codingPath: codingPath,
          debugDescription: "nil can't be stored: property lists have no null"
        )
      )
    case .keyed:
      var entries: [String: PropertyListValue] = [:]
      entries.reserveCapacity(keyed.count)
      for (key, child) in keyed where child.kind != .null {
        entries[key] = try child.finished(codingPath: codingPath + [PlainKey(key)])
      }
      return .dictionary(entries)
    case .unkeyed:
      var elements: [PropertyListValue] = []
      elements.reserveCapacity(unkeyed.count)
      for (index, child) in unkeyed.enumerated() {
        let path = codingPath + [PlainKey(index)]
        if child.kind == .null { throw nilInArray(at: path) }
        elements.append(try child.finished(codingPath: path))
      }
      return .array(elements)
    }
  }
}

/// A coding key for paths in error messages.
struct PlainKey: CodingKey {
  var stringValue: String
  var intValue: Int?

  init(_ string: String) {
    stringValue = string
  }

  init(_ index: Int) {
    stringValue = "Index \(index)"
    intValue = index
  }

  init?(stringValue: String) {
    self.stringValue = stringValue
  }

  init?(intValue: Int) {
    self.init(intValue)
  }
}

/// The error of a value nested deeper than ``CodingBudget`` allows.
private func tooDeep(at codingPath: [any CodingKey]) -> EncodingError {
  EncodingError.invalidValue(
    Optional<Any>.none as Any,
    EncodingError.Context(
      codingPath: Array(codingPath.prefix(8)), debugDescription: CodingBudget.tooDeepDescription)
  )
}

private func nilInArray(at codingPath: [any CodingKey]) -> EncodingError {
  EncodingError.invalidValue(
    Optional<Any>.none as Any,
    EncodingError.Context(
      codingPath: codingPath,
      debugDescription: "nil can't be stored in an array: property lists have no null"
    )
  )
}

private func integer<T: BinaryInteger>(
  _ value: T, at codingPath: [any CodingKey]
) throws
  -> PropertyListValue
{
  guard let integer = PropertyListValue.Integer(exactly: value) else {
    throw EncodingError.invalidValue(
      value,
      EncodingError.Context(
        codingPath: codingPath,
        debugDescription: "\(value) is outside Int64.min...UInt64.max, the range of a property list"
      )
    )
  }
  return .integer(integer)
}

// MARK: - Encoder

private struct ValueEncoder: Encoder, SingleValueEncodingContainer {
  let node: EncodingNode
  let codingPath: [any CodingKey]
  let storedUserInfo: [CodingUserInfoKey: any Sendable]

  init(node: EncodingNode, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable])
  {
    self.node = node
    self.codingPath = codingPath
    self.storedUserInfo = userInfo
  }

  var userInfo: [CodingUserInfoKey: Any] { storedUserInfo }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    node.becomeContainer(.keyed, codingPath: codingPath)
    return KeyedEncodingContainer(
      KeyedEncoder<Key>(node: node, codingPath: codingPath, userInfo: storedUserInfo)
    )
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    node.becomeContainer(.unkeyed, codingPath: codingPath)
    return UnkeyedEncoder(node: node, codingPath: codingPath, userInfo: storedUserInfo)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { self }

  // MARK: SingleValueEncodingContainer

  func encodeNil() throws { node.kind = .null }
  func encode(_ value: Bool) throws { node.setScalar(.bool(value)) }
  func encode(_ value: String) throws { node.setScalar(.string(value)) }
  func encode(_ value: Double) throws { node.setScalar(.real(value)) }
  func encode(_ value: Float) throws { node.setScalar(.real(Double(value))) }
  func encode(_ value: Int) throws { node.setScalar(try integer(value, at: codingPath)) }
  func encode(_ value: Int8) throws { node.setScalar(try integer(value, at: codingPath)) }
  func encode(_ value: Int16) throws { node.setScalar(try integer(value, at: codingPath)) }
  func encode(_ value: Int32) throws { node.setScalar(try integer(value, at: codingPath)) }
  func encode(_ value: Int64) throws { node.setScalar(try integer(value, at: codingPath)) }
  func encode(_ value: UInt) throws { node.setScalar(try integer(value, at: codingPath)) }
  func encode(_ value: UInt8) throws { node.setScalar(try integer(value, at: codingPath)) }
  func encode(_ value: UInt16) throws { node.setScalar(try integer(value, at: codingPath)) }
  func encode(_ value: UInt32) throws { node.setScalar(try integer(value, at: codingPath)) }
  func encode(_ value: UInt64) throws { node.setScalar(try integer(value, at: codingPath)) }

  func encode<T: Encodable>(_ value: T) throws {
    try node.encode(value, codingPath: codingPath, userInfo: storedUserInfo)
  }
}

private struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let node: EncodingNode
  let codingPath: [any CodingKey]
  let userInfo: [CodingUserInfoKey: any Sendable]

  private func child(for key: Key) -> EncodingNode {
    let child = node.child()
    if node.attachesChildren { node.keyed[key.stringValue] = child }
    return child
  }

  private func set(_ value: PropertyListValue, for key: Key) {
    child(for: key).setScalar(value)
  }

  func encodeNil(forKey key: Key) throws { child(for: key).kind = .null }
  func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), for: key) }
  func encode(_ value: String, forKey key: Key) throws { set(.string(value), for: key) }
  func encode(_ value: Double, forKey key: Key) throws { set(.real(value), for: key) }
  func encode(_ value: Float, forKey key: Key) throws { set(.real(Double(value)), for: key) }
  func encode(_ value: Int, forKey key: Key) throws {
    try set(integer(value, at: path(key)), for: key)
  }
  func encode(_ value: Int8, forKey key: Key) throws {
    try set(integer(value, at: path(key)), for: key)
  }
  func encode(_ value: Int16, forKey key: Key) throws {
    try set(integer(value, at: path(key)), for: key)
  }
  func encode(_ value: Int32, forKey key: Key) throws {
    try set(integer(value, at: path(key)), for: key)
  }
  func encode(_ value: Int64, forKey key: Key) throws {
    try set(integer(value, at: path(key)), for: key)
  }
  func encode(_ value: UInt, forKey key: Key) throws {
    try set(integer(value, at: path(key)), for: key)
  }
  func encode(_ value: UInt8, forKey key: Key) throws {
    try set(integer(value, at: path(key)), for: key)
  }
  func encode(_ value: UInt16, forKey key: Key) throws {
    try set(integer(value, at: path(key)), for: key)
  }
  func encode(_ value: UInt32, forKey key: Key) throws {
    try set(integer(value, at: path(key)), for: key)
  }
  func encode(_ value: UInt64, forKey key: Key) throws {
    try set(integer(value, at: path(key)), for: key)
  }

  func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try child(for: key).encode(value, codingPath: path(key), userInfo: userInfo)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type,
    forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    ValueEncoder(node: child(for: key), codingPath: path(key), userInfo: userInfo)
      .container(keyedBy: keyType)
  }

  func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    ValueEncoder(node: child(for: key), codingPath: path(key), userInfo: userInfo)
      .unkeyedContainer()
  }

  func superEncoder() -> any Encoder {
    let key = PlainKey("super")
    let child = node.child()
    if node.attachesChildren { node.keyed[key.stringValue] = child }
    return ValueEncoder(node: child, codingPath: codingPath + [key], userInfo: userInfo)
  }

  func superEncoder(forKey key: Key) -> any Encoder {
    ValueEncoder(node: child(for: key), codingPath: path(key), userInfo: userInfo)
  }

  private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }
}

private struct UnkeyedEncoder: UnkeyedEncodingContainer {
  let node: EncodingNode
  let codingPath: [any CodingKey]
  let userInfo: [CodingUserInfoKey: any Sendable]

  var count: Int { node.unkeyed.count }

  private func appendChild() -> EncodingNode {
    let child = node.child()
    if node.attachesChildren { node.unkeyed.append(child) }
    return child
  }

  private func append(_ value: PropertyListValue) {
    appendChild().setScalar(value)
  }

  private var nextPath: [any CodingKey] { codingPath + [PlainKey(count)] }

  func encodeNil() throws {
    throw nilInArray(at: nextPath)
  }

  func encode(_ value: Bool) throws { append(.bool(value)) }
  func encode(_ value: String) throws { append(.string(value)) }
  func encode(_ value: Double) throws { append(.real(value)) }
  func encode(_ value: Float) throws { append(.real(Double(value))) }
  func encode(_ value: Int) throws { append(try integer(value, at: nextPath)) }
  func encode(_ value: Int8) throws { append(try integer(value, at: nextPath)) }
  func encode(_ value: Int16) throws { append(try integer(value, at: nextPath)) }
  func encode(_ value: Int32) throws { append(try integer(value, at: nextPath)) }
  func encode(_ value: Int64) throws { append(try integer(value, at: nextPath)) }
  func encode(_ value: UInt) throws { append(try integer(value, at: nextPath)) }
  func encode(_ value: UInt8) throws { append(try integer(value, at: nextPath)) }
  func encode(_ value: UInt16) throws { append(try integer(value, at: nextPath)) }
  func encode(_ value: UInt32) throws { append(try integer(value, at: nextPath)) }
  func encode(_ value: UInt64) throws { append(try integer(value, at: nextPath)) }

  func encode<T: Encodable>(_ value: T) throws {
    let path = nextPath
    try appendChild().encode(value, codingPath: path, userInfo: userInfo)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    let path = nextPath
    return ValueEncoder(node: appendChild(), codingPath: path, userInfo: userInfo)
      .container(keyedBy: keyType)
  }

  func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let path = nextPath
    return ValueEncoder(node: appendChild(), codingPath: path, userInfo: userInfo)
      .unkeyedContainer()
  }

  func superEncoder() -> any Encoder {
    let path = nextPath
    return ValueEncoder(node: appendChild(), codingPath: path, userInfo: userInfo)
  }
}
