// The stdlib's field reflection (`_forEachField`), public since Swift 5.2 under this SPI: the names,
// offsets and types of a type's stored properties, without an instance, which is what lets the
// discovery below run once per type instead of once per instance.
@_spi(Reflection) import Swift

/// A setting's state at one instant, for descriptors.
struct SettingState {
  /// What the backend holds, unconverted.
  var stored: PropertyListValue?
  /// What the setting reads, as a property list.
  var value: PropertyListValue?
  /// What the setting reads, as Swift prints it.
  var description: String
  /// Whether the setting reads its default.
  var readsDefault: Bool
}

/// The internal face of a ``Setting`` that reflection and descriptors work with, whatever its
/// value type.
protocol SettingProperty: Sendable {
  /// Attaches the setting to a backend, naming it after its property.
  func bind(propertyName: String, backend: any SettingsBackend)
  /// Attaches the setting to a backend under the key its model worked out (prefixes applied).
  func bind(propertyName: String, key: String, to binding: BackendBinding)
  /// The key given in the declaration (`@Setting("volume")`), if any.
  var declaredKey: String? { get }
  /// The setting's key (valid once bound).
  var key: String { get }
  var valueType: any SettingValue.Type { get }
  var defaultPropertyListValue: PropertyListValue? { get }
  /// Whether the value is secret (`Setting+Secret.swift`).
  var isSecret: Bool { get }
  /// The backend the setting reads and writes (valid once bound).
  var backend: any SettingsBackend { get }
  var storedPropertyListValue: PropertyListValue? { get }
  /// Reads the backend once and describes what the setting shows.
  var currentState: SettingState { get }
  /// Removes the stored value.
  func reset()
}

extension SettingProperty {
  /// Reads a setting of this type stored `offset` bytes into an instance.
  static func loader(offset: Int) -> @Sendable (UnsafeRawPointer) -> any SettingProperty {
    { $0.load(fromByteOffset: offset, as: Self.self) }
  }
}

extension Setting: SettingProperty {
  func bind(propertyName: String, backend: any SettingsBackend) {
    storage.bind(propertyName: propertyName, backend: backend)
  }

  func bind(propertyName: String, key: String, to binding: BackendBinding) {
    storage.bind(propertyName: propertyName, key: key, to: binding)
  }

  var declaredKey: String? { storage.declaredKey }

  var valueType: any SettingValue.Type { Value.self }

  var defaultPropertyListValue: PropertyListValue? { storage.defaultPropertyListValue }

  var storedPropertyListValue: PropertyListValue? { storage.storedValue }

  var currentState: SettingState {
    let stored = storage.storedValue
    let current = storage.read()
    return SettingState(
      stored: stored,
      value: try? current.propertyListValue(),
      description: isSecret ? SecretRedaction.placeholder : ValueDescription.of(current),
      readsDefault: stored.map { Value(propertyListValue: $0) == nil } ?? true
    )
  }
}

/// Finds a model's settings, its nested groups' included: the Swift counterpart of
/// UDUserDefaultsModel's `class_copyPropertyList` scan.
///
/// What can be known from the type alone is worked out once per type and kept
/// (``ReflectionPlan``): which stored properties are settings or nested groups, where each setting
/// lives in an instance, its property path and its key prefix. Each instance then only reads its
/// settings at those offsets and binds them. A type the stdlib's field reflection can't describe
/// falls back to `Mirror` on every instance.
enum SettingsReflection {
  /// The plans made so far, by type; `nil` for a type that needs `Mirror`.
  private static let plans = Locked([ObjectIdentifier: ReflectionPlan?]())

  // MARK: - Entry points

  /// Lists the settings stored in `model` (its nested groups' included), superclass settings
  /// first, each type's in declaration order, without binding them.
  ///
  /// - Parameters:
  ///   - model: A model instance: a class, or a struct.
  ///   - keyPrefix: The model type's key prefix.
  static func discover<Model>(in model: Model, keyPrefix: String) -> [SettingDescriptor] {
    var descriptors: [SettingDescriptor] = []
    forEachSetting(in: model, keyPrefix: keyPrefix) { found in
      if descriptors.isEmpty { descriptors.reserveCapacity(found.count) }
      descriptors.append(found.descriptor())
    }
    return descriptors
  }

