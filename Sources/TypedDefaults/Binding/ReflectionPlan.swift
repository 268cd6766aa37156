// The stdlib's field reflection (`_forEachField`), public since Swift 5.2 under this SPI: the names,
// offsets and types of a type's stored properties, without an instance, which is what lets the
// discovery below run once per type instead of once per instance.
@_spi(Reflection) import Swift

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
  private struct CachedCells: Sendable {
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
      type, isClass: isClass, offset: 0, pathPrefix: "", keyPrefix: keyPrefix, groups: [],
      firstInstance: firstInstance, into: &settings)
    return complete ? ReflectionPlan(settings: settings, keyPrefix: keyPrefix) : nil
  }

  private static func walk(
    _ type: Any.Type, isClass: Bool, offset base: Int, pathPrefix: String, keyPrefix: String,
    groups: [ObjectIdentifier], firstInstance: UnsafeRawPointer,
    into settings: inout [PlannedSetting]
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
            plannedDeclaredFullKey: declared.map { keyPrefix + $0 }, enclosingGroups: groups,
            offset: base + offset))
      } else if kind == .struct, let groupType = fieldType as? any SettingsGroup.Type {
        complete =
          walk(
            fieldType, isClass: false, offset: base + offset, pathPrefix: pathPrefix + label + ".",
            keyPrefix: keyPrefix + SettingsReflection.nestedPrefix(of: groupType, property: label),
            groups: groups + [ObjectIdentifier(groupType)], firstInstance: firstInstance,
            into: &settings)
          && complete
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
