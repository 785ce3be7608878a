#!/usr/bin/env python3
"""Non-test lines per crate and functions over a length, for the architecture's budgets.

Counts every line of each crate's `src/` (the root crate's too) except `#[cfg(test)]`
items (a unit-test module is skipped to its closing brace). Usage:
    python3 benches/code-size.py [--long 80]
"""
import argparse
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(async\s+)?(const\s+)?(unsafe\s+)?fn\s+(\w+)")


def strip_tests(lines):
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "#[cfg(test)]":
            depth, started = 0, False
            while i < len(lines):
                depth += lines[i].count("{") - lines[i].count("}")
                started = started or "{" in lines[i] or lines[i].rstrip().endswith(";")
                i += 1
                if started and depth <= 0:
                    break
            continue
        out.append(lines[i])
        i += 1
    return out


TEST_MOD = re.compile(r"^\s*mod\s+(\w+)\s*;")


PATH_ATTR = re.compile(r'^\s*#\[path\s*=\s*"([^"]+)"\]')


def test_module_files(f):
    """Files that `#[cfg(test)] mod name;` in `f` pulls in: unit tests kept beside the code."""
    lines = f.read_text().splitlines()
    base = f.parent if f.name in ("mod.rs", "lib.rs", "main.rs") else f.parent / f.stem
    out = set()
    for i, line in enumerate(lines[:-2]):
        if line.strip() != "#[cfg(test)]":
            continue
        path = PATH_ATTR.match(lines[i + 1])
        m = TEST_MOD.match(lines[i + 2] if path else lines[i + 1])
        if path and m:
            out.add(f.parent / path.group(1))
        elif m:
            out.add(base / f"{m.group(1)}.rs")
            out |= set((base / m.group(1)).rglob("*.rs"))
    return out


def long_functions(path, lines, limit):
    found = []
    for i, line in enumerate(lines):
        m = FN.match(line)
        if not m or line.rstrip().endswith(";"):
            continue
        indent = len(line) - len(line.lstrip())
        for j in range(i + 1, len(lines)):
            stripped = lines[j].rstrip()
            if stripped == " " * indent + "}" or (indent == 0 and stripped == "}"):
                if j - i + 1 > limit:
                    found.append((j - i + 1, f"{path.relative_to(ROOT)}::{m.group(6)}"))
                break
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--long", type=int, default=80)
    args = ap.parse_args()
    crates = {"crit-cli (src/)": ROOT / "src"}
    for c in sorted((ROOT / "crates").iterdir()):
        if (c / "src").is_dir():
            crates[c.name] = c / "src"
    total, total_code, longs = 0, 0, []
    print(f"{'crate':24} {'lines':>7} {'code':>7}  (code: neither blank nor a comment)")
    for name, src in crates.items():
        n = code = 0
        files = sorted(src.rglob("*.rs"))
        tests = set().union(*(test_module_files(f) for f in files))
        for f in files:
            if f in tests:
                continue
            lines = strip_tests(f.read_text().splitlines())
            n += len(lines)
            code += sum(1 for x in lines if x.strip() and not x.strip().startswith("//"))
            longs += long_functions(f, lines, args.long)
        total += n
        total_code += code
        print(f"{name:24} {n:7} {code:7}")
    print(f"{'total':24} {total:7} {total_code:7}")
    print(f"\nfunctions over {args.long} lines: {len(longs)}")
    for n, where in sorted(longs, reverse=True):
        print(f"  {n:4}  {where}")


if __name__ == "__main__":
    main()
