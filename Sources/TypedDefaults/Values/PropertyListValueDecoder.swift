import Foundation

/// Decodes `Decodable` values directly from ``PropertyListValue``s: the counterpart of
/// ``PropertyListValueEncoder``.
///
/// Scalars are read with the same rules as settings (see ``SettingValue``): an integer decodes as
/// a `Double`, an integral real as an `Int`, the strings `YES`/`NO` as a `Bool`; nothing is
/// truncated or wrapped. A missing key decodes as `nil` for an optional property and is an error
/// for any other, so data written by an older version of a type that lacks a newer, non-optional
/// property fails to decode rather than inventing a value.
///
/// ```swift
/// let profile = try PropertyListValueDecoder().decode(Profile.self, from: ["name": "Ann", "age": 7])
/// ```
///
/// Thread-safe: the decoder is a value; each call to ``decode(_:from:)`` has its own state.
public struct PropertyListValueDecoder: Sendable {
  /// Values passed to every `Decoder` the decoder creates, as `Decoder.userInfo`.
  public var userInfo: [CodingUserInfoKey: any Sendable]

  /// Creates a decoder.
  ///
  /// - Parameter userInfo: Values made available to the values being decoded.
  public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
    self.userInfo = userInfo
  }

  /// Decodes a value of the given type.
  ///
  /// - Parameters:
  ///   - type: The type to decode.
  ///   - value: The property list to decode from.
  /// - Returns: The decoded value.
  /// - Throws: `DecodingError` when `value` doesn't have the shape `type` expects (a missing
  ///   key, a value of the wrong kind, a number out of range), or whatever `type`'s
  ///   `init(from:)` throws.
  public func decode<Value: Decodable>(
    _ type: Value.Type, from value: PropertyListValue
  ) throws
    -> Value
  {
    let budget = CodingBudget(levels: DeepStack.levelsOnCallingThread)
    let result = Result {
      try ValueDecoder(value: value, codingPath: [], userInfo: userInfo, budget: budget)
        .decodeValue(type)
    }
    // Nested deeper than a small thread's stack surely holds (even if the type's own
    // init(from:) caught the error): again, on a thread with a stack for the deepest value the
    // limit allows.
    guard budget.neededDeeperStack else { return try result.get() }
    return try DeepStack.run {
      Result {
        try ValueDecoder(
          value: value, codingPath: [], userInfo: userInfo,
          budget: CodingBudget(levels: CodingBudget.maximumLevels)
        ).decodeValue(type)
      }
    }.get()
  }
}

// MARK: - Scalars

/// Reads a scalar with the settings conversion rules, or throws a type mismatch naming what was
/// found.
private func scalar<T: SettingValue>(
  _ type: T.Type,
  from value: PropertyListValue,
  at codingPath: [any CodingKey]
) throws -> T {
  guard let converted = T(propertyListValue: value) else {
    throw scalarMismatch(type, value, codingPath)
  }
  return converted
}

/// The error of ``scalar(_:from:at:)``: one function for every type, so the binary holds one copy.
@inline(never)
private func scalarMismatch(
  _ type: Any.Type, _ value: PropertyListValue, _ codingPath: [any CodingKey]
) -> DecodingError {
  DecodingError.typeMismatch(
    type,
    DecodingError.Context(
      codingPath: codingPath,
      debugDescription:
        "Expected \(type), found \(PropertyListFile.article(value.kind)) (\(value))"
    )
  )
}

// MARK: - Decoder

private struct ValueDecoder: Decoder, SingleValueDecodingContainer {
  let value: PropertyListValue
  let codingPath: [any CodingKey]
  let storedUserInfo: [CodingUserInfoKey: any Sendable]
  let budget: CodingBudget

  init(
    value: PropertyListValue, codingPath: [any CodingKey],
    userInfo: [CodingUserInfoKey: any Sendable], budget: CodingBudget
  ) {
    self.value = value
    self.codingPath = codingPath
    self.storedUserInfo = userInfo
    self.budget = budget
  }

  var userInfo: [CodingUserInfoKey: Any] { storedUserInfo }

  /// Decodes `type` from this decoder's value, reading the types property lists have natively
  /// as scalars.
  func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
    budget.active += 1
    defer { budget.active -= 1 }
    if try budget.isExceeded() {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: Array(codingPath.prefix(8)), debugDescription: CodingBudget.tooDeepDescription
        ))
    }
    if type == Date.self { return try scalar(Date.self, from: value, at: codingPath) as! T }
    if type == Data.self { return try scalar(Data.self, from: value, at: codingPath) as! T }
    if type == URL.self { return try scalar(URL.self, from: value, at: codingPath) as! T }
    return try T(from: self)
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .dictionary(let entries) = value else {
      throw mismatch([String: Any].self, "a dictionary")
    }
    return KeyedDecodingContainer(
      KeyedDecoder<Key>(
        entries: entries, codingPath: codingPath, userInfo: storedUserInfo, budget: budget)
    )
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let elements) = value else {
      throw mismatch([Any].self, "an array")
    }
    return UnkeyedDecoder(
      elements: elements, codingPath: codingPath, userInfo: storedUserInfo, budget: budget)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

  private func mismatch(_ type: Any.Type, _ expected: String) -> DecodingError {
    .typeMismatch(
      type,
      DecodingError.Context(
        codingPath: codingPath,
        debugDescription:
          "Expected \(expected), found \(PropertyListFile.article(value.kind)) (\(value))"
      )
    )
  }

  // MARK: SingleValueDecodingContainer

  func decodeNil() -> Bool { false }
  func decode(_ type: Bool.Type) throws -> Bool { try scalar(type, from: value, at: codingPath) }
  func decode(_ type: String.Type) throws -> String {
    try scalar(type, from: value, at: codingPath)
  }
  func decode(_ type: Double.Type) throws -> Double {
    try scalar(type, from: value, at: codingPath)
  }
  func decode(_ type: Float.Type) throws -> Float { try scalar(type, from: value, at: codingPath) }
  func decode(_ type: Int.Type) throws -> Int { try scalar(type, from: value, at: codingPath) }
  func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type, from: value, at: codingPath) }
  func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type, from: value, at: codingPath) }
  func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type, from: value, at: codingPath) }
  func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type, from: value, at: codingPath) }
  func decode(_ type: UInt.Type) throws -> UInt { try scalar(type, from: value, at: codingPath) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type, from: value, at: codingPath) }
  func decode(_ type: UInt16.Type) throws -> UInt16 {
    try scalar(type, from: value, at: codingPath)
  }
  func decode(_ type: UInt32.Type) throws -> UInt32 {
    try scalar(type, from: value, at: codingPath)
  }
  func decode(_ type: UInt64.Type) throws -> UInt64 {
    try scalar(type, from: value, at: codingPath)
  }
  func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }
}

