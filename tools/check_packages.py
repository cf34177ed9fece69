#!/usr/bin/env python3
"""The packages of a build, installed as a user would and run (ctest's
package.* tests, after package.build made them: cmake/Packaging.cmake).

  check_packages.py deb|tgz|wheel BUILD --version V --libdir LIBDIR --source SRC

  deb    build/packages/gestell_V_<arch>.deb: its control fields (Version V,
         Depends computed: libc6 and libstdc++6, no toml++ or Boost), unpacked
         with `dpkg-deb -x` into a temporary root: /usr/bin/gestell,
         /usr/LIBDIR/libgestell.so.0, the plugins, the rule packs, the SDK
         (headers, CMake package of version V), /usr/share/doc/gestell/copyright
         with the third-party notices; nothing outside /usr.
  tgz    build/packages/gestell-V-linux-<cpu>.tar.gz: the same tree under one
         folder, extracted anywhere.
  wheel  build/packages/gestell-V-py3-none-manylinux_X_Y_<arch>.whl: RECORD,
         WHEEL and METADATA (version V, the tag of the newest GLIBC_ version
         `objdump -T` finds), installed with `pip install --no-index` into a
         fresh venv: `gestell` on the venv's PATH is the binary as built
         (copied, not rewritten), and `pip uninstall` removes every file.
         tools/make_wheel.py refuses an install tree with a plugin that NEEDS
         a library outside glibc and libstdc++ (the tarball's tree, plus one).

  docs   the release's files and the action named in README.md,
         docs/install.md, docs/ci.md and action.yml carry version V (so a
         version bump updates the install commands too); action.yml uses
         only the inputs it declares, and docs/ci.md's table lists them all.

For each package, the installed gestell then: prints `gestell V`; lists the same
checks as the build's gestell (the built-in modules and the rule packs are
found beside it); checks a bundled fixture with the build's exit status and
output, a known finding among it; and passes tools/elf_deps.py's needed,
runpath and cwd promises on the installed tree. Exit 0 when all hold.
"""
import argparse
import base64
import csv
import glob
import hashlib
import io
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

# A fixture with a finding: the reference regression (tests/fixtures).
FIXTURE = "tests/fixtures/sm100-attn-tmem-w8/regressed"
FINDING = "[triton-redundant-layout-conversion"  # ] or ,-warnings-as-errors]


class Failures(list):
    def check(self, ok, msg):
        if not ok:
            self.append(msg)
        return ok


def run(cmd, **kw):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LD_")}
    env.update(kw.pop("env", {}))
    return subprocess.run(cmd, capture_output=True, text=True, env=env, **kw)


def one(pattern, fails):
    found = sorted(glob.glob(pattern))
    fails.check(len(found) == 1, f"expected one {pattern}, found {found}")
    return found[0] if len(found) == 1 else None


def check_tree(prefix, a, fails, sdk=True):
    """The files of an install tree at prefix (usr/, the tarball folder)."""
    want = ["bin/gestell", f"{a.libdir}/libgestell.so.0",
            f"{a.libdir}/gestell/plugins/gestell-nvidia.so",
            f"{a.libdir}/gestell/plugins/gestell-triton.so",
            "share/gestell/checks/blackwell.toml",
            "share/gestell/checks/hopper.toml",
            "share/doc/gestell/copyright", "share/doc/gestell/LICENSE"]
    if sdk:
        want += ["include/gestell/Check.h",
                 f"{a.libdir}/cmake/gestell/gestellConfig.cmake",
                 f"{a.libdir}/cmake/gestell/gestellConfigVersion.cmake"]
    for f in want:
        fails.check(os.path.exists(os.path.join(prefix, f)),
                    f"{prefix}: no {f}")
    fails.check(not glob.glob(os.path.join(prefix, "**", "test-plugins"),
                              recursive=True), f"{prefix}: test plugins shipped")
    copyright = os.path.join(prefix, "share/doc/gestell/copyright")
    if os.path.exists(copyright):
        text = open(copyright).read()
        for lic in ("Apache-2.0 WITH LLVM-exception", "License: MIT",
                    "License: BSL-1.0", "toml++", "boost/*", "llvm/*"):
            fails.check(lic in text, f"{copyright}: no {lic!r}")
    cfg = os.path.join(prefix, a.libdir, "cmake/gestell/gestellConfigVersion.cmake")
    if sdk and os.path.exists(cfg):
        fails.check(f'set(PACKAGE_VERSION "{a.version}")' in open(cfg).read(),
                    f"{cfg}: PACKAGE_VERSION is not {a.version}")


