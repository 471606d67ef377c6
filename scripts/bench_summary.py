"""bench_summary.py RESULTS LINES CODECS: the tables and targets of scripts/bench.sh.

Each line of RESULTS is one run: mode workload tool round wall_us user_s sys_s
rss_kib load wire_bytes wire_codecs (the last two "-" unless the broker
counted the run's record batches; wire_codecs is CODEC=batches/records/bytes,...).
Ratios are medians of per-round ratios of two tools' runs in the same round.
"""
import statistics as st
import sys
from collections import defaultdict

path, lines, codecs = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
raw = defaultdict(lambda: defaultdict(list))  # (mode, w, tool) -> round -> [(wall, cpu, rss, load, wire)]
wire_codecs = defaultdict(lambda: defaultdict(lambda: [0, 0]))  # (mode, w, tool) -> codec -> [batches, bytes], over all rounds
for line in open(path):
    f = line.split()
    mode, w, tool, r = f[:4]
    wall, cpu, rss, load = int(f[4]) / 1e6, float(f[5]) + float(f[6]), int(f[7]) / 1024, float(f[8])
    wire = int(f[9]) / 2**20 if len(f) > 9 and f[9] != "-" else None
    raw[(mode, w, tool)][r].append((wall, cpu, rss, load, wire))
    if len(f) > 10 and f[10] != "-":
        for item in f[10].split(","):
            codec, counts = item.split("=")
            batches, _, size = counts.split("/")
            wire_codecs[(mode, w, tool)][codec][0] += int(batches)
            wire_codecs[(mode, w, tool)][codec][1] += int(size)

WALL, CPU, RSS, LOAD, WIRE = range(5)


def median_of(values):
    values = [v for v in values if v is not None]
    return st.median(values) if values else None


# Several runs of a workload in one round (S1) count as their median.
rows = {k: {r: tuple(median_of(x[i] for x in v) for i in range(5)) for r, v in rounds.items()} for k, rounds in raw.items()}


def med(k, i):
    return median_of(x[i] for x in rows.get(k, {}).values())


def ratio(a, b, i):
    a, b = rows.get(a, {}), rows.get(b, {})
    rs = [a[r][i] / b[r][i] for r in a if r in b and a[r][i] is not None and b[r][i]]
    return st.median(rs) if rs else None


def fmt(x, p=3, width=8):
    return f"{x:{width}.{p}f}" if x is not None else f"{'-':>{width}}"


counts = {'S1': 1, 'W1': min(lines, 200000), 'J1': 100000, 'J1-mixed': 100000}
order = ['T1', 'T2', 'T3'] + [f'Z-{z}' for z in codecs] + ['G1', 'W1', 'J1', 'J1-mixed', 'S1']
tools = ['kcat', 'franz', 'kproduce', 'kproduce/1', 'base']
modes = sorted({k[0] for k in rows}, key=lambda m: ['store', 'drop'].index(m) if m in ('store', 'drop') else 9)
names = {'store': 'stores', 'drop': 'drops'}
for mode in modes:
    print(f"\n## broker that {names.get(mode, mode)} the records")
    print(f"{'workload':9} {'tool':10} {'wall_s':>8} {'cpu_s':>8} {'ns/rec':>7} {'rss_MiB':>8} {'wire_MiB':>8} "
          f"{'wall/kcat':>9} {'cpu/kcat':>8} {'rss/kcat':>8} {'wire/kcat':>9} {'load':>5}")
    for w in order:
        for tool in tools:
            k = (mode, w, tool)
            if k not in rows:
                continue
            kw = (mode, 'T1' if w == 'T2' else w, 'kcat')
            vs = [ratio(k, kw, i) if tool != 'kcat' else None for i in (WALL, CPU, RSS, WIRE)]
            cpu = med(k, CPU)
            print(f"{w:9} {tool:10} {fmt(med(k, WALL))} {fmt(cpu)} {cpu / counts.get(w, lines) * 1e9:7.0f} {fmt(med(k, RSS), 1)} "
                  f"{fmt(med(k, WIRE), 1)} {fmt(vs[0], 3, 9)} {fmt(vs[1])} {fmt(vs[2])} {fmt(vs[3], 3, 9)} {med(k, LOAD):5.2f}")


def check(value, limit):
    if value is None:
        return "(not measured)"
    return "met" if value <= limit else "MISSED"


def target(label, value, limit):
    return f"{label} {fmt(value, 3, 0)} (<= {limit}: {check(value, limit)})"


