#!/usr/bin/env python3
"""Scaffolds a new check in one go, like clang-tidy's add_new_check.py:

  plugins/<module>/<Name>Check.h/.cpp   the check class (metadata, options,
                                        an empty check() to fill in)
  plugins/<module>/<Module>Module.cpp   its R.add<...>() line, sorted by id
  plugins/<module>/CMakeLists.txt       the source, when the module lists
                                        its sources (built-in modules glob)
  tests/lit/checks/<id>.test            its lit test: one %check_gestell
                                        block per target, filled from the
                                        current output by
                                        tools/update_expectations.py
  docs/checks/<id>.md                   the doc page, and its row in
                                        docs/checks/README.md, sorted by id
                                        (the row tools/check_docs.py
                                        generates from the check's
                                        metadata; ctest docs.checks
                                        compares)

Out of tree (--root names a project without gestell's sdk/, e.g. a copy of
plugins/example): the class goes to <root>/ (or <root>/plugins/<module>/
when it exists) in --namespace (default: the module name), the test to
<root>/tests/<id>.test (RUN lines use %gestell and %plugin: define them in
your lit.cfg.py), the page to <root>/docs/<id>.md.

usage: tools/new_check.py MODULE NAME --summary "One sentence, no period"
           [--stage ptx] [--stage sass] [--level warning] [--category performance]
           [--root DIR] [--namespace NS]

MODULE is a folder of plugins/ (nvidia, triton, example, or your own copy of
example); the check id is MODULE-NAME. The scaffold builds, registers and
passes its test (a new check reports nothing); then write check(), list in
the test every diagnostic it must print on the corpus, and fill the doc.
"""
import argparse
import os
import re
import subprocess
import sys

STAGES = {
    "source": "Source", "ttir": "TTIR", "ttgir": "TTGIR", "llir": "LLIR",
    "ptx": "PTX", "cubin": "Cubin", "json": "Metadata", "sass": "SASS",
    "res-usage": "ResUsage",
}
VIEW = {
    "ptx": ("gestell/Ptx.h", "PtxModule", "ptx"),
    "sass": ("gestell/Sass.h", "SassModule", "sass"),
    "ttgir": ("gestell/Ttgir.h", "TtgirModule", "ttgir"),
    "cubin": ("gestell/Cubin.h", "CubinInfo", "cubin"),
}


def camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.split("-"))


def header_line(text):
    line = f"//===- {text} "
    return line + "-" * max(3, 80 - len(line) - 5) + "===//"