def check_runs(prefix, gestell, a, fails):
    """The installed gestell against the build's."""
    built = os.path.join(a.build, "bin", "gestell")
    r = run([gestell, "--version"])
    fails.check(r.returncode == 0 and r.stdout.splitlines()[:1] ==
                [f"gestell {a.version}"],
                f"{gestell} --version: exit {r.returncode}: {r.stdout}{r.stderr}")
    mine, ref = run([gestell, "--list-checks"]), run([built, "--list-checks"])
    fails.check(mine.returncode == 0 and mine.stdout == ref.stdout and
                "nvidia-" in mine.stdout and "triton-" in mine.stdout and
                "rules-" in mine.stdout,
                f"{gestell} --list-checks differs from the build's "
                f"(exit {mine.returncode}):\n{mine.stdout}{mine.stderr}")
    # A warning: exit 0; the same warning promoted to an error: exit 1.
    for extra, status in (([], 0), (["--warnings-as-errors=triton-*"], 1)):
        args = ["check"] + extra + [FIXTURE]
        mine = run([gestell] + args, cwd=a.source)
        ref = run([built] + args, cwd=a.source)
        print(f"{gestell} {' '.join(args)}: exit {mine.returncode}, "
              f"{len(mine.stdout.splitlines())} lines")
        fails.check(mine.returncode == ref.returncode == status and
                    mine.stdout == ref.stdout and mine.stderr == ref.stderr
                    and FINDING in mine.stdout,
                    f"{gestell} {' '.join(args)}: exit {mine.returncode} "
                    f"(expected {status}, the build's {ref.returncode}), "
                    f"{FINDING} expected, output:\n{mine.stdout}{mine.stderr}")
    for mode in ("needed", "runpath", "cwd"):
        r = run([sys.executable, os.path.join(a.source, "tools/elf_deps.py"),
                 mode, a.build, "--tree", prefix])
        fails.check(r.returncode == 0, f"elf_deps.py {mode} --tree {prefix}:"
                    f"\n{r.stdout}{r.stderr}")


def check_deb(a, tmp, fails):
    deb = one(os.path.join(a.build, "packages", f"gestell_{a.version}_*.deb"),
              fails)
    if not deb:
        return
    fields = {}
    for f in ("Package", "Version", "Architecture", "Depends", "Maintainer"):
        fields[f] = run(["dpkg-deb", "-f", deb, f]).stdout.strip()
    print(f"{os.path.basename(deb)}: " +
          "; ".join(f"{k}: {v}" for k, v in fields.items()))
    fails.check(fields["Package"] == "gestell" and
                fields["Version"] == a.version, f"{deb}: {fields}")
    deps = [d.strip().split()[0] for d in fields["Depends"].split(",") if d]
    fails.check("libc6" in deps and "libstdc++6" in deps and not any(
        re.match(r"libtomlplusplus|libboost|libllvm|libz", d) for d in deps),
        f"{deb}: Depends {fields['Depends']!r}: expected libc6, libstdc++6, "
        "no toml++, Boost, LLVM or zlib")
    root = os.path.join(tmp, "root")
    r = run(["dpkg-deb", "-x", deb, root])
    if not fails.check(r.returncode == 0, f"dpkg-deb -x {deb}: {r.stderr}"):
        return
    fails.check(os.listdir(root) == ["usr"],
                f"{deb}: files outside /usr: {os.listdir(root)}")
    ctl = os.path.join(tmp, "control")
    run(["dpkg-deb", "-e", deb, ctl])
    shlibs = os.path.join(ctl, "shlibs")
    fails.check(os.path.exists(shlibs) and open(shlibs).read() ==
                f"libgestell 0 gestell (= {a.version})\n",
                f"{deb}: no shlibs entry for libgestell")
    postinst = os.path.join(ctl, "postinst")
    fails.check(os.path.exists(postinst) and "ldconfig" in open(postinst).read(),
                f"{deb}: no postinst running ldconfig")
    prefix = os.path.join(root, "usr")
    check_tree(prefix, a, fails)
    check_runs(prefix, os.path.join(prefix, "bin", "gestell"), a, fails)


