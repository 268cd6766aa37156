extension SettingsValidation {
  /// Stops the program if binding `storage` for the model `binding` serves would re-bind a
  /// setting that another model, or another property of this one, already uses.
  ///
  /// A setting's storage is bound once: its binding, cell and observable are plain fields the
  /// read path loads without a lock or an exclusivity check (see ``UntypedSettingStorage``), which
  /// is sound only while they never change once the setting can be shared. Only a
  /// ``SettingsGroup`` value can bring an already bound setting to a second binding: a group kept
  /// in a global or a static and used as the initial value of two models' properties (each copy
  /// of a group shares its settings), or one group value stored in two properties. Re-binding
  /// would silently move the first model's setting to the second model's backend and key, and race
  /// with its readers; so it stops the program, in every build (`fatalError`, whose message `-O`
  /// keeps), with a message naming the setting and both models.
  ///
  /// One re-binding is legitimate and allowed: a group created with ``SettingsGroup/init(backend:)``
  /// and then nested in a model (`playback = PlaybackSettings(backend: backend)` before
  /// `super.init(backend: backend)`), which binds the group's settings once as the group's and
  /// again as the model's. It is recognized by the setting's current binding being that of a group
  /// type the model reaches the setting through (``PlannedSetting/enclosingGroups``), on the
  /// model's own backend. A group created on another backend (a `static let shared` made with
  /// `init(backend:)` and nested in a model) stops the program too: its settings would move, under
  /// every copy, to the model's backend. What no check can tell from the legitimate case: such a
  /// group created on the model's own backend object; its settings then move to the model's keys.
  ///
  /// Runs only for a setting that is bound already (one load per setting otherwise), while the
  /// model is being created; reads never pay for it.
  ///
  /// - Parameters:
  ///   - storage: The setting about to be bound, which has a binding (`bound`).
  ///   - bound: Its current binding.
  ///   - entry: Where the setting is in the model being bound.
  ///   - binding: The binding of the model being bound.
  static func checkBindingOnce(
    _ storage: UntypedSettingStorage, boundTo bound: BackendBinding, as entry: PlannedSetting,
    by binding: BackendBinding
  ) {
    if bound !== binding, let group = bound.boundType as? any SettingsGroup.Type,
      entry.enclosingGroups.contains(ObjectIdentifier(group))
    {
      if bound.backend === binding.backend { return }
      // A group created with init(backend:) on another backend (a `static let shared` nested in
      // a model, say): nesting it would move its settings, under every copy, to this backend.
      fatalError(
        movedGroupMessage(
          "\(typeName(binding.boundType)).\(entry.propertyPath)", key: storage.key,
          group: typeName(group), from: bound.backend.name, to: binding.backend.name))
    }
    fatalError(
      reboundSettingMessage(
        "\(typeName(binding.boundType)).\(entry.propertyPath)", key: storage.key,
        of: typeName(bound.boundType), on: bound.backend.name,
        group: entry.enclosingGroups.isEmpty ? nil : entry.declaringTypeName))
  }

  /// What stops the program when a model would re-bind a setting already bound.
  ///
  /// - Parameters:
  ///   - setting: The setting as the model being bound names it (`Type.property.path`).
  ///   - key: The key it is bound under.
  ///   - owner: The type of the model it is bound for.
  ///   - backend: The name of the backend it is bound to.
  ///   - group: The name of the group type that declares it, if a group does.
  /// - Returns: The message: where the setting is bound already, why a setting belongs to one
  ///   model, and how to give each property a group of its own.
  static func reboundSettingMessage(
    _ setting: String, key: String, of owner: String, on backend: String, group: String?
  ) -> String {
    let fresh = group.map { " (a new \($0)() in each)" } ?? ""
    return "\(setting) is already bound, as '\(key)' of \(owner) on \(backend): a setting "
      + "belongs to one model, and a SettingsGroup value shares its settings with every copy "
      + "(one kept in a global or a static and used as the initial value of two models' "
      + "properties, or stored in two properties); give each property a group of its own"
      + "\(fresh), or create the group with init(backend:) where the model is initialized"
  }

  /// What stops the program when a model would nest a group created with
  /// ``SettingsGroup/init(backend:)`` on another backend.
  ///
  /// - Parameters:
  ///   - setting: The setting as the model being bound names it (`Type.property.path`).
  ///   - key: The key the group's own binding uses.
  ///   - group: The name of the group type.
  ///   - from: The name of the backend the group was created with.
  ///   - to: The name of the model's backend.
  /// - Returns: The message: what would move, and how to nest a group of the model's own.
  static func movedGroupMessage(
    _ setting: String, key: String, group: String, from: String, to: String
  ) -> String {
    "\(setting) is already bound, as '\(key)' of a \(group) created with init(backend:) on "
      + "\(from): nesting that group value in a model on \(to) would move its settings, under "
      + "every copy of it (a static or a global included), to \(to); nest a group of the "
      + "model's own (\(group)(), or \(group)(backend:) given the model's backend)"
  }

  private static func typeName(_ type: Any.Type?) -> String {
    type.map { String(describing: $0) } ?? "a setting declared with its own backend"
  }
}
