import Dispatch

// Saving on the owner's own initiative: the debounced save after a burst of writes, and the one
// diagnostic for a save no caller is there to see fail.

extension PersistedPropertyListFile {
  /// The debounced save's timer state.
  struct Debounce {
    var isScheduled = false
    var lastChange = DispatchTime.now()
  }

  /// Calls `save` `interval` seconds after the last of a burst of calls of this method: the
  /// first call of a burst schedules it, later ones push it back.
  ///
  /// - Parameters:
  ///   - interval: The quiet time, in seconds, before `save` runs.
  ///   - save: Makes the owner's save, run on a utility-quality global queue; called only by the
  ///     first call of a burst, so that the later ones allocate no closure. The save should
  ///     capture its owner weakly (the engine holds it only until it runs).
  package func scheduleDebouncedSave(
    interval: Double, _ save: () -> @Sendable () -> Void
  ) {
    let schedule = debounce.withLock { debounce in
      debounce.lastChange = .now()
      defer { debounce.isScheduled = true }
      return !debounce.isScheduled
    }
    if schedule { scheduleDebouncedSave(after: interval, interval: interval, save()) }
  }

  private func scheduleDebouncedSave(
    after delay: Double, interval: Double, _ save: @escaping @Sendable () -> Void
  ) {
    DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + delay) { [weak self] in
      self?.debouncedSaveFired(interval: interval, save)
    }
  }

  /// Saves if no write came for `interval` seconds; otherwise waits for the rest of it.
  private func debouncedSaveFired(interval: Double, _ save: @escaping @Sendable () -> Void) {
    let remaining = debounce.withLock { debounce -> Double? in
      let quiet =
        Double(DispatchTime.now().uptimeNanoseconds - debounce.lastChange.uptimeNanoseconds) / 1e9
      if quiet < interval { return interval - quiet }
      debounce.isScheduled = false
      return nil
    }
    if let remaining {
      scheduleDebouncedSave(after: remaining, interval: interval, save)
    } else {
      save()
    }
  }
}

extension SettingsDiagnostics {
  /// Reports a save made on a backend's own initiative (autosave, a debounced flush, exit) that
  /// failed, as a ``SettingsDiagnostic/Kind/saveFailed`` diagnostic, since no caller is there to
  /// see it: the changes stay in memory for the next save, or, once the process is ending (at
  /// exit, on a termination signal), are lost, as the message then says.
  ///
  /// - Parameters:
  ///   - error: What the save threw.
  ///   - backend: The backend's name.
  package static func reportSaveFailure(_ error: SettingsError, backend: String) {
    report(
      SettingsDiagnostic(
        kind: .saveFailed, key: nil, backend: backend,
        message: "\(error); "
          + (ExitHandlers.isEnding
            ? "the process is ending, so the changes are lost"
            : "the changes stay in memory for the next save")))
  }
}