def check_tgz(a, tmp, fails):
    tgz = one(os.path.join(a.build, "packages",
                           f"gestell-{a.version}-linux-*.tar.gz"), fails)
    if not tgz:
        return
    with tarfile.open(tgz) as t:
        names = t.getnames()
        top = {n.split("/")[0] for n in names}
        base = os.path.basename(tgz)[:-len(".tar.gz")]
        fails.check(top == {base}, f"{tgz}: top folders {sorted(top)}")
        fails.check(not any(m.issym() and os.path.isabs(m.linkname)
                            for m in t.getmembers()),
                    f"{tgz}: an absolute symbolic link")
        t.extractall(tmp)
    prefix = os.path.join(tmp, base)
    print(f"{os.path.basename(tgz)}: {len(names)} entries")
    check_tree(prefix, a, fails)
    check_runs(prefix, os.path.join(prefix, "bin", "gestell"), a, fails)


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def newest_glibc(files):
    """The newest GLIBC_X.Y among the dynamic symbols (objdump -T)."""
    best = (0, 0)
    for f in files:
        out = run(["objdump", "-T", f]).stdout
        for v in re.findall(r"\bGLIBC_(\d+)\.(\d+)", out):
            best = max(best, (int(v[0]), int(v[1])))
    return best


def check_wheel_refuses(a, tmp, fails):
    """make_wheel.py on the tarball's tree with a plugin that NEEDS more
    (cmake's binary, which NEEDS libcurl, libexpat, zlib...)."""
    tgz = one(os.path.join(a.build, "packages",
                           f"gestell-{a.version}-linux-*.tar.gz"), fails)
    if not tgz:
        return
    stage = os.path.join(tmp, "stage")
    with tarfile.open(tgz) as t:
        t.extractall(stage)
    stage = os.path.join(stage, os.listdir(stage)[0])
    extra = os.path.join(stage, a.libdir, "gestell/plugins/needs-more.so")
    os.symlink(os.path.realpath(shutil.which(a.cmake)), extra)
    out = os.path.join(tmp, "refused")
    r = run([sys.executable, os.path.join(a.source, "tools/make_wheel.py"),
             "--stage", stage, "--version", a.version, "--libdir", a.libdir,
             "--datadir", "share", "--docdir", "share/doc/gestell",
             "--out", out])
    print(f"make_wheel.py with {os.path.basename(extra)}: exit {r.returncode}: "
          f"{r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ''}")
    fails.check(r.returncode == 1 and "needs-more.so NEEDS" in r.stderr and
                not glob.glob(os.path.join(out, "*.whl")),
                f"make_wheel.py wrote a wheel with a plugin that NEEDS "
                f"more (exit {r.returncode}):\n{r.stdout}{r.stderr}")


def check_wheel(a, tmp, fails):
    whl = one(os.path.join(a.build, "packages",
                           f"gestell-{a.version}-py3-none-*.whl"), fails)
    if not whl:
        return
    m = re.match(r"gestell-(.+)-py3-none-manylinux_(\d+)_(\d+)_(\w+)\.whl$",
                 os.path.basename(whl))
    if not fails.check(m, f"{whl}: not a manylinux_X_Y_<arch> wheel"):
        return
    tag_glibc = (int(m.group(2)), int(m.group(3)))
    info = f"gestell-{a.version}.dist-info"
    data = f"gestell-{a.version}.data"
    elves = os.path.join(tmp, "elves")
    os.makedirs(elves)
    with zipfile.ZipFile(whl) as z:
        names = z.namelist()
        rows = list(csv.reader(io.StringIO(z.read(f"{info}/RECORD").decode())))
        recorded = {r[0]: r for r in rows}
        fails.check(sorted(recorded) == sorted(names),
                    f"{whl}: RECORD does not list exactly the wheel's files")
        for name in names:
            blob = z.read(name)
            if name != f"{info}/RECORD":
                fails.check(recorded.get(name, [None] * 3)[1:] ==
                            [record_hash(blob), str(len(blob))],
                            f"{whl}: RECORD hash or size of {name} is wrong")
            if blob[:4] == b"\x7fELF":
                with open(os.path.join(elves, str(len(os.listdir(elves)))),
                          "wb") as f:
                    f.write(blob)
        wheel = z.read(f"{info}/WHEEL").decode()
        meta = z.read(f"{info}/METADATA").decode()
        script = z.getinfo(f"{data}/scripts/gestell")
        binary = z.read(script)
    tag = os.path.basename(whl)[len(f"gestell-{a.version}-"):-len(".whl")]
    fails.check(f"Tag: {tag}\n" in wheel and "Root-Is-Purelib: false" in wheel,
                f"{whl}: WHEEL:\n{wheel}")
    fails.check(f"Name: gestell\nVersion: {a.version}\n" in meta,
                f"{whl}: METADATA:\n{meta}")
    fails.check(script.external_attr >> 16 & 0o111, f"{whl}: scripts/gestell "
                "is not executable")
    fails.check(any(n.startswith(f"{data}/data/{a.libdir}/gestell/plugins/")
                    for n in names) and
                any(n.startswith(f"{data}/data/share/gestell/checks/")
                    for n in names), f"{whl}: no plugins or rule packs")
    glibc = newest_glibc(os.path.join(elves, f) for f in os.listdir(elves))
    print(f"{os.path.basename(whl)}: {len(names)} files; objdump -T: newest "
          f"GLIBC_{glibc[0]}.{glibc[1]}; this system: glibc "
          f"{platform.libc_ver()[1]}")
    fails.check(glibc == tag_glibc, f"{whl}: tag glibc {tag_glibc}, the ELF "
                f"files reference up to GLIBC_{glibc[0]}.{glibc[1]}")

    venv = os.path.join(tmp, "venv")
    r = run([sys.executable, "-m", "venv", venv])
    if not fails.check(r.returncode == 0, f"python -m venv: {r.stderr}"):
        return
    pip = [os.path.join(venv, "bin", "python"), "-m", "pip",
           "--disable-pip-version-check", "--no-cache-dir"]
    r = run(pip + ["install", "--no-index", whl])
    if not fails.check(r.returncode == 0, f"pip install --no-index {whl}:\n"
                       f"{r.stdout}{r.stderr}"):
        return
    path = os.path.join(venv, "bin") + os.pathsep + os.environ["PATH"]
    gestell = shutil.which("gestell", path=path)
    fails.check(gestell == os.path.join(venv, "bin", "gestell"),
                f"gestell on the venv's PATH is {gestell}")
    if not gestell:
        return
    with open(gestell, "rb") as f:
        fails.check(f.read() == binary, f"{gestell} is not the wheel's binary "
                    "as it is (pip rewrote it)")
    check_runs(venv, gestell, a, fails)
    check_wheel_refuses(a, tmp, fails)
    r = run(pip + ["uninstall", "-y", "gestell"])
    left = [p for p in ("bin/gestell", f"{a.libdir}/libgestell.so.0",
                        f"{a.libdir}/gestell", "share/gestell")
            if os.path.exists(os.path.join(venv, p))]
    fails.check(r.returncode == 0 and not left,
                f"pip uninstall gestell: exit {r.returncode}, left {left}")