private struct KeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let entries: [String: PropertyListValue]
  let codingPath: [any CodingKey]
  let userInfo: [CodingUserInfoKey: any Sendable]
  let budget: CodingBudget

  var allKeys: [Key] { entries.keys.compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool { entries[key.stringValue] != nil }

  private func decoder(for key: Key) throws -> ValueDecoder {
    guard let value = entries[key.stringValue] else {
      throw DecodingError.keyNotFound(
        key,
        DecodingError.Context(
          codingPath: codingPath,
          debugDescription: "No value for the key '\(key.stringValue)'"
        )
      )
    }
    return ValueDecoder(
      value: value, codingPath: codingPath + [key], userInfo: userInfo, budget: budget)
  }

  // Property lists have no null: a present key is never nil, a missing one reads as nil.
  func decodeNil(forKey key: Key) throws -> Bool { !contains(key) }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    try decoder(for: key).decode(type)
  }
  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    try decoder(for: key).decode(type)
  }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try decoder(for: key).decode(type)
  }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    try decoder(for: key).decode(type)
  }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
    try decoder(for: key).decode(type)
  }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
    try decoder(for: key).decode(type)
  }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
    try decoder(for: key).decode(type)
  }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
    try decoder(for: key).decode(type)
  }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
    try decoder(for: key).decode(type)
  }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
    try decoder(for: key).decode(type)
  }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
    try decoder(for: key).decode(type)
  }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
    try decoder(for: key).decode(type)
  }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
    try decoder(for: key).decode(type)
  }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
    try decoder(for: key).decode(type)
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try decoder(for: key).decodeValue(type)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type,
    forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try decoder(for: key).container(keyedBy: type)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try decoder(for: key).unkeyedContainer()
  }

  func superDecoder() throws -> any Decoder {
    let key = PlainKey("super")
    return ValueDecoder(
      value: entries[key.stringValue] ?? .dictionary([:]),
      codingPath: codingPath + [key],
      userInfo: userInfo,
      budget: budget
    )
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    try decoder(for: key)
  }
}

private struct UnkeyedDecoder: UnkeyedDecodingContainer {
  let elements: [PropertyListValue]
  let codingPath: [any CodingKey]
  let userInfo: [CodingUserInfoKey: any Sendable]
  let budget: CodingBudget
  var currentIndex = 0

  init(
    elements: [PropertyListValue], codingPath: [any CodingKey],
    userInfo: [CodingUserInfoKey: any Sendable], budget: CodingBudget
  ) {
    self.elements = elements
    self.codingPath = codingPath
    self.userInfo = userInfo
    self.budget = budget
  }

  var count: Int? { elements.count }
  var isAtEnd: Bool { currentIndex >= elements.count }

  /// The decoder for the next element; advances past it.
  private mutating func next(_ type: Any.Type) throws -> ValueDecoder {
    let path = codingPath + [PlainKey(currentIndex)]
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(
        type,
        DecodingError.Context(codingPath: path, debugDescription: "The array has no more elements")
      )
    }
    defer { currentIndex += 1 }
    return ValueDecoder(
      value: elements[currentIndex], codingPath: path, userInfo: userInfo, budget: budget)
  }

  // Property lists have no null: an element is never nil.
  mutating func decodeNil() throws -> Bool { false }

  mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type).decode(type) }
  mutating func decode(_ type: String.Type) throws -> String { try next(type).decode(type) }
  mutating func decode(_ type: Double.Type) throws -> Double { try next(type).decode(type) }
  mutating func decode(_ type: Float.Type) throws -> Float { try next(type).decode(type) }
  mutating func decode(_ type: Int.Type) throws -> Int { try next(type).decode(type) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type).decode(type) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type).decode(type) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type).decode(type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type).decode(type) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type).decode(type) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type).decode(type) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type).decode(type) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type).decode(type) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type).decode(type) }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try next(type).decodeValue(type)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try next([String: Any].self).container(keyedBy: type)
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try next([Any].self).unkeyedContainer()
  }

  mutating func superDecoder() throws -> any Decoder {
    try next(Any.self)
  }
}
