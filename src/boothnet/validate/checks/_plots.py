"""PNG plots for the report (matplotlib, Agg: no display needed). matplotlib is imported where a
plot is drawn: the catalog imports this module, and a validate run or watch that draws nothing
should not load it (tests/unit/test_lazy_imports.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from boothnet.validate.perf.schema import ThroughputResult

GREEN, RED, GREY, AMBER = "#2e7d32", "#c62828", "#9e9e9e", "#f9a825"


def _agg() -> None:
    """Agg: drawing to a file needs no display."""
    import matplotlib

    matplotlib.use("Agg")


def _label(r: ThroughputResult) -> str:
    name = r.path or f"{r.source} -> {r.destination}"
    return f"{name}  [{r.tool} x{r.streams}]"


def throughput_plot(pairs: list[tuple[ThroughputResult | None, ThroughputResult | None]], out: Path) -> Path | None:
    """Per test, horizontal bars of measured goodput, the test's direction above its reverse
    (hatched); a black tick marks the expected goodput, a dashed tick the pass threshold."""
    if not pairs:
        return None
    _agg()
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    n = len(pairs)
    fig, ax = plt.subplots(figsize=(11, 1.6 + 0.42 * n), dpi=110)
    ys = list(range(n))[::-1]
    colors = {"PASS": GREEN, "FAIL": RED, "ERROR": AMBER, "SKIPPED": GREY}
    results = [r for pair in pairs for r in pair if r is not None]
    for y, pair in zip(ys, pairs, strict=True):
        for r in pair:
            if r is None:
                continue
            at = y - 0.2 if r.reverse else y + 0.2
            status = r.status
            ax.barh(at, r.throughput / 1e6, height=0.38, color=colors[status], hatch="//" if r.reverse else None,
                    edgecolor="white")
            if r.expected:
                ax.plot([r.expected / 1e6] * 2, [at - 0.19, at + 0.19], color="black", lw=2)
                if r.pass_ratio:
                    thr = r.expected * r.pass_ratio / 1e6
                    ax.plot([thr] * 2, [at - 0.19, at + 0.19], color="black", lw=1, ls="--")
                text = f"{r.throughput / r.expected:.0%}" if r.succeeded else "error"
            else:
                text = "error" if not r.succeeded else "no expectation"
            right = max(r.throughput, r.expected or 0) / 1e6
            ax.text(right * 1.01 + 1, at, f"{'<-' if r.reverse else '->'} {text}", va="center", fontsize=7,
                    color=RED if status == "FAIL" else "black")
    ax.set_yticks(ys, [_label(next(r for r in pair if r is not None)) for pair in pairs], fontsize=8)
    ax.set_xlabel("TCP goodput (Mb/s)")
    ax.set_title("Throughput per path vs expected")
    top = max([r.throughput for r in results] + [r.expected or 0 for r in results]) / 1e6
    ax.set_xlim(0, top * 1.12 or 1)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(handles=[Patch(color=GREEN, label="pass"), Patch(color=RED, label="fail"),
                       Patch(facecolor="white", edgecolor="black", hatch="//", label="reverse"),
                       plt.Line2D([], [], color="black", lw=2, label="expected"),
                       plt.Line2D([], [], color="black", lw=1, ls="--", label="pass threshold")],
              loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return out


def window_sweep_plot(results: list[ThroughputResult], rtt_ms: dict[str, float], out: Path) -> Path | None:
    """Goodput against the window, per WAN path (as SC2000's Figure 2): the measured points,
    the window/RTT line, the line the sweep judged by (k x window/RTT, capped at the limit)."""
    sweeps: dict[str, list[ThroughputResult]] = {}
    for r in results:
        if r.kind == "sweep" and r.window:
            sweeps.setdefault(r.path, []).append(r)
    if not sweeps:
        return None
    _agg()
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(sweeps), figsize=(6.5 * len(sweeps), 4.2), dpi=110, squeeze=False)
    for ax, (path, points) in zip(axes[0], sorted(sweeps.items()), strict=True):
        rtt = rtt_ms.get(path) or 1.0
        top = max((r.window or 0) / 2**20 for r in points) * 1.1
        xs = [top * i / 50 for i in range(51)]
        ax.plot(xs, [x * 2**20 * 8 / (rtt / 1000) / 1e6 for x in xs], color=GREY, ls=":", label="window / RTT")
        for tool, marker, style in (("iperf3", "o", "-"), ("nuttcp", "s", "--")):
            mine = sorted((r for r in points if r.tool == tool), key=lambda r: r.window or 0)
            if not mine:
                continue
            windows = [(r.window or 0) / 2**20 for r in mine]
            ax.plot(windows, [(r.expected or 0) / 1e6 for r in mine], color="black", lw=1, ls=style,
                    label=f"expected, {tool} (k x window/RTT, up to the limit)")
            ax.scatter(windows, [r.throughput / 1e6 for r in mine], zorder=3, marker=marker,
                       color=[GREEN if r.verdict == "PASS" else RED for r in mine], label=f"measured, {tool}")
        limit = max(r.expected or 0 for r in points) / 1e6
        ax.axhline(limit, color=AMBER, lw=1, ls="--", label=f"path limit {limit:.0f} Mb/s")
        ax.set_ylim(0, limit * 1.3 or 1)
        ax.set_xlabel("TCP window asked for, -w (MiB)")
        ax.set_ylabel("goodput (Mb/s)")
        ax.set_title(f"{path}: window sweep, RTT {rtt:g} ms", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return out


class MatrixRow(Protocol):
    """What the heatmap reads of an isolation row (the isolation check's row type)."""

    @property
    def src_zone(self) -> str: ...
    @property
    def dst_zone(self) -> str: ...
    @property
    def expected(self) -> str: ...
    @property
    def verdict(self) -> str | None: ...


# cell codes for the heatmap
_UNTESTED, _DENY, _PARTIAL, _PERMIT, _MISMATCH = range(5)
_CELL_COLORS = ["#ffffff", "#cfd8dc", "#c5e1a5", "#66bb6a", "#e53935"]


def matrix_cells(rows: Sequence[MatrixRow], zones: list[str]) -> list[list[tuple[int, int, int]]]:
    """Per (src zone, dst zone): (code, number of flows, number of mismatches)."""
    cells: dict[tuple[str, str], list[MatrixRow]] = {}
    for row in rows:
        cells.setdefault((row.src_zone, row.dst_zone), []).append(row)
    grid = []
    for src in zones:
        line = []
        for dst in zones:
            flows = cells.get((src, dst), [])
            bad = sum(1 for f in flows if f.verdict in ("FAIL", "ERROR"))
            expected = {f.expected for f in flows}
            if not flows or all(f.verdict == "SKIPPED" for f in flows):
                code = _UNTESTED
            elif bad:
                code = _MISMATCH
            elif expected == {"permit"}:
                code = _PERMIT
            elif expected == {"deny"}:
                code = _DENY
            else:
                code = _PARTIAL
            line.append((code, len(flows), bad))
        grid.append(line)
    return grid


def reachability_heatmap(rows: Sequence[MatrixRow], zones: list[str], out: Path) -> Path | None:
    if not rows:
        return None
    _agg()
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    grid = matrix_cells(rows, zones)
    n = len(zones)
    size = max(5.0, 1.2 + 0.42 * n)
    fig, ax = plt.subplots(figsize=(size + 2.5, size), dpi=110)
    ax.imshow([[c[0] for c in line] for line in grid], cmap=ListedColormap(_CELL_COLORS), vmin=0, vmax=4)
    for i, line in enumerate(grid):
        for j, (code, flows, bad) in enumerate(line):
            if code == _MISMATCH:
                ax.text(j, i, f"X{bad}", ha="center", va="center", color="white",
                        fontsize=9, fontweight="bold")
            elif flows:
                ax.text(j, i, str(flows), ha="center", va="center", fontsize=7, color="#37474f")
    ax.set_xticks(range(n), zones, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(n), zones, fontsize=8)
    ax.set_xlabel("destination zone / VLAN")
    ax.set_ylabel("source zone / VLAN")
    ax.set_title("Reachability: expected vs observed (number = flows tested)")
    ax.set_xticks([x - 0.5 for x in range(1, n)], minor=True)
    ax.set_yticks([y - 0.5 for y in range(1, n)], minor=True)
    ax.grid(which="minor", color="white", lw=1.5)
    ax.tick_params(which="minor", length=0)
    ax.legend(handles=[Patch(color=_CELL_COLORS[_PERMIT], label="permit, as expected"),
                       Patch(color=_CELL_COLORS[_PARTIAL], label="listed services only, as expected"),
                       Patch(color=_CELL_COLORS[_DENY], label="deny, as expected"),
                       Patch(color=_CELL_COLORS[_MISMATCH], label="X: mismatches"),
                       Patch(facecolor="white", edgecolor="grey", label="not tested")],
              loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=8)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return out