# Versions in the docs' install commands and action examples.
DOC_VERSIONS = [r"gestell/gestell@v([0-9][^\s`'\"]*)",
                r"(?<![-\w])version: ([0-9][0-9.]*)",
                r"gestell[-_]([0-9]+\.[0-9]+\.[0-9]+)[-_]",
                r"gestell-([0-9]+\.[0-9]+\.[0-9]+)\.(?:tar|data)"]


def check_docs(a, tmp, fails):
    for doc in ("README.md", "docs/install.md", "docs/ci.md", "action.yml"):
        text = open(os.path.join(a.source, doc)).read()
        found = [(m.group(1), text.count("\n", 0, m.start()) + 1)
                 for p in DOC_VERSIONS for m in re.finditer(p, text)]
        print(f"{doc}: {len(found)} versions")
        for v, line in found:
            fails.check(v == a.version, f"{doc}:{line}: version {v}, the "
                        f"project's is {a.version}")
    action = open(os.path.join(a.source, "action.yml")).read()
    block = action[action.index("\ninputs:\n"):action.index("\noutputs:\n")]
    declared = set(re.findall(r"^  ([a-z][\w-]*):$", block, re.M))
    used = set(re.findall(r"\binputs\.([a-z][\w-]*)", action))
    ci = open(os.path.join(a.source, "docs/ci.md")).read()
    listed = set(re.findall(r"^\| `([a-z][\w-]*)` \|", ci, re.M))
    print(f"action.yml: inputs {' '.join(sorted(declared))}")
    fails.check(used <= declared, f"action.yml uses undeclared inputs "
                f"{sorted(used - declared)}")
    fails.check(declared <= listed, f"docs/ci.md's table lacks the action's "
                f"inputs {sorted(declared - listed)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kind", choices=["deb", "tgz", "wheel", "docs"])
    ap.add_argument("build")
    ap.add_argument("--version", required=True)
    ap.add_argument("--libdir", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--cmake", default="cmake")
    a = ap.parse_args()
    a.build, a.source = os.path.abspath(a.build), os.path.abspath(a.source)
    fails = Failures()
    with tempfile.TemporaryDirectory(prefix=f"gestell-{a.kind}.") as tmp:
        {"deb": check_deb, "tgz": check_tgz, "wheel": check_wheel,
         "docs": check_docs}[a.kind](
            a, tmp, fails)
    for f in fails:
        print("FAIL: " + f)
    if not fails:
        print(f"PASS: {a.kind}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
