import Foundation
import Testing

/// The figures in `Docs/Reliability.md`, each written by the test that measures it.
///
/// The page holds one section per figure, delimited by markers:
///
/// ```markdown
/// <!-- figure: differential -->
/// …whatever the test last published…
/// <!-- /figure -->
/// ```
///
/// A test that produces a figure renders it as Markdown and calls
/// ``publish(_:markdown:deterministic:sourceLocation:)``. With `TYPEDDEFAULTS_WRITE_RELIABILITY=1`
/// in the environment, the section's contents are replaced by the new Markdown (the rest of the
/// page is kept as written); without it, nothing is written (CI runs on a read-only tree), and a
/// figure marked `deterministic` (one that depends only on checked-in inputs, such as the
/// differential table) is compared with the page instead, failing the test if the page is out of
/// date. Figures that vary from run to run (timings, throughput) are only written.
///
/// To add a figure: put a section with a new name and both markers in `Docs/Reliability.md`
/// (under the guarantee it supports, naming the test), then publish to that name from the test.
/// Regenerate with `TYPEDDEFAULTS_WRITE_RELIABILITY=1 swift test --filter <Suite>`.
package enum ReliabilityReport {
  /// The page.
  package static let page = TestPaths.projectRoot.appendingPathComponent("Docs/Reliability.md")

  /// Whether this run writes figures to the page.
  package static var isWriting: Bool {
    ProcessInfo.processInfo.environment["TYPEDDEFAULTS_WRITE_RELIABILITY"] == "1"
  }

  /// Serializes writes: several suites may publish at once.
  private static let lock = NSLock()

  /// Writes (or, for a deterministic figure without the variable set, checks) one figure.
  ///
  /// - Parameters:
  ///   - figure: The section's name, as in `<!-- figure: NAME -->`.
  ///   - markdown: The section's new contents.
  ///   - deterministic: Whether the figure depends only on checked-in inputs, so that the page
  ///     must match it when not regenerating.
  ///   - sourceLocation: Where a failed check or write is recorded; the caller's by default.
  package static func publish(
    _ figure: String,
    markdown: String,
    deterministic: Bool,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    lock.lock()
    defer { lock.unlock() }
    let body = markdown.trimmingCharacters(in: .newlines)
    guard let text = try? String(contentsOf: page, encoding: .utf8) else {
      Issue.record("Cannot read \(page.path)", sourceLocation: sourceLocation)
      return
    }
    guard let range = section(figure, in: text) else {
      Issue.record(
        "\(page.lastPathComponent) has no section <!-- figure: \(figure) --> … <!-- /figure -->",
        sourceLocation: sourceLocation)
      return
    }
    let current = text[range].trimmingCharacters(in: .newlines)
    if isWriting {
      guard current != body else { return }
      let updated = text.replacingCharacters(in: range, with: "\n" + body + "\n")
      do {
        try updated.write(to: page, atomically: true, encoding: .utf8)
      } catch {
        Issue.record("Cannot write \(page.path): \(error)", sourceLocation: sourceLocation)
      }
    } else if deterministic, current != body {
      Issue.record(
        """
        The figure '\(figure)' in Docs/Reliability.md is out of date; regenerate it with \
        TYPEDDEFAULTS_WRITE_RELIABILITY=1 swift test --filter <this suite>. It should read:
        \(body)
        """,
        sourceLocation: sourceLocation)
    }
  }

  /// The range between a figure's opening and closing markers.
  package static func section(_ figure: String, in text: String) -> Range<String.Index>? {
    guard let open = text.range(of: "<!-- figure: \(figure) -->"),
      let close = text.range(of: "<!-- /figure -->", range: open.upperBound..<text.endIndex)
    else { return nil }
    return open.upperBound..<close.lowerBound
  }
}
