"""crit's build backend (PEP 517): maturin, plus the `crit` program.

maturin builds the wheel's native module (crates/crit-py) and takes the files
under `[tool.maturin] data` into the wheel; `data/scripts/crit` becomes the
`crit` command. That program is the workspace's root package, which maturin
does not build, so every wheel build here first builds it from the same source
with cargo (`--locked`, maturin's profile and target) and puts that build, and
nothing older, in the data directory. So `pip install PATH`, `pip install
git+URL`, the sdist and the wheel each give the command and the module, built
from source.

Settings maturin takes (`MATURIN_PEP517_ARGS`, or the `maturin.build-args`
config setting) apply to both builds: `--profile NAME` (default: release),
`--target TRIPLE` (else `CARGO_BUILD_TARGET`). `CRIT_BIN_TARGET` builds the
program alone for another target (a static musl program in a manylinux wheel).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from typing import Any, List, Mapping, Optional, Set

import maturin
from maturin import (  # noqa: F401 - the hooks maturin implements as they are
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
)

# Relative to the source tree (the working directory of every hook), as
# `[tool.maturin] data` in pyproject.toml names it.
DATA_DIR = os.path.join("target", "wheel-data")
PACKAGE = "crit-cli"
PROGRAM = "crit"


def _option(args: List[str], name: str) -> Optional[str]:
    """The value of `--name VALUE` or `--name=VALUE` in maturin's arguments."""
    value = None
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith(name + "="):
            value = arg[len(name) + 1 :]
    return value


def _cargo_build(config_settings: Optional[Mapping[str, Any]]) -> str:
    """Builds the `crit` program; returns the path of the executable cargo made."""
    args = maturin.get_maturin_pep517_args(config_settings)
    profile = _option(args, "--profile") or "release"
    target = (
        os.environ.get("CRIT_BIN_TARGET")
        or _option(args, "--target")
        or os.environ.get("CARGO_BUILD_TARGET")
    )
    command = [
        "cargo",
        "build",
        "--locked",
        "--manifest-path",
        "Cargo.toml",
        "-p",
        PACKAGE,
        "--bin",
        PROGRAM,
        "--profile",
        profile,
        "--message-format=json-render-diagnostics",
    ]
    if target:
        command += ["--target", target]
    print("Running `{}`".format(" ".join(command)), flush=True)
    try:
        # Diagnostics and progress go to stderr as usual; stdout is cargo's
        # JSON messages, which name the executable wherever the target
        # directory is (CARGO_TARGET_DIR, a cross target).
        done = subprocess.run(command, stdout=subprocess.PIPE, check=False)
    except FileNotFoundError:
        sys.stderr.write(
            "crit is built from source with Rust: cargo is not on PATH. "
            "Install Rust (https://rustup.rs), then run pip again.\n"
        )
        sys.exit(1)
    if done.returncode != 0:
        sys.stderr.write(f"`{' '.join(command)}` failed with status {done.returncode}\n")
        sys.exit(1)
    executable = None
    for line in done.stdout.decode(errors="replace").splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        target_info = message.get("target") or {}
        if (
            message.get("reason") == "compiler-artifact"
            and target_info.get("name") == PROGRAM
            and "bin" in (target_info.get("kind") or [])
            and message.get("executable")
        ):
            executable = message["executable"]
    if not executable or not os.path.isfile(executable):
        sys.stderr.write(f"cargo built no `{PROGRAM}` program (`{' '.join(command)}`)\n")
        sys.exit(1)
    return executable


def _clear_data() -> str:
    """An empty data directory: no program from an earlier build goes along."""
    shutil.rmtree(DATA_DIR, ignore_errors=True)
    scripts = os.path.join(DATA_DIR, "scripts")
    os.makedirs(scripts)
    return scripts


def _stage_program(config_settings: Optional[Mapping[str, Any]]) -> None:
    scripts = _clear_data()
    shutil.copy2(_cargo_build(config_settings), os.path.join(scripts, PROGRAM))


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: Optional[Mapping[str, Any]] = None
) -> str:
    # maturin wants the data directory to exist before anything is built
    # (an unpacked sdist has none); empty, it adds nothing.
    _clear_data()
    return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_wheel(
    wheel_directory: str,
    config_settings: Optional[Mapping[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    _stage_program(config_settings)
    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(
    wheel_directory: str,
    config_settings: Optional[Mapping[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    _stage_program(config_settings)
    return maturin.build_editable(wheel_directory, config_settings, metadata_directory)


def _cargo_files(package: str) -> List[str]:
    """The files of a workspace package, as `cargo package --list` names them
    (from the package's directory), without the ones cargo generates."""
    done = subprocess.run(
        ["cargo", "package", "--list", "--allow-dirty", "--locked", "-p", package],
        stdout=subprocess.PIPE,
        check=True,
    )
    generated = {"Cargo.toml.orig", ".cargo_vcs_info.json"}
    return [f for f in done.stdout.decode().splitlines() if f and f not in generated]


def _workspace() -> List[Mapping[str, Any]]:
    done = subprocess.run(
        ["cargo", "metadata", "--no-deps", "--locked", "--format-version", "1"],
        stdout=subprocess.PIPE,
        check=True,
    )
    meta = json.loads(done.stdout)
    members = set(meta["workspace_members"])
    return [p for p in meta["packages"] if p["id"] in members]


def build_sdist(sdist_directory: str, config_settings: Optional[Mapping[str, Any]] = None) -> str:
    """maturin's sdist (the metadata, the module's crates) with the workspace
    as it is here: maturin leaves out the root package (the `crit` program)
    and the members the module does not use, and rewrites the workspace's
    Cargo.toml without them, so a wheel built from its sdist would have no
    command. Sources only: the wheel built from the sdist builds its own."""
    _clear_data()
    root = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        name = maturin.build_sdist(tmp, config_settings)
        with tarfile.open(os.path.join(tmp, name)) as src:
            members = src.getmembers()
            top = members[0].name.split("/")[0]
            have: Set[str] = set()
            out_path = os.path.join(sdist_directory, name)
            with tarfile.open(out_path, "w:gz", format=tarfile.PAX_FORMAT) as out:
                for m in members:
                    rel = m.name[len(top) + 1 :]
                    if rel == "Cargo.toml":
                        continue  # maturin's rewrite; the workspace's own is added below
                    have.add(rel)
                    out.addfile(m, src.extractfile(m) if m.isfile() else None)
                for package in _workspace():
                    pkg_dir = os.path.dirname(package["manifest_path"])
                    for f in _cargo_files(package["name"]):
                        rel = os.path.relpath(os.path.join(pkg_dir, f), root)
                        # cargo also lists files it writes into a package
                        # (a copy of the workspace's Cargo.lock): not here.
                        exists = os.path.isfile(os.path.join(root, rel))
                        if exists and rel not in have and not rel.startswith(".."):
                            have.add(rel)
                            out.add(os.path.join(root, rel), arcname=f"{top}/{rel}", recursive=False)
    return name
