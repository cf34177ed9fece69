#!/usr/bin/env python3
"""Runs the shell steps of action.yml (the composite action) as a runner
would, offline: ctest's package.action, after package.build made the
release tarball.

  check_action.py BUILD --version V --source SRC

Each `run:` step runs in bash with the env its `env:` block gives (the
`${{ inputs.X }}` and `${{ steps.lint.outputs.X }}` in it replaced by the
inputs, their defaults from action.yml, and what the lint step wrote to
GITHUB_OUTPUT), RUNNER_TEMP, GITHUB_PATH and GITHUB_OUTPUT files, and a
stand-in `curl` that serves build/packages/ for the release URL. The `uses:`
step (upload-sarif) is not run; the gate runs when the lint status is not 0,
as its `if:` says. Checked:

  - a wrong sha256 fails the install before anything is unpacked;
  - the right one installs: the URL is the release's, bin/ goes on GITHUB_PATH;
  - lint writes the SARIF file and the status output (1 with the fixture's
    warning promoted, 2 for a path that does not exist) and itself succeeds,
    so the upload can follow;
  - the gate fails with the status for fail-on=errors, only on 2 for
    fail-on=tool-failures, never for fail-on=never.

Exit 0 when all hold.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FIXTURE = "tests/fixtures/sm100-attn-tmem-w8/regressed"

CURL = """#!/bin/sh
# Stand-in curl: -o FILE URL, URL's file name served from $PACKAGES.
out= url=
while [ $# -gt 0 ]; do
  case "$1" in -o) out=$2; shift ;; -*) ;; *) url=$1 ;; esac
  shift
