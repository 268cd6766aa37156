#if canImport(Observation)
  /// The key path argument whose hashing reveals tracking (see ``SettingObservable``).
  struct TrackingProbe: Hashable, Sendable {
    let interest: TrackingInterest

    static func == (lhs: TrackingProbe, rhs: TrackingProbe) -> Bool {
      lhs.interest === rhs.interest
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(ObjectIdentifier(interest))
      interest.trackingStarted()
    }
  }
#endif
