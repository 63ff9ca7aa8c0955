#!/usr/bin/env python3
"""What llc-19 emits for the shuffle catalog when the ops are written as Quadrants writes them.

For every op x tile size T = 2^k (k = 1..6; 1..5 in wave32) x target, this writes one LLVM 19 IR
kernel per op into `<out>/quadrants_<target>.ll`, compiles each file with

    llc-19 -O2 -mtriple=amdgcn-amd-amdhsa -mcpu=<cpu> [-mattr=+wavefrontsize64] -filetype=obj

disassembles it with `llvm-objdump-19 -d --mcpu=<cpu> [--mattr=...]`, and counts, for each
kernel, the instructions strictly between the two `s_setprio` markers that fence the op (see
"Markers" below): the op's whole sequence, lane-id computation, address arithmetic, `s_waitcnt`
and `s_nop` included. The counts go to `llc19_counts.tsv` beside this script (checked in, read by
`benches/examples/shuffle_catalog.rs`). `--check` recompiles and fails when the checked-in file
differs. Needs llc-19 and llvm-objdump-19 (Debian: `apt-get install llvm-19`).

How Quadrants writes the ops (docs/subgroup.md sections 3.3, 3.4 and 3.6 state the trees):

* every shuffle goes through the AMDGPU cross-half gather `amdgpu_cross_half_shuffle_i32(target,
  value)`: self = mbcnt_hi(-1, mbcnt_lo(-1, 0)); swapped = permlane64(value) (the identity on gfx9);
  byte = (target & LANE_MASK) * 4, forced into a VGPR by an empty inline asm; a =
  ds_bpermute(byte, value); b = ds_bpermute(byte, swapped); result = ((target ^ self) & 32) ? b :
  a. LANE_MASK is 63 on gfx9 (wave-wide ds_bpermute) and 31 on gfx11 (ds_bpermute stays in its
  32-lane half). Quadrants runs every AMDGPU target in wave64; the gfx1100 wave32 rows use the
  gather's wave32 form, one ds_bpermute of lane (target & 31), for comparison only;
* the shuffles of the catalog, each within tiles of T lanes, are `shuffle(value, index)` with the
  index expression: xor T/2: lane ^ T/2; down 1: (lane & (T-1)) + 1 < T ? lane + 1 : lane; up 1:
  (lane & (T-1)) >= 1 ? lane - 1 : lane; broadcast lane 0: lane & ~(T-1); rotate 1:
  (lane & ~(T-1)) | ((lane + 1) & (T-1)); reverse: lane ^ (T-1);
* reduce (every lane, `reduce_all_*_tiled`): butterfly, for i = 0..k-1:
  v = v OP shuffle(v, lane ^ 2^i);
* reduce to lane 0 (`reduce_*_tiled`): shuffle_down tree, for i = 0..k-1:
  v = v OP shuffle_down(v, 2^(k-1-i)) (target lane + offset, no clamp);
* inclusive scan: lig = lane & (T-1); for i = 0..k-1: p = shuffle_up(v, 2^i) (target lane - 2^i,
  wrapping through the lane mask); if lig >= 2^i: v = p OP v. The `if` is written as the `select`
  LLVM's SimplifyCFG makes of it (Quadrants' JIT runs the optimisation pipeline before codegen;
  llc alone does not, and would otherwise keep a divergent branch per step);
* exclusive scan: prev = shuffle_up(v, 1); prev = lig == 0 ? identity : prev; then the inclusive
  scan of prev;
* segmented reduce (add): full = ballot(head != 0); for k <= 5 the half-local head search
  (head_mask = u32(full >> (lane & ~31)), lih = lane & 31, group_base = lih & ~(T-1), eff =
  (head_mask & group_mask) | (1 << group_base), head = 31 - clz(eff & (0xffffffff >> (31 - lih))),
  distance = lih - head), for k = 6 the same on 64 bits; then for i = 0..k-1: p = shuffle_up(v,
  2^i); if distance >= 2^i: v = v + p.

Markers: each kernel loads its value, hands it to an empty inline asm (so the load's s_waitcnt
lands before the region), then `s_setprio 1` + `sched_barrier 0`, the op, an empty inline asm
reading the result in a VGPR (so the wait for the last ds_bpermute lands inside the region, as
the consumer of the selector's cost model does), `sched_barrier 0` + `s_setprio 0`, and stores
the result. The sched_barriers keep the scheduler from moving anything
across the markers; the s_setprio pair is what the count looks for in the disassembly.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TSV = os.path.join(HERE, "llc19_counts.tsv")

# (name in the TSV, llc -mcpu, -mattr, lanes, LANE_MASK, permlane64 exists)
TARGETS = [
    ("gfx942", "gfx942", "", 64, 63, False),
    ("gfx1100", "gfx1100", "+wavefrontsize64", 64, 31, True),
    ("gfx1100-w32", "gfx1100", "+wavefrontsize32", 32, 31, False),
]

SHUFFLES = ["xor", "down", "up", "broadcast", "rotate", "reverse"]
COLLECTIVES = ["reduce", "reduce_lane0", "scan_incl", "scan_excl"]
# (op, type) rows of the collectives; segmented reduce is u32 add only.
COLL_TYPES = [("add", "u32"), ("add", "f32"), ("min", "u32"), ("and", "u32"), ("xor", "u32"), ("mul", "u32")]


class Fn:
    """A kernel body under construction: SSA names and lines."""

    def __init__(self):
        self.lines = []
        self.n = 0

    def v(self, text):
        self.n += 1
        name = f"%t{self.n}"
        self.lines.append(f"  {name} = {text}")
        return name


def gather(fn, t, target, value):
    """Quadrants' cross-half gather of i32 `value` from lane `target` (i32)."""
    _, _, _, lanes, mask, pl64 = t
    self_ = lane_id(fn, t)
    masked = fn.v(f"and i32 {target}, {mask}")
    byte0 = fn.v(f"shl i32 {masked}, 2")
    byte = fn.v(f'call i32 asm sideeffect "", "=v,0"(i32 {byte0})')
    a = fn.v(f"call i32 @llvm.amdgcn.ds.bpermute(i32 {byte}, i32 {value})")
    if lanes == 32:
        return a
    swapped = fn.v(f"call i32 @llvm.amdgcn.permlane64.i32(i32 {value})") if pl64 else value
    b = fn.v(f"call i32 @llvm.amdgcn.ds.bpermute(i32 {byte}, i32 {swapped})")
    x = fn.v(f"xor i32 {target}, {self_}")
    hi = fn.v(f"and i32 {x}, 32")
    c = fn.v(f"icmp ne i32 {hi}, 0")
    return fn.v(f"select i1 {c}, i32 {b}, i32 {a}")


