#if !canImport(Darwin)
  // The cells a backend created with the owner's promise reads through
  // (`isWrittenOnlyThroughLibrary`): the suite's (`SuiteFile.State.cells`), kept current by
  // every change the suite makes or takes in, and read under its lock. A backend without the
  // promise offers none, so that every read asks `UserDefaults` for a raw write first.
  extension UserDefaultsBackend: CellBackend {
    @usableFromInline
    package var offersCells: Bool { isWrittenOnlyThroughLibrary }

    @usableFromInline
    package func cell(forKey key: String) -> ValueCell { suite.cell(forKey: key) }

    @usableFromInline
    package func value(in cell: ValueCell) -> PropertyListValue? {
      suite.state.withLock { _ in cell.value }
    }

    @usableFromInline
    package func storedValue(in cell: ValueCell, forKey key: String) -> PropertyListValue? {
      suite.storedValue(forKey: key)
    }

    @usableFromInline
    package func conversion(in cell: ValueCell) -> AnyObject? {
      suite.state.withLock { _ in cell.conversion }
    }

    @usableFromInline
    package func setConversion(
      _ conversion: AnyObject, in cell: ValueCell, ifValueIs source: PropertyListValue
    ) {
      suite.state.withLock { _ in
        if cell.value == source { cell.conversion = conversion }
      }
    }

    @usableFromInline
    package func setValue(
      _ value: PropertyListValue?, in cell: ValueCell, forKey key: String
    ) throws(SettingsError) {
      try setValue(value, forKey: key)
    }
  }
#endif
