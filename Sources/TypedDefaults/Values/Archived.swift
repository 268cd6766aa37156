import Foundation

/// An `NSSecureCoding` object stored as a keyed archive: the way Objective-C apps keep model
/// objects in `UserDefaults`.
///
/// The value is archived with `NSKeyedArchiver` requiring secure coding and stored as data, the
/// same bytes `[NSKeyedArchiver archivedDataWithRootObject:requiringSecureCoding:YES error:]`
/// writes, so preferences an Objective-C version of the app saved read unchanged. Reading
/// decodes only the declared classes, as `NSKeyedUnarchiver.unarchivedObject(ofClasses:from:)`
/// does (the defence against a substituted file): `Object`, plus the classes `Object` lists
/// through ``ArchivedObjectClasses``.
///
/// ```swift
/// final class Session: NSObject, NSSecureCoding, Sendable {
///   static var supportsSecureCoding: Bool { true }
///   let user: String
///   init(user: String) { self.user = user }
///   func encode(with coder: NSCoder) { coder.encode(user as NSString, forKey: "user") }
///   init?(coder: NSCoder) {
///     guard let user = coder.decodeObject(of: NSString.self, forKey: "user") else { return nil }
///     self.user = user as String
///   }
/// }
///
/// struct AccountSettings: SettingsGroup {
///   @Setting var session: Archived<Session>?
/// }
/// settings.session = Archived(Session(user: "ann"))
/// print(settings.session?.object.user ?? "signed out")
/// ```
///
/// Anything else stored under the key reads as the default with a ``SettingsDiagnostic`` and is
/// left untouched: an archive of another class, bytes that aren't an archive, a value that isn't
/// data. The bytes are checked by the library's own binary property-list reader before
/// `NSKeyedUnarchiver` sees them, and refused unless every class they name is allowed: on Linux,
/// Foundation's secure unarchiver stops the process when it meets a class it wasn't allowed, so
/// there this check takes secure coding's place, and Apple's raises exceptions Swift can't catch
/// for some malformed archives.
///
/// ## When to prefer Codable
///
/// For new settings, a `Codable` ``SettingValue`` is better: it is stored as a readable
/// property-list structure (a person or `plutil` can see and edit it), needs no `NSObject`
/// subclass, reads in microseconds less, and an older version's data degrades field by field
/// rather than all at once. Use `Archived` for data that already exists as archives (an app
/// moving from Objective-C) or for Foundation and UIKit/AppKit classes that are only
/// `NSSecureCoding` (a color, say).
///
/// ## Requirements and costs
///
/// `Object` must be `Sendable` (a `final` class with immutable, `Sendable` properties), since
/// settings are read from any thread. On Linux it must also be a top-level class (declared at
/// file scope, not `private`), as must every class its archive holds: Foundation there can name
/// no other kind, and stops the process when asked to; a write of such an object throws
/// ``SettingsError/Code/valueNotRepresentable`` instead (nested objects your `encode(with:)`
/// archives can't be checked beforehand). Every read unarchives the stored data (keep the object if
/// you read it in a loop). Of Foundation's own classes, Linux allows only a few to be listed (see
/// ``ArchivedObjectClasses``). On Linux, swift-corelibs-foundation's unarchiver decodes an `NSArray`
/// of objects as an empty array (measured with Swift 6.3.1): archive your own class, holding
/// Swift values, rather than a Foundation collection.
public struct Archived<Object: NSObject & NSSecureCoding & Sendable>: Sendable {
  /// The archived object.
  public let object: Object

  /// Wraps an object to store it as a keyed archive.
  ///
  /// - Parameter object: The object; it must support secure coding (`supportsSecureCoding` is
  ///   `true`), or writing it fails with ``SettingsError/Code/valueNotRepresentable``.
  public init(_ object: Object) {
    self.object = object
  }

  /// The classes a stored archive may contain: `Object` first, then the ones `Object` lists.
  static var allowedClasses: [AnyClass] {
    [Object.self] + ((Object.self as? any ArchivedObjectClasses.Type)?.classesInArchive ?? [])
  }
}

extension Archived: Equatable {
  /// Whether the two objects are equal by `isEqual(_:)` (by identity, unless `Object` overrides
  /// it).
  ///
  /// - Parameters:
  ///   - lhs: An archived value.
  ///   - rhs: Another archived value.
  /// - Returns: `lhs.object.isEqual(rhs.object)`.
  public static func == (lhs: Archived, rhs: Archived) -> Bool {
    lhs.object.isEqual(rhs.object)
  }
}