def lane_id(fn, t):
    lo = fn.v("call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)")
    if t[3] == 32:
        return lo
    return fn.v(f"call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 {lo})")


def shuffle_target(fn, lane, op, tile):
    m = tile - 1
    if op == "xor":
        return fn.v(f"xor i32 {lane}, {tile // 2}")
    if op == "reverse":
        return fn.v(f"xor i32 {lane}, {m}")
    if op == "broadcast":
        return fn.v(f"and i32 {lane}, {~m & 0xFFFFFFFF}")
    if op == "down":
        lig = fn.v(f"and i32 {lane}, {m}")
        nxt = fn.v(f"add i32 {lig}, 1")
        ok = fn.v(f"icmp ult i32 {nxt}, {tile}")
        up = fn.v(f"add i32 {lane}, 1")
        return fn.v(f"select i1 {ok}, i32 {up}, i32 {lane}")
    if op == "up":
        lig = fn.v(f"and i32 {lane}, {m}")
        ok = fn.v(f"icmp uge i32 {lig}, 1")
        dn = fn.v(f"sub i32 {lane}, 1")
        return fn.v(f"select i1 {ok}, i32 {dn}, i32 {lane}")
    if op == "rotate":
        base = fn.v(f"and i32 {lane}, {~m & 0xFFFFFFFF}")
        nxt = fn.v(f"add i32 {lane}, 1")
        wrapped = fn.v(f"and i32 {nxt}, {m}")
        return fn.v(f"or i32 {base}, {wrapped}")
    raise ValueError(op)


