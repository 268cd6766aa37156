import Foundation
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsSchema

/// `explain domain key`: where a key's value comes from, layer by layer.
enum ExplainCommand: Command {
  static let verb = "explain"
  static let synopsis = "explain domain key"
  static let summary = "show each layer's value for a key, and which one wins"
  static let help = """
    usage: settings explain domain key

    For a layered store folder, prints the value each layer holds for the key, highest priority
    first, and marks the one a read returns (LayeredPlistStore.explain):

      ServerURL
        persistent  data.plist     "https://api-v2.example.com"   <- wins
        delivered   JF-info.plist  "https://jf.example.net"
        bundled     Info.plist     -

    Every layer the app's store recorded is listed, in its order, with where its values come
    from (a file, a folder, $PREFIX_* for environment variables, read from the tool's own
    environment). "-" is a layer without the key; "(no file)" a layer whose file isn't there;
    "<secret>" the value of a layer holding secrets; "(not visible to the tool)" a layer the
    tool can't open (the app's command-line arguments, a source of the app's own), where the
    app may find a value the tool can't show. A managed layer's winning value is marked
    "<- wins (managed: can't be changed)". (The runtime layer, values an app sets for one run,
    is always empty in another process, and is not shown.) A plist file or a suite has one
    layer, and explain says so:

      Theme
        file        /home/ada/config.plist  dark   <- wins (its only layer)

    Where the app wrote its schema next to the store (try model.writeSchema(): see `settings
    write --help`), the first line adds the key's declaration and help text, and a last row, the
    schema's, shows the declared default, which wins when no layer holds the key; a secret's
    values show as <secret>:

      volume (Double, 0.0...1.0): Playback volume, 0 to 1.
        persistent  data.plist              -
        bundled     Info.plist              -
        declared    data.plist.schema.json  "0.8"   <- wins (declared default)

    With a schema, each layer's value is judged as the app's store judges it: a text layer's
    text (an environment variable, a ConfigMap file) is read as the declared type, and a value
    the setting refuses (the wrong type, outside its range, not an allowed value) is marked
    "<- passed over: <why>", the next layer's value winning, as in the app:

      port (Int, 1...65535)
        environment  $SVC_*                  70000   <- passed over: is not allowed (the setting accepts in 1...65535)
        persistent   data.plist              -
        delivered    JF-info.plist           9000   <- wins
        declared     data.plist.schema.json  8080

    Values print on one line, in old-style plist syntax.
    Errors: a key no layer holds: settings: The domain/default pair of (<domain>, <key>) does not
    exist

    Example:
      settings explain ./store ServerURL
    \(HelpText.domains)
    """

  static func run(_ arguments: inout Arguments) throws(Failure) {
    let domain = try arguments.domain()
    let key = try arguments.required("key")
    try arguments.finish()
    let setting = try domain.schema()?[key]
    let secret = LayeredPlistStore.Provenance.secretPlaceholder
    var rows: [(layer: String, file: String, value: String, mark: String)] = []
    var isHeld = true
    switch domain.kind {
    case .layered(let files):
      guard let store = try domain.openLayeredStore() else { throw Failure.missingDomain(domain) }
      let provenance = store.explain(key)
      if provenance.source == nil, setting == nil {
        throw Failure.missingKey(key, in: domain, invisibleLayers: files.invisibleLayers)
      }
      isHeld = provenance.source != nil
      // What the app's store passes over (with a schema, the store judged each layer's value
      // as the app's does).
      let passedOver = store.passedOverValues(ofKey: key)
      // The runtime layer is this process's own, always empty here.
      for entry in files.layers where entry.layer != .runtime {
        let layer = entry.layer
        let shown: String
        let hides = provenance.hidesValue(in: layer) || setting?.isSecret == true
        if entry.definition == nil {
          shown = "(not visible to the tool)"
        } else if let value = provenance.values[layer] ?? provenance.passedOver[layer] {
          shown = hides ? secret : OldStylePlist.inline(value)
        } else {
          shown = store.layersLoadedFromDisk.contains(layer) ? "-" : "(no file)"
        }
        var mark =
          if let refused = passedOver[layer] {
            "   <- passed over: \(refused.problem)"
          } else if layer != provenance.source {
            ""
          } else if provenance.forcedBy == layer {
            "   <- wins (\(layer): can't be changed)"
          } else {
            "   <- wins"
          }
        // What the layer's source says of itself: a fleet source offline.
        if let condition = provenance.layerConditions[layer] { mark += "   (\(condition))" }
        // A record's names and paths are bytes of a file: never terminal control sequences.
        rows.append(
          (
            Output.escapingControlCharacters(layer.description),
            Output.escapingControlCharacters(entry.label), shown,
            Output.escapingControlCharacters(mark)
          ))
      }
    case .file, .suite:
      let layer: String
      let file: String
      if case .file(let url) = domain.kind {
        (layer, file) = ("file", url.path)
      } else {
        (layer, file) = ("suite", domain.storeFile?.path ?? "")
      }
      var value: PropertyListValue?
      do {
        value = try ReadCommand.value(of: key, in: domain)
      } catch {
        // A key the schema declares is explained with its declared default.
        guard setting != nil, try domain.exists() else { throw error }
      }
      isHeld = value != nil
      let shown = value.map { setting?.isSecret == true ? secret : OldStylePlist.inline($0) }
      rows.append((layer, file, shown ?? "-", isHeld ? "   <- wins (its only layer)" : ""))
    case .unresolved:
      throw Failure.missingDomain(domain)
    }
    var header = key
    if let setting {
      rows.append(declaredRow(setting, label: domain.schemaLabel, wins: !isHeld))
      // A schema's words are bytes of a file: never terminal control sequences.
      let declared =
        " (\(SchemaCheck.declaration(of: setting)))" + (setting.help.map { ": \($0)" } ?? "")
      header += Output.escapingControlCharacters(declared)
    }
    let layerWidth = max(11, (rows.map(\.layer.count).max() ?? 0) + 1)
    let fileWidth = rows.map(\.file.count).max() ?? 0
    var text = header + "\n"
    for row in rows {
      text +=
        "  " + row.layer.padded(to: layerWidth) + " " + row.file.padded(to: fileWidth) + "  "
        + row.value + row.mark + "\n"
    }
    try Output.write(text)
  }

  /// The row of the schema's declaration: the declared default (`<secret>` for a secret's, `-`
  /// for none), which wins when no layer holds the key.
  private static func declaredRow(
    _ setting: SettingSchema, label: String, wins: Bool
  ) -> (layer: String, file: String, value: String, mark: String) {
    let value = setting.defaultValue.map {
      setting.isSecret ? LayeredPlistStore.Provenance.secretPlaceholder : OldStylePlist.inline($0)
    }
    let mark = wins && value != nil ? "   <- wins (declared default)" : ""
    return ("declared", Output.escapingControlCharacters(label), value ?? "-", mark)
  }
}

extension String {
  /// The string with spaces added to reach `width` characters.
  fileprivate func padded(to width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
