#!/usr/bin/env python3
"""Availability check for Apple-only Swift code, run on Linux.

On Linux the Swift compiler ignores `@available(iOS …)` and `#available(…)`, so code that
uses an iOS 18 API in an iOS 17 scope, or a case unavailable on macOS, type-checks here and
fails in Xcode. This tool does the check Xcode would do, with the compiler's own name
resolution:

1. Each stub module (a stand-in for an Apple SDK module, e.g. Tests/AppleTypeCheck/
   CoreLocationStub, written with Apple's `@available` per declaration) is compiled, and its
   AST (`swiftc -dump-ast -dump-ast-format json`) gives every declaration's USR and its
   effective availability per platform: introduced, deprecated, obsoleted, unavailable (a
   member inherits its type's; `*` applies to every platform). The checked module's own
   declarations are read the same way: Xcode checks uses of them as it checks the SDK's.
2. For each declared platform (`--platform iOS=17.0 --platform macOS=14.0`, the package's
   deployment targets), the checked files are copied with their `#if os(…)` / `canImport(…)`
   conditions settled for that platform (same byte length, so positions stay), type-checked
   as a library (a lone file with top-level statements as a script), and their AST walked.
   The walk carries what holds at each point (a `Scope`): the minimum platform version — the
   deployment target, raised by `@available` on enclosing declarations (a property's also
   covers its initial value), by `if` / `while` conditions after an `#available` (and the
   branch it guards), by `guard #available` for the rest of the block, and the reverse for a
   lone `#unavailable` — and whether an enclosing declaration is deprecated.
3. Every reference to a declared API is an error when the declaration is newer than the
   scope's minimum, unavailable (or obsoleted) on the platform, or deprecated at or before it
   outside a deprecated declaration (Xcode's warning). References are: a call, a member, a key
   path component, a case in a pattern (there only unavailable or deprecated: matching a newer
   case is allowed), a protocol written in a conformance or constraint, and
   every type the compiler wrote down (signature, inferred, extended, superclass, generic
   argument, cast, typealias), found by demangling it.
4. Two of Xcode's errors need no use: an instance stored property (also lazy or wrapped) and
   an enum case with associated values cannot be `@available` newer than their type, and a
   stored property cannot be unavailable where its type is not.

5. With `--toolchain-availability TABLE`, the toolchain's declarations count too: the standard
   library's, Synchronization's and Observation's availability from their symbol graphs,
   Foundation's and Dispatch's from TABLE (toolchain_availability.py). Two more rules need no
   stub: an override cannot be less available than what it overrides, and a function type with
   a typed `throws(E)` needs the iOS 18 / macOS 15 runtime as a generic argument or erased.
6. With `--strict`, each platform's module is also compiled as Xcode compiles it: Swift 6 mode,
   warnings as errors, through SIL (region-based isolation), against the stubs with their
   platform unavailability applied; each compiler error is a finding.

What it cannot see: code under a condition it does not settle (`#if canImport(SwiftUI)`,
`targetEnvironment(simulator)`, `arch(arm64)`, `DEBUG`: the compiler decides, for Linux), and
API missing from the stubs (a name they lack is a type-check failure, not a pass).

Exit status 1 with one `file:line:col: error: [Platform version] 'Name' …` line per finding,
2 when the files do not type-check, 0 otherwise. `--each` checks every file as a module of its
own, with one build of the stubs (the snippets of its tests: AvailabilityCheckTests/).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ left in the repository
import toolchain_availability  # noqa: E402  (beside this script)

Version = tuple[int, ...]
ALWAYS: Version = (0, 0, 0)
UNREACHABLE: Version = (10**9, 0, 0)  # the platform's code never runs here (`@available(macOS, unavailable)`)


def parse_version(text) -> Version:
    """`18`, `18.0` and `18.0.0` are one version: padded to three parts so tuples compare as versions.
    `@available(iOS, deprecated)` without a version dumps as `true`: deprecated from the start."""
    if not isinstance(text, str):
        return ALWAYS
    parts = [int(part) for part in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def show_version(version: Version) -> str:
    parts = list(version)
    while len(parts) > 2 and parts[-1] == 0:
        parts.pop()
    return ".".join(str(part) for part in parts)


def applies_to(attr: dict, platform: str) -> bool:
    """An `@available` attribute names `platform`, or every platform (`*`, e.g. `@available(*, unavailable)`)."""
    return attr.get("domain") in (platform, "*")


@dataclass
class Availability:
    """A declaration's effective availability on each platform (absent: always available)."""

    introduced: dict[str, Version] = field(default_factory=dict)
    deprecated: dict[str, tuple[Version, str]] = field(default_factory=dict)
    obsoleted: dict[str, Version] = field(default_factory=dict)
    unavailable: set[str] = field(default_factory=set)  # may hold "*": every platform

    def refined(self, attrs: list[dict]) -> Availability:
        out = Availability(
            dict(self.introduced), dict(self.deprecated), dict(self.obsoleted), set(self.unavailable))
        for attr in attrs:
            domain = attr.get("domain")
            if not domain:
                continue
            if attr.get("unavailable"):
                out.unavailable.add(domain)
            if "introduced" in attr and domain != "*":
                version = parse_version(attr["introduced"])
                out.introduced[domain] = max(out.introduced.get(domain, ALWAYS), version)
            if "deprecated" in attr:
                out.deprecated[domain] = (parse_version(attr["deprecated"]), attr.get("message", ""))
            if "obsoleted" in attr:
                out.obsoleted[domain] = parse_version(attr["obsoleted"])
        return out

    def is_unavailable(self, platform: str) -> bool:
        return platform in self.unavailable or "*" in self.unavailable

    def deprecation(self, platform: str) -> tuple[Version, str] | None:
        return self.deprecated.get(platform) or self.deprecated.get("*")