  /// Discovers `model`'s settings and attaches each to `backend` under its full key (a setting
  /// declared with its own backend keeps it).
  ///
  /// In debug builds, two settings of one model with the same key stop the program: it is a
  /// mistake in the model's declaration, found on its first use. Keys the backend can't store and
  /// prefixes colliding with another model's are reported once per model type and backend
  /// (``SettingsValidation``).
  @discardableResult
  static func bind<Model>(
    _ model: Model, keyPrefix: String, to backend: any SettingsBackend
  ) -> [SettingDescriptor] {
    let binding = BackendBinding(backend)
    var descriptors: [SettingDescriptor] = []
    forEachSetting(in: model, keyPrefix: keyPrefix) { found in
      if descriptors.isEmpty { descriptors.reserveCapacity(found.count) }
      found.setting.bind(propertyName: found.entry.propertyName, key: found.key(), to: binding)
      descriptors.append(found.descriptor())
    }
    #if DEBUG
      SettingsValidation.check(
        descriptors, of: dynamicType(of: model), keyPrefix: keyPrefix, on: backend)
    #endif
    return descriptors
  }

  /// The current value of every setting that has one, by key.
  static func snapshot(of settings: [SettingDescriptor]) -> [String: PropertyListValue] {
    var result: [String: PropertyListValue] = [:]
    for descriptor in settings where !descriptor.isSecret {
      if let value = descriptor.value { result[descriptor.key] = value }
    }
    return result
  }

  // MARK: - Finding the settings of an instance

  /// One setting of an instance, with its place in its model.
  struct Found {
    let setting: any SettingProperty
    let entry: PlannedSetting
    /// How many settings the model has in all.
    var count = 0

    /// The setting's full key: its model's and groups' prefixes, then its declared key or its
    /// property's name. Reuses the plan's string when the declared key is the planned one.
    func key() -> String {
      guard let declared = setting.declaredKey else { return entry.inferredKey }
      if declared == entry.plannedDeclaredKey, let key = entry.plannedDeclaredFullKey {
        return key
      }
      return entry.keyPrefix.isEmpty ? declared : entry.keyPrefix + declared
    }

    func descriptor() -> SettingDescriptor {
      SettingDescriptor(
        propertyName: entry.propertyName, propertyPath: entry.propertyPath,
        declaringTypeName: entry.declaringTypeName, setting: setting)
    }
  }

  /// Calls `body` with each setting of `model`, through its type's plan (made on the first
  /// instance) or `Mirror`.
  static func forEachSetting<Model>(
    in model: Model, keyPrefix: String, _ body: (Found) -> Void
  ) {
    withInstance(model) { type, isClass, base in
      let id = ObjectIdentifier(type)
      let cached = plans.withLock { $0[id] }
      let plan: ReflectionPlan?
      if let cached {
        plan = cached
      } else {
        plan = ReflectionPlan.make(
          for: type, isClass: isClass, keyPrefix: keyPrefix, firstInstance: base)
        plans.withLock { $0[id] = .some(plan) }
      }
      guard let plan, plan.keyPrefix == keyPrefix else {
        let found = MirrorDiscovery.found(in: model, keyPrefix: keyPrefix)
        for var setting in found {
          setting.count = found.count
          body(setting)
        }
        return
      }
      let count = plan.settings.count
      for entry in plan.settings {
        body(Found(setting: entry.load(base), entry: entry, count: count))
      }
    }
  }

  /// The dynamic type of a model instance.
  static func dynamicType<Model>(of model: Model) -> Any.Type {
    withInstance(model) { type, _, _ in type }
  }

