import Foundation

/// How ``SettingsContainer/importValues(_:options:)`` treats keys that belong to no setting of
/// the model.
public struct SettingsImportOptions: Sendable, Hashable {
  /// Whether a key that belongs to no setting of the model refuses the whole import.
  ///
  /// `false` by default: unknown keys are not written, and are listed in
  /// ``SettingsImportResult/unknownKeys`` (never dropped without a word).
  public var rejectsUnknownKeys: Bool

  /// Creates import options.
  ///
  /// - Parameter rejectsUnknownKeys: Refuse the import if it holds a key no setting has (a typo,
  ///   a renamed setting) instead of reporting it.
  public init(rejectsUnknownKeys: Bool = false) {
    self.rejectsUnknownKeys = rejectsUnknownKeys
  }
}

/// What an import wrote, and what it didn't.
public struct SettingsImportResult: Sendable, Hashable {
  /// The keys written, sorted.
  public let importedKeys: [String]
  /// The keys that belong to no setting of the model, sorted: not written.
  public let unknownKeys: [String]
  /// The schema version the imported values declared (``MigratableSettings``), if they declared
  /// one; values from an earlier version were migrated before they were checked.
  public let importedVersion: Int?
}

extension SettingsContainer {
  /// Imports values into the model's settings: checks every one first, then writes them all as
  /// one batch, or none.
  ///
  /// 1. Values from an earlier version of a model with migrations (``MigratableSettings``),
  ///    recognised by the schema version under its ``SettingsMigrations/versionKey``, are
  ///    migrated first, in memory. The version key itself is never written: an import never
  ///    changes a backend's version (migrate the backend before importing).
  /// 2. Every value is checked against its setting's type, by the rules a read follows
  ///    (``SettingValue``). If any can't be read as its type (or a key is unknown and `options`
  ///    refuses unknown keys), nothing is written and one error lists every problem:
  ///    `'volume': expected Int, found String`. A value that reads is stored as its setting
  ///    stores it: `"yes"` imported into a `Bool` setting is stored as `true`.
  /// 3. The values are written with one ``SettingsBackend/setValues(_:)`` per backend (normally
  ///    one: the model's), all or nothing; a backend that saves when asked (``SavingBackend``:
  ///    a `LayeredPlistStore`, a ``UserDefaultsBackend``, a view of one, or one you write)
  ///    is then saved once if it has unsaved changes (``SavingBackend/hasUnsavedChanges``), so
  ///    the import is in storage when this returns. Settings the import
  ///    doesn't mention keep their values.
  ///
  /// Unknown keys are never written; unless `options` refuses them they are listed in the
  /// result. Errors never show the imported values, only their types.
  ///
  /// - Parameters:
  ///   - values: The values, by key, as ``exportedValues(options:)`` gives them.
  ///   - options: Whether unknown keys refuse the import.
  /// - Returns: The keys written and the keys left out.
  /// - Throws: ``SettingsError/Code/importRejected`` listing every wrong-typed value (key,
  ///   expected type, found type) and, if refused, every unknown key; nothing is written then.
  ///   What a migration step throws (``SettingsError/Code/migrationFailed``). What the backend's
  ///   ``SettingsBackend/setValues(_:)`` throws (nothing is written then), or its
  ///   ``SavingBackend/save()`` (the values are written, and stay unsaved for a later save).
  @discardableResult
  public func importValues(
    _ values: [String: PropertyListValue],
    options: SettingsImportOptions = SettingsImportOptions()
  ) throws(SettingsError) -> SettingsImportResult {
    try importValues(values, options: options, path: nil)
  }

  /// Imports the values of a property-list file (one ``exportValues(to:format:options:)``
  /// wrote, or any whose root is a dictionary), as ``importValues(_:options:)`` does.
  ///
  /// The file is read by the library's strict readers, with its size limit
  /// (``PropertyListFile/defaultMaximumSize``), so a corrupt, huge or deeply nested file is
  /// refused with an error, never a crash.
  ///
  /// - Parameters:
  ///   - url: The file to read.
  ///   - options: Whether unknown keys refuse the import.
  /// - Returns: The keys written and the keys left out.
  /// - Throws: What ``importValues(_:options:)`` throws, with the file's path; what
  ///   ``PropertyListFile/readDictionary()`` throws for a file that can't be read, isn't a
  ///   property list or has a root that isn't a dictionary; ``SettingsError/Code/fileNotReadable``
  ///   if there is no file.
  @discardableResult
  public func importValues(
    contentsOf url: URL,
    options: SettingsImportOptions = SettingsImportOptions()
  ) throws(SettingsError) -> SettingsImportResult {
    guard let values = try PropertyListFile(url: url).readDictionary() else {
      throw SettingsError(.fileNotReadable, path: url.path, reason: "There is no file to import")
    }
    return try importValues(values, options: options, path: url.path)
  }

