import Foundation
import Testing
import TypedDefaultsTestSupport

/// The GitHub Actions workflow and the Swift Package Index manifest, parsed as YAML.
///
/// `.github/workflows/ci.yml` and `.spi.yml` are parsed by python3's `yaml` module: valid YAML,
/// with the jobs and steps the project's CI promises (Docs/ApplePlatforms.md). Skipped, saying
/// so, where python3 or its `yaml` module is missing (the workflow's Linux job installs it).
@Suite(
  .enabled(if: YAMLParser.isAvailable, "python3 with its yaml module (PyYAML) is not installed"))
struct WorkflowTests {
  private let workflow = TestPaths.projectRoot.appendingPathComponent(".github/workflows/ci.yml")

  private func job(_ name: String) throws -> [String: Any] {
    let parsed = try YAMLParser.parse(workflow)
    let jobs = try #require(parsed["jobs"] as? [String: Any])
    return try #require(jobs[name] as? [String: Any], "no job '\(name)' in ci.yml")
  }

  /// The steps' `run` commands, joined.
  private func commands(_ job: [String: Any]) -> [String] {
    (job["steps"] as? [[String: Any]] ?? []).compactMap { $0["run"] as? String }
  }

  /// The steps' `uses` actions.
  private func actions(_ job: [String: Any]) -> [String] {
    (job["steps"] as? [[String: Any]] ?? []).compactMap { $0["uses"] as? String }
  }

  @Test func theWorkflowRunsOnPushesAndPullRequestsWithTheThreeJobs() throws {
    let parsed = try YAMLParser.parse(workflow)
    let triggers = try #require(parsed["on"] as? [String: Any])
    #expect(triggers.keys.contains("push") && triggers.keys.contains("pull_request"))
    let jobs = try #require(parsed["jobs"] as? [String: Any])
    #expect(Set(jobs.keys) == ["linux", "macos", "apple-platforms"])
  }

  @Test func theLinuxJobRunsCIRunInASwift6Image() throws {
    let linux = try job("linux")
    let image = try #require(linux["container"] as? String)
    let version = image.dropFirst("swift:".count).split(separator: "-")[0].split(separator: ".")
    #expect(image.hasPrefix("swift:") && version.count >= 2, "\(image)")
    #expect(Int(version[0]) == 6 && (Int(version[1]) ?? 0) >= 2, "\(image): Swift 6.2 or newer")
    #expect(actions(linux).contains("actions/checkout@v4"))
    #expect(commands(linux).last == ".ci/run")
    #expect(commands(linux).contains { $0.contains("python3-yaml") })
  }

  @Test func theMacOSJobBuildsWithWarningsAsErrorsTestsAndRunsThreadSanitizerOnce() throws {
    let macos = try job("macos")
    #expect((macos["runs-on"] as? String)?.hasPrefix("macos-") == true)
    #expect(actions(macos).contains("actions/checkout@v4"))
    let steps = macos["steps"] as? [[String: Any]] ?? []
    let xcode = steps.first {
      ($0["uses"] as? String)?.hasPrefix("maxim-lobanov/setup-xcode") == true
    }
    #expect((xcode?["with"] as? [String: Any])?["xcode-version"] as? String == "latest-stable")
    let runs = commands(macos)
    #expect(runs.contains { $0.hasPrefix("swift build") && $0.contains("-warnings-as-errors") })
    #expect(runs.contains { $0.hasPrefix("swift test") && !$0.contains("--sanitize") })
    #expect(
      runs.filter { $0.hasPrefix("swift test") && $0.contains("--sanitize=thread") }.count == 1)
  }

  @Test func theApplePlatformsJobBuildsTheLibraryForEachGenericDevice() throws {
    let apple = try job("apple-platforms")
    let matrix = try #require(
      (apple["strategy"] as? [String: Any])?["matrix"] as? [String: Any])
    let platforms = (matrix["include"] as? [[String: Any]] ?? []).compactMap {
      $0["platform"] as? String
    }
    #expect(platforms == ["iOS", "tvOS", "watchOS", "visionOS"])
    let builds = commands(apple).filter { $0.hasPrefix("xcodebuild build") }
    #expect(
      builds.contains {
        $0.contains("-scheme TypedDefaults ")
          && $0.contains("-destination 'generic/platform=${{ matrix.platform }}'")
      }, "\(builds)")
  }

  @Test func theSwiftPackageIndexBuildsTheDocumentationAndWatchOSWithTheLibrarysScheme() throws {
    let spi = try YAMLParser.parse(TestPaths.projectRoot.appendingPathComponent(".spi.yml"))
    #expect(spi["version"] as? Int == 1)
    let configs = try #require((spi["builder"] as? [String: Any])?["configs"] as? [[String: Any]])
    #expect(
      configs.contains {
        ($0["documentation_targets"] as? [String])?.contains("TypedDefaults") == true
      })
    #expect(
      configs.contains {
        $0["platform"] as? String == "watchos" && $0["scheme"] as? String == "TypedDefaults"
      })
  }
}

/// YAML through python3's `yaml` module, as JSON.
enum YAMLParser {
  /// The Python that parses a file with `yaml.safe_load` and prints it as JSON; the key `on`,
  /// which YAML 1.1 reads as `true`, is given back as `"on"`.
  static let script = """
    import json, sys, yaml
    data = yaml.safe_load(open(sys.argv[1]))
    if isinstance(data, dict) and True in data:
        data["on"] = data.pop(True)
    print(json.dumps(data))
    """

  /// Whether python3 and its `yaml` module are installed.
  static let isAvailable: Bool = {
    let result = try? runExecutable(
      URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import yaml"])
    return result?.status == 0
  }()

  /// The parsed file, as a dictionary.
  ///
  /// - Parameter file: The YAML file.
  /// - Returns: Its top-level mapping.
  /// - Throws: Whatever running python3 throws; a failure to parse is recorded as an issue and
  ///   thrown as `ExpectationFailedError` by `#require`.
  static func parse(_ file: URL) throws -> [String: Any] {
    let result = try runExecutable(
      URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, file.path])
    #expect(
      result.status == 0,
      "\(file.lastPathComponent) is not valid YAML: \(String(decoding: result.standardError, as: UTF8.self))"
    )
    let object = try JSONSerialization.jsonObject(with: result.standardOutput)
    return try #require(object as? [String: Any])
  }
}
