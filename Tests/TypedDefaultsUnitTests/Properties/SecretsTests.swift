import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

// MARK: - Fixture models

private let sentinel = "SECRET-123"

/// A model with a secret, a second secret added later with only the flag, and an ordinary
/// setting (H42).
private struct AccountSettings: SettingsGroup {
  @Setting("apiToken", default: "", secret: true) var apiToken: String
  @Setting("refreshToken", secret: true) var refreshToken: String?
  @Setting("userName", default: "guest") var userName: String
}

private final class AccountModel: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting.
  @Setting("apiToken", default: "", secret: true) var apiToken: String
  @Setting var sessionCount = 0
}

/// A Codable secret whose encoding fails with a message quoting the value.
private struct Credential: Codable, SettingValue, Equatable {
  var token: String
  func encode(to encoder: any Encoder) throws {
    throw EncodingError.invalidValue(
      token, .init(codingPath: [], debugDescription: "cannot encode \(token)"))
  }
}

private struct CredentialSettings: SettingsGroup {
  @Setting("credential", default: Credential(token: ""), secret: true) var credential: Credential
}

/// Secrets: a value declared secret never shows in descriptions, dumps, snapshots, exports,
/// diagnostics or errors unless asked for (H42, H44).
@Suite struct SecretsTests {
  @Test(arguments: BackendFactory.all)
  func aSecretsValueAppearsInNoDescriptionSnapshotOrExport(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let settings = AccountSettings(backend: backend)
      settings.apiToken = "token \(sentinel)"
      settings.refreshToken = "refresh \(sentinel)"
      settings.userName = "ada"

      var dumped = ""
      dump(settings, to: &dumped)
      let outputs = [
        String(describing: settings), String(reflecting: settings), dumped,
        String(describing: settings.$apiToken), String(describing: settings.$refreshToken),
        settings.allSettings.map(\.description).joined(separator: "\n"),
        settings.allSettings.map(\.valueDescription).joined(separator: "\n"),
        "\(settings.snapshot())", "\(settings.exportedValues())",
        "\(settings.exportedValues(options: .init(omitsDefaultValues: true)))",
      ]
      for output in outputs {
        #expect(!output.contains(sentinel), "\(output.prefix(300))")
      }
      #expect(settings.$apiToken.description == "apiToken: String = <secret>")
      #expect(settings.snapshot() == ["userName": "ada"])
      #expect(settings.exportedValues() == ["userName": "ada"])
      // Asked for explicitly, they are exported.
      #expect(
        settings.exportedValues(options: .init(includesSecrets: true)) == [
          "apiToken": .string("token \(sentinel)"), "refreshToken": .string("refresh \(sentinel)"),
          "userName": "ada",
        ])
      #expect(settings.allSettings.map(\.isSecret) == [true, true, false])
      #expect(settings.apiToken == "token \(sentinel)")  // reading is unchanged
    }
  }

  @Test(arguments: BackendFactory.all)
  func aChangeOfASecretKeyPrintsNoValue(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      let view = backend.scoped(to: "vault.")
      let settings = AccountSettings(backend: view)
      let seen = Locked<[SettingsChange]>([])
      let raw = backend.observe(key: "vault.apiToken") { change in
        seen.withLock { $0.append(change) }
      }
      let viewed = view.observe(key: "apiToken") { change in seen.withLock { $0.append(change) } }
      settings.apiToken = "token \(sentinel)"
      settings.userName = "ada"
      withExtendedLifetime((raw, viewed)) {}
      let changes = seen.withLock { $0 }
      #expect(changes.count == 2)
      for change in changes {
        #expect(!"\(change)".contains(sentinel), "\(change)")
        #expect(change.description.hasSuffix("apiToken → <secret>"))
        #expect(change.newValue == .string("token \(sentinel)"))  // the value itself is real
      }
      #expect(
        SettingsChange(key: "vault.userName", newValue: "ada").description == "vault.userName → ada"
      )
    }
  }

  /// A secret's change hides its value however the change is printed (issue 37, item 7).
  ///
  /// Interpolating a secret's change printed the secret; its `newValue` is the value itself,
  /// for the app to use.
  @Test func aSecretsChangeHidesItsValueHoweverTheChangeIsPrinted() throws {
    let backend = InMemoryBackend()
    let settings = AccountSettings(backend: backend)
    let seen = Locked<[SettingsChange]>([])
    let token = backend.observe(key: "apiToken") { change in seen.withLock { $0.append(change) } }
    settings.apiToken = sentinel
    withExtendedLifetime(token) {}
    let change = try #require(seen.withLock { $0 }.first)
    var dumped = ""
    dump(change, to: &dumped)
    #expect("\(change)" == "apiToken → <secret>")
    #expect(String(reflecting: change) == "apiToken → <secret>")
    #expect("\([change])" == "[apiToken → <secret>]")
    #expect("\(Optional(change) as Any)" == "Optional(apiToken → <secret>)")
    #expect(
      dumped == """
        ▿ apiToken → <secret>
          - key: "apiToken"
          - newValue: "<secret>"

        """)
    #expect(change.newValue == .string(sentinel))
    // A plain key's change shows its value everywhere.
    var plain = ""
    dump(SettingsChange(key: "userName", newValue: "ada"), to: &plain)
    #expect(plain.contains("ada"))
  }

  @Test func aSecretInAModelClassIsLeftOutOfItsDump() throws {
    let model = AccountModel(backend: InMemoryBackend())
    model.apiToken = sentinel
    var dumped = ""
    dump(model, to: &dumped)
    #expect(!dumped.contains(sentinel))
    #expect(dumped.contains("<secret>"))
    #expect(!String(describing: model.allSettings).contains(sentinel))
  }

  @Test(arguments: BackendFactory.all)
  func aWrongTypedSecretIsReportedWithoutItsValue(_ factory: BackendFactory) async throws {
    try await factory.withBackend { backend in
      try backend.setValue(.array([.string(sentinel)]), forKey: "apiToken")
      let settings = AccountSettings(backend: backend)
      let (value, diagnostics) = collectingDiagnostics { settings.apiToken }
      #expect(value == "")
      let diagnostic = try #require(diagnostics.first { $0.key == "apiToken" })
      #expect(diagnostic.kind == .typeMismatch)
      #expect(diagnostic.storedValue == nil)
      #expect(!diagnostic.description.contains(sentinel))
      #expect(!settings.allSettings[0].description.contains(sentinel))
      #expect(settings.allSettings[0].description.contains("can't be read"))
    }
  }

  @Test func aSecretThatCantBeEncodedFailsWithoutItsValueInTheErrorOrDiagnostic() throws {
    let settings = CredentialSettings(backend: InMemoryBackend())
    #expect {
      try settings.$credential.set(Credential(token: sentinel))
    } throws: { error in
      let message = "\(error)"
      return message.contains("credential") && !message.contains(sentinel)
    }
    let (_, diagnostics) = collectingDiagnostics {
      settings.credential = Credential(token: sentinel)
    }
    #expect(diagnostics.map(\.kind) == [.writeFailed])
    #expect(!diagnostics.map(\.description).joined().contains(sentinel))
  }

  @Test func aSecretThatXMLCantHoldFailsWithoutItsValueInTheError() throws {
    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), options: .init(format: .xml))
    let settings = AccountSettings(backend: store)
    #expect {
      try settings.$apiToken.set("\(sentinel)\u{1}")
    } throws: { error in
      !"\(error)".contains(sentinel)
    }
  }

  @Test func anImportErrorNamesASecretsKeyAndTypesOnly() throws {
    let settings = AccountSettings(backend: InMemoryBackend())
    #expect {
      try settings.importValues(["apiToken": .array([.string(sentinel)])])
    } throws: { error in
      let message = "\(error)"
      return message.contains("'apiToken': expected String, found Array")
        && !message.contains(sentinel)
    }
  }

  // MARK: - File permissions (H44)

  @Test func aStoreFileHoldingASecretStaysOwnerOnlyOverManySavesAndKeepsAWiderModeItWasGiven()
    throws
  {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file)
    let settings = AccountSettings(backend: store)
    for index in 0..<100 {
      settings.apiToken = "\(sentinel)-\(index)"
      try store.save()
    }
    #expect(try Self.permissions(of: file) == 0o600)
    // The library keeps a file's mode: a file someone made wider stays as they made it.
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
    settings.apiToken = sentinel
    try store.save()
    #expect(try Self.permissions(of: file) == 0o644)
  }

  @Test func anExportedFileIsOwnerOnly() throws {
    let directory = try TemporaryDirectory()
    let settings = AccountSettings(backend: InMemoryBackend())
    settings.apiToken = sentinel
    let file = directory.file("export.plist")
    try settings.exportValues(to: file, options: .init(includesSecrets: true))
    #expect(try Self.permissions(of: file) == 0o600)
  }

  private static func permissions(of url: URL) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
  }
}

