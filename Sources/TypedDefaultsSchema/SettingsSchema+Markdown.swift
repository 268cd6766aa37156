// A Markdown reference table made from a schema, for a project's documentation.

import TypedDefaults

extension SettingsSchema {
  /// A Markdown reference of the settings: a level-1 heading with ``title``, then a table with a
  /// row for each setting, in key order.
  ///
  /// ```markdown
  /// # PlayerSettings
  ///
  /// | Key | Type | Default | Accepts | Description |
  /// | --- | --- | --- | --- | --- |
  /// | `codec` | `String` | `aac` | `aac`, `opus` | The audio codec. |
  /// | `volume` | `Double` | `0.8` | 0.0...1.0 | Playback volume, 0 to 1. |
  /// ```
  ///
  /// - **Key**: the full key, with every prefix.
  /// - **Type**: the Swift type as spelled in code (``SettingSchema/typeName``).
  /// - **Default**: the default as stored (as ``PropertyListValue/description`` prints it), in a
  ///   code span; `<secret>` for a secret; `—` for none (an optional defaulting to `nil`, or a
  ///   default computed on each read).
  /// - **Accepts**: the allowed values, each in a code span (a secret's never: `one of its
  ///   secret allowed values`), or the range
  ///   (``SettingSchema/rangeDescription``); then `managed` if the backend enforces the key
  ///   (``SettingSchema/isManaged``); `—` if none of these.
  /// - **Description**: the help text; `—` if none.
  ///
  /// Cells are escaped so that no text can break the table: `|` as `\|` (also in code spans, as
  /// GitHub Flavored Markdown wants), a line break as `<br>`; outside code spans `&`, `<` and `>`
  /// as entities, so help text shows as written rather than as HTML. A code span holding a
  /// backtick is fenced with more backticks than it holds.
  ///
  /// - Returns: The Markdown text, ending in a line feed.
  ///
  /// Thread-safety: a pure function of the schema, a value type; call it from any thread.
  public func markdownReference() -> String {
    var lines = [
      "# \(MarkdownCell.text(title.replacingOccurrences(of: "\n", with: " ")))", "",
      "| Key | Type | Default | Accepts | Description |",
      "| --- | --- | --- | --- | --- |",
    ]
    for setting in settings {
      let cells = [
        MarkdownCell.code(setting.key), MarkdownCell.code(setting.typeName),
        MarkdownCell.defaultValue(of: setting), MarkdownCell.accepts(setting),
        setting.help.map(MarkdownCell.text) ?? MarkdownCell.none,
      ]
      lines.append("| " + cells.joined(separator: " | ") + " |")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}

/// The cells of a Markdown reference table.
package enum MarkdownCell {
  /// An empty cell.
  static let none = "—"

  static func defaultValue(of setting: SettingSchema) -> String {
    if setting.isSecret { return code("<secret>") }
    return setting.defaultValue.map { code($0.description) } ?? none
  }

  static func accepts(_ setting: SettingSchema) -> String {
    var parts: [String] = []
    if setting.isSecret, setting.allowedValues != nil {
      parts.append(text("one of its secret allowed values"))
    } else if let allowedValues = setting.allowedValues {
      parts.append(allowedValues.map { code($0.description) }.joined(separator: ", "))
    } else if let range = setting.rangeDescription {
      parts.append(text(range))
    }
    if setting.isManaged { parts.append("managed") }
    return parts.isEmpty ? none : parts.joined(separator: "; ")
  }

  /// Plain text in a cell: `&`, `<`, `>` as entities, `|` escaped, line breaks as `<br>`.
  package static func text(_ text: String) -> String {
    var escaped = ""
    for character in text {
      switch character {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "|": escaped += "\\|"
      case "\n", "\r", "\r\n": escaped += "<br>"
      default: escaped.append(character)
      }
    }
    return escaped
  }

  /// A code span in a cell: fenced with one more backtick than the longest run in `text`, padded
  /// with spaces when `text` starts or ends with a backtick; `|` escaped, line breaks as spaces
  /// (a code span can't hold a line break).
  package static func code(_ text: String) -> String {
    var content = ""
    for character in text {
      switch character {
      case "|": content += "\\|"
      case "\n", "\r", "\r\n": content += " "
      default: content.append(character)
      }
    }
    var longest = 0
    var run = 0
    for character in content {
      run = character == "`" ? run + 1 : 0
      longest = max(longest, run)
    }
    let fence = String(repeating: "`", count: longest + 1)
    let padding = content.hasPrefix("`") || content.hasSuffix("`") ? " " : ""
    return fence + padding + content + padding + fence
  }
}
