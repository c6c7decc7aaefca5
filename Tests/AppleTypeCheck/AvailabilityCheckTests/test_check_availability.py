"""The availability check, proven on known-bad and known-good snippets (run by .ci/run).

Each snippet in Snippets/bad/ names, in `// expect:` lines, findings the check must report
(substrings of its output lines); every snippet in Snippets/good/ must give none. All are
checked against the Core Location stub, for the package's platforms (iOS 17, macOS 14) unless
the snippet names others in a `// platforms: iOS=16.0 macOS=13.0` line. Snippets with the same
platforms are checked in one run (`--each`: one build of the stubs, each snippet a module of
its own), and each snippet's findings are read from the lines that name it.
"""
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import unittest
from functools import lru_cache

HERE = os.path.dirname(os.path.abspath(__file__))
TYPE_CHECK = os.path.dirname(HERE)
SCRIPT = os.path.join(TYPE_CHECK, "check-availability.py")
SNIPPETS = os.path.join(HERE, "Snippets")
PLATFORMS = ("iOS=17.0", "macOS=14.0")
STUBS = ["--stub", f"CoreLocation={os.path.join(TYPE_CHECK, 'CoreLocationStub')}"]
# As check-apple.py checks code that touches a stub: Xcode's Swift 6 build too, and the
# toolchain's own availability (standard library, Synchronization, Observation, Foundation's table).
XCODE = ["--strict", "--toolchain-availability", os.path.join(TYPE_CHECK, "FoundationAvailability.tsv"),
         "--cache", os.path.join(TYPE_CHECK, ".build", "availability-cache")]


def run_check(paths, platforms=PLATFORMS, each=False):
    arguments = [argument for platform in platforms for argument in ("--platform", platform)]
    result = subprocess.run(
        [sys.executable, SCRIPT, *STUBS, *XCODE, *arguments, *(["--each"] if each else []), *paths],
        capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


def snippets(kind):
    folder = os.path.join(SNIPPETS, kind)
    return sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".swift"))


def source(path):
    with open(path, encoding="utf-8") as snippet:
        return snippet.read()


def platforms_of(path):
    named = re.search(r"^// platforms: (.+)$", source(path), re.MULTILINE)
    return tuple(named.group(1).split()) if named else PLATFORMS


@lru_cache(maxsize=None)
def checked(kind):
    """{snippet: (its finding lines, the run's stderr)} for every snippet of `kind`."""
    groups = {}
    for path in snippets(kind):
        groups.setdefault(platforms_of(path), []).append(path)
    out = {}
    for platforms, paths in groups.items():
        status, stdout, stderr = run_check(paths, platforms, each=True)
        assert status in (0, 1), f"the snippets of {kind}/ must type-check (status {status}):\n{stderr}"
        for path in paths:
            out[path] = ([line for line in stdout.splitlines() if line.startswith(path + ":")], stderr)
    return out


class KnownBadSnippets(unittest.TestCase):
    def test_each_known_bad_snippet_fails_with_its_expected_findings(self):
        bad = snippets("bad")
        self.assertGreaterEqual(len(bad), 30)
        for path, (findings, stderr) in checked("bad").items():
            with self.subTest(snippet=os.path.basename(path)):
                expected = re.findall(r"^// expect: (.+)$", source(path), re.MULTILINE)
                self.assertTrue(expected, "a known-bad snippet names what it expects")
                self.assertTrue(findings, f"expected findings, got none:\n{stderr}")
                for text in expected:
                    self.assertTrue(
                        any(text.strip() in line for line in findings),
                        f"missing {text.strip()!r} in:\n" + "\n".join(findings))


class KnownGoodSnippets(unittest.TestCase):
    def test_each_known_good_snippet_passes(self):
        good = snippets("good")
        self.assertGreaterEqual(len(good), 10)
        for path, (findings, _) in checked("good").items():
            with self.subTest(snippet=os.path.basename(path)):
                self.assertEqual(findings, [], "unexpected findings")