/// A model on a view of a store: its secret's key in the store is the view's prefix and its own.
private struct ScopedAccount: SettingsGroup {
  @Setting("token", default: "", secret: true) var token: String
}

/// What a store says about a key a model bound to it declared secret: `explain`, its `dump`,
/// and the store's own descriptions (issue 17, item 8).
@Suite struct StoreSecretsTests {
  @Test func explainShowsNoSecretThatABoundModelDeclared() throws {
    let directory = try TemporaryDirectory()
    let delivered = directory.file("JF-info.plist")
    try PropertyListFile(url: delivered).write(["apiToken": .string("shipped \(sentinel)")])
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), deliveredFile: delivered,
      options: .init(savesAtExit: false))
    let settings = AccountSettings(backend: store)
    settings.apiToken = "token \(sentinel)"
    try store.setValue(.string("runtime \(sentinel)"), forKey: "apiToken", in: .runtime)
    try store.setValueForNextLaunch(.string("next \(sentinel)"), forKey: "apiToken")
    settings.userName = "ada"

    let provenance = store.explain("apiToken")
    var dumped = ""
    dump(provenance, to: &dumped)
    for output in [provenance.description, String(describing: provenance), dumped] {
      #expect(!output.contains(sentinel), "\(output)")
    }
    #expect(provenance.isSecret)
    #expect(
      provenance.description == """
        apiToken
          runtime     <secret>   <- wins
          persistent  <secret>
          delivered   <secret>
          bundled     (no file)
          next launch <secret>
        """)
    // The values themselves are there for code that asks, as `value(forKey:)` gives them.
    #expect(provenance.value == .string("runtime \(sentinel)"))
    // A key no model declared secret is shown as stored.
    #expect(!store.explain("userName").isSecret)
    #expect(store.explain("userName").description.contains("ada"))
  }

  @Test func aSecretDeclaredThroughAViewIsHiddenUnderItsFullKey() throws {
    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), options: .init(savesAtExit: false))
    let account = ScopedAccount(backend: store.scoped(to: "account."))
    account.token = sentinel
    #expect(store.explain("account.token").isSecret)
    #expect(!store.explain("account.token").description.contains(sentinel))
  }

  @Test func aKeyOnceDeclaredSecretStaysSecretWhenAnotherModelDeclaresItPlain() throws {
    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), options: .init(savesAtExit: false))
    _ = AccountSettings(backend: store)
    _ = PlainToken(backend: store)
    try store.setValue(.string(sentinel), forKey: "apiToken")
    #expect(!store.explain("apiToken").description.contains(sentinel))
  }
}

/// The same key as ``AccountSettings/apiToken``, not declared secret.
private struct PlainToken: SettingsGroup {
  @Setting("apiToken", default: "") var apiToken: String
}
