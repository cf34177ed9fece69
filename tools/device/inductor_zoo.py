"""Real torch.compile (Inductor) Triton caches on the device machine.

Each workload runs in its own process with its own, empty Inductor cache
(the Triton cache is its triton/0/ folder), under a
time limit, and really runs on the GPU (results compared with eager where it
is cheap). Afterwards every cubin gets its nvdisasm -c -gi rendering beside
it (stdout only) and every PTX its `ptxas -v` from the ptxas Triton used
(ptxas-blackwell from sm_100 on; ptxas-v.json per workload). One tar.xz per
workload lands in $OUT; the .llir files are left out (gestell never reads
them).

    python3 tools/device/inductor_zoo.py [WORKLOAD...]
"""
import glob, json, os, re, shutil, subprocess, sys, tarfile, time

OUT = os.environ.get("OUT", "/tmp/out")
W = "/tmp/zoo"
LIMIT = int(os.environ.get("ZOO_LIMIT", "150"))


def gpt_train():
    import torch, torch.nn as nn, torch.nn.functional as F
    torch.manual_seed(0)

    class Block(nn.Module):
        def __init__(s, d, h):
            super().__init__()
            s.h = h
            s.ln1, s.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            s.qkv, s.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            s.fc, s.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(s, x):
            B, T, C = x.shape
            q, k, v = s.qkv(s.ln1(x)).split(C, dim=2)
            q, k, v = (t.view(B, T, s.h, C // s.h).transpose(1, 2) for t in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / (C // s.h) ** 0.5)
            mask = torch.tril(torch.ones(T, T, device=x.device, dtype=torch.bool))
            att = att.masked_fill(~mask, float("-inf")).softmax(-1)
            att = F.dropout(att, 0.1, s.training)
            x = x + s.proj((att @ v).transpose(1, 2).reshape(B, T, C))
            return x + s.out(F.gelu(s.fc(s.ln2(x)), approximate="tanh"))

    class GPT(nn.Module):
        def __init__(s, V=8192, d=512, h=8, L=2, T=256):
            super().__init__()
            s.wte, s.wpe = nn.Embedding(V, d), nn.Embedding(T, d)
            s.blocks = nn.ModuleList(Block(d, h) for _ in range(L))
            s.lnf, s.head = nn.LayerNorm(d), nn.Linear(d, V, bias=False)

        def forward(s, idx, tgt):
            x = s.wte(idx) + s.wpe(torch.arange(idx.shape[1], device=idx.device))
            for b in s.blocks:
                x = b(x)
            logits = s.head(s.lnf(x))
            return F.cross_entropy(logits.view(-1, logits.shape[-1]), tgt.view(-1))

    m = GPT().cuda()
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3, fused=False, foreach=True)
    cm = torch.compile(m)

    @torch.compile
    def step():
        opt.step()

    idx = torch.randint(0, 8192, (8, 256), device="cuda")
    for _ in range(2):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = cm(idx, idx)
        loss.backward()
        step()
        opt.zero_grad()
    print("gpt loss", float(loss))


def flex_attn():
    import torch
    from torch.nn.attention.flex_attention import flex_attention, create_block_mask

    def causal(b, h, q, kv):
        return q >= kv

    def soft_cap(score, b, h, q, kv):
        return 30.0 * torch.tanh(score / 30.0)

    fa = torch.compile(flex_attention)
    for D, S, dt in ((64, 1024, torch.bfloat16), (128, 2048, torch.float16)):
        q, k, v = (torch.randn(2, 8, S, D, device="cuda", dtype=dt, requires_grad=True) for _ in range(3))
        bm = create_block_mask(causal, 1, 1, S, S, device="cuda")
        o = fa(q, k, v, block_mask=bm)
        o.sum().backward()
        o2 = fa(q, k, v, score_mod=soft_cap)
        o2.sum().backward()
    print("flex ok", float(o.float().abs().mean()))


def mm_autotune():
    import torch, torch.nn.functional as F
    import torch._inductor.config as cfg
    cfg.max_autotune = True
    cfg.max_autotune_gemm_backends = "TRITON"
    cfg.triton.enable_persistent_tma_matmul = True
    cfg.coordinate_descent_tuning = False

    def mlp(x, w1, b1, w2):
        return F.gelu(x @ w1 + b1) @ w2

    def bmm_relu(a, b):
        return torch.relu(torch.bmm(a, b)) * 2.0

    x = torch.randn(2048, 1024, device="cuda", dtype=torch.bfloat16)
    w1 = torch.randn(1024, 4096, device="cuda", dtype=torch.bfloat16)
    b1 = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    w2 = torch.randn(4096, 1024, device="cuda", dtype=torch.bfloat16)
    y = torch.compile(mlp, mode="max-autotune-no-cudagraphs")(x, w1, b1, w2)
    a = torch.randn(16, 512, 256, device="cuda", dtype=torch.float16)
    b = torch.randn(16, 256, 512, device="cuda", dtype=torch.float16)
    z = torch.compile(bmm_relu, mode="max-autotune-no-cudagraphs")(a, b)
    torch.testing.assert_close(z, bmm_relu(a, b), atol=1e-1, rtol=1e-2)
    try:
        xi = torch.randint(-8, 8, (1024, 1024), device="cuda", dtype=torch.int8)
        wi = torch.randint(-8, 8, (1024, 1024), device="cuda", dtype=torch.int8)
        torch.compile(lambda p, q: torch._int_mm(p, q) * 2, mode="max-autotune-no-cudagraphs")(xi, wi)
    except Exception as e:
        print("int8 mm skipped", repr(e)[:200])
    try:
        xf = torch.randn(1024, 2048, device="cuda").to(torch.float8_e4m3fn)
        wf = torch.randn(2048, 1024, device="cuda").to(torch.float8_e4m3fn).t().contiguous().t()
        s = torch.tensor(1.0, device="cuda")
        torch.compile(lambda p, q: torch._scaled_mm(p, q, s, s, out_dtype=torch.bfloat16), mode="max-autotune-no-cudagraphs")(xf, wf)
    except Exception as e:
        print("fp8 mm skipped", repr(e)[:200])
    print("mm ok", float(y.float().abs().mean()))


def resnet():
    import torch, torchvision
    m = torchvision.models.resnet18(num_classes=100).cuda().to(memory_format=torch.channels_last)
    cm = torch.compile(m)
    x = torch.randn(32, 3, 128, 128, device="cuda").to(memory_format=torch.channels_last)
    for _ in range(2):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = cm(x).float().logsumexp(-1).mean()
        loss.backward()
    print("resnet ok", float(loss))


def misc():
    import torch, torch.nn.functional as F
    dev = "cuda"
    x = torch.randn(4096, 8192, device=dev)
    fns = {
        "cumsum": (lambda a: torch.cumsum(a, 1) + torch.cumprod(a[:, :64].sigmoid(), 1).sum(1, keepdim=True), (x,)),
        "sort": (lambda a: torch.sort(a[:, :512], dim=1).values + torch.topk(a, 8, dim=1).values.sum(1, keepdim=True)[:, :1], (x,)),
        "scatter": (lambda a, i: torch.zeros(4096, device=dev).scatter_add_(0, i, a[:, 0]) + torch.zeros(4096, device=dev).index_add(0, i, a[:, 1]), (x, torch.randint(0, 4096, (4096,), device=dev))),
        "softmax_wide": (lambda a: torch.softmax(a.repeat(1, 4) * 0.5, -1).sum(0), (x,)),
        "var_mean": (lambda a: torch.var_mean(a, dim=0, correction=1)[0] + a.amax(0) - a.logsumexp(0), (x,)),
        "dropout_ln": (lambda a: F.layer_norm(F.dropout(a, 0.2, True), (8192,)), (x,)),
        "gather_assert": (lambda a, i: a[i, :128].sin() + a[i + 1, :128], (x, torch.randint(0, 4000, (2048,), device=dev))),
        "pool_interp": (lambda a: F.interpolate(F.max_pool2d(a.view(16, 16, 256, 512), 3, 2, 1), scale_factor=1.5, mode="bilinear"), (x,)),
        "embed_bwd": (None, None),
        "argmax_int": (lambda a: (a * 100).to(torch.int32).argmax(1) + (a > 0).sum(1), (x,)),
        "complex": (lambda a: torch.view_as_real(torch.view_as_complex(a.view(4096, 4096, 2)) * (1 + 2j)).sum(-1), (x,)),
        "bucketize": (lambda a, b: torch.bucketize(a, b) + torch.searchsorted(b, a[:, :64].contiguous()).sum(1, keepdim=True), (x, torch.linspace(-3, 3, 100, device=dev))),
    }
    for name, (fn, args) in fns.items():
        try:
            if name == "embed_bwd":
                e = torch.nn.Embedding(50000, 256).cuda()
                i = torch.randint(0, 50000, (64, 512), device=dev)
                ce = torch.compile(lambda ii: (e(ii) ** 2).sum())
                ce(i).backward()
            else:
                torch.compile(fn)(*args)
            torch.cuda.synchronize()
            print("misc", name, "ok", flush=True)
        except Exception as ex:
            print("misc", name, "FAIL", repr(ex)[:300], flush=True)


def more_ops():
    """The second triage set (2026-12-03): ten more workloads, one compiled
    function each; tests/corpus/realworld/device/sm90-inductor-spill-budget
    is the addmm + SiLU one's 2-warp triton_mm."""
    import torch, torch._dynamo, torch.nn as nn, torch.nn.functional as F
    import torch._inductor.config as cfg
    dev, at = "cuda", "max-autotune-no-cudagraphs"
    cfg.compile_threads = 1

    def conv2d():
        m = nn.Conv2d(64, 128, 3, padding=1).to(dev, torch.float16)
        torch.compile(m, mode=at)(torch.randn(8, 64, 56, 56, device=dev, dtype=torch.float16))

    def rmsnorm_rope():
        x = torch.randn(4, 2048, 32, 128, device=dev, dtype=torch.bfloat16)
        w = torch.randn(128, device=dev, dtype=torch.bfloat16)
        cos = torch.randn(2048, 64, device=dev, dtype=torch.bfloat16)
        def f(x, w, cos, sin):
            x = x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(x.dtype) * w
            a, b, c, s = x[..., :64], x[..., 64:], cos[None, :, None], sin[None, :, None]
            return torch.cat([a * c - b * s, a * s + b * c], -1)
        torch.compile(f)(x, w, cos, torch.randn_like(cos))

    def groupnorm_train():
        gn = nn.GroupNorm(32, 256).to(dev)
        x = torch.randn(16, 256, 32, 32, device=dev, requires_grad=True)
        torch.compile(lambda x: gn(x).relu().sum())(x).backward()

    def bmm():
        a = torch.randn(32, 512, 256, device=dev, dtype=torch.bfloat16)
        b = torch.randn(32, 256, 512, device=dev, dtype=torch.bfloat16)
        torch.compile(lambda a, b: torch.bmm(a, b).relu(), mode=at)(a, b)

    def persistent_tma():
        cfg.triton.enable_persistent_tma_matmul = True
        a = torch.randn(2048, 1024, device=dev, dtype=torch.bfloat16)
        torch.compile(lambda a, b: a @ b, mode=at)(a, torch.randn(1024, 2048, device=dev, dtype=torch.bfloat16))
        cfg.triton.enable_persistent_tma_matmul = False

    def addmm_epilogue():
        lin = nn.Linear(2048, 2048).to(dev, torch.float16)
        x = torch.randn(1024, 2048, device=dev, dtype=torch.float16)
        torch.compile(lambda x: F.silu(lin(x)) * 2.0, mode=at)(x)

    def sdpa_math_train():
        q, k, v = (torch.randn(4, 8, 512, 64, device=dev, requires_grad=True) for _ in range(3))
        mask = torch.ones(512, 512, device=dev, dtype=torch.bool).triu(1)
        def f(q, k, v):
            s = (q @ k.transpose(-1, -2)) / 8.0
            return (s.masked_fill(mask, float("-inf")).softmax(-1) @ v).sum()
        torch.compile(f)(q, k, v).backward()

    def topk_scatter():
        x = torch.randn(256, 8192, device=dev)
        idx = torch.randint(0, 1024, (256, 8192), device=dev)
        def f(x, idx):
            s = torch.zeros(256, 1024, device=dev).scatter_reduce(1, idx, x, reduce="amax")
            return torch.topk(x, 16, dim=-1).values.sum(-1), s, x.argmax(-1)
        torch.compile(f)(x, idx)

    def lstm_cell():
        cell = nn.LSTMCell(512, 512).to(dev)
        x, h, c = (torch.randn(64, 512, device=dev) for _ in range(3))
        torch.compile(lambda x, h, c: cell(x, (h, c)))(x, h, c)

    def adamw_step():
        ps = [nn.Parameter(torch.randn(1024, 1024, device=dev)) for _ in range(4)]
        for p in ps:
            p.grad = torch.randn_like(p)
        torch.compile(torch.optim.AdamW(ps, lr=1e-3).step)()

    for name, fn in list(locals().items()):
        if not callable(fn) or name in ("F", "nn", "torch", "cfg"):
            continue
        torch._dynamo.reset()
        try:
            fn()
            torch.cuda.synchronize()
            print("more_ops", name, "ok", flush=True)
        except Exception as ex:
            print("more_ops", name, "FAIL", repr(ex)[:300], flush=True)


WORKLOADS = dict(gpt_train=gpt_train, flex_attn=flex_attn, mm_autotune=mm_autotune, resnet=resnet, misc=misc,
                 more_ops=more_ops)


def triton_tool(n):
    import triton
    p = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin", n)
    return p if os.path.exists(p) else shutil.which(n)


def newer_ptxas():
    """ptxas builds other than Triton's: torch's own (CUDA 13), then CUDA's."""
    import torch
    found = [os.path.join(os.path.dirname(torch.__file__), "bin", "ptxas")]
    found += sorted(glob.glob("/usr/local/cuda*/bin/ptxas"), reverse=True)
    return [p for p in found if os.path.exists(p)]


def finish(name):
    root = f"{W}/{name}"
    nvd, ptxas = triton_tool("nvdisasm"), triton_tool("ptxas")
    ptxas_bw = triton_tool("ptxas-blackwell")
    def one(cub):
        r = subprocess.run([nvd, "-c", "-gi", cub], capture_output=True, text=True)
        if r.returncode == 0:
            open(cub[:-6] + ".sass", "w").write(r.stdout)
        else:
            print("nvdisasm failed", cub, r.stderr[:200])
        ptx = cub[:-6] + ".ptx"
        if not os.path.exists(ptx):
            return None
        m = re.search(r"^\.target\s+(\S+)", open(ptx).read(), re.M)
        arch = m.group(1).rstrip(",") if m else "sm_90a"
        out = ""
        # The ptxas Triton assembled the cubin with: ptxas-blackwell for
        # sm_100 and newer (compiler.py's get_ptxas), ptxas below. It reads
        # PTX up to its own version; the PTX that torch's CUDA 13 ptxas made
        # (.version 9.0) needs that one.
        sm = re.match(r"sm_(\d+)", arch)
        own = ptxas_bw if sm and int(sm.group(1)) >= 100 and ptxas_bw else ptxas
        for p in (own, *newer_ptxas()):
            r = subprocess.run([p, "-v", f"--gpu-name={arch}", ptx, "-o", "/dev/null"], capture_output=True, text=True)
            out = f"ptxas: {p}\n" + r.stderr
            if "Unsupported .version" not in r.stderr:
                break
        return os.path.relpath(ptx, root), out
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(16) as ex:
        pv = dict(x for x in ex.map(one, sorted(glob.glob(f"{root}/**/*.cubin", recursive=True))) if x)
    json.dump(pv, open(f"{root}/ptxas-v.json", "w"), indent=0)
    # The Python files Inductor generated (the TTGIR locations point at them).
    srcs = set()
    for tt in glob.glob(f"{root}/**/*.ttgir", recursive=True):
        srcs.update(re.findall(r'loc\("([^"]+\.py)"', open(tt).read()))
    os.makedirs(f"{root}/py", exist_ok=True)
    for s in srcs:
        if os.path.exists(s):
            shutil.copy(s, f"{root}/py/")
    json.dump(sorted(srcs), open(f"{root}/py/paths.json", "w"))
    n = len(glob.glob(f"{root}/**/*.cubin", recursive=True))
    with tarfile.open(f"{OUT}/{name}.tar.xz", "w:xz") as tf:
        tf.add(root, arcname=name, filter=lambda ti: None if ti.name.endswith(".llir") else ti)
    print(name, "kernels", n, "tar MB", round(os.path.getsize(f"{OUT}/{name}.tar.xz") / 1e6, 2), flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        WORKLOADS[sys.argv[2]]()
        sys.exit(0)
    names = sys.argv[1:] or list(WORKLOADS)
    for name in names:
        root = f"{W}/{name}"
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=f"{root}/inductor", PYTHONUNBUFFERED="1")
        t0 = time.time()
        try:
            r = subprocess.run([sys.executable, __file__, "--one", name], env=env, timeout=LIMIT)
            print(name, "rc", r.returncode, round(time.time() - t0, 1), "s", flush=True)
        except subprocess.TimeoutExpired:
            print(name, "TIMEOUT after", LIMIT, "s (keeping what compiled)", flush=True)
        finish(name)
