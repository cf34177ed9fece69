#!/usr/bin/env python3
"""What the loader does with gestell's ELF files, read with `readelf -d`.

  elf_deps.py needed BUILD [--sanitized]
      gestell, libgestell and every plugin (lib/gestell/plugins/*.so and the
      test plugins) NEED only libraries of the allow-list below: linked with
      --as-needed, and LLVM Support without its zlib, zstd and Z3 objects;
      the zlib libgestell links from libz.a (gzip traces) is not exported.
  elf_deps.py runpath BUILD --cmake CMAKE
      Every ELF file of the build tree's bin/ and lib/, and of an install
      (`cmake --install BUILD --prefix TMP`), has RUNPATH/RPATH entries that
      all start with $ORIGIN: no empty entry (the loader would search the
      current directory), no absolute path (the build folder), no other
      relative one. A file that NEEDS libgestell.so.0 finds it through one.
  elf_deps.py cwd BUILD --cmake CMAKE
      The built and the installed gestell run `--version` and
      `--list-checks` (which loads the plugins) from a folder holding a
      bogus file named like each library they NEED.

With --tree DIR (repeatable) each mode checks those trees instead of the
build and its install: a packaged layout (an unpacked .deb's usr/, the
tarball's folder, a venv the wheel went into), whose bin/ and lib/ hold the
same files (libgestell and the plugins under lib/ or lib/<multiarch>/).

Exit 0 when every promise holds, 1 otherwise (each failure printed).
"""
import argparse
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile

# The libraries gestell may NEED: its own, glibc's and the C++ runtime
# (toml++ is header-only, Boost.DLL on std::filesystem: what the wheel
# promises, tools/make_wheel.py).
ALLOWED_NEEDED = [
    "libgestell.so.0",
    "libstdc++.so.*",
    "libm.so.*",
    "libgcc_s.so.*",
    "libc.so.*",
    "ld-linux*.so.*",
]
# A sanitizer build (--sanitized) links Debian's libLLVM.so instead of the
# static LLVM Support (sdk/CMakeLists.txt), and gcc's sanitizer runtimes.
SANITIZED_NEEDED = ["libLLVM.so.*", "libasan.so.*", "libubsan.so.*"]


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def dynamic(path):
    """(NEEDED list, [(tag, value)] of RUNPATH/RPATH) of one ELF file."""
    out = subprocess.run(["readelf", "-d", "--wide", path], check=True,
                         capture_output=True, text=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]", out)
    paths = re.findall(r"\((RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[(.*)\]",
                       out)
    return needed, paths


def product_files(tree):
    """The binary, libgestell and every plugin under an install or build
    tree: bin/gestell, and under lib/ (or lib/<multiarch>/) libgestell.so.*
    and gestell/plugins/*.so, gestell/test-plugins/*.so."""
    files = [os.path.join(tree, "bin", "gestell")]
    for root, dirs, names in os.walk(os.path.join(tree, "lib")):
        dirs.sort()
        plugins = (os.path.basename(root) in ("plugins", "test-plugins") and
                   os.path.basename(os.path.dirname(root)) == "gestell")
        for n in sorted(names):
            p = os.path.join(root, n)
            if not os.path.islink(p) and (
                    n.startswith("libgestell.so.") or
                    (plugins and n.endswith(".so"))):
                files.append(p)
    return [f for f in files if os.path.exists(f)]


def elf_files(tree):
    out = []
    for top in ("bin", "lib"):
        for root, dirs, names in os.walk(os.path.join(tree, top)):
            dirs.sort()
            for n in sorted(names):
                p = os.path.join(root, n)
                if not os.path.islink(p) and is_elf(p):
                    out.append(p)
    return out


def check_needed(build, allowed):
    files = product_files(build)
    if not any(f.endswith("/bin/gestell") for f in files) or \
            not any("/plugins/" in f for f in files):
        return [f"{build}: no bin/gestell or lib/gestell/plugins/*.so"]
    failures = []
    for f in files:
        needed, _ = dynamic(f)
        bad = [n for n in needed
               if not any(fnmatch.fnmatchcase(n, a) for a in allowed)]
        print(f"{os.path.relpath(f, build)}: NEEDED {' '.join(needed)}")
        if bad:
            failures.append(f"{f}: NEEDED outside the allow-list: "
                            f"{', '.join(bad)}")
        if os.path.basename(f).startswith("libgestell.so."):
            failures += zlib_hidden(f)
    return failures


# zlib functions gzip traces use (sdk/lib/readers/trace/TraceReader.cpp). libgestell links
# them from the static libz.a and keeps them to itself (--exclude-libs): a
# plugin or a host process that loads the system's libz.so gets its own.
ZLIB_FUNCTIONS = ("inflate", "inflateInit2_", "inflateReset", "inflateEnd")