  /// Calls `body` with the instance's dynamic type, whether it is a class, and the address of its
  /// stored properties (a class instance's object, or a struct's bytes).
  private static func withInstance<Model, Result>(
    _ model: Model, _ body: (Any.Type, Bool, UnsafeRawPointer) -> Result
  ) -> Result {
    if Model.self is AnyClass {
      let object = model as AnyObject
      return withExtendedLifetime(object) {
        body(type(of: object), true, UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()))
      }
    }
    return withUnsafeBytes(of: model) { bytes in
      // An empty struct has no bytes and no settings; any non-null address does.
      body(
        Model.self, false, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1).unsafelyUnwrapped)
    }
  }
}

/// One setting property of a model type: where it is in an instance, its property path and its
/// key prefix. A class, so that handing it around per instance costs one reference.
final class PlannedSetting: Sendable {
  /// Reads the setting from the address of an instance's stored properties.
  let load: @Sendable (UnsafeRawPointer) -> any SettingProperty
  /// The property's name, without the wrapper's underscore: `volume`.
  let propertyName: String
  /// The property's path from the model: `playback.volume` for a setting of a nested group.
  let propertyPath: String
  /// The prefixes its key takes: the model's, then each enclosing group's.
  let keyPrefix: String
  /// The name of the type that declares the property.
  let declaringTypeName: String
  /// `keyPrefix + propertyName`: the key of a setting declared without one.
  let inferredKey: String
  /// The declared key of the first instance's setting, and its full key, so that later
  /// instances declaring the same key share the string.
  let plannedDeclaredKey: String?
  let plannedDeclaredFullKey: String?

  init(
    load: @escaping @Sendable (UnsafeRawPointer) -> any SettingProperty, propertyName: String,
    propertyPath: String, keyPrefix: String, declaringTypeName: String, inferredKey: String,
    plannedDeclaredKey: String?, plannedDeclaredFullKey: String?
  ) {
    self.load = load
    self.propertyName = propertyName
    self.propertyPath = propertyPath
    self.keyPrefix = keyPrefix
    self.declaringTypeName = declaringTypeName
    self.inferredKey = inferredKey
    self.plannedDeclaredKey = plannedDeclaredKey
    self.plannedDeclaredFullKey = plannedDeclaredFullKey
  }
}

/// The stdlib's `_EachFieldOptions.classType` (a `static var`, which strict concurrency refuses to
/// read), by its documented raw value.
private let classFields = _EachFieldOptions(rawValue: 1 << 0)

/// What is known of a model type's settings from the type alone, made on its first instance.
final class ReflectionPlan: Sendable {
  let settings: [PlannedSetting]
  /// The model's key prefix the plan was made with.
  let keyPrefix: String

  private init(settings: [PlannedSetting], keyPrefix: String) {
    self.settings = settings
    self.keyPrefix = keyPrefix
  }

  /// Walks the type's stored properties (and its superclasses' and nested groups'), or returns
  /// `nil` if the stdlib can't describe them.
  static func make(
    for type: Any.Type, isClass: Bool, keyPrefix: String, firstInstance: UnsafeRawPointer
  ) -> ReflectionPlan? {
    var settings: [PlannedSetting] = []
    let complete = walk(
      type, isClass: isClass, offset: 0, pathPrefix: "", keyPrefix: keyPrefix,
      firstInstance: firstInstance, into: &settings)
    return complete ? ReflectionPlan(settings: settings, keyPrefix: keyPrefix) : nil
  }