done
echo "$url" >> "$CURL_LOG"
cp "$PACKAGES/${url##*/}" "$out"
"""


def parse_action(text):
    """(defaults of the inputs, [step dicts: name, run, env, uses])."""
    inputs = text[text.index("\ninputs:\n"):text.index("\noutputs:\n")]
    defaults = {}
    for m in re.finditer(r"^  ([a-z][\w-]*):\n((?:    .*\n)+)", inputs, re.M):
        d = re.search(r"^    default: (.*)$", m.group(2), re.M)
        defaults[m.group(1)] = d.group(1).strip("'") if d else None
    steps = []
    body = text[text.index("\n  steps:\n"):]
    for chunk in re.split(r"\n    - ", body)[1:]:
        # A step's keys at column 0, what is under them at 2 and more.
        lines = chunk.splitlines()
        lines = lines[:1] + [ln[6:] for ln in lines[1:]]
        step = {"env": {}, "run": None, "uses": None, "name": ""}
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("name: "):
                step["name"] = line[len("name: "):]
            elif line.startswith("uses: "):
                step["uses"] = line[len("uses: "):]
            elif line == "env:":
                while i + 1 < len(lines) and lines[i + 1].startswith("  "):
                    i += 1
                    k, v = lines[i].strip().split(": ", 1)
                    step["env"][k] = v
            elif line == "run: |":
                script = []
                while i + 1 < len(lines) and (lines[i + 1].startswith("  ")
                                              or not lines[i + 1].strip()):
                    i += 1
                    script.append(lines[i][2:])
                step["run"] = "\n".join(script) + "\n"
            i += 1
        steps.append(step)
    return defaults, steps


class Runner:
    def __init__(self, tmp, a, steps, defaults):
        self.tmp, self.a, self.steps, self.defaults = tmp, a, steps, defaults
        bindir = os.path.join(tmp, "tools")
        os.makedirs(bindir, exist_ok=True)
        with open(os.path.join(bindir, "curl"), "w") as f:
            f.write(CURL)
        os.chmod(os.path.join(bindir, "curl"), 0o755)
        self.path = [bindir]
        self.outputs = {}

    def step(self, name):
        return next(s for s in self.steps if s["name"].startswith(name))

    def run(self, name, inputs, workdir):
        s = self.step(name)
        values = dict(self.defaults, **inputs)

        def expand(v):
            v = re.sub(r"\$\{\{ inputs\.([\w-]+) \}\}",
                       lambda m: values[m.group(1)] or "", v)
            return re.sub(r"\$\{\{ steps\.lint\.outputs\.(\w+) \}\}",
                          lambda m: self.outputs.get(m.group(1), ""), v)
        runner_temp = os.path.join(self.tmp, "runner")
        os.makedirs(runner_temp, exist_ok=True)
        gh_path = os.path.join(self.tmp, "github_path")
        gh_out = os.path.join(self.tmp, "github_output")
        open(gh_out, "w").close()
        extra = (open(gh_path).read().split() if os.path.exists(gh_path)
                 else [])
        env = {k: v for k, v in os.environ.items() if not k.startswith("LD_")}
        env.update({k: expand(v) for k, v in s["env"].items()})
        env.update(RUNNER_TEMP=runner_temp, GITHUB_PATH=gh_path,
                   GITHUB_OUTPUT=gh_out, CURL_LOG=os.path.join(self.tmp, "urls"),
                   PACKAGES=os.path.join(self.a.build, "packages"),
                   PATH=os.pathsep.join(self.path + extra + [env["PATH"]]))
        script = os.path.join(self.tmp, "step.sh")
        with open(script, "w") as f:
            f.write(s["run"])
        # What `shell: bash` runs on GitHub's runners.
        r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail",
                            script], cwd=workdir, env=env, capture_output=True,
                           text=True)
        if name.startswith("Lint"):
            self.outputs = dict(line.split("=", 1) for line in
                                open(gh_out).read().splitlines() if "=" in line)
        return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--version", required=True)
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    a.build, a.source = os.path.abspath(a.build), os.path.abspath(a.source)
    defaults, steps = parse_action(open(os.path.join(a.source,
                                                     "action.yml")).read())
    fails = []

    def check(ok, msg, r=None):
        if not ok:
            fails.append(msg + (f":\n{r.stdout}{r.stderr}" if r else ""))

    tarball = os.path.join(a.build, "packages",
                           f"gestell-{a.version}-linux-x86_64.tar.gz")
    if not os.path.exists(tarball):
        print(f"FAIL: no {tarball} (package.build makes it)")
        return 1
    sha = subprocess.run(["sha256sum", tarball], capture_output=True,
                         text=True).stdout.split()[0]
    with tempfile.TemporaryDirectory(prefix="gestell-action.") as tmp:
        work = os.path.join(tmp, "workspace")
        shutil.copytree(os.path.join(a.source, FIXTURE),
                        os.path.join(work, "bundle"))
        run = Runner(tmp, a, steps, defaults)
        base = {"version": a.version, "paths": "bundle"}

        r = run.run("Install", dict(base, sha256="0" * 64), work)
        installed = os.path.join(tmp, "runner", f"gestell-{a.version}")
        print(f"install, wrong sha256: exit {r.returncode}")
        check(r.returncode != 0 and not os.path.exists(
            os.path.join(installed, "bin")), "a wrong sha256 installed", r)
        r = run.run("Install", dict(base, sha256=sha), work)
        urls = open(os.path.join(tmp, "urls")).read().split()
        print(f"install: exit {r.returncode}, {urls[-1]}: "
              + " / ".join(r.stdout.strip().splitlines()))
        check(r.returncode == 0 and
              r.stdout.strip().splitlines()[-1:] == [f"gestell {a.version}"],
              "install failed", r)
        check(urls[-1] == "https://github.com/gestell/gestell/releases/"
              f"download/v{a.version}/gestell-{a.version}-linux-x86_64.tar.gz",
              f"install fetched {urls[-1]}")
        check(open(os.path.join(tmp, "github_path")).read().split() ==
              [os.path.join(installed, "bin")], "bin/ not on GITHUB_PATH")

        cases = [  # (inputs, lint status, gate exit per fail-on)
            ({"args": "--warnings-as-errors=triton-*"}, "1",
             {"errors": 1, "tool-failures": 0, "never": 0}),
            ({"args": ""}, "0", {}),
            ({"paths": "bundle\n  missing-folder", "sarif": "out/g.sarif"},
             "2", {"errors": 2, "tool-failures": 2, "never": 0}),
        ]
        for inputs, status, gates in cases:
            i = dict(base, **inputs)
            sarif = os.path.join(work, i.get("sarif", defaults["sarif"]))
            os.makedirs(os.path.dirname(sarif), exist_ok=True)
            if os.path.exists(sarif):
                os.remove(sarif)
            r = run.run("Lint", i, work)
            print(f"lint {inputs}: exit {r.returncode}, outputs {run.outputs}")
            check(r.returncode == 0 and run.outputs.get("status") == status
                  and run.outputs.get("written") == "true",
                  f"lint {inputs}: expected status {status} and a SARIF file",
                  r)
            if os.path.exists(sarif):
                results = json.load(open(sarif))["runs"][0]["results"]
                check(status == "2" or results, f"lint {inputs}: no results")
            for fail_on, code in gates.items():
                r = run.run("Gate", dict(i, **{"fail-on": fail_on}), work)
                print(f"  gate fail-on={fail_on}: exit {r.returncode}")
                check(r.returncode == code, f"gate fail-on={fail_on} after "
                      f"status {status}: exit {r.returncode}, expected {code}",
                      r)
        upload = run.step("Upload")
        check(upload["uses"] == "github/codeql-action/upload-sarif@v4",
              f"the upload step uses {upload['uses']}")
    for f in fails:
        print("FAIL: " + f)
    if not fails:
        print("PASS: action")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