@dataclass
class Declaration:
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
        # `init`, `subscript` and `deinit` have a "special" base name.
        return (base.get("name") or base.get("special", "")) if isinstance(base, dict) else str(base)
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


def demangle(mangled: set[str]) -> dict[str, str]:
    """Each mangled type (`$s12CoreLocation9CLMonitorC5EventV_AA16CLServiceSessionCtD`) as Swift
    writes it (`(CoreLocation.CLMonitor.Event, CoreLocation.CLServiceSession)`): the compiler
    abbreviates a repeated module or type in a mangled name, so a type is only found by name."""
    ordered = sorted(mangled)
    if not ordered:
        return {}
    tool = shutil.which("swift-demangle")
    command = [tool] if tool else ["swift", "demangle"]
    result = subprocess.run(
        [*command, "--compact"], input="\n".join(ordered) + "\n", capture_output=True, text=True, check=True)
    return dict(zip(ordered, result.stdout.split("\n")))


def mangled_types(node, out: set[str]) -> set[str]:
    """Every mangled type under `node` (the dump writes types as `$s…` strings)."""
    if isinstance(node, dict):
        for value in node.values():
            mangled_types(value, out)
    elif isinstance(node, list):
        for value in node:
            mangled_types(value, out)
    elif isinstance(node, str) and node.startswith("$s"):
        out.add(node)
    return out


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


TYPE_KINDS = ("struct_decl", "class_decl", "enum_decl", "protocol", "typealias")  # as the dump names them


