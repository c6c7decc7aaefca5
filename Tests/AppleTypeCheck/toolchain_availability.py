"""Apple's availability of the declarations an app gets from the toolchain, for check-availability.py.

- The standard library, `_Concurrency`, Synchronization and Observation carry Apple's
  `@available` in the toolchain itself (Linux's build included): `swift-symbolgraph-extract`
  gives each public symbol's USR (`identifier.precise`, the `decl_usr` of a use in the AST
  dump) and its `availability` per platform (`String.init(validating:as:)`: macOS 15, iOS 18).
- Foundation and Dispatch on Linux are other builds (swift-corelibs, swift-foundation) whose
  availability is not Apple's: their symbols' USRs come from the Linux symbol graphs, but their
  availability only from FoundationAvailability.tsv (a row per API newer than iOS 13 /
  macOS 10.15, each with its developer.apple.com page).

A member inherits its type's availability (a symbol graph's `memberOf`). The tables are built
once per toolchain and kept in a cache folder (a few seconds to build, a second to load).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

# Modules whose symbol graphs carry Apple's availability.
TOOLCHAIN_MODULES = ("Swift", "_Concurrency", "_StringProcessing", "Synchronization", "Observation", "RegexBuilder")
# Modules whose symbols are only named here; their availability is the table's.
TABLE_MODULES = ("FoundationEssentials", "FoundationInternationalization", "Foundation", "Dispatch")
PLATFORMS = ("iOS", "macOS")
TYPE_KINDS = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias"}
TARGET = "x86_64-unknown-linux-gnu"


def toolchain_version() -> str:
    return subprocess.run(["swiftc", "--version"], capture_output=True, text=True).stdout.strip()


def symbol_graphs(module: str, folder: str) -> list[dict]:
    """The symbol graphs of `module` (its own and its extensions of other modules' types)."""
    out = os.path.join(folder, module)
    os.makedirs(out, exist_ok=True)
    subprocess.run(
        ["swift-symbolgraph-extract", "-module-name", module, "-target", TARGET, "-output-dir", out],
        capture_output=True, check=True)
    graphs = []
    for name in sorted(os.listdir(out)):
        with open(os.path.join(out, name), encoding="utf-8") as graph:
            graphs.append(json.load(graph))
    return graphs


def _version(value: dict | None) -> str | None:
    if not value:
        return None
    return ".".join(str(value.get(part, 0)) for part in ("major", "minor", "patch"))


def apple_attrs(symbol: dict) -> list[dict]:
    """A symbol's availability on the checked platforms, as check-availability.py reads
    `@available` from an AST dump (`domain`, `introduced`, `deprecated`, `obsoleted`, `unavailable`)."""
    attrs = []
    for entry in symbol.get("availability") or []:
        if entry.get("domain") not in PLATFORMS:
            continue
        attr = {"domain": entry["domain"]}
        for key in ("introduced", "deprecated", "obsoleted"):
            if key in entry:
                attr[key] = _version(entry[key])
        if entry.get("isUnconditionallyUnavailable"):
            attr["unavailable"] = True
        if entry.get("isUnconditionallyDeprecated"):
            attr["deprecated"] = "0.0.0"
        if entry.get("message"):
            attr["message"] = entry["message"]
        attrs.append(attr)
    return attrs


def _graph_module(graph: dict, name: str) -> str:
    return graph.get("module", {}).get("name", name)


def read_table(path: str) -> list[dict]:
    """FoundationAvailability.tsv: `symbol  iOS  macOS  page` rows (# comments)."""
    rows = []
    with open(path, encoding="utf-8") as table:
        for number, line in enumerate(table, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 4 or not fields[3].startswith("https://developer.apple.com/"):
                raise ValueError(f"{path}:{number}: expected `symbol<TAB>iOS<TAB>macOS<TAB>developer.apple.com page`")
            symbol, ios, macos, page = fields
            rows.append({"symbol": symbol, "line": number, "page": page,
                         "attrs": [{"domain": "iOS", "introduced": ios}, {"domain": "macOS", "introduced": macos}]})
    return rows


def build(folder: str, table_path: str) -> list[dict]:
    """Every symbol with Apple availability: {usr, name, module, location, type (full name or
    None), attrs, parent (usr or None)}."""
    entries = []
    rows = {row["symbol"]: row for row in read_table(table_path)}
    matched = set()
    for module in TOOLCHAIN_MODULES + TABLE_MODULES:
        from_table = module in TABLE_MODULES
        for graph in symbol_graphs(module, folder):
            relationships = graph.get("relationships", [])
            parents = {r["source"]: r["target"] for r in relationships if r["kind"] in ("memberOf", "requirementOf")}
            requirements = {r["source"] for r in relationships if r["kind"] == "requirementOf"}
            owner = _graph_module(graph, module)
            for symbol in graph.get("symbols", []):
                path = ".".join(symbol["pathComponents"])
                row = rows.get(path) if from_table else None
                if from_table:
                    if row is None:
                        attrs = []
                    else:
                        attrs, location = row["attrs"], f"FoundationAvailability.tsv:{row['line']}"
                        matched.add(path)
                else:
                    attrs, location = apple_attrs(symbol), f"{owner}.swiftinterface"
                usr = symbol["identifier"]["precise"]
                is_type = symbol["kind"]["identifier"] in TYPE_KINDS
                entries.append({
                    "requirement": usr in requirements,
                    "usr": usr, "name": path, "module": owner, "location": location if attrs else "",
                    "type": f"{owner}.{path}" if is_type else None, "attrs": attrs, "parent": parents.get(usr)})
    missing = sorted(set(rows) - matched)
    if missing:
        raise ValueError(f"{table_path}: rows naming no symbol of {', '.join(TABLE_MODULES)}: {', '.join(missing)}")
    return entries


def load(cache: str, table_path: str) -> list[dict]:
    """The symbols (see `build`), from the cache when it is of this toolchain and table."""
    os.makedirs(cache, exist_ok=True)
    key = "\n".join([toolchain_version(), open(table_path, encoding="utf-8").read(), open(__file__, encoding="utf-8").read()])
    cached = os.path.join(cache, "toolchain-availability.json")
    try:
        with open(cached, encoding="utf-8") as saved:
            data = json.load(saved)
        if data.get("key") == key:
            return data["symbols"]
    except (OSError, ValueError):
        pass
    symbols = build(os.path.join(cache, "symbol-graphs"), table_path)
    # Only what carries availability, or is the parent of what may inherit it.
    with_parents = {s["usr"] for s in symbols if s["attrs"]}
    kept = [s for s in symbols if s["attrs"] or s["parent"] in with_parents or s["usr"] in with_parents]
    temporary = cached + f".{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as out:
        json.dump({"key": key, "symbols": kept}, out)
    os.replace(temporary, cached)
    return kept


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    found = load(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, ".build", "availability-cache"),
                 os.path.join(here, "FoundationAvailability.tsv"))
    print(f"{len(found)} symbols with Apple availability")
