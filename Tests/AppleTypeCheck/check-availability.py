#!/usr/bin/env python3
"""Availability check for Apple-only Swift code, run on Linux.

On Linux the Swift compiler ignores `@available(iOS …)` and `#available(…)`, so code that
uses an iOS 18 API in an iOS 17 scope, or a case unavailable on macOS, type-checks here and
fails in Xcode. This tool does the check Xcode would do, with the compiler's own name
resolution:

1. Each stub module (a stand-in for an Apple SDK module, e.g. Tests/AppleTypeCheck/
   CoreLocationStub, written with Apple's `@available` per declaration) is compiled, and its
   AST (`swiftc -dump-ast -dump-ast-format json`) gives every declaration's USR and its
   effective availability per platform: introduced, deprecated, unavailable (a member inherits
   its type's).
2. For each declared platform (`--platform iOS=17.0 --platform macOS=14.0`, the package's
   deployment targets), the checked files are copied with their `#if os(…)` / `canImport(…)`
   conditions settled for that platform (same byte length, so positions stay), type-checked,
   and their AST walked. The walk carries the minimum platform version that holds at each point:
   the deployment target, raised by `@available` on enclosing declarations, `if #available`
   branches, `guard #available` for the rest of the block (and the reverse for `#unavailable`).
3. Every reference to a stub declaration — a call, a member, a case in a pattern, a type in a
   signature or an inferred type — is an error when the declaration is newer than the scope's
   minimum, unavailable on the platform, or deprecated at or before it (Xcode's warning).

Exit status 1 with one `file:line:col: error: …` line per finding, 2 when the files do not
type-check, 0 otherwise. Its own tests: AvailabilityCheckTests/ (known-bad and known-good snippets).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

UNREACHABLE = (10**9, 0, 0)  # the platform's code never runs here (`@available(macOS, unavailable)`)


def parse_version(text: str) -> tuple[int, ...]:
    """`18`, `18.0` and `18.0.0` are one version: padded to three parts so tuples compare as versions."""
    parts = [int(part) for part in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def show_version(version: tuple[int, ...]) -> str:
    parts = list(version)
    while len(parts) > 2 and parts[-1] == 0:
        parts.pop()
    return ".".join(str(part) for part in parts)


@dataclass
class Availability:
    """A declaration's effective availability on each platform (absent: always available)."""

    introduced: dict[str, tuple[int, ...]] = field(default_factory=dict)
    deprecated: dict[str, tuple[tuple[int, ...], str]] = field(default_factory=dict)
    unavailable: set[str] = field(default_factory=set)

    def refined(self, attrs: list[dict]) -> Availability:
        out = Availability(dict(self.introduced), dict(self.deprecated), set(self.unavailable))
        for attr in attrs:
            domain = attr.get("domain")
            if not domain or domain == "*":
                continue
            if attr.get("unavailable"):
                out.unavailable.add(domain)
            if "introduced" in attr:
                version = parse_version(attr["introduced"])
                out.introduced[domain] = max(out.introduced.get(domain, (0, 0, 0)), version)
            if "deprecated" in attr:
                out.deprecated[domain] = (parse_version(attr["deprecated"]), attr.get("message", ""))
        return out


@dataclass
class StubDeclaration:
    name: str
    module: str
    location: str
    availability: Availability


def availability_attrs(node: dict) -> list[dict]:
    return [a for a in node.get("attrs", []) if isinstance(a, dict) and a.get("_kind") == "available_attr"]


def declaration_name(node: dict) -> str:
    if node.get("_kind") == "decl_name":
        name = node
    else:
        name = node.get("name")
    if node.get("_kind") == "constructor_decl":
        return "init"
    if isinstance(name, dict):
        base = name.get("base_name", {})
        return base.get("name", "") if isinstance(base, dict) else str(base)
    return str(name or "")


def run_dump(arguments: list[str]) -> tuple[list[dict], str]:
    """Runs `swiftc -dump-ast -dump-ast-format json` and returns each source file's AST."""
    command = ["swiftc", "-dump-ast", "-dump-ast-format", "json", "-suppress-warnings", *arguments]
    result = subprocess.run(command, capture_output=True, text=True)
    text = result.stdout + "\n" + result.stderr
    files, rest, decoder, position = [], [], json.JSONDecoder(), 0
    for match in re.finditer(r'\{"_kind":"source_file"', text):
        if match.start() < position:
            continue
        try:
            ast, end = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        rest.append(text[position : match.start()])
        files.append(ast)
        position = end
    rest.append(text[position:])
    diagnostics = "".join(rest).strip()
    if result.returncode != 0:
        raise TypeCheckFailed(diagnostics)
    return files, diagnostics


