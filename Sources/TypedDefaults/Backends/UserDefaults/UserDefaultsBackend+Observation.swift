// UserDefaultsBackend reports its writes itself (see its mutation sites), to the registry every
// backend on its domain in the process shares, which orders them (`recordingWrite`).
extension UserDefaultsBackend: OwnsObserverRegistry {
  package var observers: ObserverRegistry { shared.observers }
}
