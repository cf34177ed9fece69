# Builds devwork/manifest.json: every cubin with its kernel name, threads per
# block and dynamic shared memory (from .json, .ptx .reqntid, or .ttgir).
import json, os, re, sys
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
out = []
for d, _, files in os.walk(root):
    for f in files:
        if not f.endswith(".cubin"): continue
        stem = f[:-6]
        e = {"cubin": os.path.relpath(os.path.join(d, f), root), "name": stem}
        j = os.path.join(d, stem + ".json")
        if os.path.exists(j):
            m = json.load(open(j))
            e["num_warps"] = m.get("num_warps"); e["shared"] = m.get("shared")
            t = m.get("target"); e["arch"] = t.get("arch") if isinstance(t, dict) else None
            e["name"] = m.get("name", stem)
        p = os.path.join(d, stem + ".ptx")
        if os.path.exists(p):
            txt = open(p).read()
            r = re.search(r"\.reqntid\s+(\d+)", txt)
            if r: e["reqntid"] = int(r.group(1))
            t = re.search(r"\.target\s+(\w+)", txt)
            if t: e["ptx_target"] = t.group(1)
        out.append(e)
json.dump(out, open(os.path.join(os.path.dirname(root), "manifest.json"), "w"), indent=1)
print(len(out))