def combine(fn, op, ty, a, b):
    """`a OP b` on values of the LLVM type of `ty` (i32 or float)."""
    if ty == "f32":
        assert op == "add"
        return fn.v(f"fadd float {a}, {b}")
    return {
        "add": lambda: fn.v(f"add i32 {a}, {b}"),
        "mul": lambda: fn.v(f"mul i32 {a}, {b}"),
        "and": lambda: fn.v(f"and i32 {a}, {b}"),
        "xor": lambda: fn.v(f"xor i32 {a}, {b}"),
        "min": lambda: fn.v(f"call i32 @llvm.umin.i32(i32 {a}, i32 {b})"),
    }[op]()


def identity(op, ty):
    if ty == "f32":
        return "0.0"
    return {"add": "0", "xor": "0", "mul": "1", "and": "-1", "min": "-1"}[op]


def shuffled(fn, t, target, v, ty):
    """Quadrants' shuffle of a u32 or (bit-reinterpreted) f32 value."""
    if ty == "f32":
        bits = fn.v(f"bitcast float {v} to i32")
        return fn.v(f"bitcast i32 {gather(fn, t, target, bits)} to float")
    return gather(fn, t, target, v)


def inclusive(fn, t, lane, v, op, ty, tile):
    lig = fn.v(f"and i32 {lane}, {tile - 1}")
    d = 1
    while d < tile:
        tgt = fn.v(f"sub i32 {lane}, {d}")
        p = shuffled(fn, t, tgt, v, ty)
        ok = fn.v(f"icmp uge i32 {lig}, {d}")
        nv = combine(fn, op, ty, p, v)
        llty = "float" if ty == "f32" else "i32"
        v = fn.v(f"select i1 {ok}, {llty} {nv}, {llty} {v}")
        d *= 2
    return v


def body(fn, t, op, k, value, head, ty="u32", cop="add"):
    """The op's instructions; returns the result value."""
    tile = 1 << k
    lane = lane_id(fn, t)
    if op in SHUFFLES:
        return gather(fn, t, shuffle_target(fn, lane, op, tile), value)
    llty = "float" if ty == "f32" else "i32"
    v = value
    if op == "reduce":
        for i in range(k):
            tgt = fn.v(f"xor i32 {lane}, {1 << i}")
            v = combine(fn, cop, ty, v, shuffled(fn, t, tgt, v, ty))
        return v
    if op == "reduce_lane0":
        for i in range(k):
            tgt = fn.v(f"add i32 {lane}, {1 << (k - 1 - i)}")
            v = combine(fn, cop, ty, v, shuffled(fn, t, tgt, v, ty))
        return v
    if op == "scan_incl":
        return inclusive(fn, t, lane, v, cop, ty, tile)
    if op == "scan_excl":
        lig = fn.v(f"and i32 {lane}, {tile - 1}")
        tgt = fn.v(f"sub i32 {lane}, 1")
        prev = shuffled(fn, t, tgt, v, ty)
        first = fn.v(f"icmp eq i32 {lig}, 0")
        prev = fn.v(f"select i1 {first}, {llty} {identity(cop, ty)}, {llty} {prev}")
        return inclusive(fn, t, lane, prev, cop, ty, tile)
    if op == "segreduce":
        lanes = t[3]
        flag = fn.v(f"icmp ne i32 {head}, 0")
        if k <= 5:
            if lanes == 64:
                full = fn.v(f"call i64 @llvm.amdgcn.ballot.i64(i1 {flag})")
                hb = fn.v(f"and i32 {lane}, -32")
                hb64 = fn.v(f"zext i32 {hb} to i64")
                sh = fn.v(f"lshr i64 {full}, {hb64}")
                hmask = fn.v(f"trunc i64 {sh} to i32")
                lih = fn.v(f"sub i32 {lane}, {hb}")
            else:
                hmask = fn.v(f"call i32 @llvm.amdgcn.ballot.i32(i1 {flag})")
                lih = lane
            gb = fn.v(f"and i32 {lih}, {~(tile - 1) & 0xFFFFFFFF}")
            gm = fn.v(f"shl i32 {(1 << tile) - 1 if tile < 32 else 0xFFFFFFFF}, {gb}")
            hm = fn.v(f"and i32 {hmask}, {gm}")
            bit = fn.v(f"shl i32 1, {gb}")
            eff = fn.v(f"or i32 {hm}, {bit}")
            s = fn.v(f"sub i32 31, {lih}")
            incl = fn.v(f"lshr i32 -1, {s}")
            e2 = fn.v(f"and i32 {eff}, {incl}")
            clz = fn.v(f"call i32 @llvm.ctlz.i32(i32 {e2}, i1 false)")
            hd = fn.v(f"sub i32 31, {clz}")
            dist = fn.v(f"sub i32 {lih}, {hd}")
        else:
            full = fn.v(f"call i64 @llvm.amdgcn.ballot.i64(i1 {flag})")
            eff = fn.v(f"or i64 {full}, 1")
            l64 = fn.v(f"zext i32 {lane} to i64")
            s = fn.v(f"sub i64 63, {l64}")
            incl = fn.v(f"lshr i64 -1, {s}")
            e2 = fn.v(f"and i64 {eff}, {incl}")
            clz = fn.v(f"call i64 @llvm.ctlz.i64(i64 {e2}, i1 false)")
            hd = fn.v(f"sub i64 63, {clz}")
            d64 = fn.v(f"sub i64 {l64}, {hd}")
            dist = fn.v(f"trunc i64 {d64} to i32")
        d = 1
        while d < tile:
            tgt = fn.v(f"sub i32 {lane}, {d}")
            p = gather(fn, t, tgt, v)
            ok = fn.v(f"icmp uge i32 {dist}, {d}")
            nv = fn.v(f"add i32 {v}, {p}")
            v = fn.v(f"select i1 {ok}, i32 {nv}, i32 {v}")
            d *= 2
        return v
    raise ValueError(op)


