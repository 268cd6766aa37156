#if canImport(Observation)
  /// Observables of settings that are gone and were never tracked, kept for new settings.
  ///
  /// Creating a ``SettingObservable`` costs about 2 µs, almost all of it the Swift runtime
  /// building its key path (a key path with a subscript argument resolves the argument's types by
  /// name each time): most of the cost of creating a model. An observable no tracking ever saw
  /// has no observers in its registrar and no backend observer, so handing it to a new setting is
  /// invisible; one that was tracked is never reused.
  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  enum SettingObservablePool {
    // @unchecked Sendable: the array is behind its lock, and an observable in it is used by no
    // setting until it is taken out.
    private final class Pool: @unchecked Sendable {
      /// Batches of ``SettingObservable``s, each the observables of one binding that went (typed
      /// `AnyObject` as bindings keep them): handing a batch back and taking it again moves one
      /// array, not each observable.
      let batches = Locked(Batches())
    }

    /// The pool's batches and how many observables they hold in all (kept against ``limit``).
    struct Batches {
      var batches: [[AnyObject]] = []
      var count = 0
    }

    private static let pool = Pool()
    /// The most observables kept: the settings of a few large models.
    static let limit = 4096

    /// `count` observables: a batch of that size from the pool if the last one is (a model of the
    /// type that gave it back), else gathered from the pool's batches, then new ones.
    static func take(count: Int) -> [AnyObject] {
      var taken = pool.batches.withLock { pool -> [AnyObject] in
        if pool.batches.last?.count == count {
          pool.count -= count
          return pool.batches.removeLast()
        }
        var gathered: [AnyObject] = []
        while gathered.count < count, var batch = pool.batches.popLast() {
          let needed = count - gathered.count
          if batch.count > needed {
            gathered += batch.suffix(needed)
            batch.removeLast(needed)
            pool.batches.append(batch)
          } else {
            gathered += batch
          }
        }
        pool.count -= gathered.count
        return gathered
      }
      if taken.count < count {
        taken.reserveCapacity(count)
        for _ in taken.count..<count { taken.append(SettingObservable()) }
      }
      return taken
    }

    /// Keeps the observables of a binding that went (one acquisition of the pool's lock):
    /// as they are if none was ever tracked, otherwise those that were not, the others
    /// invalidated.
    ///
    /// Beyond ``limit``, invalidates them instead.
    static func giveBack(_ observables: [AnyObject], someTracked: Bool) {
      var recyclable = observables
      if someTracked {
        recyclable = []
        for observable in observables {
          let interest = unsafeDowncast(observable, to: SettingObservable.self).interest
          if interest.recycle() {
            recyclable.append(observable)
          } else {
            interest.invalidate()
          }
        }
      }
      guard !recyclable.isEmpty else { return }
      let kept = pool.batches.withLock { pool -> Bool in
        guard pool.count + recyclable.count <= limit else { return false }
        pool.count += recyclable.count
        pool.batches.append(recyclable)
        return true
      }
      if !kept {
        for observable in recyclable {
          unsafeDowncast(observable, to: SettingObservable.self).interest.invalidate()
        }
      }
    }
  }
#endif