extension Archived: SettingValue {
  /// Data holding the keyed archive, for schemas.
  public static var storedShape: SettingSchema.Shape? { .data }

  /// Reads data holding a keyed archive whose root object is an `Object` and whose every class
  /// is allowed; anything else fails the read (the setting shows its default).
  ///
  /// - Parameter propertyListValue: The stored value.
  public init?(propertyListValue: PropertyListValue) {
    guard case .data(let data) = propertyListValue, let object = Self.unarchive(data).object
    else { return nil }
    self.object = object
  }

  /// Stores the object as `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)`
  /// with secure coding required.
  ///
  /// - Returns: ``PropertyListValue/data(_:)``.
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` if the archiver refuses the object
  ///   (a class that doesn't support secure coding).
  public func propertyListValue() throws -> PropertyListValue? {
    if let problem = ArchivedClassNames.problem(with: [type(of: object)] + Self.allowedClasses) {
      throw SettingsError(.valueNotRepresentable, reason: problem)
    }
    do {
      return .data(
        try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true))
    } catch {
      throw SettingsError(
        .valueNotRepresentable,
        reason:
          "NSKeyedArchiver could not archive the \(Object.self): \(error.localizedDescription)")
    }
  }

  /// Says why stored bytes are not an archive of `Object`: not data, not an archive, a class the
  /// setting doesn't allow, or an object its `init(coder:)` refused.
  ///
  /// - Parameter value: The stored value that could not be read.
  /// - Returns: A one-line reason, or `nil` if the value isn't data.
  public static func readFailureReason(for value: PropertyListValue) -> String? {
    guard case .data(let data) = value else { return nil }
    return unarchive(data).problem
  }

  /// The object in `data`, or why there is none.
  private static func unarchive(_ data: Data) -> (object: Object?, problem: String?) {
    let classes = allowedClasses
    let (names, classProblem) = ArchivedClassNames.namesForReading(classes)
    if let classProblem { return (nil, classProblem) }
    if let problem = KeyedArchiveCheck.problem(in: data, allowedClassNames: names) {
      return (nil, problem)
    }
    let unarchiver: NSKeyedUnarchiver
    do {
      unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
    } catch {
      return (nil, "NSKeyedUnarchiver refused the data: \(error.localizedDescription)")
    }
    // The instance API rather than `unarchivedObject(ofClasses:from:)`, which does the same on
    // Apple platforms; on Linux the static method loses its class list when the root object's
    // `init(coder:)` decodes a nested object, and then stops the process.
    #if canImport(Darwin)
      unarchiver.requiresSecureCoding = true
    #else
      // On Linux, secure coding stops the process (`fatalError`) wherever an `init(coder:)`'s
      // `decodeObject(of:forKey:)` meets an object of a class that call didn't name, and an
      // archive can put any allowed object anywhere. The checks above stand in for it
      // (`ArchivedClassNames.namesForReading(_:)`, `KeyedArchiveCheck`): every class the archive
      // names is an allowed one that supports secure coding and that its name leads back to, so
      // the unarchiver can construct nothing else, and a misplaced object reaches
      // `init(coder:)` as a failed cast (`nil`) instead.
      unarchiver.requiresSecureCoding = false
    #endif
    unarchiver.decodingFailurePolicy = .setErrorAndReturn
    let decoded = unarchiver.decodeObject(of: classes, forKey: NSKeyedArchiveRootObjectKey)
    unarchiver.finishDecoding()
    if let object = decoded as? Object { return (object, nil) }
    if let error = unarchiver.error {
      return (nil, "NSKeyedUnarchiver could not decode it: \(error.localizedDescription)")
    }
    if let decoded {
      return (nil, "the archive's root is a \(type(of: decoded)), not a \(Object.self)")
    }
    return (nil, "the archive's root object could not be decoded")
  }
}

/// The names keyed archives give classes, without stopping the process.
enum ArchivedClassNames {
  /// The name an archive stores for `cls` (`NSStringFromClass`), or `nil` where Foundation can't
  /// archive it: on Linux, swift-corelibs-foundation names only top-level classes
  /// (`Module.Class`), and stops the process for a nested or `private` one.
  static func name(_ cls: AnyClass) -> String? {
    #if canImport(Darwin)
      return NSStringFromClass(cls)
    #else
      let name = String(reflecting: cls)
      guard !name.contains("("), name.split(separator: ".").count == 2 else { return nil }
      return NSStringFromClass(cls)
    #endif
  }

  /// The Foundation classes an archive may hold on Linux: those whose swift-corelibs-foundation
  /// `init(coder:)` was read and tried with hostile fields and returns `nil` rather than stop the
  /// process (Swift 6.3.1).
  ///
  /// `NSString` force-casts `NS.string`, `NSError` force-unwraps `NSDomain`, and `NSDictionary`
  /// reads past its objects when `NS.keys` is the longer: an archive can hold any fields, so such
  /// classes are refused rather than decoded.
  static let foundationClassesSafeToDecode: Set<String> = [
    "NSArray", "NSData", "NSDate", "NSNumber", "NSURL", "NSUUID",
  ]

  /// The names an archive gives `classes` (the order kept), checked for reading: each must be
  /// one Foundation here can name and allow (``problem(with:)``), support secure coding, and, on
  /// Linux, where secure coding is off and these checks stand in for it, lead back to its own
  /// class through the unarchiver's lookup (the process-wide
  /// `NSKeyedUnarchiver.setClass(_:forClassName:)` mapping, then `NSClassFromString`).
  ///
  /// - Returns: The names, or a one-line reason the classes can't be read (the names are then
  ///   empty).
  static func namesForReading(_ classes: [AnyClass]) -> (names: [String], problem: String?) {
    if let problem = problem(with: classes) { return ([], problem) }
    var names: [String] = []
    for cls in classes {
      guard (cls as? any NSSecureCoding.Type)?.supportsSecureCoding == true else {
        return ([], "\(String(reflecting: cls)) does not support secure coding")
      }
      guard let name = name(cls) else { return ([], "\(String(reflecting: cls)) has no name") }
      #if !canImport(Darwin)
        guard (NSKeyedUnarchiver.class(forClassName: name) ?? NSClassFromString(name)) == cls
        else {
          return (
            [],
            "the class name of \(String(reflecting: cls)) is mapped to another class "
              + "(NSKeyedUnarchiver.setClass(_:forClassName:))"
          )
        }
      #endif
      names.append(name)
    }
    return (names, nil)
  }

  /// Why objects of these classes can't be archived or unarchived here, or `nil`.
  static func problem(with classes: [AnyClass]) -> String? {
    for cls in classes where name(cls) == nil {
      return "\(String(reflecting: cls)) is not a top-level class, and Foundation on Linux can "
        + "archive only top-level classes (declare it at file scope, not private)"
    }
    #if !canImport(Darwin)
      for cls in classes where String(reflecting: cls).hasPrefix("Foundation.") {
        guard let name = name(cls), foundationClassesSafeToDecode.contains(name) else {
          return "\(String(reflecting: cls))'s init(coder:) stops the process on Linux for some "
            + "archives; Archived there allows only the Foundation classes "
            + foundationClassesSafeToDecode.sorted().joined(separator: ", ")
        }
      }
    #endif
    return nil
  }
}

/// Lists the classes, besides its own, that an object stored with ``Archived`` encodes inside
/// its archive (an `NSDate`, another model class), so reading allows exactly those.
///
/// ```swift
/// extension Session: ArchivedObjectClasses {
///   static var classesInArchive: [AnyClass] { [NSDate.self, Device.self] }
/// }
/// ```
///
/// Decode such nested objects in `init?(coder:)` with `decodeObject(of:forKey:)` and check the
/// type it returns: an archive can put any allowed class anywhere, and a misplaced object must
/// make `init?(coder:)` return `nil` (the setting then reads as its default), as a failed cast
/// does. Every class listed must support secure coding. Strings, numbers and data are stored
/// inline and need no entry. On Linux, the only Foundation classes allowed are `NSArray`,
/// `NSData`, `NSDate`, `NSNumber`, `NSURL` and `NSUUID`: the others' decoders there (`NSString`,
/// `NSError`, `NSDictionary`, measured with Swift 6.3.1) stop the process for some archives, so
/// a type listing one can neither be written nor read (``SettingsError/Code/valueNotRepresentable``
/// on write, the default with a diagnostic on read).
public protocol ArchivedObjectClasses: NSObject {
  /// The classes, besides `Self`, that an archive of this object may contain.
  static var classesInArchive: [AnyClass] { get }
}
