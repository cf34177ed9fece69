#!/usr/bin/env python3
"""Writes gestell's wheel from a build, offline (zipfile, no build backend):
`cmake --build build --target wheel` runs it (cmake/Packaging.cmake).

  make_wheel.py --build BUILD --cmake CMAKE --version V
                --libdir lib/x86_64-linux-gnu --datadir share
                --docdir share/doc/gestell --out DIR

It installs the build, stripped (`cmake --install BUILD --strip`), into a
temporary folder and zips what the wheel needs of it; `--stage DIR` instead
of --build zips an install tree already made.

The wheel holds bin/gestell as gestell-V.data/scripts/gestell, and as
gestell-V.data/data/ (which pip installs into the environment's root, the
venv's prefix) the libgestell.so.N the ELF files NEED, the built-in plugins
(<libdir>/gestell/plugins) and <datadir>/gestell (rule packs, families): the
layout of an install tree, so the binary finds libgestell through its
RUNPATH ($ORIGIN/../<libdir>) and its plugins and packs beside itself, as
installed anywhere else. pip copies a script that is not a `#!python` one as
it is, with the executable bit the zip entry carries.

It fails when an ELF file NEEDS a library outside glibc, libstdc++ and
libgcc_s (and the wheel's own libgestell), or references GLIBC_PRIVATE; the
platform tag is manylinux_X_Y_<arch> for the newest GLIBC_X.Y symbol version
any of them references (readelf -V). Prints the wheel's path.
"""
import argparse
import base64
import csv
import fnmatch
import hashlib
import io
import os
import re
import subprocess
import sys
import tempfile
import time
import zipfile

# What a manylinux wheel may NEED besides its own libraries (PEP 600: the
# glibc and the compiler runtime of the platform).
ALLOWED_NEEDED = [
    "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
    "libstdc++.so.6", "libgcc_s.so.1",
]
# e_machine -> the architecture part of a platform tag.
MACHINES = {62: "x86_64", 183: "aarch64", 21: "ppc64le", 22: "s390x"}

SUMMARY = "Static analyzer for Triton compiler output (TTGIR, PTX, SASS, cubin)"
DESCRIPTION = """\
gestell lints the artifacts a Triton compile leaves behind (a Triton cache, a
`TRITON_DUMP_DIR`, or a folder of `.ttgir .ptx .cubin .json .sass` files) like
clang-tidy: checks from compiled plugins and TOML rule packs, reported as text,
JSON or SARIF for GitHub code scanning; `gestell diff` compares the compiled
output of two builds. It never runs a kernel and needs no GPU.

    pip install gestell-*.whl
    gestell ~/.triton/cache
    gestell --format=sarif -o gestell.sarif --path-map="$PWD=." ~/.triton/cache

The wheel holds the `gestell` binary (installed into the environment's
`bin/`), its library, the built-in check modules and the shipped rule packs.
"""


def fail(msg):
    print(f"make_wheel.py: error: {msg}", file=sys.stderr)
    sys.exit(1)


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def machine(path):
    with open(path, "rb") as f:
        head = f.read(20)
    order = "little" if head[5] == 1 else "big"
    return int.from_bytes(head[18:20], order)


def readelf(args, path):
    return subprocess.run(["readelf", "--wide"] + args + [path], check=True,
                          capture_output=True, text=True).stdout


def needed(path):
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]",
                      readelf(["-d"], path))