class TypeCheckFailed(Exception):
    pass


def line_column(path: str, offset: int, cache: dict[str, list[int]]) -> tuple[int, int]:
    if path not in cache:
        data = open(path, "rb").read()
        starts = [0] + [i + 1 for i, byte in enumerate(data) if byte == 0x0A]
        cache[path] = starts
    starts = cache[path]
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low + 1, offset - starts[low] + 1


class StubTable:
    """Every declaration of the stub modules, by USR, with its effective availability."""

    def __init__(self) -> None:
        self.by_usr: dict[str, StubDeclaration] = {}
        # Nominal types by mangled name (`12CoreLocation9CLMonitorC`), to find them in types.
        self.types: dict[str, StubDeclaration] = {}
        # Enum cases by (mangled enum name, case name): patterns name cases without a USR.
        self.cases: dict[tuple[str, str], StubDeclaration] = {}
        self._lines: dict[str, list[int]] = {}

    def add_module(self, module: str, sources: list[str], search: list[str]) -> None:
        arguments = ["-parse-as-library", "-enable-library-evolution", "-module-name", module, *search, *sources]
        files, _ = run_dump(arguments)
        for ast in files:
            path = ast["filename"]
            for item in ast.get("items", []):
                self._collect(item, Availability(), module, path, None, "")

    def _collect(self, node, inherited: Availability, module: str, path: str, enum_mangled, scope: str):
        if isinstance(node, list):
            for child in node:
                self._collect(child, inherited, module, path, enum_mangled, scope)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("_kind", "")
        availability = inherited.refined(availability_attrs(node))
        usr = node.get("usr")
        if usr and kind.endswith("_decl") and kind not in ("param_decl",):
            offset = node.get("range", {}).get("start", 0)
            line, column = line_column(path, offset, self._lines)
            name = declaration_name(node)
            qualified = f"{scope}.{name}" if scope else name
            declaration = StubDeclaration(qualified, module, f"{os.path.basename(path)}:{line}", availability)
            self.by_usr.setdefault(usr, declaration)
            mangled = usr[2:] if usr.startswith("s:") else None
            if mangled and kind in ("struct_decl", "class_decl", "enum_decl", "protocol_decl"):
                self.types[mangled] = declaration
            if kind == "enum_element_decl" and enum_mangled:
                self.cases[(enum_mangled, name)] = declaration
            if kind == "enum_decl":
                enum_mangled = mangled
            if kind in ("struct_decl", "class_decl", "enum_decl", "protocol_decl"):
                scope = qualified
        if kind == "extension_decl":
            scope = str(node.get("extended_type", scope)) if isinstance(node.get("extended_type"), str) else scope
        for key, child in node.items():
            if key != "attrs" and isinstance(child, (dict, list)):
                self._collect(child, availability, module, path, enum_mangled, scope)


@dataclass
class Finding:
    path: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: error: {self.message}"


TYPE_KEYS = ("type", "interface_type", "type_usr", "result")
CONDITION_LINE = re.compile(r"^\s*#(?:if|elseif)\b.*$", re.MULTILINE)


def settle_conditions(source: str, platform: str) -> str:
    """The source with `os(…)`, `canImport(UIKit|AppKit)` and `targetEnvironment(…)` in
    `#if` lines replaced by `true` / `false` for `platform`, padded to the same length."""
    ui_module = "UIKit" if platform == "iOS" else "AppKit"

    def settle(match: re.Match) -> str:
        line = match.group(0)

        def os_value(m: re.Match) -> str:
            value = "true" if m.group(1) == platform else "false"
            return value.ljust(len(m.group(0)))

        line = re.sub(r"os\(\s*(\w+)\s*\)", os_value, line)
        line = re.sub(
            r"canImport\(\s*(UIKit|AppKit)\s*\)",
            lambda m: ("true" if m.group(1) == ui_module else "false").ljust(len(m.group(0))), line)
        line = re.sub(r"targetEnvironment\(\s*\w+\s*\)", lambda m: "false".ljust(len(m.group(0))), line)
        return line

    return CONDITION_LINE.sub(settle, source)