def kernel(t, name, op, k, ty="u32", cop="add"):
    fn = Fn()
    llty = "float" if ty == "f32" else "i32"
    fn.lines.append(f"define amdgpu_kernel void @{name}(ptr addrspace(1) %in, ptr addrspace(1) %heads, "
                    f"ptr addrspace(1) %out) #0 {{")
    tid = fn.v("call i32 @llvm.amdgcn.workitem.id.x()")
    p = fn.v(f"getelementptr {llty}, ptr addrspace(1) %in, i32 {tid}")
    x = fn.v(f"load {llty}, ptr addrspace(1) {p}")
    head = None
    if op == "segreduce":
        hp = fn.v(f"getelementptr i32, ptr addrspace(1) %heads, i32 {tid}")
        head = fn.v(f"load i32, ptr addrspace(1) {hp}")
        fn.lines.append(f'  call void asm sideeffect "", "v"(i32 {head})')
    fn.lines.append(f'  call void asm sideeffect "", "v"({llty} {x})')
    fn.lines.append("  call void @llvm.amdgcn.s.setprio(i16 1)")
    fn.lines.append("  call void @llvm.amdgcn.sched.barrier(i32 0)")
    r = body(fn, t, op, k, x, head, ty, cop)
    fn.lines.append(f'  call void asm sideeffect "", "v"({llty} {r})')
    fn.lines.append("  call void @llvm.amdgcn.sched.barrier(i32 0)")
    fn.lines.append("  call void @llvm.amdgcn.s.setprio(i16 0)")
    q = fn.v(f"getelementptr {llty}, ptr addrspace(1) %out, i32 {tid}")
    fn.lines.append(f"  store {llty} {r}, ptr addrspace(1) {q}")
    fn.lines.append("  ret void\n}\n")
    return "\n".join(fn.lines)


def rows(t):
    """(kernel name, op, k, op-type label, type, combine op) for target `t`."""
    kmax = 6 if t[3] == 64 else 5
    out = []
    for k in range(1, kmax + 1):
        for op in SHUFFLES:
            out.append((f"{op}_k{k}", op, k, "-", "u32", "add"))
        for op in COLLECTIVES:
            for cop, ty in COLL_TYPES:
                out.append((f"{op}_{cop}_{ty}_k{k}", op, k, f"{cop}.{ty}", ty, cop))
        out.append((f"segreduce_add_u32_k{k}", "segreduce", k, "add.u32", "u32", "add"))
    return out