def glibc_versions(path):
    """The GLIBC_* symbol versions the file references (.gnu.version_r)."""
    return re.findall(r"Name: (GLIBC_[0-9A-Z_.]+)", readelf(["-V"], path))


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--build", help="the CMake build folder")
    src.add_argument("--stage", help="an install tree (cmake --install)")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--version", required=True)
    ap.add_argument("--libdir", required=True)
    ap.add_argument("--datadir", required=True)
    ap.add_argument("--docdir", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.stage:
        return write_wheel(a, os.path.abspath(a.stage))
    with tempfile.TemporaryDirectory(prefix="gestell-wheel.") as stage:
        r = subprocess.run([a.cmake, "--install", a.build, "--prefix", stage,
                            "--strip"], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"cmake --install {a.build} failed:\n{r.stdout}{r.stderr}")
        return write_wheel(a, stage)


def write_wheel(a, stage):

    # (path inside the environment's root, source file); bin/ becomes scripts.
    files = [("bin/gestell", os.path.join(stage, "bin", "gestell"))]
    plugins = os.path.join(a.libdir, "gestell", "plugins")
    for d in (plugins, os.path.join(a.datadir, "gestell")):
        for root, dirs, names in os.walk(os.path.join(stage, d)):
            dirs.sort()
            for n in sorted(names):
                src = os.path.join(root, n)
                files.append((os.path.relpath(src, stage), src))
    if not any(p.startswith(plugins + "/") and p.endswith(".so")
               for p, _ in files):
        fail(f"no plugin in {os.path.join(stage, plugins)}")

    # Each ELF file's NEEDED: allowed, or one of gestell's own libraries,
    # which then goes into the wheel under the name it is NEEDED by.
    elves = [(p, s) for p, s in files if is_elf(s)]
    own, problems, glibc, arches = {}, [], set(), set()
    i = 0
    while i < len(elves):
        path, src = elves[i]
        i += 1
        arches.add(machine(src))
        for n in needed(src):
            if any(fnmatch.fnmatchcase(n, p) for p in ALLOWED_NEEDED):
                continue
            lib = os.path.join(stage, a.libdir, n)
            if n.startswith("libgestell.so.") and os.path.exists(lib):
                if n not in own:
                    own[n] = os.path.realpath(lib)
                    elves.append((os.path.join(a.libdir, n), own[n]))
                continue
            problems.append(f"{path} NEEDS {n}, which is neither in glibc "
                            "nor libstdc++ nor in the wheel")
        for v in glibc_versions(src):
            m = re.fullmatch(r"GLIBC_(\d+(?:\.\d+)+)", v)
            if m:
                glibc.add(tuple(int(x) for x in m.group(1).split(".")))
            elif v == "GLIBC_ABI_DT_RELR":  # -z pack-relative-relocs: 2.36
                glibc.add((2, 36))
            else:
                problems.append(f"{path} references {v}")
    if problems:
        fail("not a manylinux wheel:\n  " + "\n  ".join(problems))
    files += [(os.path.join(a.libdir, n), s) for n, s in sorted(own.items())]
    if len(arches) != 1 or next(iter(arches)) not in MACHINES:
        fail(f"ELF machines {sorted(arches)}: expected one of {MACHINES}")
    arch = MACHINES[arches.pop()]
    major, minor = max(glibc)[:2] if glibc else (2, 17)
    platform = f"manylinux_{major}_{minor}_{arch}"

    name, version = "gestell", a.version
    tag = f"py3-none-{platform}"
    data = f"{name}-{version}.data"
    info = f"{name}-{version}.dist-info"
    entries = []  # (archive name, bytes, executable)
    for path, src in files:
        with open(src, "rb") as f:
            blob = f.read()
        arc = (f"{data}/scripts/{path[len('bin/'):]}" if path.startswith("bin/")
               else f"{data}/data/{path}")
        entries.append((arc, blob, is_elf(src)))
    for lic in ("LICENSE", "copyright"):
        src = os.path.join(stage, a.docdir, lic)
        if not os.path.exists(src):
            fail(f"no {src} (cmake/Packaging.cmake installs it)")
        with open(src, "rb") as f:
            entries.append((f"{info}/licenses/{lic}", f.read(), False))
    metadata = (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                f"Summary: {SUMMARY}\n"
                "Home-page: https://github.com/gestell/gestell\n"
                "License: Apache-2.0 WITH LLVM-exception\n"
                "Classifier: Environment :: Console\n"
                "Classifier: Operating System :: POSIX :: Linux\n"
                "Classifier: Topic :: Software Development :: Quality Assurance\n"
                "Description-Content-Type: text/markdown\n\n" + DESCRIPTION)
    wheel = ("Wheel-Version: 1.0\nGenerator: gestell tools/make_wheel.py\n"
             f"Root-Is-Purelib: false\nTag: {tag}\n")
    entries.append((f"{info}/METADATA", metadata.encode(), False))
    entries.append((f"{info}/WHEEL", wheel.encode(), False))
    rows = io.StringIO()
    w = csv.writer(rows, lineterminator="\n")
    for arc, blob, _ in entries:
        w.writerow([arc, record_hash(blob), len(blob)])
    w.writerow([f"{info}/RECORD", "", ""])
    entries.append((f"{info}/RECORD", rows.getvalue().encode(), False))

    # Reproducible: fixed order, times (SOURCE_DATE_EPOCH) and modes.
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    stamp = time.gmtime(max(epoch, 315532800))[:6]
    os.makedirs(a.out, exist_ok=True)
    out = os.path.join(a.out, f"{name}-{version}-{tag}.whl")
    tmp = out + ".part"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, blob, executable in entries:
            zi = zipfile.ZipInfo(arc, date_time=stamp)
            zi.external_attr = (0o100755 if executable else 0o100644) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, blob)
    os.replace(tmp, out)
    glibcxx = sorted({v for _, s in elves for v in re.findall(
        r"Name: (GLIBCXX_[0-9.]+)", readelf(["-V"], s))},
        key=lambda v: [int(x) for x in v.split("_")[1].split(".")])
    print(f"{out}: {len(entries)} files, glibc {major}.{minor}"
          + (f", {glibcxx[-1]}" if glibcxx else ""), file=sys.stderr)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
