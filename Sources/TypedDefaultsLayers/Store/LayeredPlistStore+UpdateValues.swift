import TypedDefaults

extension LayeredPlistStore {
  /// Changes any number of keys of `data.plist` from the values the file holds now, and saves,
  /// as one step that no other process's save can come between: ``update(forKey:_:)`` for
  /// several keys at once, such as a migration renaming one key to another.
  ///
  /// Under the same lock as ``save()``: re-reads the file if another process changed it, calls
  /// `transform` with the whole of `data.plist` (with this process's unsaved changes applied, and
  /// keys as the store keeps them, normalized if the store normalizes keys), stores every value it
  /// added, changed or removed in the persistent layer, and saves everything. Two processes
  /// running the same `updateValues` on one file each see the other's result, never the same
  /// starting point.
  ///
  /// ```swift
  /// try store.updateValues { values in
  ///   if let old = values.removeValue(forKey: "fontSize"), values["text.fontSize"] == nil {
  ///     values["text.fontSize"] = old
  ///   }
  /// }
  /// ```
  ///
  /// - Parameter transform: Changes the file's values in place and returns what the caller
  ///   wants back. Called once, while the file is locked: keep it short, and don't use the store
  ///   inside it. What it throws is rethrown and nothing is changed or saved.
  /// - Returns: What `transform` returned.
  /// - Throws: What `transform` throws; what ``setValue(_:forKey:)`` throws for a value it
  ///   stored (``SettingsError/Code/forcedValue`` for a forced key it changed); what ``save()``
  ///   throws. Nothing changes when this throws.
  @discardableResult
  public func updateValues<Result>(
    _ transform: (inout [String: PropertyListValue]) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    var result: Result?
    try save(
      updating: { contents throws(SettingsError) in
        var updated = contents
        result = try transform(&updated)
        var changed: [String] = []
        for key in Set(contents.keys).union(updated.keys) where contents[key] != updated[key] {
          updated[key] = try self.storable(updated[key], forKey: key, in: .persistent)
          changed.append(key)
        }
        try self.state.withLock { state throws(SettingsError) in
          try state.checkNotForced(changed)
        }
        contents = updated
        return changed
      })
    guard let result else { preconditionFailure("save(updating:) calls its closure") }
    return result
  }
}
