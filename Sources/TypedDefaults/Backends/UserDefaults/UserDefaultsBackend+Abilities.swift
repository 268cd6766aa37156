// The abilities the backend offers (Backends/Abilities/), by the methods it has: the atomic
// updates, save and reload of the suite, and the watch for changes made outside it.

extension UserDefaultsBackend: MultiKeyUpdatingBackend, SavingBackend, ReloadingBackend,
  WatchingBackend
{}

#if !canImport(Darwin)
  extension UserDefaultsBackend: RestrictsKeys {
    /// On Linux the suite file may be rewritten as XML (corelibs does at `synchronize()`), so
    /// a key must hold only characters XML can.
    func checkStorable(key: String) throws(SettingsError) {
      try XMLPropertyListRules.checkCharacters(true, key: key)
    }
  }
#endif
