#!/usr/bin/env python3
"""Type-checks and availability-checks every piece of Apple-only code in the repository.

Run by .ci/run after `swift build --package-path Tests/AppleTypeCheck` (which builds the stubs
and the package's app products into Tests/AppleTypeCheck/.build/debug/Modules):

- CoreLocationBridge's Apple files, for iOS 17 and macOS 14 (the package's platforms);
- the example app's non-UI files (Examples/ShopAlerts, an iOS 17 app), with the Apple files;
- every ```swift block of docs/ios.md, each wrapped in an async function of its own, with the
  Apple files and the names the prose gives them (DocSnippetContext.swift). A block right after
  an `<!-- not compiled: reason -->` line is skipped (the manifest snippet).

Each group is one module given to check-availability.py, which type-checks it (a wrong name or
signature fails) and reports any use of an Apple declaration newer than the platform's
deployment target outside a matching `#available` / `@available` scope, or unavailable there.
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECK = os.path.join(HERE, "check-availability.py")
APPLE = os.path.join(ROOT, "Sources", "CoreLocationBridge", "Apple")
EXAMPLE = os.path.join(ROOT, "Examples", "ShopAlerts")
EXAMPLE_UI_FILES = {"ContentView.swift", "ShopAlertsApp.swift"}  # SwiftUI: no stub for it
DOC = os.path.join(ROOT, "docs", "ios.md")
STUBS = [
    "CoreLocation=" + os.path.join(HERE, "CoreLocationStub"),
    "UIKit=" + os.path.join(HERE, "UIKitStub"),
    "UserNotifications=" + os.path.join(HERE, "UserNotificationsStub"),
]
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


def run(name, files, platforms, modules):
    command = [sys.executable, CHECK, "--module-name", name, "-D", "APPLE_TYPECHECK", "-I", modules]
    # The package's C targets (CPrefetch), by the module maps SwiftPM wrote for them.
    build = os.path.dirname(modules)
    for entry in sorted(os.listdir(build)):
        module_map = os.path.join(build, entry, "module.modulemap")
        if entry.endswith(".build") and os.path.isfile(module_map):
            command += [f"-Xcc=-fmodule-map-file={module_map}"]
    for stub in STUBS:
        command += ["--stub", stub]
    for platform in platforms:
        command += ["--platform", platform]
    print(f"== {name}: {len(files)} files, {', '.join(platforms)}", flush=True)
    return subprocess.run(command + files).returncode


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


def main():
    modules = os.path.join(HERE, ".build", "debug", "Modules")
    if not os.path.isdir(modules):
        print(f"{modules} is missing: run `swift build --package-path Tests/AppleTypeCheck` first", file=sys.stderr)
        return 2
    apple = swift_files(APPLE)
    failures = 0
    failures += run("CoreLocationBridgeApple", apple, BOTH, modules) != 0
    example = swift_files(EXAMPLE, skip=EXAMPLE_UI_FILES)
    failures += run("ShopAlerts", apple + example, PHONE, modules) != 0
    with tempfile.TemporaryDirectory(prefix="doc-snippets-") as folder:
        snippets = write_snippet_files(folder)
        context = os.path.join(HERE, "DocSnippetContext.swift")
        failures += run("DocSnippets", apple + [context] + snippets, PHONE, modules) != 0
        print(f"docs/ios.md: {len(snippets)} snippets compiled")
    failures += not background_mode_declared()
    print(f"apple type-check: {4 - failures} of 4 checks clean")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
