import Foundation

// The abilities the backend offers (Backends/Abilities/), by the methods it has: the atomic
// updates, the save and reload of the suite, and the watch for changes made outside it.
//
// A `SavingBackend`: an import saves it once its values are in, as it saves a LayeredPlistStore.
// (The older value an import's save once put back, in ObservationRaceTests' racing imports, came
// from a test beside it having corelibs rewrite every suite of the process in place, a
// documented limitation; SavesRacingWritesTests pins that saves racing writes lose nothing.)

extension UserDefaultsBackend: MultiKeyUpdatingBackend, SavingBackend, ReloadingBackend,
  WatchingBackend
{}

#if !canImport(Darwin)
  extension UserDefaultsBackend: RestrictsKeys {
    /// On Linux the suite file may be rewritten as XML (corelibs does at `synchronize()`), so
    /// a key must hold only characters XML can.
    package func checkStorable(key: String) throws(SettingsError) {
      try XMLPropertyListRules.checkCharacters(true, key: key)
    }
  }
#endif

extension UserDefaultsBackend: KeepsStoreFile {
  /// The suite's file on Linux (``fileURL``); `nil` on Apple platforms.
  package var storeFile: URL? { fileURL }
}