  private func importValues(
    _ values: [String: PropertyListValue],
    options: SettingsImportOptions,
    path: String?
  ) throws(SettingsError) -> SettingsImportResult {
    var values = values
    var importedVersion: Int?
    if let migrations = (Self.self as? any MigratableSettings.Type)?.migrations,
      let stored = values.removeValue(forKey: migrations.versionKey)
    {
      let version = try migrations.version(in: stored)
      importedVersion = version
      try migrations.apply(to: &values, from: version)
    }
    let settings = allSettings
    var indexes: [String: Int] = [:]
    indexes.reserveCapacity(settings.count)
    for (index, descriptor) in settings.enumerated() { indexes[descriptor.key] = index }
    var problems: [String] = []
    var unknown: [String] = []
    // The accepted values, by backend (normally one: the model's), in order of appearance.
    var batches: [(backend: any SettingsBackend, values: [String: PropertyListValue])] = []
    var batchIndexes: [ObjectIdentifier: Int] = [:]
    for (key, value) in values {
      guard let index = indexes[key] else {
        unknown.append(key)
        continue
      }
      guard let accepted = Self.accepted(value, by: settings[index]) else {
        problems.append(Self.mismatch(value, for: settings[index]))
        continue
      }
      let backend = settings[index].setting.backend
      let id = ObjectIdentifier(backend)
      if let batch = batchIndexes[id] {
        batches[batch].values[key] = accepted
      } else {
        batchIndexes[id] = batches.count
        var first: [String: PropertyListValue] = [:]
        first.reserveCapacity(values.count)
        first[key] = accepted
        batches.append((backend, first))
      }
    }
    unknown.sort()
    if !problems.isEmpty || (options.rejectsUnknownKeys && !unknown.isEmpty) {
      throw Self.rejection(
        problems: problems.sorted(), unknown: unknown,
        refusesUnknown: options.rejectsUnknownKeys, path: path)
    }
    var written: [String] = []
    for (backend, batch) in batches {
      try ObservationCenter.writing(batch.keys, to: backend) { () throws(SettingsError) in
        try backend.setValues(batch)
      }
      // A backend that saves (a file store, a view of one, one of yours) is saved once, unless
      // its write saved already (a UserDefaultsBackend's batch on Linux): no second fsync.
      if let saving = backend as? any SavingBackend, saving.hasUnsavedChanges { try saving.save() }
      written += batch.keys
    }
    return SettingsImportResult(
      importedKeys: written.sorted(), unknownKeys: unknown, importedVersion: importedVersion)
  }

  /// The value to store for an imported value, or `nil` if the setting can't read it.
  ///
  /// A value of the kind the setting stores is checked and kept as it is; another kind (a string
  /// for a Bool) is stored as the setting would store what it reads.
  private static func accepted(
    _ value: PropertyListValue,
    by descriptor: SettingDescriptor
  ) -> PropertyListValue? {
    if value.kind == descriptor.defaultValue?.kind {
      return descriptor.reads(value) ? value : nil
    }
    return descriptor.canonical(value)
  }

  /// `'volume': expected Int, found String`, with the type's reason for a non-secret value.
  private static func mismatch(
    _ value: PropertyListValue, for descriptor: SettingDescriptor
  )
    -> String
  {
    var text = "'\(descriptor.key)': expected \(descriptor.typeName), found \(typeName(of: value))"
    if !descriptor.isSecret, let reason = descriptor.readFailureReason(for: value) {
      text += " (\(reason.count > 200 ? reason.prefix(200) + "…" : reason))"
    }
    return text
  }

  private static func rejection(
    problems: [String],
    unknown: [String],
    refusesUnknown: Bool,
    path: String?
  ) -> SettingsError {
    var parts: [String] = []
    if !problems.isEmpty {
      let count =
        problems.count == 1
        ? "1 value doesn't match its setting's type"
        : "\(problems.count) values don't match their settings' types"
      parts.append("\(count): " + problems.joined(separator: "; "))
    }
    if refusesUnknown && !unknown.isEmpty {
      parts.append(
        "unknown keys: " + unknown.map { "'\($0)'" }.joined(separator: ", "))
    }
    return SettingsError(
      .importRejected, path: path,
      reason: "Nothing was imported: " + parts.joined(separator: "; and "))
  }

  /// The Swift type a property-list value reads as naturally, for errors: `String`, `Array`.
  static func typeName(of value: PropertyListValue) -> String {
    switch value.kind {
    case .string: "String"
    case .integer: "Int"
    case .real: "Double"
    case .bool: "Bool"
    case .date: "Date"
    case .data: "Data"
    case .array: "Array"
    case .dictionary: "Dictionary"
    }
  }
}
