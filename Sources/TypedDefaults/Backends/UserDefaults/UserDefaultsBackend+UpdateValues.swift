extension UserDefaultsBackend {
  /// Changes any number of keys from the values the suite file holds now, and saves, as one step
  /// that no other process's save can come between (Linux): ``update(forKey:_:)`` for several
  /// keys at once, such as a migration renaming one key to another.
  ///
  /// On Linux, under the suite's file lock: re-reads the file if another process changed it,
  /// calls `transform` with the suite's values (with this process's unsaved changes applied),
  /// stores every value it added, changed or removed (in `UserDefaults` too) and saves. Two
  /// processes running the same `updateValues` on one suite each see the other's result, never
  /// the same starting point. On Apple platforms, where the system owns the file, it reads the
  /// suite's values, transforms them and writes the differences, with no lock between processes:
  /// two processes can both start from the same values.
  ///
  /// - Parameter transform: Changes the suite's values in place and returns what the caller
  ///   wants back. Called once, holding the file lock on Linux: keep it short, and don't use the
  ///   backend inside it. What it throws is rethrown and nothing is changed.
  /// - Returns: What `transform` returned.
  /// - Throws: What `transform` throws; what ``setValue(_:forKey:)`` throws for a value it
  ///   stored; what ``save()`` throws. Nothing changes when this throws.
  @discardableResult
  public func updateValues<Result>(
    _ transform: (inout [String: PropertyListValue]) throws(SettingsError) -> Result
  ) throws(SettingsError) -> Result {
    try RealStoreGuard.check(writingTo: fileURL, of: name)
    #if canImport(Darwin)
      return try SettingsBackends.updateValuesWithoutLock(of: self, transform)
    #else
      // The keys are known only once `transform` ran: the update reports the keys it changed
      // before it returns, and that report, made holding the observers' ordering lock taken
      // here, records each with the value the update left, before a racing write can replace
      // it (a report made after would read the racing write's value, and its event be lost).
      var result: Result?
      try observers.recordingWrite(EmptyCollection<String>(), of: self) {
        () throws(SettingsError) in
        result = try suite.updateValues(transform)
      }
      guard let result else { preconditionFailure("recordingWrite runs its write") }
      return result
    #endif
  }
}
