"""Builds the ns-3 anchors of anchors/ (their sources, scripts and runs) into target/ns3/
(used by bench and validate).

The anchors' sources stay where they are; a copy is built here with their own build.sh,
against Debian's libns3-dev (installed with apt-get when missing and we are root).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ANCHORS = ROOT / "anchors"
BUILD = ROOT / "target" / "ns3"
BINARIES = {"ns3": "dctcp_bottleneck", "ns3-leafspine": "dctcp_leafspine"}


def have_ns3() -> bool:
    return subprocess.run(["pkg-config", "--exists", "ns3-core"], capture_output=True).returncode == 0


def install_ns3() -> bool:
    """apt-get install libns3-dev (ns-3 3.37 on Debian 12) if we may; True if ns-3 is there."""
    if have_ns3() and Path("/usr/bin/time").exists():
        return True
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return have_ns3()
    print("installing libns3-dev g++ pkg-config time with apt-get ...", file=sys.stderr, flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], env=env, check=False, capture_output=True)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "libns3-dev", "g++", "pkg-config", "time"],
        env=env,
        check=False,
        capture_output=True,
    )
    return have_ns3()


def build(anchor: str) -> Path | None:
    """The built simulator of `anchor` ("ns3" or "ns3-leafspine"), or None without ns-3."""
    if not install_ns3():
        return None
    src = ANCHORS / anchor
    dst = BUILD / anchor
    binary = dst / "build" / BINARIES[anchor]
    if binary.exists() and binary.stat().st_mtime >= (src / f"{BINARIES[anchor]}.cc").stat().st_mtime:
        return binary
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("results", "build"))
    subprocess.run(["bash", "build.sh"], cwd=dst, check=True, capture_output=True)
    return binary


if __name__ == "__main__":
    for a in BINARIES:
        print(a, build(a))