class DeclarationTable:
    """Every declaration of the stub modules, and of the checked module itself (Xcode checks
    its `@available` as an SDK's), by USR, with its effective availability."""

    def __init__(self) -> None:
        self.by_usr: dict[str, Declaration] = {}
        # Types and typealiases by full name (`CoreLocation.CLMonitor.Event`), to find them in types.
        self.types: dict[str, Declaration] = {}
        # Enum cases by (full enum name, case name): patterns name cases without a USR.
        self.cases: dict[tuple[str, str], Declaration] = {}
        self._lines: dict[str, list[int]] = {}
        self._names: dict[str, str] = {}
        self._found: dict[str, list[Declaration]] = {}

    def add_module(self, module: str, sources: list[str], search: list[str]) -> None:
        arguments = ["-parse-as-library", "-enable-library-evolution", "-module-name", module, *search, *sources]
        files, _ = run_dump(arguments)
        self.add_declarations(module, files)

    def with_module(self, module: str, files: list[dict]) -> DeclarationTable:
        """A copy with the declarations of `module` (the checked files' ASTs) added."""
        table = DeclarationTable()
        table.by_usr, table.types, table.cases = dict(self.by_usr), dict(self.types), dict(self.cases)
        table._names = dict(self._names)
        table.add_declarations(module, files)
        return table

    def add_symbols(self, symbols: list[dict]) -> None:
        """The toolchain's declarations (toolchain_availability.py): a member inherits its type's."""
        by_usr = {symbol["usr"]: symbol for symbol in symbols}

        def effective(symbol: dict, depth: int = 0) -> Availability:
            parent = by_usr.get(symbol.get("parent"))
            inherited = effective(parent, depth + 1) if parent and depth < 8 else Availability()
            if symbol.get("requirement"):
                # A requirement added to an older protocol (`FixedWidthInteger.&*`, Swift 6.0)
                # has a default implementation older conformances use: a call on a conforming
                # type compiles for the protocol's platforms (the dump names the requirement).
                return inherited
            return inherited.refined(symbol["attrs"])

        for symbol in symbols:
            availability = effective(symbol)
            if not (availability.introduced or availability.deprecated or availability.obsoleted
                    or availability.unavailable):
                continue
            location = symbol["location"] or by_usr.get(symbol.get("parent"), {}).get("location", "")
            declaration = Declaration(symbol["name"], symbol["module"], location, availability)
            self.by_usr.setdefault(symbol["usr"], declaration)
            if symbol.get("type"):
                self.types.setdefault(symbol["type"], declaration)

    def add_declarations(self, module: str, files: list[dict]) -> None:
        self._names.update(demangle(mangled_types(files, set())))
        for ast in files:
            path = ast["filename"]
            for item in ast.get("items", []):
                self._collect(item, Availability(), module, path, "")

    def written(self, mangled: str) -> str:
        """A mangled type of the added modules as Swift writes it ("" for any other string)."""
        return self._names.get(mangled, "")

    def types_in(self, written: str) -> list[Declaration]:
        """The declared types a demangled type names: `CoreLocation.CLServiceSession.AuthorizationRequirement`
        names both the enum and the class it is nested in. (Remembered: most nodes repeat a few types.)"""
        if written not in self._found:
            self._found[written] = self._types_named(written)
        return self._found[written]

    def _types_named(self, written: str) -> list[Declaration]:
        found = []
        for match in re.finditer(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+", written):
            parts = match.group(0).split(".")
            for end in range(2, len(parts) + 1):
                declaration = self.types.get(".".join(parts[:end]))
                if declaration:
                    found.append(declaration)
        return found

    def _collect(self, node, inherited: Availability, module: str, path: str, scope: str):
        if isinstance(node, list):
            for child in node:
                self._collect(child, inherited, module, path, scope)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("_kind", "")
        availability = inherited.refined(availability_attrs(node))
        usr = node.get("usr")
        if usr and (kind.endswith("_decl") or kind in TYPE_KINDS) and kind != "param_decl":
            offset = node.get("range", {}).get("start", 0)
            line, _ = line_column(path, offset, self._lines)
            name = declaration_name(node)
            qualified = f"{scope}.{name}" if scope else name
            declaration = Declaration(qualified, module, f"{os.path.basename(path)}:{line}", availability)
            self.by_usr.setdefault(usr, declaration)
            if kind in TYPE_KINDS:
                self.types.setdefault(f"{module}.{qualified}", declaration)
                scope = qualified
            if kind == "enum_element_decl":
                self.cases[(f"{module}.{scope}", name)] = declaration
        if kind == "extension_decl":
            extended = self._names.get(node.get("extended_type", ""), "")
            scope = extended.split(".", 1)[1] if extended.startswith(module + ".") else scope
        for key, child in node.items():
            if key != "attrs" and isinstance(child, (dict, list)):
                self._collect(child, availability, module, path, scope)


@dataclass
class Finding:
    path: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: error: {self.message}"


CONDITION_LINE = re.compile(r"^\s*#(?:if|elseif)\b.*$", re.MULTILINE)
UI_MODULE = {"macOS": "AppKit", "watchOS": None}  # every other Apple platform: UIKit


def settle_conditions(source: str, platform: str) -> str:
    """The source with `os(…)`, `canImport(UIKit|AppKit)` and `targetEnvironment(…)` in
    `#if` lines replaced by `true` / `false` for `platform`, padded to the same length.
    Mac Catalyst is `os(iOS)` and `targetEnvironment(macCatalyst)`; a simulator is not checked."""
    operating_system = "iOS" if platform == "macCatalyst" else platform
    ui_module = UI_MODULE.get(platform, "UIKit")

    def settled(value: bool, match: re.Match) -> str:
        return ("true" if value else "false").ljust(len(match.group(0)))

    def settle(match: re.Match) -> str:
        line = match.group(0)
        line = re.sub(r"\bos\(\s*(\w+)\s*\)", lambda m: settled(m.group(1) == operating_system, m), line)
        line = re.sub(r"\bcanImport\(\s*(UIKit|AppKit)\s*\)", lambda m: settled(m.group(1) == ui_module, m), line)
        line = re.sub(
            r"\btargetEnvironment\(\s*(\w+)\s*\)",
            lambda m: settled(m.group(1) == "macCatalyst" and platform == "macCatalyst", m), line)
        return line

    return CONDITION_LINE.sub(settle, source)


@dataclass(frozen=True)
class Scope:
    """What holds at a point of the checked code, on the platform being checked."""

    version: Version  # the oldest version this code can run on (UNREACHABLE: it never runs)
    deprecated: bool = False  # inside a deprecated declaration, where Xcode does not warn of deprecated uses

    def raised(self, version: Version | None) -> Scope:
        return replace(self, version=max(self.version, version)) if version else self


# Declarations the compiler writes for us (memberwise `init`, a stored property's accessors, an
# enum's `==` switching over every case): whatever they use, the written declaration they come
# from uses too, and they would report it where it was not written.
SYNTHESIZED_KINDS = ("constructor_decl", "accessor_decl", "func_decl", "var_decl")
IMPLIED_CONFORMANCES = ("implied", "inherited", "synthesized")
TYPES_WITH_STORAGE = ("struct_decl", "class_decl", "enum_decl")  # classes include actors


# Where the runtime has metadata for function types with a typed `throws(E)` (Swift 6.0's runtime).
TYPED_THROWS_RUNTIME = {"iOS": (18, 0, 0), "macOS": (15, 0, 0), "tvOS": (18, 0, 0), "watchOS": (11, 0, 0),
                        "visionOS": (2, 0, 0), "macCatalyst": (18, 0, 0)}
UNTYPED_ERRORS = ("Swift.Never", "any Swift.Error", "Swift.Error")


def has_typed_throws_metadata(written: str, anywhere: bool = False) -> bool:
    """Whether a demangled type holds a function type throwing a concrete error type inside a
    generic argument or an optional (or, with `anywhere`, at all)."""
    text = written.replace("->", "→")
    for match in re.finditer(r"throws\(", text):
        depth, end = 1, match.end()
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        if text[match.end() : end - 1] in UNTYPED_ERRORS:
            continue
        before = text[: match.start()]
        nested = before.count("<") > before.count(">") or before.count("[") > before.count("]")
        if anywhere or nested or ")?" in text[end:]:
            return True
    return False


class UseChecker:
    """Walks a checked file's AST for one platform, carrying the scope that holds at each point."""

    def __init__(self, declarations: DeclarationTable, platform: str, minimum: Version, path: str, shown: str):
        self.declarations, self.platform, self.path, self.shown = declarations, platform, path, shown
        self.minimum = minimum
        self.findings: list[Finding] = []
        self._lines: dict[str, list[int]] = {}
        self._seen: set[tuple[int, str]] = set()  # (line, what): one finding each

    def check(self, ast: dict) -> list[Finding]:
        scope = Scope(self.minimum)
        # Top-level code (a main.swift) runs in order: a `guard #available` there covers the rest.
        statements = scope
        for node, bound in self._with_bound_attrs(ast.get("items", [])):
            if node.get("_kind") == "top_level_code_decl":
                body = node.get("body", {})
                statements = self._walk_elements(body.get("elements", []), statements, self._start(body, 0))
            else:
                self._walk(node, self._declared(bound, scope), self._start(node, 0))
        return self.findings

    # Scopes

    def _declared(self, node: dict, scope: Scope) -> Scope:
        """`scope` inside a declaration, with the `@available` attributes it carries for this platform."""
        for attr in availability_attrs(node):
            if not applies_to(attr, self.platform):
                continue
            if attr.get("unavailable"):
                return replace(scope, version=UNREACHABLE)
            if "introduced" in attr and attr["domain"] != "*":
                scope = scope.raised(parse_version(attr["introduced"]))
            if "deprecated" in attr:
                scope = replace(scope, deprecated=True)
        return scope

    def _availability_query(self, condition) -> tuple[bool, Version | None] | None:
        """For an `#available` / `#unavailable` condition: (is it `#available`, the version it is
        about on this platform, None when it names another platform). None for other conditions.
        The dump writes both as `#available`; only `#available` has (and must have) a `*`."""
        if not isinstance(condition, dict) or condition.get("_kind") != "#available":
            return None
        queries = condition.get("queries", [])
        is_available = any(spec.get("domain") == "*" for spec in queries)
        for spec in queries:
            if spec.get("domain") == self.platform and "version" in spec:
                return is_available, parse_version(spec["version"])
        return is_available, None

    def _walk_conditions(self, node: dict, scope: Scope, offset: int) -> tuple[Scope, Scope]:
        """Walks a statement's conditions in order, each in the scope the ones before it give
        (`if #available(iOS 18, *), event.accuracyLimited`), and returns the scopes where they
        all hold and where one fails. The failing side is only known for a lone `#unavailable`."""
        conditions = node.get("conditions") or []
        holds = scope
        for condition in conditions:
            query = self._availability_query(condition)
            if query is None:
                self._walk(condition, holds, offset)
            elif query[0]:
                holds = holds.raised(query[1])
        fails = scope
        if len(conditions) == 1:
            query = self._availability_query(conditions[0])
            if query and not query[0]:
                fails = scope.raised(query[1])
        return holds, fails

    def _start(self, node: dict, offset: int) -> int:
        return node.get("range", {}).get("start", offset) if isinstance(node, dict) else offset

    def _walk(self, node, scope: Scope, offset: int) -> None:
        if isinstance(node, list):
            for child, bound in self._with_bound_attrs(node):
                self._walk(child, self._declared(bound, scope), offset)
            return
        if not isinstance(node, dict):
            return
        if node.get("implicit") and node.get("_kind") in SYNTHESIZED_KINDS:
            return
        offset = self._start(node, offset)
        scope = self._declared(node, scope)
        kind = node.get("_kind", "")
        if kind in ("if_stmt", "while_stmt"):
            return self._walk_conditional(node, scope, offset)
        if kind == "brace_stmt":
            self._walk_elements(node.get("elements", []), scope, offset)
            return
        if kind == "for_each_stmt":
            # The loop's `next` is the compiler's: `next(isolation:)` where the runtime has it
            # (iOS 18 / macOS 15), `next()` before; the written parts are checked.
            for key, child in node.items():
                if key not in ("iterator_var", "next_call") and isinstance(child, (dict, list)):
                    self._walk(child, scope, offset)
            return
        if kind == "defer_stmt":  # its block is the body of an implicit function
            return self._walk(node.get("temp_decl", {}).get("body"), scope, offset)
        if kind in TYPES_WITH_STORAGE:
            self._check_members_availability(node, scope)
        self._check_node(node, scope, offset)
        for key, child in node.items():
            if key != "attrs" and isinstance(child, (dict, list)):
                self._walk(child, scope, offset)

    def _walk_conditional(self, node: dict, scope: Scope, offset: int) -> None:
        holds, fails = self._walk_conditions(node, scope, offset)
        self._walk(node.get("then_stmt") or node.get("body"), holds, offset)
        self._walk(node.get("else_stmt"), fails, offset)

    def _walk_elements(self, elements: list, scope: Scope, offset: int) -> Scope:
        """Walks a block's statements; a `guard` sets the scope of the statements after it.
        Returns the scope at the end of the block."""
        for element in elements:
            if isinstance(element, dict) and element.get("_kind") == "guard_stmt":
                start = self._start(element, offset)
                holds, fails = self._walk_conditions(element, scope, start)
                self._walk(element.get("body"), fails, start)
                scope = holds
                continue
            self._walk(element, scope, offset)
        return scope

    def _with_bound_attrs(self, nodes: list):
        """Each node with the node whose `@available` covers it: a property's attributes are on
        its `var_decl`, its type and initial value on the `pattern_binding_decl` before it."""
        variables = {
            declaration_name(n): n for n in nodes if isinstance(n, dict) and n.get("_kind") == "var_decl"}
        for node in nodes:
            bound = {}
            if isinstance(node, dict) and node.get("_kind") == "pattern_binding_decl":
                attrs = [a for name in self._bound_names(node) for a in variables.get(name, {}).get("attrs", [])]
                bound = {"attrs": attrs}
            yield node, bound

    def _bound_names(self, node) -> list[str]:
        if isinstance(node, list):
            return [name for child in node for name in self._bound_names(child)]
        if not isinstance(node, dict):
            return []
        if node.get("_kind") == "pattern_named":
            return [declaration_name(node)]
        return [name for key, child in node.items()
                if key not in ("original_init", "processed_init") for name in self._bound_names(child)]

    # Declarations Xcode rejects whatever they use

    def _check_members_availability(self, node: dict, scope: Scope) -> None:
        """Instance stored properties and enum cases with associated values live in their
        type's storage: they cannot be newer than the type (Xcode: "stored properties cannot be
        marked potentially unavailable with '@available'"), nor can a stored property be
        unavailable where its type is not."""
        if scope.version == UNREACHABLE:
            return
        members = [m for m in node.get("members", []) if isinstance(m, dict)]
        for member in members:
            if member.get("_kind") == "enum_case_decl":
                self._check_enum_payload_cases(member, scope)
            elif member.get("_kind") == "var_decl" and self._is_instance_storage(member, members):
                self._check_stored_property(member, scope)

    def _check_stored_property(self, member: dict, scope: Scope) -> None:
        own = self._declared(member, scope)
        if own.version == UNREACHABLE:
            self._report_declaration(member, "stored properties cannot be marked unavailable with '@available'")
        elif own.version > scope.version:
            self._report_declaration(
                member, "stored properties cannot be marked potentially unavailable with '@available' "
                f"({self.platform} {show_version(own.version)}, newer than the type's scope)")

    def _check_enum_payload_cases(self, case: dict, scope: Scope) -> None:
        for element in case.get("elements", []):
            if not element.get("params", {}).get("params"):
                continue
            own = self._declared(case, self._declared(element, scope))
            if scope.version < own.version < UNREACHABLE:
                self._report_declaration(
                    element, "enum cases with associated values cannot be marked potentially unavailable "
                    f"with '@available' ({self.platform} {show_version(own.version)}, newer than the enum's scope)")

    def _is_instance_storage(self, member: dict, members: list[dict]) -> bool:
        """A stored, lazy or property-wrapped (its storage is the implicit `_name` beside it) instance property."""
        if member.get("static") or member.get("implicit"):
            return False
        wrapped_storage = "_" + declaration_name(member)
        return member.get("readImpl") == "stored" or bool(member.get("lazy")) or any(
            m.get("implicit") and m.get("_kind") == "var_decl" and declaration_name(m) == wrapped_storage
            for m in members)

    def _report_declaration(self, node: dict, problem: str) -> None:
        name = declaration_name(node)
        self._report(self._start(node, 0), name, f"'{name}': {problem}")

    # Uses

    def _check_node(self, node: dict, scope: Scope, offset: int) -> None:
        # A reference (`decl_usr`), or a type written in a `where` clause (`bind`).
        for usr in (node.get("decl_usr"), node.get("bind")):
            if usr in self.declarations.by_usr:
                self._check_use(self.declarations.by_usr[usr], scope, offset)
        # A protocol written in a conformance or constraint (`: CLCondition`, `<T: CLCondition>`),
        # not one the compiler implies from it.
        protocol = node.get("protocol")
        if protocol in self.declarations.by_usr and node.get("source_kind") not in IMPLIED_CONFORMANCES:
            self._check_use(self.declarations.by_usr[protocol], scope, offset)
        if node.get("_kind") == "pattern_enum_element":
            self._check_case(node, scope, offset)
        if node.get("override"):
            self._check_override(node, scope, offset)
        self._check_typed_throws_metadata(node, scope, offset)
        # A property wrapper or global actor written as an attribute (`@MainActor`) is a type used.
        custom = [attr.get("type") for attr in node.get("attrs", [])
                  if isinstance(attr, dict) and attr.get("_kind") == "custom_attr"]
        for value in [*node.values(), *custom]:
            if isinstance(value, str) and value.startswith("$s"):
                for declaration in self.declarations.types_in(self.declarations.written(value)):
                    self._check_use(declaration, scope, offset)

    def _check_override(self, node: dict, scope: Scope, offset: int) -> None:
        """An override cannot be less available than what it overrides (Xcode: "overriding
        'f' must be as available as declaration it overrides"): a caller through the base class
        would reach it where it does not exist."""
        own = self._declared(node, scope).version
        for usr in node["override"]:
            base = self.declarations.by_usr.get(usr)
            if base is None or own == UNREACHABLE:
                continue
            if base.availability.is_unavailable(self.platform):
                continue
            needed = max(base.availability.introduced.get(self.platform, ALWAYS), self.minimum)
            if own > needed:
                name = declaration_name(node)
                self._report(offset, name, f"'{name}': overriding '{base.name}' must be as available as declaration "
                             f"it overrides ({self.platform} {show_version(own)} here, {show_version(needed)} there)")

    def _check_typed_throws_metadata(self, node: dict, scope: Scope, offset: int) -> None:
        """A function type that throws a concrete error type needs the iOS 18 / macOS 15 runtime
        for its metadata: as a generic argument (`[() throws(E) -> Void]`, an optional), or
        erased to `Any` (Xcode: "runtime support for typed throws function types is only
        available in iOS 18.0.0 or newer"). Called or passed as a parameter it needs none."""
        needed = TYPED_THROWS_RUNTIME.get(self.platform)
        if needed is None or scope.version >= needed:
            return
        erased = node.get("_kind") == "erasure_expr"  # to `Any`: the function type's own metadata
        if erased:
            types = [(node.get("sub_expr") or {}).get("type")]
        else:  # the types the node holds (a generic signature's `interface_type` repeats them)
            types = [v for k, v in node.items() if isinstance(v, str) and v.startswith("$s") and k != "interface_type"]
        for value in types:
            written = self.declarations.written(value) if isinstance(value, str) else ""
            if written and has_typed_throws_metadata(written, anywhere=erased):
                self._report(offset, "typed throws", "runtime support for typed throws function types is only "
                             f"available in {self.platform} {show_version(needed)}.0 or newer (`{written}`); "
                             f"this scope only guarantees {self.platform} {show_version(scope.version)}")
                return

    def _check_case(self, node: dict, scope: Scope, offset: int) -> None:
        """A case named in a pattern (`case .unmonitored:`) may be newer than the scope, or
        unavailable on the platform: a value can only match it where it exists (Swift's
        test/Sema/availability_versions.swift: "Pattern matching on an enum element does not
        require it to be definitely available"; `case .authorizedWhenInUse:` compiles for macOS).
        Only a value use (`status == .authorizedWhenInUse`) fails. Deprecated, it still warns."""
        name = declaration_name(node.get("element", {}))
        written = self.declarations.written(node.get("type", ""))
        for enum in re.findall(r"(?<![\w.])[A-Za-z_][\w.]*", written):
            declaration = self.declarations.cases.get((enum, name))
            if declaration:
                self._check_use(declaration, scope, offset, matched=True)

    def _check_use(self, declaration: Declaration, scope: Scope, offset: int, matched: bool = False) -> None:
        if scope.version == UNREACHABLE:
            return
        availability, platform, version = declaration.availability, self.platform, scope.version
        where = f"({declaration.module} {declaration.location})"
        message = None
        obsoleted = availability.obsoleted.get(platform)
        deprecation = availability.deprecation(platform)
        if availability.is_unavailable(platform) and not matched:
            message = f"'{declaration.name}' is unavailable in {platform} {where}"
        elif obsoleted and obsoleted <= version:
            obsolete = show_version(obsoleted)
            message = f"'{declaration.name}' is unavailable in {platform}: obsoleted in {obsolete} {where}"
        elif availability.introduced.get(platform, ALWAYS) > version and not matched:
            needed = show_version(availability.introduced[platform])
            message = (
                f"'{declaration.name}' is only available in {platform} {needed} or newer {where}; "
                f"this scope only guarantees {platform} {show_version(version)}: "
                f"use `if #available({platform} {needed}, *)` or `@available`")
        elif deprecation and deprecation[0] <= version and not scope.deprecated:
            deprecated, note = deprecation
            message = f"'{declaration.name}' was deprecated in {platform} {show_version(deprecated)}: {note} {where}"
        if message is not None:
            self._report(offset, declaration.name, message)

    def _report(self, offset: int, what: str, message: str) -> None:
        line, column = line_column(self.path, offset, self._lines)
        if (line, what) in self._seen:
            return
        self._seen.add((line, what))
        self.findings.append(Finding(self.shown, line, column, message))


def compile_stubs(stubs: dict[str, str], modules: str) -> DeclarationTable:
    """Builds each stub module into `modules` and reads its declarations' availability."""
    table = DeclarationTable()
    for name, directory in stubs.items():
        sources = sorted(os.path.join(directory, f) for f in os.listdir(directory) if f.endswith(".swift"))
        # Library evolution, as Apple's SDK modules: their enums are open (`@unknown default`).
        emit = ["swiftc", "-parse-as-library", "-enable-library-evolution", "-suppress-warnings",
                "-emit-module", "-module-name", name, "-I", modules,
                "-emit-module-path", os.path.join(modules, f"{name}.swiftmodule"), *sources]
        result = subprocess.run(emit, capture_output=True, text=True)
        if result.returncode != 0:
            raise TypeCheckFailed(f"the stub module {name} does not compile:\n{result.stdout}{result.stderr}")
        table.add_module(name, sources, ["-I", modules])
    return table


def unavailable_everywhere(source: str, platform: str) -> str:
    """`source` with `@available(platform, unavailable)` written `@available(*, unavailable)`
    (padded: positions stay), so that the Linux compiler applies it as Xcode does on `platform`."""
    pattern = re.compile(r"@available\(\s*" + re.escape(platform) + r"\s*,\s*unavailable\s*\)")
    return pattern.sub(lambda m: "@available(*, unavailable)".ljust(len(m.group(0))), source)


def compile_platform_stubs(stubs: dict[str, str], platform: str, modules: str, scratch: str) -> str:
    """The stub modules as the compiler sees them on `platform`: what is `@available(platform,
    unavailable)` there is unavailable everywhere here, so the Linux compiler treats it as
    Xcode does for that platform (a switch need not name the case; a value use fails).
    Returns the folder of the modules."""
    folder = tempfile.mkdtemp(prefix=f"stubs-{platform}-", dir=scratch)
    for name, directory in stubs.items():
        sources = []
        for file in sorted(f for f in os.listdir(directory) if f.endswith(".swift")):
            with open(os.path.join(directory, file), encoding="utf-8") as source:
                text = unavailable_everywhere(source.read(), platform)
            os.makedirs(os.path.join(folder, name), exist_ok=True)
            copy = os.path.join(folder, name, file)
            with open(copy, "w", encoding="utf-8") as out:
                out.write(text)
            sources.append(copy)
        emit = ["swiftc", "-parse-as-library", "-enable-library-evolution", "-suppress-warnings",
                "-emit-module", "-module-name", name, "-I", folder, "-I", modules,
                "-emit-module-path", os.path.join(folder, f"{name}.swiftmodule"), *sources]
        result = subprocess.run(emit, capture_output=True, text=True)
        if result.returncode != 0:
            raise TypeCheckFailed(f"the stub module {name} for {platform} does not compile:\n{result.stdout}{result.stderr}")
    return folder


def settled_copies(files: list[str], platform: str, folder: str) -> dict[str, str]:
    """Copies of `files` with `#if` settled for `platform`, each under its own name (a
    `main.swift` stays one), in a folder of its own: {copy: original}."""
    copies = {}
    for index, path in enumerate(files):
        directory = os.path.join(folder, str(index))
        os.makedirs(directory)
        copy = os.path.join(directory, os.path.basename(path))
        with open(path, encoding="utf-8") as source, open(copy, "w", encoding="utf-8") as out:
            out.write(settle_conditions(source.read(), platform))
        copies[copy] = path
    return copies


@dataclass
class Options:
    """How the checked module is compiled."""

    search: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    module_name: str = "Checked"
    clang: list[str] = field(default_factory=list)
    strict: bool = False  # also compile as Xcode does (Swift 6, warnings as errors, through SIL)
    package_name: str | None = None  # `package` declarations of the modules it imports


    def arguments(self, modules: str, script: bool) -> list[str]:
        arguments = ["-module-name", self.module_name, "-I", modules]
        if self.package_name:
            arguments += ["-package-name", self.package_name]
        if not script:
            arguments.append("-parse-as-library")
        for directory in self.search:
            arguments += ["-I", directory]
        for define in self.defines:
            arguments += ["-D", define]
        for argument in self.clang:
            arguments += ["-Xcc", argument]
        return arguments


def dump_module(copies: list[str], options: Options, modules: str) -> tuple[list[dict], bool]:
    """The module's ASTs, compiled as SwiftPM compiles a library (top-level code only in a
    main.swift); a lone file that only compiles as a script (top-level statements) is one.
    Also whether it was compiled as a script."""
    script = any(os.path.basename(path) == "main.swift" for path in copies)
    try:
        return run_dump(options.arguments(modules, script) + copies)[0], script
    except TypeCheckFailed:
        if script or len(copies) > 1:
            raise
        return run_dump(options.arguments(modules, script=True) + copies)[0], True


def compile_strictly(
    copies: dict[str, str], options: Options, modules: str, script: bool, platform_stubs: str,
) -> str | None:
    """Xcode's build of the module: Swift 6 language mode, warnings as errors, through SIL,
    where region-based isolation is diagnosed (a non-Sendable value sent to another actor).
    The compiler's output with the original paths, or None when it compiles."""
    # The AST dump stays in Swift 5 mode: Swift 6's errors would leave no AST to walk.
    command = ["swiftc", "-emit-sil", "-o", os.devnull, "-wmo", "-swift-version", "6", "-warnings-as-errors",
               "-I", platform_stubs,
               *options.arguments(modules, script), *copies]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode == 0:
        return None
    output = result.stdout + result.stderr
    for copy, original in copies.items():
        output = output.replace(copy, original)
    return output.strip()


def check_module(
    files: list[str], table: DeclarationTable, platforms: dict[str, Version], options: Options,
    modules: str, scratch: str, platform_stubs: dict[str, str],
) -> tuple[list[Finding], str | None]:
    """Findings for the module of `files` on every platform, or the compiler's output when it does not compile."""
    findings: list[Finding] = []
    dumped: dict[tuple[str, ...], tuple[dict[str, str], list[dict], bool]] = {}
    for platform, minimum in platforms.items():
        settled = tuple(settle_conditions(open(path, encoding="utf-8").read(), platform) for path in files)
        if settled in dumped:  # no `#if` tells the platforms apart: one dump serves both
            copies, asts, script = dumped[settled]
        else:
            copies = settled_copies(files, platform, tempfile.mkdtemp(prefix=platform, dir=scratch))
            try:
                asts, script = dump_module(list(copies), options, modules)
            except TypeCheckFailed as failure:
                return findings, f"[{platform}] the files do not type-check:\n{failure}"
            dumped[settled] = copies, asts, script
        if options.strict:
            errors = compile_strictly(copies, options, modules, script, platform_stubs[platform])
            if errors:
                findings += strict_findings(errors, platform, minimum)
        declarations = table.with_module(options.module_name, asts)
        for ast in asts:
            copy = ast["filename"]
            if copy not in copies:
                continue
            checker = UseChecker(declarations, platform, minimum, copy, copies[copy])
            findings += [
                Finding(f.path, f.line, f.column, f"[{platform} {show_version(minimum)}] {f.message}")
                for f in checker.check(ast)]
    return findings, None


def strict_findings(output: str, platform: str, minimum: Version) -> list[Finding]:
    """The compiler's errors (warnings are errors) as findings."""
    findings = []
    for match in re.finditer(r"^(.+?):(\d+):(\d+): error: (.+)$", output, re.MULTILINE):
        path, line, column, message = match.groups()
        if re.fullmatch(r"'[^']+' is unavailable", message):
            # The stubs' platform unavailability, applied everywhere (compile_platform_stubs):
            # the compiler cannot tell an `@available(macOS, unavailable)` scope here, so uses
            # are judged by the availability walk, which can.
            continue
        findings.append(Finding(path, int(line), int(column), f"[{platform} {show_version(minimum)}] [Swift 6] {message}"))
    if not re.search(r"^.+?:\d+:\d+: error: ", output, re.MULTILINE):
        findings.append(Finding("<module>", 0, 0, f"[{platform}] [Swift 6] the strict compile failed:\n{output}"))
    return findings


def check(
    files: list[str], stubs: dict[str, str], platforms: dict[str, Version],
    search: list[str], defines: list[str], module_name: str, clang: list[str] = (), each: bool = False,
    strict: bool = False, toolchain_table: str | None = None, cache: str | None = None,
    package_name: str | None = None,
) -> tuple[list[Finding], list[str]]:
    """Findings for `files` (one module, or with `each` one module per file) on every platform,
    and the compiler's output for each module that does not compile."""
    options = Options(list(search), list(defines), module_name, list(clang), strict, package_name)
    with tempfile.TemporaryDirectory(prefix="availability-") as scratch:
        modules = os.path.join(scratch, "modules")
        os.makedirs(modules)
        try:
            table = compile_stubs(stubs, modules)
        except TypeCheckFailed as failure:
            return [], [str(failure)]
        platform_stubs = {}
        if strict:
            try:
                platform_stubs = {p: compile_platform_stubs(stubs, p, modules, scratch) for p in platforms}
            except TypeCheckFailed as failure:
                return [], [str(failure)]
        if toolchain_table:
            table.add_symbols(toolchain_availability.load(cache or os.path.join(scratch, "cache"), toolchain_table))
        groups = [[path] for path in files] if each else [files]
        # Modules are independent: check them side by side (the compiler runs are the time).
        with ThreadPoolExecutor(max_workers=min(len(groups), os.cpu_count() or 1)) as pool:
            results = list(pool.map(
                lambda group: check_module(group, table, platforms, options, modules, scratch, platform_stubs), groups))
        findings = [finding for found, _ in results for finding in found]
        return findings, [failure for _, failure in results if failure]


# The names `@available` and `#available` use, as the dump spells them (`ios` would match nothing).
PLATFORM_NAMES = {name.lower(): name for name in ("iOS", "macOS", "tvOS", "watchOS", "visionOS", "macCatalyst")}


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
    parser.add_argument("--strict", action="store_true",
                        help="also compile as Xcode does: Swift 6 mode, warnings as errors, through SIL")
    parser.add_argument("--toolchain-availability", metavar="TABLE",
                        help="know the toolchain's declarations: the standard library's, Synchronization's, "
                        "Observation's from the toolchain, Foundation's and Dispatch's from TABLE")
    parser.add_argument("--package-name", help="the package the checked module belongs to (`package` access)")
    parser.add_argument("--cache", help="a folder for the toolchain's symbols, kept between runs")
    parser.add_argument("--each", action="store_true",
                        help="check each file as a module of its own (snippets), with one build of the stubs")
    options = parser.parse_args(argv)
    stubs = dict(item.split("=", 1) for item in options.stub)
    if not options.platform:
        parser.error("at least one --platform is needed")
    platforms = {}
    for item in options.platform:
        name, _, version = item.partition("=")
        if name.lower() not in PLATFORM_NAMES or not re.fullmatch(r"\d+(\.\d+){0,2}", version):
            parser.error(f"--platform {item}: expected NAME=VERSION, NAME one of {', '.join(PLATFORM_NAMES.values())}")
        platforms[PLATFORM_NAMES[name.lower()]] = parse_version(version)
    for path in options.files:
        if not os.path.isfile(path):
            parser.error(f"{path}: no such file")
    try:
        findings, failures = check(
            options.files, stubs, platforms, options.search, options.defines, options.module_name, options.clang,
            options.each, options.strict, options.toolchain_availability, options.cache,
            options.package_name)
    except (OSError, UnicodeDecodeError) as error:  # a stub folder that is not one, a file that is not UTF-8
        print(f"availability: {error}", file=sys.stderr)
        return 2
    for failure in failures:
        print(failure, file=sys.stderr)
    for finding in findings:
        print(finding)
    checked = ", ".join(f"{p} {show_version(v)}" for p, v in platforms.items())
    print(f"availability: {len(options.files)} files checked for {checked}: {len(findings)} findings", file=sys.stderr)
    if failures:
        return 2
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