def write_new(path, text):
    if os.path.exists(path):
        sys.exit(f"new_check.py: {path} exists; not overwriting")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    print(f"created {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("module")
    ap.add_argument("name")
    ap.add_argument("--summary", required=True)
    ap.add_argument("--stage", action="append", default=[], choices=sorted(STAGES))
    ap.add_argument("--level", default="warning", choices=["remark", "warning", "error"])
    ap.add_argument("--category", default="performance")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--namespace", help="C++ namespace of the check class")
    a = ap.parse_args()

    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", a.name):
        sys.exit("new_check.py: NAME is lowercase words joined by '-'")
    if a.summary.endswith("."):
        sys.exit("new_check.py: the summary has no final period")
    root, module = a.root, a.module
    in_tree = os.path.isdir(os.path.join(root, "sdk", "include", "gestell"))
    plugin_dir = os.path.join(root, "plugins", module)
    if not in_tree and not os.path.isdir(plugin_dir):
        plugin_dir = root
    modules = [f for f in os.listdir(plugin_dir) if f.endswith("Module.cpp")] \
        if os.path.isdir(plugin_dir) else []
    if len(modules) != 1:
        sys.exit(f"new_check.py: no <Module>Module.cpp in {plugin_dir}")
    module_cpp = os.path.join(plugin_dir, modules[0])
    check_id = f"{module}-{a.name}"
    cls = camel(a.name) + "Check"
    if a.namespace:
        ns = a.namespace
    elif in_tree and module in ("nvidia", "triton"):
        ns = f"gestell::{module}"
    else:
        ns = module.replace("-", "_")
    stages = a.stage or ["ptx"]
    first = next((s for s in stages if s in VIEW), None)
    level = a.level.capitalize()

    guard = f"GESTELL_{module.upper().replace('-', '_')}_{cls.upper()}_H"
    write_new(os.path.join(plugin_dir, cls + ".h"), f"""{header_line(f'{cls}.h - {check_id}')}
//
// {a.summary}.
//
//===----------------------------------------------------------------------===//
#ifndef {guard}
#define {guard}

#include "gestell/Check.h"

namespace {ns} {{

class {cls} : public gestell::Check {{
public:
  static gestell::CheckInfo info();
  {cls}(llvm::StringRef Name, gestell::CheckContext &Context);
  void storeOptions(gestell::OptionMap &Opts) const override;
  llvm::Error check(gestell::CheckInput &In) override;

private:
  const unsigned Threshold;
}};

}} // namespace {ns}

#endif
""")

    view = ""
    include = ""
    if first:
        hdr, typ, acc = VIEW[first]
        include = f'#include "gestell/utils/Locate.h"\n#include "{hdr}"\n'
        view = f"""  Expected<const {typ} &> View = In.Kernel.{acc}();
  if (!View)
    return View.takeError();
"""
        if first in ("ptx", "sass"):
            fn = "PtxFunction" if first == "ptx" else "SassFunction"
            include = ('#include "gestell/utils/KernelCode.h"\n' + include)
            view += f"""  // The kernel's own function, and its loops (F->CF; outermostLoops,
  // loopInstructions: gestell/utils/KernelCode.h).
  const {fn} *F = kernelFunction(*View, In.Kernel.kernel().Name);
  if (!F)
    return Error::success();
"""
        view += """  // A stage used only to say more: gestell/utils/OptionalStages.h.
  // Report with:
  //   diag(locate(*View, I), "what is wrong, lowercase, no period")
  //       .source(pythonSource(*View, I))
  //       .note(Twine(N) + " ... (threshold " + Twine(Threshold) + ")")
  //       .hint("compiler stage or pass", "what to look at")
  //       .context("normalized opcodes or ops + canonical layouts");
"""
    stage_list = ", ".join(f"Stage::{STAGES[s]}" for s in stages)
    write_new(os.path.join(plugin_dir, cls + ".cpp"), f"""{header_line(f'{cls}.cpp - {check_id}')}
#include "{cls}.h"

{include}
using namespace gestell;
using namespace llvm;

namespace {ns} {{

CheckInfo {cls}::info() {{
  CheckInfo I;
  I.Id = "{check_id}";
  I.Summary = "{a.summary}";
  I.Category = "{a.category}";
  I.DefaultLevel = Level::{level};
  I.Stages = {{{stage_list}}};
  return I;
}}

{cls}::{cls}(StringRef Name, CheckContext &Context)
    : Check(Name, Context), Threshold(Options.get("Threshold", 1u)) {{}}

void {cls}::storeOptions(OptionMap &Opts) const {{
  Options.store(Opts, "Threshold", Threshold);
}}

Error {cls}::check(CheckInput &In) {{
{view}  return Error::success();
}}

}} // namespace {ns}
""")

    # Registration, sorted by id (= by class name within a module).
    text = open(module_cpp).read()
    add = f"  R.add<{ns}::{cls}>();"
    lines = text.split("\n")
    adds = [i for i, l in enumerate(lines) if l.strip().startswith("R.add<")]
    if adds:
        pos = next((i for i in adds if lines[i] > add), adds[-1] + 1)
    else:
        anchor = next((i for i, l in enumerate(lines) if "registerChecks(" in l and l.rstrip().endswith("{")), None)
        if anchor is None:
            sys.exit(f"new_check.py: no registerChecks in {module_cpp}")
        pos = anchor + 1
        while lines[pos].strip().startswith("//"):
            pos += 1
    lines.insert(pos, add)
    text = "\n".join(lines).replace("  (void)R;\n", "")
    incs = [i for i, l in enumerate(text.split("\n")) if l.startswith('#include "')]
    inc_line = f'#include "{cls}.h"'
    tl = text.split("\n")
    local = [i for i in incs if not tl[i].startswith('#include "gestell/')]
    at = next((i for i in local if tl[i] > inc_line), (local[-1] + 1) if local else incs[0])
    tl.insert(at, inc_line)
    if not local:
        tl.insert(at + 1, "")
    open(module_cpp, "w").write("\n".join(tl))
    print(f"registered in {module_cpp}")

    cmake = os.path.join(plugin_dir, "CMakeLists.txt")
    ctext = open(cmake).read() if os.path.exists(cmake) else ""
    if "GLOB" not in ctext and "gestell_add_plugin(" in ctext:
        m = re.search(r"^gestell_add_plugin\(([^)]*)\)", ctext, re.M)
        body = m.group(1).rstrip() + f"\n  {cls}.cpp"
        ctext = ctext[:m.start(1)] + body + ctext[m.end(1):]
        open(cmake, "w").write(ctext)
        print(f"added {cls}.cpp to {cmake}")

    if in_tree:
        load = "" if module in ("nvidia", "triton") else \
            f" -- --load=%testplugins/gestell-{module}.so"
        test = os.path.join(root, "tests", "lit", "checks", check_id + ".test")
        write_new(test, f"""# {check_id} on the test corpus, one block per target
# (tools/update_expectations.py rewrites the blocks from the current output;
# review the diff). Add a block for each fixture where it must fire, and
# for each where it must stay quiet, with why.

# The bundles of the test corpus.
# RUN: %check_gestell %s {check_id} tests/corpus/triton-3.6.0/bundles BUNDLES{load}
""")
        gestell = os.path.join(root, "build", "bin", "gestell")
        if os.path.exists(gestell):
            subprocess.run([sys.executable, os.path.join(root, "tools", "update_expectations.py"),
                            "--gestell", gestell, test], check=False)
        else:
            print(f"build gestell, then: tools/update_expectations.py --gestell build/bin/gestell {test}")
        test_rel = f"tests/lit/checks/{check_id}.test"
    else:
        test = os.path.join(root, "tests", check_id + ".test")
        write_new(test, f"""# {check_id}: every diagnostic it prints on your fixtures, and nothing
# else. %gestell and %plugin are your lit config's (the gestell binary,
# this plugin's .so).

RUN: %gestell --load=%plugin --checks='-*,{check_id}' %S/fixtures 2>&1 \\
RUN:   | FileCheck %s --implicit-check-not='{{{{error|warning|remark}}}}:'

CHECK: gestell: {{{{[0-9]+}}}} kernel{{{{s?}}}} checked: 0 error(s), 0 warning(s), 0 remark(s)
""")
        test_rel = f"tests/{check_id}.test"

    docs = os.path.join(root, "docs", "checks") if in_tree else os.path.join(root, "docs")
    os.makedirs(docs, exist_ok=True)
    write_new(os.path.join(docs, check_id + ".md"), f"""# {check_id}

{a.summary}

## What it reports

Level: {a.level}. Reads: {", ".join(stages)}. The message, its notes (one per
metric, with its threshold), the fix hint, and an example from real output.

## Options

| option | default | meaning |
| --- | --- | --- |
| `Threshold` | 1 | |

## How to fix

## Limits

What a static read of compiled output cannot see.

## On the corpus

What it reports on each kernel of `tests/corpus/triton-3.6.0/bundles`
(`{test_rel}`).
""")
    index = os.path.join(root, "docs", "checks", "README.md")
    if os.path.exists(index):
        lines = open(index).read().split("\n")
        row = f"| [{check_id}]({check_id}.md) | {module} | {a.summary} |"
        rows = [i for i, l in enumerate(lines) if l.startswith("| [")]
        if rows:
            at = next((i for i in rows if lines[i] > row), rows[-1] + 1)
        else:
            at = len(lines)
        lines.insert(at, row)
        open(index, "w").write("\n".join(lines))
        print(f"listed in {index}")


main()
