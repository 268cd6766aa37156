import TypedDefaults

/// `delete domain [key]`: removes a key, or every key of the domain.
enum DeleteCommand: Command {
  static let verb = "delete"
  static let synopsis = "delete domain [key]"
  static let summary = "remove a key, or every key of a domain"
  static let help = """
    usage: settings delete domain [key]

    Removes the key from the domain; with no key, removes every key. A plist file or data.plist
    stays, holding an empty dictionary, so other processes sharing it keep working; a suite's
    file is removed by UserDefaults once the suite is empty (the domain no longer exists, as
    after `defaults delete domain`). Saved as `write` saves.

    In a store folder, only data.plist (the persistent layer) is changed: deleting a key may
    reveal the value JF-info.plist or Info.plist holds for it, and a key that only those
    read-only files hold can't be deleted (an error says which file holds it; deleting every
    key leaves those keys). When there is nothing to delete, nothing is written: a store
    folder without data.plist doesn't get one. A key a managed layer forces can't be deleted
    (exit status 1, naming the key and the layer; deleting every key leaves it).

    Errors: a key the domain lacks:
      settings: The domain/default pair of (<domain>, <key>) does not exist
    and a domain that doesn't exist: settings: Domain <domain> does not exist

    Examples:
      settings delete com.example.app Name
      settings delete ./config.plist
    \(HelpText.domains)
    """

  static func run(_ arguments: inout Arguments) throws(Failure) {
    let domain = try arguments.domain()
    let key = arguments.next()
    try arguments.finish()
    guard try domain.exists() else { throw Failure.missingDomain(domain) }
    let target = try domain.openForWriting()
    if let key {
      if let source = target.forcingSource(ofKey: key) {
        throw Failure.forced(key, by: source, verb: "delete")
      }
      guard target.ownValue(forKey: key) != nil else {
        if let source = target.readOnlySource(ofKey: key) {
          throw Failure(
            "Cannot delete '\(key)' from \(domain.name): its value comes from \(source), "
              + "which is read-only")
        }
        throw Failure.missingKey(key, in: domain)
      }
      try target.setValue(nil, forKey: key)
    } else {
      // A key a managed layer forces can't be removed: it stays, as read-only layers' keys do.
      let keys = target.values.keys.filter {
        target.ownValue(forKey: $0) != nil && target.forcingSource(ofKey: $0) == nil
      }
      // Nothing to delete (an empty domain, or a store folder whose values all come from its
      // read-only files): nothing is saved, so no data.plist is created.
      guard !keys.isEmpty else { return }
      for key in keys { try target.setValue(nil, forKey: key) }
    }
    try target.save()
  }
}