class UseChecker:
    """Walks a checked file's AST for one platform, carrying the scope's minimum version."""

    def __init__(self, stubs: StubTable, platform: str, minimum: tuple[int, ...], path: str, shown: str):
        self.stubs, self.platform, self.path, self.shown = stubs, platform, path, shown
        self.minimum = minimum
        self.source = open(path, encoding="utf-8").read()
        self.findings: list[Finding] = []
        self._lines: dict[str, list[int]] = {}
        self._seen: set[tuple[int, str]] = set()  # (line, declaration): one finding each

    def check(self, ast: dict) -> list[Finding]:
        self._walk(ast.get("items", []), self.minimum, 0)
        return self.findings

    # Scopes

    def _refined_by_attrs(self, node: dict, version: tuple[int, ...]) -> tuple[int, ...]:
        for attr in availability_attrs(node):
            if attr.get("domain") != self.platform:
                continue
            if attr.get("unavailable"):
                return UNREACHABLE
            if "introduced" in attr:
                version = max(version, parse_version(attr["introduced"]))
        return version

    def _query(self, conditions) -> tuple[int, ...] | None:
        """The version an `#available` condition guarantees on this platform (None: none)."""
        for condition in conditions if isinstance(conditions, list) else []:
            if isinstance(condition, dict) and condition.get("_kind") == "#available":
                for spec in condition.get("queries", []):
                    if spec.get("domain") == self.platform and "version" in spec:
                        return parse_version(spec["version"])
        return None

    def _is_unavailability(self, node: dict) -> bool:
        start = node.get("range", {}).get("start", 0)
        head = self.source.encode("utf-8")[start : start + 400].decode("utf-8", "ignore")
        head = head.split("{", 1)[0]
        return "#unavailable" in head

    def _walk(self, node, version: tuple[int, ...], offset: int) -> None:
        if isinstance(node, list):
            for child in node:
                self._walk(child, version, offset)
            return
        if not isinstance(node, dict):
            return
        offset = node.get("range", {}).get("start", offset)
        version = self._refined_by_attrs(node, version)
        kind = node.get("_kind", "")
        if kind == "if_stmt":
            return self._walk_if(node, version, offset)
        if kind == "brace_stmt":
            return self._walk_block(node, version, offset)
        self._check_node(node, version, offset)
        for key, child in node.items():
            if key != "attrs" and isinstance(child, (dict, list)):
                self._walk(child, version, offset)

    def _walk_if(self, node: dict, version, offset) -> None:
        queried = self._query(node.get("conditions"))
        refined = max(version, queried) if queried else version
        then_version, else_version = (version, refined) if self._is_unavailability(node) else (refined, version)
        self._walk(node.get("conditions"), version, offset)
        self._walk(node.get("then_stmt"), then_version, offset)
        self._walk(node.get("else_stmt"), else_version, offset)

    def _walk_block(self, node: dict, version, offset) -> None:
        for element in node.get("elements", []):
            if isinstance(element, dict) and element.get("_kind") == "guard_stmt":
                queried = self._query(element.get("conditions"))
                element_offset = element.get("range", {}).get("start", offset)
                if queried and self._is_unavailability(element):
                    self._walk(element.get("conditions"), version, element_offset)
                    self._walk(element.get("body"), max(version, queried), element_offset)
                    continue
                self._walk(element, version, element_offset)
                if queried:
                    version = max(version, queried)  # the rest of the block
                continue
            self._walk(element, version, offset)

    # Uses

    def _check_node(self, node: dict, version, offset: int) -> None:
        usr = node.get("decl_usr")
        if usr and usr in self.stubs.by_usr:
            self._check_use(self.stubs.by_usr[usr], version, offset)
        if node.get("_kind") == "pattern_enum_element":
            self._check_case(node, version, offset)
        for key in TYPE_KEYS:
            value = node.get(key)
            if isinstance(value, str) and value.startswith("$s"):
                for mangled, declaration in self.stubs.types.items():
                    if mangled in value:
                        self._check_use(declaration, version, offset)

    def _check_case(self, node: dict, version, offset: int) -> None:
        name = declaration_name(node.get("element", {}))
        pattern_type = node.get("type", "")
        for (enum_mangled, case), declaration in self.stubs.cases.items():
            if case == name and enum_mangled in pattern_type:
                self._check_use(declaration, version, offset)

    def _check_use(self, declaration: StubDeclaration, version, offset: int) -> None:
        if version == UNREACHABLE:
            return
        availability, platform = declaration.availability, self.platform
        where = f"({declaration.module} {declaration.location})"
        message = None
        if platform in availability.unavailable:
            message = f"'{declaration.name}' is unavailable in {platform} {where}"
        elif availability.introduced.get(platform, (0, 0, 0)) > version:
            needed = show_version(availability.introduced[platform])
            message = (
                f"'{declaration.name}' is only available in {platform} {needed} or newer {where}; "
                f"this scope only guarantees {platform} {show_version(version)}: "
                f"use `if #available({platform} {needed}, *)` or `@available`")
        elif platform in availability.deprecated and availability.deprecated[platform][0] <= version:
            deprecated, note = availability.deprecated[platform]
            message = f"'{declaration.name}' was deprecated in {platform} {show_version(deprecated)}: {note} {where}"
        if message is None:
            return
        line, column = line_column(self.path, offset, self._lines)
        key = (line, declaration.name)
        if key in self._seen:
            return
        self._seen.add(key)
        self.findings.append(Finding(self.shown, line, column, message))


