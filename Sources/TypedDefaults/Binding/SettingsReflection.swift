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
  /// The setting's storage, as binding sees it: its key and backend, whatever its value type.
  var untypedStorage: UntypedSettingStorage { get }
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
  var untypedStorage: UntypedSettingStorage { storage }

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
  /// The first time a model type is bound to a backend, in every build, its declaration is
  /// checked (``SettingsValidation``: two settings with one key stop the program with a message
  /// saying which; a prefix without a separator, keys the backend can't store and prefixes
  /// colliding with another model's are reported) and its keys are declared to a backend that
  /// describes its values itself (``LearnsDeclaredKeys``: secret keys, value types). Later
  /// instances of the type on that backend skip both for one lookup, so creating a model stays
  /// cheap, and reads never pay for either.
  static func bind<Model>(
    _ model: Model, keyPrefix: String, to backend: any SettingsBackend
  ) {
    let binding = BackendBinding(backend)
    withPlan(for: model, keyPrefix: keyPrefix) { plan, base in
      guard let plan else {
        // Found by `Mirror`: bound one by one.
        let found = MirrorDiscovery.found(in: model, keyPrefix: keyPrefix)
        var cells = CellsOfModel(binding: binding, plan: nil, count: found.count)
        let observables = binding.takeObservables(count: found.count)
        for (index, setting) in found.enumerated() {
          bind(
            setting.setting.untypedStorage, as: setting.entry, at: index, cells: &cells,
            observables: observables, binding: binding)
        }
        return
      }
      // Read through the type's plan: each setting's storage is loaded at its offset, unretained
      // (the instance holds it), and bound without knowing its value type.
      var cells = CellsOfModel(binding: binding, plan: plan, count: plan.settings.count)
      let observables = binding.takeObservables(count: plan.settings.count)
      for (index, entry) in plan.settings.enumerated() {
        base.load(fromByteOffset: entry.offset, as: Unmanaged<UntypedSettingStorage>.self)
          ._withUnsafeGuaranteedRef { storage in
            bind(
              storage, as: entry, at: index, cells: &cells, observables: observables,
              binding: binding)
          }
      }
      cells.finish()
    }
    SettingsValidation.checkOnce(
      dynamicType(of: model), keyPrefix: keyPrefix, on: binding,
      settings: discover(in: model, keyPrefix: keyPrefix))
  }

  /// Binds one setting of a model (the `index`th) under its full key.
  private static func bind(
    _ storage: UntypedSettingStorage, as entry: PlannedSetting, at index: Int,
    cells: inout CellsOfModel, observables: [AnyObject]?, binding: BackendBinding
  ) {
    let key = entry.key(declared: storage.declaredKey)
    let targetKey = binding.targetKey(for: key)
    let observable = observables?[index]
    if let observable {
      prepareSettingObservable(observable, binding: binding, key: targetKey)
    }
    storage.bind(
      key: key, targetKey: targetKey, cell: cells.cell(at: index, forTargetKey: targetKey),
      observable: observable, to: binding)
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

    /// The setting's full key (see ``PlannedSetting/key(declared:)``).
    func key() -> String {
      entry.key(declared: setting.untypedStorage.declaredKey)
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
    withPlan(for: model, keyPrefix: keyPrefix) { plan, base in
      guard let plan else {
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

  /// Calls `body` with the plan of `model`'s type (made on its first instance; `nil` if the
  /// type needs `Mirror`, or was planned with another key prefix) and the address of `model`'s
  /// stored properties.
  private static func withPlan<Model>(
    for model: Model, keyPrefix: String, _ body: (ReflectionPlan?, UnsafeRawPointer) -> Void
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
      body(plan?.keyPrefix == keyPrefix ? plan : nil, base)
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
  /// Where the setting's storage reference is in an instance (a `Setting` is that one
  /// reference); `-1` for a setting found by `Mirror`.
  let offset: Int

  /// The setting's full key: its model's and groups' prefixes, then its declared key or its
  /// property's name. Reuses the plan's string when the declared key is the planned one.
  ///
  /// - Parameter declared: The key the instance's setting declares.
  func key(declared: String?) -> String {
    guard let declared else { return inferredKey }
    if declared == plannedDeclaredKey, let key = plannedDeclaredFullKey { return key }
    return keyPrefix.isEmpty ? declared : keyPrefix + declared
  }

  init(
    load: @escaping @Sendable (UnsafeRawPointer) -> any SettingProperty, propertyName: String,
    propertyPath: String, keyPrefix: String, declaringTypeName: String, inferredKey: String,
    plannedDeclaredKey: String?, plannedDeclaredFullKey: String?, offset: Int = -1
  ) {
    self.offset = offset
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
  /// The cells the type's last instance was bound to, so that the next instance on the same
  /// backend finds its cells without a lookup (see ``CellsOfModel``).
  private let lastCells = Locked<CachedCells?>(nil)

  /// The cells of one backend, for one list of keys.
  private struct CachedCells: @unchecked Sendable {
    // @unchecked Sendable: `ValueCell`s are Sendable; the rest are immutable, Sendable values.
    /// The backend's ``CellBackend/cellsIdentity``: held instead of the backend, which it
    /// outlives, so it can't stand for another backend later allocated at the same address.
    let identity: CellsIdentity
    let keys: [String]
    let cells: [ValueCell]
  }

  /// The keys and cells the type's last instance was bound to on the backend whose cells
  /// `identity` stands for, if it was that backend.
  func lastCells(of identity: CellsIdentity) -> (keys: [String], cells: [ValueCell])? {
    guard let cached = lastCells.withLock({ $0 }), cached.identity === identity else { return nil }
    return (cached.keys, cached.cells)
  }

  /// Records the keys and cells an instance was bound to.
  func recordCells(_ cells: [ValueCell], keys: [String], of identity: CellsIdentity) {
    lastCells.withLock { $0 = CachedCells(identity: identity, keys: keys, cells: cells) }
  }

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
        let declared = load(firstInstance).untypedStorage.declaredKey
        settings.append(
          PlannedSetting(
            load: load, propertyName: propertyName, propertyPath: pathPrefix + propertyName,
            keyPrefix: keyPrefix, declaringTypeName: declaringTypeName,
            inferredKey: keyPrefix + propertyName, plannedDeclaredKey: declared,
            plannedDeclaredFullKey: declared.map { keyPrefix + $0 }, offset: base + offset))
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

/// Finds the cells of a model's settings as they are bound: the cells the model type's last
/// instance was bound to, where the backend and each key are the same (a backend never replaces
/// a key's cell), and otherwise the backend's, looked up and recorded for the next instance.
struct CellsOfModel {
  let binding: BackendBinding
  private var plan: ReflectionPlan?
  private var last: (keys: [String], cells: [ValueCell])?
  private var count = 0
  private var keys: [String] = []
  private var cells: [ValueCell] = []
  /// Whether a key differed from the last instance's, from which point the cells are looked up.
  private var changed = false

  /// Prepares for `count` settings, found through `plan` (`nil`: by `Mirror`, nothing cached).
  init(binding: BackendBinding, plan: ReflectionPlan?, count: Int) {
    self.binding = binding
    guard let backend = binding.cellBackend, let plan else { return }
    self.plan = plan
    last = plan.lastCells(of: backend.cellsIdentity)
    self.count = count
  }

  /// The cell of the setting at `index`, whose key in the target is `targetKey`; `nil` if the
  /// target keeps no cells.
  mutating func cell(at index: Int, forTargetKey targetKey: String) -> ValueCell? {
    guard let backend = binding.cellBackend else { return nil }
    if !changed, let last, index < last.keys.count, last.keys[index] == targetKey {
      return last.cells[index]
    }
    let cell = backend.cell(forKey: targetKey)
    guard plan != nil else { return cell }
    if !changed {
      // The first miss: what was the same so far is kept, and the rest is recorded as it comes.
      changed = true
      keys.reserveCapacity(count)
      cells.reserveCapacity(count)
      if let last {
        keys += last.keys.prefix(index)
        cells += last.cells.prefix(index)
      }
    }
    keys.append(targetKey)
    cells.append(cell)
    return cell
  }

  /// Records the cells for the model type's next instance, if they changed.
  func finish() {
    guard changed, let plan, let backend = binding.cellBackend else { return }
    plan.recordCells(cells, keys: keys, of: backend.cellsIdentity)
  }
}
