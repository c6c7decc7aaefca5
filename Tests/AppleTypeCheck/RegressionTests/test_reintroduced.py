"""The full Apple check fails on each mistake an app build would fail on, re-introduced into a
copy of the package (run by .ci/run after check-apple.py, which needs the same build):

- `String(validating:as:)` (iOS 18 / macOS 15) in GeoFormats;
- Synchronization's `Mutex` (iOS 18 / macOS 15) in Geofencing;
- a switch over an SDK enum without `@unknown default` in an Apple file;
- a `@MainActor` delegate of the nonisolated `CLLocationManagerDelegate` in an Apple file;
- a `CLCircularRegion` (not Sendable) sent to the main actor, in the example;
- an iOS 18 Foundation API in the example.

Each mistake is a file of its own added to the copy (the package's files may change; these do
not depend on them), and each must be reported at that file with Xcode's message. The mistakes
of the Apple files stop the compiler before SIL, where the region check runs, so the example's
are checked in a second copy, side by side.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
TYPE_CHECK = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(TYPE_CHECK))
CHECK_APPLE = os.path.join(TYPE_CHECK, "check-apple.py")

DELEGATE_METHODS = """
    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {}
    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {}
    func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion) {}
    func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion) {}
    func locationManager(
        _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error
    ) {}
    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {}
    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {}
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {}
"""

# (copy, group checked, file added, its source, what the check must say about it)
MISTAKES = [
    ("package", "GeoFormats", "Sources/GeoFormats/ReintroducedValidating.swift",
     "func reintroducedDecode(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }\n",
     "'String.init(validating:as:)' is only available in iOS 18.0 or newer"),
    ("package", "Geofencing", "Sources/Geofencing/ReintroducedMutex.swift",
     "import Synchronization\n\nfinal class ReintroducedCounter: Sendable {\n    let count = Mutex(0)\n}\n",
     "'Mutex' is only available in iOS 18.0 or newer"),
    ("package", "CoreLocationBridgeApple", "Sources/CoreLocationBridge/Apple/ReintroducedSwitch.swift",
     "import CoreLocation\n\nfunc reintroducedName(_ status: CLAuthorizationStatus) -> String {\n"
     "    switch status {\n    case .notDetermined: return \"?\"\n    case .restricted: return \"r\"\n"
     "    case .denied: return \"d\"\n    case .authorizedAlways: return \"a\"\n"
     "    #if os(iOS)\n    case .authorizedWhenInUse: return \"w\"\n    #endif\n    }\n}\n",
     "may have additional unknown values"),
    ("package", "CoreLocationBridgeApple", "Sources/CoreLocationBridge/Apple/ReintroducedDelegate.swift",
     "import CoreLocation\nimport Foundation\n\n@MainActor\n"
     "final class ReintroducedWatcher: NSObject, CLLocationManagerDelegate {" + DELEGATE_METHODS + "}\n",
     "crosses into main actor-isolated code"),
    ("example", "ShopAlerts", "Examples/ShopAlerts/ReintroducedRegion.swift",
     "import CoreLocation\n\n@MainActor func reintroducedShow(_ region: CLCircularRegion) {}\n\n"
     "func reintroducedReport(_ region: CLCircularRegion) async {\n    await reintroducedShow(region)\n"
     "    print(region.radius)\n}\n",
     "sending 'region' risks causing data races"),
    ("example", "ShopAlerts", "Examples/ShopAlerts/ReintroducedFoundation.swift",
     "import Foundation\n\nfunc reintroducedDays(from start: Date) -> [Date] {\n"
     "    Array(Calendar.current.dates(byAdding: .day, value: 1, startingAt: start).prefix(3))\n}\n",
     "'Calendar.dates(byAdding:value:startingAt:in:wrappingComponents:)' is only available in iOS 18.0"),
]


def package_copy(folder):
    """The files check-apple.py reads, copied into `folder`."""
    for part in ("Sources", "Examples/ShopAlerts", "Tests/LeanConsumer/Sources"):
        shutil.copytree(os.path.join(ROOT, part), os.path.join(folder, part), symlinks=True)
    os.makedirs(os.path.join(folder, "docs"))
    shutil.copy(os.path.join(ROOT, "docs", "ios.md"), os.path.join(folder, "docs", "ios.md"))


def check_copy(copy):
    """Adds the mistakes of `copy` to a copy of the package and runs the check on their groups."""
    mistakes = [m for m in MISTAKES if m[0] == copy]
    folder = tempfile.mkdtemp(prefix=f"reintroduced-{copy}-")
    try:
        package_copy(folder)
        for _, _, path, source, _ in mistakes:
            with open(os.path.join(folder, path), "w", encoding="utf-8") as out:
                out.write(source)
        only = sorted({group for _, group, _, _, _ in mistakes})
        command = [sys.executable, CHECK_APPLE, "--root", folder, "--jobs", "1"]
        for group in only:
            command += ["--only", group]
        result = subprocess.run(command, capture_output=True, text=True)
        return folder, result
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


class ReintroducedMistakes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with ThreadPoolExecutor(max_workers=2) as pool:
            cls.results = dict(zip(("package", "example"), pool.map(check_copy, ("package", "example"))))

    @classmethod
    def tearDownClass(cls):
        for folder, _ in cls.results.values():
            shutil.rmtree(folder, ignore_errors=True)

    def test_each_mistake_fails_the_check_at_its_file_with_xcodes_message(self):
        for copy, group, path, _, message in MISTAKES:
            folder, result = self.results[copy]
            with self.subTest(mistake=path):
                self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
                lines = [line for line in result.stdout.splitlines() if line.startswith(os.path.join(folder, path) + ":")]
                self.assertTrue(any(message in line for line in lines),
                                f"no {message!r} at {path} in:\n{result.stdout}{result.stderr}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
