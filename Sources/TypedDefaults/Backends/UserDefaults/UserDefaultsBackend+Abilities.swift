// The abilities the backend offers (Backends/Abilities/), by the methods it has: the atomic
// updates, the reload of the suite, and the watch for changes made outside it.
//
// Not a `SavingBackend`, though it has `save()` and `hasUnsavedChanges`: its writes reach the
// file by its own debounced flush and at exit, and an import has never saved it. Adopting the
// protocol would make every import save it at once, a change of behaviour, and one that on Linux
// runs the suite file's save alongside racing writes (which can then report, and keep, an older
// value of a key written meanwhile: seen in ObservationRaceBreakItTests' racing imports).

extension UserDefaultsBackend: MultiKeyUpdatingBackend, ReloadingBackend, WatchingBackend {}

#if !canImport(Darwin)
  extension UserDefaultsBackend: RestrictsKeys {
    /// On Linux the suite file may be rewritten as XML (corelibs does at `synchronize()`), so
    /// a key must hold only characters XML can.
    func checkStorable(key: String) throws(SettingsError) {
      try XMLPropertyListRules.checkCharacters(true, key: key)
    }
  }
#endif
