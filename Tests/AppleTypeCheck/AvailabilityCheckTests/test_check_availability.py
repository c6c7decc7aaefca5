"""The availability check, proven on known-bad and known-good snippets (run by .ci/run).

Each snippet in Snippets/bad/ names, in `// expect:` lines, findings the check must report
(substrings of its output); every snippet in Snippets/good/ must give none. All are checked
against the Core Location stub, for the package's platforms (iOS 17, macOS 14).
"""
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TYPE_CHECK = os.path.dirname(HERE)
SCRIPT = os.path.join(TYPE_CHECK, "check-availability.py")
SNIPPETS = os.path.join(HERE, "Snippets")
PLATFORMS = ["--platform", "iOS=17.0", "--platform", "macOS=14.0"]
STUBS = ["--stub", f"CoreLocation={os.path.join(TYPE_CHECK, 'CoreLocationStub')}"]


def run_check(path):
    result = subprocess.run(
        [sys.executable, SCRIPT, *STUBS, *PLATFORMS, path], capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


def snippets(kind):
    folder = os.path.join(SNIPPETS, kind)
    return sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".swift"))


class KnownBadSnippets(unittest.TestCase):
    def test_each_known_bad_snippet_fails_with_its_expected_findings(self):
        bad = snippets("bad")
        self.assertGreaterEqual(len(bad), 5)
        for path in bad:
            with self.subTest(snippet=os.path.basename(path)):
                with open(path, encoding="utf-8") as snippet:
                    expected = re.findall(r"^// expect: (.+)$", snippet.read(), re.MULTILINE)
                self.assertTrue(expected, "a known-bad snippet names what it expects")
                status, out, err = run_check(path)
                self.assertEqual(status, 1, f"expected findings, got status {status}:\n{out}{err}")
                for text in expected:
                    self.assertIn(text.strip(), out)


class KnownGoodSnippets(unittest.TestCase):
    def test_each_known_good_snippet_passes(self):
        good = snippets("good")
        self.assertGreaterEqual(len(good), 2)
        for path in good:
            with self.subTest(snippet=os.path.basename(path)):
                status, out, err = run_check(path)
                self.assertEqual(status, 0, f"unexpected findings:\n{out}{err}")


class CodeThatDoesNotCompile(unittest.TestCase):
    def test_a_wrong_name_is_a_type_check_failure_not_a_pass(self):
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "availability-wrong-name.swift")
        with open(path, "w") as out:
            out.write("import CoreLocation\nfunc f(_ e: CLMonitor.Event) -> Bool { e.notAnApplePropertyName }\n")
        status, _, err = run_check(path)
        self.assertEqual(status, 2)
        self.assertIn("notAnApplePropertyName", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
