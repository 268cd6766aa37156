#if canImport(Observation)
  /// The key path argument whose hashing reveals tracking (see ``SettingObservable``).
  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
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
