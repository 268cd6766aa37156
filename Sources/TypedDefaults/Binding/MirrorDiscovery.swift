/// Discovery with `Mirror` on every instance, for types the stdlib's field reflection can't
/// describe (none of the library's own; kept so that such a type still works, and as the
/// reference the plan-based discovery is tested against).
enum MirrorDiscovery {
  static func found(in model: Any, keyPrefix: String) -> [SettingsReflection.Found] {
    var found: [SettingsReflection.Found] = []
    collect(model, pathPrefix: "", keyPrefix: keyPrefix, groups: [], into: &found)
    return found
  }

  private static func collect(
    _ value: Any, pathPrefix: String, keyPrefix: String, groups: [ObjectIdentifier],
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
            plannedDeclaredKey: nil, plannedDeclaredFullKey: nil, enclosingGroups: groups)
          found.append(SettingsReflection.Found(setting: setting, entry: entry))
        } else if let group = child.value as? any SettingsGroup,
          Mirror(reflecting: group).displayStyle == .struct
        {
          collect(
            group, pathPrefix: pathPrefix + label + ".",
            keyPrefix: keyPrefix
              + SettingsReflection.nestedPrefix(of: type(of: group), property: label),
            groups: groups + [ObjectIdentifier(type(of: group))], into: &found)
        }
      }
    }
  }
}
