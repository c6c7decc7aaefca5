#!/usr/bin/env python3
"""Checks every file an app compiles as Xcode would, for the package's platforms.

Run by .ci/run after `swift build --package-path Tests/AppleTypeCheck` (which builds the stubs
and the package's app products into Tests/AppleTypeCheck/.build/debug/Modules). Groups, each a
module given to check-availability.py:

- each app product's Swift module (Geodesy, GeoFormats, Geofencing, RegionMonitoring,
  RegionPlanner, CoreLocationBridge), iOS 17 and macOS 14: availability of every declaration
  used, the toolchain's included (the package builds in Swift 6 mode without warnings already);
- CoreLocationBridge's Apple files, iOS 17 and macOS 14;
- the example app (Examples/ShopAlerts, an iOS 17 app, SwiftUI files through the SwiftUI stub),
  with the Apple files;
- every ```swift block of docs/ios.md, each wrapped in an async function of its own, with the
  Apple files and the names the prose gives them (DocSnippetContext.swift), iOS 17. A block
  right after an `<!-- not compiled: reason -->` line is skipped (the manifest snippet);
- the consumer package's sources (Tests/LeanConsumer: traits [], iOS 17 / macOS 14).

The groups that touch a stub are also compiled as Xcode compiles them (`--strict`: Swift 6,
warnings as errors, through SIL). Groups run side by side (`--jobs`); `--only GROUP` checks some,
`--root DIR` a copy of the package (RegressionTests/).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECK = os.path.join(HERE, "check-availability.py")
APPLE = os.path.join(ROOT, "Sources", "CoreLocationBridge", "Apple")
EXAMPLE = os.path.join(ROOT, "Examples", "ShopAlerts")
TABLE = os.path.join(HERE, "FoundationAvailability.tsv")
CACHE = os.path.join(HERE, ".build", "availability-cache")  # the toolchain's symbols, built once
# Every app product's Swift modules (CPrefetch is C); CoreLocationBridge without Apple/.
APP_MODULES = ["Geodesy", "GeoFormats", "Geofencing", "RegionMonitoring", "RegionPlanner", "CoreLocationBridge"]
DOC = os.path.join(ROOT, "docs", "ios.md")
CONSUMER = os.path.join(ROOT, "Tests", "LeanConsumer", "Sources")
STUBS = [
    "CoreLocation=" + os.path.join(HERE, "CoreLocationStub"),
    "UIKit=" + os.path.join(HERE, "UIKitStub"),
    "UserNotifications=" + os.path.join(HERE, "UserNotificationsStub"),
]
UI_STUBS = ["Combine=" + os.path.join(HERE, "CombineStub"), "SwiftUI=" + os.path.join(HERE, "SwiftUIStub")]
BOTH = ["iOS=17.0", "macOS=14.0"]
# What an app file that uses the package imports; a block adds its own `import` lines.
SNIPPET_IMPORTS = [
    "import CoreLocationBridge", "import Foundation", "import Geodesy", "import Geofencing",
    "import RegionMonitoring", "import RegionPlanner", "import UIKit", "import UserNotifications",
]
PHONE = ["iOS=17.0"]


def swift_files(folder, skip=()):
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".swift") and f not in skip)


def doc_snippets(path):
    """(line, code) of each compiled ```swift block of `path`."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, index, skip_next = [], 0, False
    while index < len(lines):
        line = lines[index]
        if re.match(r"^\s*<!-- not compiled: .+ -->\s*$", line):
            skip_next = True
        elif line.strip() == "```swift":
            start = index + 1
            end = start
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            if not skip_next:
                out.append((start + 1, "\n".join(lines[start:end])))
            skip_next = False
            index = end
        elif line.strip():
            skip_next = skip_next and line.strip().startswith("<!--")
        index += 1
    return out


def write_snippet_files(folder):
    files = []
    for line, code in doc_snippets(DOC):
        imports = SNIPPET_IMPORTS + [l for l in code.split("\n") if l.startswith("import ")]
        body = "\n".join("    " + l if l.strip() else "" for l in code.split("\n") if not l.startswith("import "))
        path = os.path.join(folder, f"ios_md_line_{line}.swift")
        with open(path, "w", encoding="utf-8") as out:
            out.write("\n".join(imports) + "\n")
            out.write(f"// docs/ios.md, the block from line {line}\n")
            out.write(f"@MainActor func docSnippetAtLine{line}() async throws {{\n{body}\n}}\n")
        files.append(path)
    return files


def command_for(name, platforms, modules, stubs, strict):
    command = [sys.executable, CHECK, "--module-name", name, "-D", "APPLE_TYPECHECK", "-I", modules,
               "--toolchain-availability", TABLE, "--cache", CACHE]
    # The package's C targets (CPrefetch), by the module maps SwiftPM wrote for them.
    build = os.path.dirname(modules)
    for entry in sorted(os.listdir(build)):
        module_map = os.path.join(build, entry, "module.modulemap")
        if entry.endswith(".build") and os.path.isfile(module_map):
            command += [f"-Xcc=-fmodule-map-file={module_map}"]
    for stub in stubs:
        command += ["--stub", stub]
    for platform in platforms:
        command += ["--platform", platform]
    return command + (["--strict"] if strict else []) + ["--package-name", package_name(build)]


