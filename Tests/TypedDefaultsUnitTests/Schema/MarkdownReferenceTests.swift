import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsSchema
import TypedDefaultsTestSupport

@testable import TypedDefaults

// MARK: - Fixture models

/// Text a table cell must escape: a `|` and a line break in help text, a `|` and a backtick in a
/// default, HTML in help text.
private struct MarkdownSettings: SettingsGroup {
  @Setting(help: "Separator, | or ;\nshown between fields.") var separator = "a|b"
  @Setting(help: "Wraps <code> & more.") var quote = "`x`"
  @Setting(allowedValues: ["a|b", "c"]) var choice = "c"
}

/// `SettingsSchema.markdownReference()` (issue 22): a heading and a table for a project's
/// documentation.
@Suite struct MarkdownReferenceTests {
  @Test func aModelGivesTheExactTable() {
    let reference = SchemaPlayerSettings(backend: InMemoryBackend()).schema.markdownReference()
    #expect(
      reference == """
        # SchemaPlayerSettings

        | Key | Type | Default | Accepts | Description |
        | --- | --- | --- | --- | --- |
        | `com.example.player.apiToken` | `String` | `<secret>` | — | The API token. |
        | `com.example.player.codec` | `SchemaCodec` | `aac` | `aac`, `opus` | The audio codec. |
        | `com.example.player.lastPlayed` | `Date` | `"2001-01-01T00:00:00Z"` | — | — |
        | `com.example.player.nickname` | `String?` | — | — | — |
        | `com.example.player.playback.skipsSilence` | `Bool` | `false` | — | Skip the silence between tracks. |
        | `com.example.player.playback.volume` | `Double` | `0.8` | 0.0...1.0 | Playback volume, 0 to 1. |
        | `com.example.player.quality` | `String` | `auto` | `auto`, `hd`, `sd` | Video quality. |
        | `com.example.player.recentSearches` | `[String]` | `(jazz)` | — | — |
        | `com.example.player.retries` | `Int` | `3` | ≥ 0 | Retries before giving up. |
        | `com.example.player.server` | `URL` | `https://example.com/a` | — | The server to stream from. |

        """)
  }

  @Test func aManagedSettingIsMarked() throws {
    let folder = try TemporaryDirectory()
    let managed = ManagedSettingsSource(managedConfiguration: {
      ["com.example.player.retries": 9, "com.example.player.nickname": "Ada"]
    })
    let store = try LayeredPlistStore(
      persistentFile: folder.file("data.plist"), layers: [.source(managed), .runtime, .persistent])
    let lines = SchemaPlayerSettings(backend: store).schema.markdownReference()
      .split(separator: "\n")
    #expect(lines.contains("| `com.example.player.nickname` | `String?` | — | managed | — |"))
    #expect(
      lines.contains(
        "| `com.example.player.retries` | `Int` | `3` | ≥ 0; managed | Retries before giving up. |")
    )
  }

  @Test func pipesLineBreaksBackticksAndHTMLAreEscaped() {
    let reference = MarkdownSettings(backend: InMemoryBackend()).schema.markdownReference()
    #expect(
      reference == """
        # MarkdownSettings

        | Key | Type | Default | Accepts | Description |
        | --- | --- | --- | --- | --- |
        | `choice` | `String` | `c` | `"a\\|b"`, `c` | — |
        | `quote` | `String` | ``"`x`"`` | — | Wraps &lt;code&gt; &amp; more. |
        | `separator` | `String` | `"a\\|b"` | — | Separator, \\| or ;<br>shown between fields. |

        """)
    // Every row has exactly the five cells: no unescaped `|` is left.
    for line in reference.split(separator: "\n") where line.hasPrefix("|") {
      let unescaped = line.split(separator: "|", omittingEmptySubsequences: false).count
      let escaped = line.components(separatedBy: "\\|").count - 1
      #expect(unescaped - escaped == 7, "\(line)")
    }
  }

  @Test func codeSpansAreFencedAroundBackticks() {
    #expect(MarkdownCell.code("plain") == "`plain`")
    #expect(MarkdownCell.code("a`b") == "``a`b``")
    #expect(MarkdownCell.code("``x") == "``` ``x ```")
    #expect(MarkdownCell.code("two\nlines") == "`two lines`")
    #expect(MarkdownCell.text("a\r\nb\rc") == "a<br>b<br>c")
  }

  @Test func anEmptySchemaGivesTheHeadingAndAnEmptyTable() {
    #expect(
      SettingsSchema(title: "A | B\nC", settings: []).markdownReference() == """
        # A \\| B C

        | Key | Type | Default | Accepts | Description |
        | --- | --- | --- | --- | --- |

        """)
  }
}