  private static func walk(
    _ type: Any.Type, isClass: Bool, offset base: Int, pathPrefix: String, keyPrefix: String,
    firstInstance: UnsafeRawPointer, into settings: inout [PlannedSetting]
  ) -> Bool {
    let owners = isClass ? declaringClasses(of: type) : []
    var index = 0
    var complete = true
    let described = _forEachField(of: type, options: isClass ? classFields : []) {
      name, offset, fieldType, kind in
      defer { index += 1 }
      let label = String(cString: name)
      let declaringTypeName = String(describing: owners.first { index < $0.fields }?.type ?? type)
      if let settingType = fieldType as? any SettingProperty.Type {
        let load = settingType.loader(offset: base + offset)
        // A property wrapper's storage is named `_name`.
        let propertyName = label.hasPrefix("_") ? String(label.dropFirst()) : label
        let declared = load(firstInstance).declaredKey
        settings.append(
          PlannedSetting(
            load: load, propertyName: propertyName, propertyPath: pathPrefix + propertyName,
            keyPrefix: keyPrefix, declaringTypeName: declaringTypeName,
            inferredKey: keyPrefix + propertyName, plannedDeclaredKey: declared,
            plannedDeclaredFullKey: declared.map { keyPrefix + $0 }))
      } else if kind == .struct, let groupType = fieldType as? any SettingsGroup.Type {
        complete =
          walk(
            fieldType, isClass: false, offset: base + offset, pathPrefix: pathPrefix + label + ".",
            keyPrefix: keyPrefix + SettingsReflection.nestedPrefix(of: groupType, property: label),
            firstInstance: firstInstance, into: &settings) && complete
      }
      return complete
    }
    return described && complete
  }

  /// The classes of a class's chain, root first, each with the number of stored properties it
  /// and its superclasses have: a property's index tells which class declares it.
  private static func declaringClasses(of type: Any.Type) -> [(type: Any.Type, fields: Int)] {
    var chain: [AnyClass] = []
    var next: AnyClass? = type as? AnyClass
    while let current = next {
      chain.append(current)
      next = _getSuperclass(current)
    }
    return chain.reversed().map { type in
      var fields = 0
      _ = _forEachField(of: type, options: classFields) { _, _, _, _ in
        fields += 1
        return true
      }
      return (type, fields)
    }
  }
}

extension SettingsReflection {
  /// The prefix a nested group adds to its settings' keys: the group type's ``SettingsGroup/keyPrefix``,
  /// or, if it declares none, the property's name and a dot (`playback.`).
  static func nestedPrefix(of group: any SettingsGroup.Type, property label: String) -> String {
    let declared = group.keyPrefix
    return declared.isEmpty ? label + "." : declared
  }
}

/// Discovery with `Mirror` on every instance, for types the stdlib's field reflection can't
/// describe (none of the library's own; kept so that such a type still works, and as the
/// reference the plan-based discovery is tested against).
enum MirrorDiscovery {
  static func found(in model: Any, keyPrefix: String) -> [SettingsReflection.Found] {
    var found: [SettingsReflection.Found] = []
    collect(model, pathPrefix: "", keyPrefix: keyPrefix, into: &found)
    return found
  }

  private static func collect(
    _ value: Any, pathPrefix: String, keyPrefix: String,
    into found: inout [SettingsReflection.Found]
  ) {
    var chain: [Mirror] = []
    var next: Mirror? = Mirror(reflecting: value)
    while let mirror = next {
      chain.append(mirror)
      next = mirror.superclassMirror
    }
    for mirror in chain.reversed() {
      let typeName = String(describing: mirror.subjectType)
      for child in mirror.children {
        guard let label = child.label else { continue }
        if let setting = child.value as? any SettingProperty {
          let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
          let entry = PlannedSetting(
            load: { _ in setting }, propertyName: name, propertyPath: pathPrefix + name,
            keyPrefix: keyPrefix, declaringTypeName: typeName, inferredKey: keyPrefix + name,
            plannedDeclaredKey: nil, plannedDeclaredFullKey: nil)
          found.append(SettingsReflection.Found(setting: setting, entry: entry))
        } else if let group = child.value as? any SettingsGroup,
          Mirror(reflecting: group).displayStyle == .struct
        {
          collect(
            group, pathPrefix: pathPrefix + label + ".",
            keyPrefix: keyPrefix
              + SettingsReflection.nestedPrefix(of: type(of: group), property: label),
            into: &found)
        }
      }
    }
  }
}