def package_name(build):
    """The package name SwiftPM gave the package's modules (its folder's name): their `package`
    declarations are visible to a module compiled with the same one."""
    with open(os.path.join(os.path.dirname(build), "debug.yaml"), encoding="utf-8") as plan:
        names = set(re.findall(r'"-package-name","([^"]+)"', plan.read()))
    names.discard("appletypecheck")
    return sorted(names)[0] if names else "geofence"


def run(group, modules):
    """Checks one group; returns (its name, exit status, its output)."""
    name, files, platforms, stubs, strict = group
    started = time.monotonic()
    result = subprocess.run(command_for(name, platforms, modules, stubs, strict) + files, capture_output=True, text=True)
    mode = "Swift 6, warnings as errors, SIL" if strict else "availability"
    header = f"== {name}: {len(files)} files, {', '.join(platforms)}, {mode} ({time.monotonic() - started:.0f} s)"
    return name, result.returncode, "\n".join(part for part in (header, result.stdout.strip(), result.stderr.strip()) if part)


def module_sources(module):
    """Every Swift file of an app product's module (CoreLocationBridge's Apple/ is its own group)."""
    return module_sources_in(os.path.join(ROOT, "Sources", module))


def module_sources_in(folder):
    found = []
    for directory, subfolders, names in os.walk(folder):
        subfolders[:] = sorted(d for d in subfolders if os.path.join(directory, d) != APPLE)
        found += [os.path.join(directory, n) for n in sorted(names) if n.endswith(".swift")]
    return found


def background_mode_declared():
    """Setting `allowsBackgroundLocationUpdates` without `UIBackgroundModes` → `location` in
    Info.plist traps at launch (Apple's documentation of the property): the example must have both."""
    import plistlib
    sets_it = any("allowsBackgroundLocationUpdates = true" in open(f, encoding="utf-8").read()
                  for f in swift_files(EXAMPLE))
    with open(os.path.join(EXAMPLE, "Info.plist"), "rb") as plist:
        modes = plistlib.load(plist).get("UIBackgroundModes", [])
    if sets_it and "location" not in modes:
        print("Examples/ShopAlerts: allowsBackgroundLocationUpdates is set but Info.plist lacks "
              "UIBackgroundModes → location (a crash at launch)", file=sys.stderr)
        return False
    return True


def set_root(root):
    """Checks the package copy at `root` (the regression tests re-introduce mistakes in one)."""
    global ROOT, APPLE, EXAMPLE, DOC, CONSUMER
    ROOT = os.path.abspath(root)
    CONSUMER = os.path.join(ROOT, "Tests", "LeanConsumer", "Sources")
    APPLE = os.path.join(ROOT, "Sources", "CoreLocationBridge", "Apple")
    EXAMPLE = os.path.join(ROOT, "Examples", "ShopAlerts")
    DOC = os.path.join(ROOT, "docs", "ios.md")
CONSUMER = os.path.join(ROOT, "Tests", "LeanConsumer", "Sources")


def groups(snippet_folder, only=None):
    """(module name, files, platforms, stubs, strict) of every group an app compiles."""
    apple = swift_files(APPLE)
    out = [(module, module_sources(module), BOTH, [], False) for module in APP_MODULES]
    out.append(("CoreLocationBridgeApple", apple, BOTH, STUBS, True))
    out.append(("ShopAlerts", apple + swift_files(EXAMPLE), PHONE, STUBS + UI_STUBS, True))
    snippets = write_snippet_files(snippet_folder)
    context = os.path.join(HERE, "DocSnippetContext.swift")
    out.append(("DocSnippets", apple + [context] + snippets, PHONE, STUBS, True))
    # An app's own package (traits: [], iOS 17 / macOS 14), compiled as Xcode would.
    out.append(("LeanConsumer", module_sources_in(CONSUMER), BOTH, STUBS, True))
    return [group for group in out if not only or group[0] in only]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", help="check only this group (a module name), repeatable")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--root", help="the package's folder (default: this repository)")
    options = parser.parse_args(argv)
    if options.root:
        set_root(options.root)
    modules = os.path.join(HERE, ".build", "debug", "Modules")
    if not os.path.isdir(modules):
        print(f"{modules} is missing: run `swift build --package-path Tests/AppleTypeCheck` first", file=sys.stderr)
        return 2
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="doc-snippets-") as folder:
        checked = groups(folder, options.only)
        # The toolchain's symbols once, before the groups read them side by side.
        subprocess.run([sys.executable, os.path.join(HERE, "toolchain_availability.py"),
                        CACHE], check=True, capture_output=True)
        with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
            results = list(pool.map(lambda group: run(group, modules), checked))
    failures = 0
    for name, status, output in results:
        print(output, flush=True)
        failures += status != 0
    if not options.only:
        failures += not background_mode_declared()
    total = len(results) + (0 if options.only else 1)
    print(f"apple check: {total - failures} of {total} checks clean ({time.monotonic() - started:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