def zlib_hidden(path):
    out = subprocess.run(["readelf", "--dyn-syms", "--wide", path], check=True,
                         capture_output=True, text=True).stdout
    defined = set()
    for line in out.splitlines():
        parts = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(parts) >= 8 and parts[6] != "UND":
            defined.add(parts[7].split("@")[0])
    shown = sorted(defined.intersection(ZLIB_FUNCTIONS))
    if shown:
        return [f"{path}: exports zlib's {', '.join(shown)} (link libz.a with "
                "--exclude-libs)"]
    return []


def runpath_problems(path):
    needed, paths = dynamic(path)
    problems = []
    dirs = []
    for tag, value in paths:
        for entry in value.split(":"):
            if entry == "":
                problems.append(f"{tag} {value!r} has an empty entry (the "
                                "loader searches the current directory)")
            elif not re.match(r"^\$(ORIGIN|\{ORIGIN\})(/|$)", entry):
                kind = "absolute" if entry.startswith("/") else "relative"
                problems.append(f"{tag} {value!r}: {kind} entry {entry!r} "
                                "(only $ORIGIN-relative entries)")
            else:
                rest = re.sub(r"^\$(ORIGIN|\{ORIGIN\})", "", entry)
                dirs.append(os.path.normpath(os.path.dirname(path) + rest))
    if "libgestell.so.0" in needed and not any(
            os.path.exists(os.path.join(d, "libgestell.so.0")) for d in dirs):
        problems.append(f"NEEDS libgestell.so.0 but no RUNPATH entry finds "
                        f"it ({':'.join(v for _, v in paths) or 'none'})")
    return problems, ":".join(v for _, v in paths)


def check_runpath_tree(tree, label):
    files = elf_files(tree)
    if not files:
        return [f"{tree}: no ELF file under bin/ or lib/"]
    failures = []
    for f in files:
        problems, value = runpath_problems(f)
        shown = f"[{value}]" if value or dynamic(f)[1] else "none"
        print(f"{label} {os.path.relpath(f, tree)}: RUNPATH {shown}")
        failures += [f"{f}: {p}" for p in problems]
    return failures


def install(cmake, build, prefix):
    r = subprocess.run([cmake, "--install", build, "--prefix", prefix],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return [f"cmake --install {build} failed:\n{r.stdout}{r.stderr}"]
    return []


def check_cwd(tree, label):
    """Runs tree's gestell from a folder full of bogus libraries."""
    gestell = os.path.join(tree, "bin", "gestell")
    names = set()
    for f in product_files(tree):
        names.update(dynamic(f)[0])
    failures = []
    with tempfile.TemporaryDirectory(prefix="gestell-cwd.") as cwd:
        for n in sorted(names):
            with open(os.path.join(cwd, n), "wb") as f:
                f.write(b"not a shared library\n")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("LD_")}
        for args, expect in ((["--version"], "gestell "),
                             (["--list-checks"], "Enabled checks:")):
            r = subprocess.run([gestell] + args, cwd=cwd, env=env,
                               capture_output=True, text=True)
            out = r.stdout + r.stderr
            print(f"{label}: gestell {' '.join(args)} in a folder with "
                  f"{len(names)} bogus libraries: exit {r.returncode}")
            if r.returncode != 0 or expect not in out:
                failures.append(f"{label} gestell {' '.join(args)} from "
                                f"{cwd} (bogus {', '.join(sorted(names))}): "
                                f"exit {r.returncode}:\n{out}")
            if args == ["--list-checks"] and "nvidia-" not in out:
                failures.append(f"{label}: --list-checks lists no nvidia-* "
                                f"check (plugins not loaded):\n{out}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["needed", "runpath", "cwd"])
    ap.add_argument("build")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--tree", action="append", default=[],
                    help="check this packaged tree instead of BUILD and its "
                    "install (repeatable)")
    ap.add_argument("--sanitized", action="store_true",
                    help="a sanitizer build: libLLVM.so and the sanitizer "
                    "runtimes are allowed too")
    a = ap.parse_args()
    if shutil.which("readelf") is None:
        print("FAIL: readelf not found (binutils)")
        return 1
    build = os.path.abspath(a.build)
    failures = []
    allowed = ALLOWED_NEEDED + (SANITIZED_NEEDED if a.sanitized else [])
    if a.tree:
        for tree in map(os.path.abspath, a.tree):
            failures += (check_needed(tree, allowed) if a.mode == "needed"
                         else check_runpath_tree(tree, tree)
                         if a.mode == "runpath" else check_cwd(tree, tree))
    elif a.mode == "needed":
        failures = check_needed(build, allowed)
    else:
        with tempfile.TemporaryDirectory(prefix="gestell-install.") as tmp:
            prefix = os.path.join(tmp, "prefix")
            failures = install(a.cmake, build, prefix)
            if not failures:
                for tree, label in ((build, "build"), (prefix, "installed")):
                    failures += (check_runpath_tree(tree, label)
                                 if a.mode == "runpath"
                                 else check_cwd(tree, label))
    for f in failures:
        print("FAIL: " + f)
    if not failures:
        print(f"PASS: {a.mode}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