def load_checker():
    spec = importlib.util.spec_from_file_location("check_availability", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class AttributeFormsTheStubsMayUse(unittest.TestCase):
    """`@available` forms the Core Location stub does not use yet, as the compiler dumps them."""

    def setUp(self):
        self.checker = load_checker()

    def test_star_unavailable_is_unavailable_on_every_platform(self):
        availability = self.checker.Availability().refined([{"domain": "*", "unavailable": True}])
        self.assertTrue(availability.is_unavailable("iOS"))
        self.assertTrue(availability.is_unavailable("macOS"))

    def test_deprecated_without_a_version_is_deprecated_from_the_start(self):
        availability = self.checker.Availability().refined(
            [{"domain": "iOS", "deprecated": True}, {"domain": "*", "deprecated": True, "message": "old"}])
        self.assertEqual(availability.deprecation("iOS"), ((0, 0, 0), ""))
        self.assertEqual(availability.deprecation("macOS"), ((0, 0, 0), "old"))

    def test_obsoleted_is_kept_per_platform(self):
        availability = self.checker.Availability().refined([{"domain": "iOS", "introduced": "2", "obsoleted": "16"}])
        self.assertEqual(availability.obsoleted, {"iOS": (16, 0, 0)})
        self.assertEqual(availability.introduced, {"iOS": (2, 0, 0)})


class SettledConditions(unittest.TestCase):
    SOURCE = "#if os(iOS) || os(tvOS)\n#elseif canImport(AppKit) && !targetEnvironment(macCatalyst)\n#endif\n"

    def settled(self, platform):
        out = load_checker().settle_conditions(self.SOURCE, platform)
        self.assertEqual(len(out), len(self.SOURCE), "positions stay")
        return [" ".join(line.split()) for line in out.splitlines()]

    def test_each_platform_takes_its_own_branch(self):
        self.assertEqual(self.settled("iOS")[:2], ["#if true || false", "#elseif false && !false"])
        self.assertEqual(self.settled("macOS")[:2], ["#if false || false", "#elseif true && !false"])
        self.assertEqual(self.settled("tvOS")[:2], ["#if false || true", "#elseif false && !false"])

    def test_mac_catalyst_is_ios_in_the_catalyst_environment(self):
        self.assertEqual(self.settled("macCatalyst")[:2], ["#if true || false", "#elseif false && !true"])


class ExitStatusAndFormat(unittest.TestCase):
    def test_a_finding_is_status_1_with_compiler_style_lines_for_each_platform(self):
        path = os.path.join(SNIPPETS, "bad", "service-session-in-ios17-scope.swift")
        status, out, _ = run_check([path])
        self.assertEqual(status, 1)
        lines = out.splitlines()
        for line in lines:
            self.assertRegex(line, rf"^{re.escape(path)}:6:\d+: error: \[(iOS 17\.0|macOS 14\.0)\] 'CLServiceSession")
        self.assertIn(f"{path}:6:29: error: [iOS 17.0] 'CLServiceSession' is only available in iOS 18.0", out)
        self.assertIn(f"{path}:6:29: error: [macOS 14.0] 'CLServiceSession' is unavailable in macOS", out)

    def test_no_finding_is_status_0_and_no_output(self):
        status, out, _ = run_check([os.path.join(SNIPPETS, "good", "diagnostics-behind-checks.swift")])
        self.assertEqual((status, out), (0, ""))

    def test_platform_names_are_apple_spellings_in_any_case_and_others_are_refused(self):
        path = os.path.join(SNIPPETS, "bad", "diagnostics-in-ios17-scope.swift")
        status, out, _ = run_check([path], platforms=("ios=17.0",))
        self.assertEqual(status, 1)
        self.assertIn("[iOS 17.0] 'CLMonitor.Event.accuracyLimited'", out)
        status, _, err = run_check([path], platforms=("android=14",))
        self.assertEqual(status, 2)
        self.assertIn("--platform android=14", err)

    def test_a_wrong_name_is_a_type_check_failure_not_a_pass(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "wrong-name.swift")
            with open(path, "w") as out:
                out.write("import CoreLocation\nfunc f(_ e: CLMonitor.Event) -> Bool { e.notAnApplePropertyName }\n")
            status, _, err = run_check([path])
            self.assertEqual(status, 2)
            self.assertIn("notAnApplePropertyName", err)
            # Checked with others, the broken file still fails the run, and the others are still checked.
            bad = os.path.join(SNIPPETS, "bad", "service-session-in-ios17-scope.swift")
            status, out, err = run_check([path, bad], each=True)
            self.assertEqual(status, 2)
            self.assertIn("notAnApplePropertyName", err)
            self.assertIn("'CLServiceSession' is only available in iOS 18", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