def check(
    files: list[str], stubs: dict[str, str], platforms: dict[str, tuple[int, ...]],
    search: list[str], defines: list[str], module_name: str, clang: list[str] = (),
) -> tuple[list[Finding], str | None]:
    """Findings for `files` on every platform, or the compiler's output when they do not compile."""
    with tempfile.TemporaryDirectory(prefix="availability-") as scratch:
        modules = os.path.join(scratch, "modules")
        os.makedirs(modules)
        table = StubTable()
        for name, directory in stubs.items():
            sources = sorted(
                os.path.join(directory, f) for f in os.listdir(directory) if f.endswith(".swift"))
            # Library evolution, as Apple's SDK modules: their enums are open (`@unknown default`).
            emit = ["swiftc", "-parse-as-library", "-enable-library-evolution", "-suppress-warnings",
                    "-emit-module", "-module-name", name, "-I", modules,
                    "-emit-module-path", os.path.join(modules, f"{name}.swiftmodule"), *sources]
            result = subprocess.run(emit, capture_output=True, text=True)
            if result.returncode != 0:
                return [], result.stdout + result.stderr
            table.add_module(name, sources, ["-I", modules])
        findings: list[Finding] = []
        for platform, minimum in platforms.items():
            copies = os.path.join(scratch, platform)
            os.makedirs(copies)
            shown_for: dict[str, str] = {}
            copied = []
            for index, path in enumerate(files):
                copy = os.path.join(copies, f"{index}-{os.path.basename(path)}")
                with open(path, encoding="utf-8") as source, open(copy, "w", encoding="utf-8") as out:
                    out.write(settle_conditions(source.read(), platform))
                shown_for[copy] = path
                copied.append(copy)
            arguments = ["-module-name", module_name, "-I", modules]
            for directory in search:
                arguments += ["-I", directory]
            for define in defines:
                arguments += ["-D", define]
            for argument in clang:
                arguments += ["-Xcc", argument]
            try:
                asts, _ = run_dump(arguments + copied)
            except TypeCheckFailed as failure:
                return findings, f"[{platform}] the files do not type-check:\n{failure}"
            for ast in asts:
                copy = ast["filename"]
                if copy not in shown_for:
                    continue
                checker = UseChecker(table, platform, minimum, copy, shown_for[copy])
                findings += [
                    Finding(f.path, f.line, f.column, f"[{platform} {show_version(minimum)}] {f.message}")
                    for f in checker.check(ast)]
        return findings, None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="Swift files to check (one module)")
    parser.add_argument("--stub", action="append", default=[], metavar="MODULE=DIR",
                        help="a stub module and the folder of its sources, in dependency order")
    parser.add_argument("--platform", action="append", default=[], metavar="NAME=VERSION",
                        help="a declared platform and its deployment target, e.g. iOS=17.0")
    parser.add_argument("-I", dest="search", action="append", default=[], help="module search path")
    parser.add_argument("-D", dest="defines", action="append", default=[], help="compilation condition")
    parser.add_argument("--module-name", default="Checked")
    parser.add_argument("-Xcc", dest="clang", action="append", default=[], help="an argument for the C importer")
    options = parser.parse_args(argv)
    stubs = dict(item.split("=", 1) for item in options.stub)
    platforms = {name: parse_version(version) for name, version in (p.split("=", 1) for p in options.platform)}
    if not platforms:
        parser.error("at least one --platform is needed")
    findings, failure = check(
        options.files, stubs, platforms, options.search, options.defines, options.module_name, options.clang)
    if failure:
        print(failure, file=sys.stderr)
        return 2
    for finding in findings:
        print(finding)
    checked = ", ".join(f"{p} {show_version(v)}" for p, v in platforms.items())
    print(f"availability: {len(options.files)} files checked for {checked}: {len(findings)} findings", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