DECLS = """declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare i32 @llvm.amdgcn.permlane64.i32(i32)
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare i32 @llvm.amdgcn.ballot.i32(i1)
declare void @llvm.amdgcn.s.setprio(i16)
declare void @llvm.amdgcn.sched.barrier(i32)
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i64 @llvm.ctlz.i64(i64, i1)
"""


def module(t):
    head = (f"; Generated by benches/llvm/shuffle/llc19.py for {t[0]} (wave{t[3]}): the shuffle catalog's ops\n"
            "; written as Quadrants writes them (see the script's doc). Do not edit by hand.\n"
            'target triple = "amdgcn-amd-amdhsa"\n\n')
    ks = [kernel(t, name, op, k, ty, cop) for (name, op, k, _, ty, cop) in rows(t)]
    attrs = f'attributes #0 = {{ "amdgpu-flat-work-group-size"="{t[3] * 2},{t[3] * 2}" }}\n'
    return head + "\n".join(ks) + "\n" + DECLS + attrs


def llc_cmd(t, ll, obj):
    cmd = ["llc-19", "-O2", "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={t[1]}"]
    if t[2]:
        cmd.append(f"-mattr={t[2]}")
    return cmd + ["-filetype=obj", ll, "-o", obj]


def objdump_cmd(t, obj):
    cmd = ["llvm-objdump-19", "-d", f"--mcpu={t[1]}"]
    if t[2]:
        cmd.append(f"--mattr={t[2]}")
    return cmd + [obj]


def count(dump):
    """{kernel: (instructions, ds_bpermute, v_permlane64, s_waitcnt, s_nop)} between the markers."""
    res = {}
    cur = None
    inside = False
    counts = None
    for line in dump.splitlines():
        m = re.match(r"^[0-9a-f]+ <(\w+)>:", line)
        if m:
            cur, inside = m.group(1), False
            continue
        text = line.strip()
        if not text or cur is None or "//" not in text:
            continue
        mnem = text.split()[0]
        if mnem == "s_setprio":
            if text.split()[1].rstrip(",") == "1":
                inside, counts = True, [0, 0, 0, 0, 0]
            elif inside:
                inside = False
                res[cur] = tuple(counts)
            continue
        if inside:
            counts[0] += 1
            counts[1] += mnem.startswith("ds_bpermute")
            counts[2] += mnem.startswith("v_permlane64")
            counts[3] += mnem.startswith("s_waitcnt")
            counts[4] += mnem == "s_nop"
    return res


def generate(out_dir):
    lines = ["# llc-19 -O2 counts of the shuffle catalog's ops written as Quadrants writes them.",
             "# Generated by benches/llvm/shuffle/llc19.py (commands in its doc); do not edit.",
             "# insts: instructions between the markers (s_waitcnt and s_nop included).",
             "target\twave\top\ttype\tk\tinsts\tds_bpermute\tv_permlane64\ts_waitcnt\ts_nop"]
    for t in TARGETS:
        ll = os.path.join(out_dir, f"quadrants_{t[0]}.ll")
        obj = os.path.join(out_dir, f"quadrants_{t[0]}.o")
        with open(ll, "w") as f:
            f.write(module(t))
        subprocess.run(llc_cmd(t, ll, obj), check=True)
        dump = subprocess.run(objdump_cmd(t, obj), check=True, capture_output=True, text=True).stdout
        got = count(dump)
        for (name, op, k, label, _, _) in rows(t):
            if name not in got:
                sys.exit(f"{t[0]}: no marked region in kernel {name}")
            c = got[name]
            lines.append("\t".join([t[0].split("-")[0], str(t[3]), op, label, str(k)] + [str(x) for x in c]))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="where the .ll and .o files go (default: a temporary directory)")
    ap.add_argument("--check", action="store_true", help="fail if llc19_counts.tsv is not what llc-19 gives")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = a.out or tmp
        os.makedirs(out_dir, exist_ok=True)
        text = generate(out_dir)
    if a.check:
        with open(TSV) as f:
            if f.read() != text:
                sys.exit(f"{TSV} is stale: run benches/llvm/shuffle/llc19.py")
        print(f"{TSV}: up to date")
        return
    with open(TSV, "w") as f:
        f.write(text)
    print(f"wrote {TSV}")


if __name__ == "__main__":
    main()
