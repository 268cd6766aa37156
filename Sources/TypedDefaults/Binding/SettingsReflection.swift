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
  /// - Returns: A descriptor of each setting, superclass settings first, each type's in
  ///   declaration order.
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
  ///
  /// Every instance, in every build, also checks that none of its settings is bound already
  /// (``SettingsValidation/checkBindingOnce(_:boundTo:as:by:)``): one load per setting.
  static func bind<Model>(
    _ model: Model, keyPrefix: String, to backend: any SettingsBackend
  ) {
    let modelType = dynamicType(of: model)
    let binding = BackendBinding(backend)
    binding.boundType = modelType
    withPlan(for: model, keyPrefix: keyPrefix) { plan, base in
      guard let plan else {
        // Found by `Mirror`: bound one by one.
        let found = MirrorDiscovery.found(in: model, keyPrefix: keyPrefix)
        var cells = CellsOfModel(binding: binding, plan: nil, count: found.count)
        let observables = binding.takeObservables(count: found.count)
        for (index, setting) in found.enumerated() {
          bind(
            setting.setting.untypedStorage, as: setting.entry, at: index, cells: &cells,
            observable: observables.map { .passUnretained($0[index]) }, binding: binding)
        }
        return
      }
      // Read through the type's plan: each setting's storage is loaded at its offset, and bound
      // without knowing its value type. Only what a setting keeps is retained (its binding, its
      // keys), not what others hold for it: its storage (the instance), its plan's entry (the
      // plan), its observable (the binding) or its cell (the backend). Retaining and releasing
      // the last three cost a model of 100 settings 5 of its 17.5 µs to create.
      var cells = CellsOfModel(binding: binding, plan: plan, count: plan.settings.count)
      let observables = binding.takeObservables(count: plan.settings.count)
      plan.settings.withUnsafeBufferPointer { entries in
        for index in entries.indices {
          Unmanaged.passUnretained(entries[index])._withUnsafeGuaranteedRef { entry in
            base.load(fromByteOffset: entry.offset, as: Unmanaged<UntypedSettingStorage>.self)
              ._withUnsafeGuaranteedRef { storage in
                bind(
                  storage, as: entry, at: index, cells: &cells,
                  observable: observables.map { .passUnretained($0[index]) }, binding: binding)
              }
          }
        }
      }
      cells.finish()
    }
    SettingsValidation.checkOnce(
      modelType, keyPrefix: keyPrefix, on: binding,
      settings: discover(in: model, keyPrefix: keyPrefix))
  }

  /// Binds one setting of a model (the `index`th) under its full key, with its observable (see
  /// ``BackendBinding/takeObservables(count:)``).
  private static func bind(
    _ storage: UntypedSettingStorage, as entry: PlannedSetting, at index: Int,
    cells: inout CellsOfModel, observable: Unmanaged<AnyObject>?, binding: BackendBinding
  ) {
    // A storage is bound once (the read path relies on it, see `UntypedSettingStorage`); binding
    // it again, which only a group value shared between models can cause, stops the program.
    if !storage.hasOwnBackend, let bound = storage.binding {
      SettingsValidation.checkBindingOnce(storage, boundTo: bound, as: entry, by: binding)
    }
    let key = entry.key(declared: storage.declaredKey)
    let targetKey = binding.targetKey(for: key)
    observable?._withUnsafeGuaranteedRef {
      prepareSettingObservable($0, binding: binding, key: targetKey)
    }
    storage.bind(
      key: key, targetKey: targetKey, cell: cells.cell(at: index, forTargetKey: targetKey),
      observable: observable, to: binding)
  }

  /// The current value of every setting that has one, by key.
  static func snapshot(of settings: [SettingDescriptor]) -> [String: PropertyListValue] {
    var result: [String: PropertyListValue] = [:]
    for descriptor in settings where !descriptor.setting.untypedStorage.hidesValue {
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

extension SettingsReflection {
  /// The prefix a nested group adds to its settings' keys: the group type's ``SettingsGroup/keyPrefix``,
  /// or, if it declares none, the property's name and a dot (`playback.`).
  static func nestedPrefix(of group: any SettingsGroup.Type, property label: String) -> String {
    let declared = group.keyPrefix
    return declared.isEmpty ? label + "." : declared
  }
}