print("\n## targets (kproduce's ratios to kcat in the same round, medians; 'met' or 'MISSED')")
p2 = {'zstd': 0.40, 'lz4': 0.35, 'gzip': 0.50, 'snappy': 0.35}
for mode in modes:
    t = lambda w, tool='kproduce': (mode, w, tool)
    kc = lambda w: (mode, w, 'kcat')
    judged = "judged here" if mode == 'drop' else "judged on the dropping broker"
    print(f"{mode}:")
    print(f"  P1 T1 ({judged}): {target('wall', ratio(t('T1'), kc('T1'), WALL), 0.30)}, {target('CPU', ratio(t('T1'), kc('T1'), CPU), 0.20)}")
    for z in codecs:
        w = f'Z-{z}'
        if t(w) not in rows:
            continue
        note = ""
        for tool in ('kcat', 'kproduce'):
            sent = wire_codecs.get((mode, w, tool), {})
            other = [sum(v[i] for c, v in sent.items() if c != z) for i in (0, 1)]
            if other[0]:
                total = [sum(v[i] for v in sent.values()) for i in (0, 1)]
                note += (f"; {tool} sent {other[0]} of {total[0]} batches ({100 * other[1] / total[1]:.2g}% of its bytes)"
                         f" in another codec (uncompressed when {z} would not make them smaller)")
        print(f"  P2 {z:6} ({judged}): {target('wall', ratio(t(w), kc(w), WALL), p2.get(z, 0.5))}, "
              f"{target('wire bytes', ratio(t(w), kc(w), WIRE), 1.05)}, {target('peak RSS', ratio(t(w), kc(w), RSS), 1.0)}; "
              f"CPU {fmt(ratio(t(w), kc(w), CPU), 3, 0)}{note}")
    print(f"  P3 W1 (RSS judged on the storing broker, wall on both): {target('peak RSS / kproduce T1', ratio(t('W1'), t('T1'), RSS), 1.2)}, "
          f"{target('wall', ratio(t('W1'), kc('W1'), WALL), 0.5)}; CPU {fmt(ratio(t('W1'), kc('W1'), CPU), 3, 0)}")
    p6 = [f"T2 wall vs kcat's T1 {fmt(ratio(t('T2'), kc('T1'), WALL), 3, 0)}", f"T3 wall {fmt(ratio(t('T3'), kc('T3'), WALL), 3, 0)}",
          f"J1 {fmt(med(t('J1'), WALL), 3, 0)} s, mixed {fmt(med(t('J1-mixed'), WALL), 3, 0)} s",
          f"S1 {fmt(med(t('S1'), WALL) and med(t('S1'), WALL) * 1000, 1, 0)} ms, {fmt(med(t('S1'), RSS), 1, 0)} MiB"]
    if any(k[2] == 'base' for k in rows):
        p6.append("vs base: " + ", ".join(f"{w} {fmt(ratio(t(w), t(w, 'base'), WALL), 3, 0)}" for w in order if t(w, 'base') in rows))
    g1 = ratio(t('G1'), t('T1'), WALL)
    if g1:
        print(f"  G1 perf --record-size 100: {target('wall / kproduce T1', g1, 1.11)} (records/s >= 0.9 x T1's); "
              f"vs kcat fed by yes: wall {fmt(ratio(t('G1'), kc('G1'), WALL), 3, 0)}, CPU {fmt(ratio(t('G1'), kc('G1'), CPU), 3, 0)}, "
              f"RSS {fmt(ratio(t('G1'), kc('G1'), RSS), 3, 0)}")
    print("  P6 (no regression; compare with an earlier run or BENCH_BASE): " + "; ".join(p6))

scaling = [(mode, z) for mode in modes for z in codecs if (mode, f'Z-{z}', 'kproduce/1') in rows]
if scaling:
    print("\n## compression on the cores: kproduce with GOMAXPROCS=1 and with all cores (medians)")
    print(f"{'mode':5} {'codec':7} {'wall_1':>8} {'wall_all':>8} {'speedup':>8} {'cpu_1':>8} {'cpu_all':>8}")
    for mode, z in scaling:
        one, all_ = (mode, f'Z-{z}', 'kproduce/1'), (mode, f'Z-{z}', 'kproduce')
        print(f"{mode:5} {z:7} {fmt(med(one, WALL))} {fmt(med(all_, WALL))} {fmt(ratio(one, all_, WALL))} {fmt(med(one, CPU))} {fmt(med(all_, CPU))}")
