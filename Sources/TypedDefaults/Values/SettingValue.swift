/// A type a setting can hold: it converts to and from a ``PropertyListValue``.
///
/// The library's own code does every conversion, so a stored value reads the same on Linux and on
/// Apple platforms (Foundation's typed getters such as `UserDefaults.integer(forKey:)` coerce
/// differently on the two). Reads are lenient where no information is lost and strict where it
/// would be: a stored value that can't be read exactly as the setting's type makes the setting
/// return its default, reports a ``SettingsDiagnostic`` and leaves the stored value untouched.
///
/// ## Conversion rules
///
/// How each stored kind reads as each type ("–" means the read fails and the default is used):
///
/// | stored | `Bool` | `Int`, `UInt8`… | `Double` | `Float` | `String` |
/// |---|---|---|---|---|---|
/// | bool | itself | `true` → 1, `false` → 0 | 1.0, 0.0 | 1.0, 0.0 | – |
/// | integer | 1 → `true`, 0 → `false`, others – | if in range (never wraps) | if exact | if exact | decimal digits |
/// | real | 1.0 → `true`, 0.0 → `false` | if integral and in range (12.5 –) | itself | rounded to nearest, if in range | – |
/// | string | `YES`/`true`/`1`, `NO`/`false`/`0` (any case) | whole string in decimal | whole string parsed | whole string parsed | itself |
/// | date, data, array, dictionary | – | – | – | – | – |
///
/// `Date` reads only dates, `Data` only data. `URL` is stored as its absolute string and reads a
/// string with a scheme (`https://…`, `file:///…`) or an absolute path (`/…`, `~/…`, read as a
/// file URL). Arrays and dictionaries read when every element reads; one element that doesn't
/// makes the whole value the default (the diagnostic names the element).
///
/// ## Optionals
///
/// `Optional<Wrapped>` reads as `Wrapped` does. Assigning `nil` removes the key, on every backend,
/// so the setting shows its default again: `nil` for `@Setting var k: Int?`, the declared default
/// for `@Setting var k: Int? = 5`. Nothing is ever stored for `nil` (no empty string, no JSON
/// `null`): property lists have no null.
///
/// ## Enums and other `RawRepresentable` types
///
/// A type whose `RawValue` is a `SettingValue` is stored as its raw value. Add the conformance and
/// nothing else; a type that is also `Codable` is stored the same way, as its raw value:
///
/// ```swift
/// enum Quality: String, Codable, SettingValue {
///   case auto, high, low
/// }
/// ```
///
/// A raw value no case matches (a case removed in a newer version of the app) reads as the
/// default.
///
/// ## Codable types
///
/// Any other `Codable` type is stored as its property-list structure: a struct as a dictionary,
/// an array as an array, a single-value type (a `String` wrapper, a `Date` wrapper) as a scalar,
/// so a person opening the plist file sees the data and other plist readers can read it. `nil`
/// properties are left out. Declare the conformance and nothing else:
///
/// ```swift
/// struct Profile: Codable, SettingValue {
///   var name: String
///   var age: Int
/// }
/// ```
///
/// If the stored data no longer has the shape the type expects (a field added in a newer version
/// of the app), the setting reads its default, reports why, and leaves the stored data untouched.
/// To store a type as a JSON string instead (for data written by other libraries, such as
/// sindresorhus/Defaults), conform it to ``JSONEncodedSettingValue``.
///
/// ## Precision
///
/// Every fixed-width integer is stored as a property-list integer and round-trips exactly at its
/// extremes (`Int64.min`, `UInt64.max`). A `Float` is stored as the `Double` of the same value, so
/// it reads back bit-for-bit. Backends that end up writing XML property lists
/// (`LayeredPlistStore` saving XML, ``UserDefaultsBackend`` on Linux) keep dates to whole
/// seconds; they store a date already rounded down, so it reads the same before and after a
/// relaunch. Binary property lists, `UserDefaults` on Apple platforms and ``InMemoryBackend`` keep
/// dates exactly.
///
/// ## Conforming your own types
///
/// Implement ``init(propertyListValue:)`` to read and ``propertyListValue()`` to write. Return
/// `nil` from the initializer for a stored value you can't read; throw from `propertyListValue()`
/// for a value that can't be stored. Conversions must be pure and thread-safe: they run on whatever
/// thread reads or writes the setting.
public protocol SettingValue: Sendable {
  /// Reads a stored property-list value as this type.
  ///
  /// Fails (`nil`) if the value can't be read as this type without losing information; the
  /// setting then uses its default and reports a ``SettingsDiagnostic/Kind/typeMismatch``.
  ///
  /// - Parameter propertyListValue: The value a backend returned for the setting's key.
  init?(propertyListValue: PropertyListValue)

  /// The property-list value this value is stored as.
  ///
  /// - Returns: The value to store, or `nil` to remove the key (only `Optional.none` does this).
  /// - Throws: ``SettingsError`` with code ``SettingsError/Code/valueNotRepresentable`` (or any
  ///   other error, which the caller wraps in one) if the value can't be a property list, for
  ///   example an array holding `nil`.
  func propertyListValue() throws -> PropertyListValue?

  /// Explains, for a diagnostic, why a stored value can't be read as this type.
  ///
  /// Called only after ``init(propertyListValue:)`` returned `nil`. The default returns `nil`
  /// (the diagnostic then says only which kind of value was found); `Codable` types report the
  /// decoding error, such as a key a newer version of the type requires.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: A one-line reason, or `nil`.
  static func readFailureReason(for value: PropertyListValue) -> String?

  /// The shape of the property-list value this type stores, for schemas (``SettingsSchema``):
  /// `Int` stores an ``SettingSchema/Shape/integer``, `URL` a ``SettingSchema/Shape/string(format:)``
  /// with the URL format, `[String]` an ``SettingSchema/Shape/array(of:)`` of strings.
  ///
  /// The default, `nil`, says nothing; a schema then takes the shape of the setting's default
  /// value. Every type the library conforms says what it stores (``PropertyListValue``, any value:
  /// ``SettingSchema/Shape/any``); a type of your own can
  /// (`static var storedShape: SettingSchema.Shape? { .string(format: nil) }`).
  static var storedShape: SettingSchema.Shape? { get }
}

extension SettingValue {
  /// Returns `nil`: no explanation beyond the kind of value found.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: `nil`.
  public static func readFailureReason(for value: PropertyListValue) -> String? { nil }

  /// `nil`: the type doesn't say what it stores.
  public static var storedShape: SettingSchema.Shape? { nil }

  /// A short name of the type for diagnostics, as it is spelled in code: `Int`, `[String]`.
  static var typeName: String { TypeNames.sugared(Self.self) }
}

extension PropertyListValue: SettingValue {
  /// Any value, for schemas: a `PropertyListValue` setting reads whatever is stored.
  public static var storedShape: SettingSchema.Shape? { .any }

  /// Reads any stored value unchanged.
  ///
  /// - Parameter propertyListValue: The stored value.
  @inlinable
  public init?(propertyListValue: PropertyListValue) {
    self = propertyListValue
  }

  /// Returns the value unchanged.
  ///
  /// - Returns: `self`.
  @inlinable
  public func propertyListValue() -> PropertyListValue? {
    self
  }
}
