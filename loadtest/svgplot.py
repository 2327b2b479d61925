"""Line charts as hand-written SVG (no plotting dependency).

``line_chart`` draws one panel (axes, ticks, legend, one polyline per series; gaps
where a value is None); ``stack`` puts panels under each other in one SVG document.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

Point = tuple[float, float | None]

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf")


@dataclass
class Series:
    name: str
    points: list[Point]
    color: str = ""
    dashed: bool = False


@dataclass
class Panel:
    svg: str
    height: int


def _nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(lo / step) * step
    ticks = []
    value = first
    while value <= hi + step * 1e-9:
        if value >= lo - step * 1e-9:
            ticks.append(round(value, 10))
        value += step
    return ticks


def _fmt(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def line_chart(
    title: str,
    series: list[Series],
    x_label: str,
    y_label: str,
    width: int = 900,
    height: int = 280,
    y_min: float | None = 0.0,
) -> Panel:
    left, right, top, bottom = 70, 170, 30, 45
    plot_w, plot_h = width - left - right, height - top - bottom
    xs = [x for s in series for x, y in s.points if y is not None]
    ys = [y for s in series for _, y in s.points if y is not None]
    parts = [
        f'<text x="{left}" y="18" font-size="14" font-weight="bold">{escape(title)}</text>',
    ]
    if not xs:
        parts.append(f'<text x="{left}" y="{top + 40}" font-size="12">no data</text>')
        return Panel("\n".join(parts), height)
    x_lo, x_hi = min(xs), max(xs)
    y_lo = min(ys) if y_min is None else min(y_min, min(ys))
    y_hi = max(ys)
    if x_hi == x_lo:
        x_hi = x_lo + 1
    y_ticks = _nice_ticks(y_lo, y_hi * 1.05 if y_hi > 0 else 1)
    y_lo, y_hi = min(y_ticks[0], y_lo), max(y_ticks[-1], y_hi)
    x_ticks = _nice_ticks(x_lo, x_hi, 8)

    def px(x: float) -> float:
        return left + (x - x_lo) / (x_hi - x_lo) * plot_w

    def py(y: float) -> float:
        return top + plot_h - (y - y_lo) / (y_hi - y_lo or 1) * plot_h

    parts.append(
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#888"/>'
    )
    for tick in y_ticks:
        tick_y = py(tick)
        parts.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{tick_y:.1f}" y2="{tick_y:.1f}" '
            'stroke="#eee"/>'
        )
        parts.append(
            f'<text x="{left - 6}" y="{tick_y + 4:.1f}" font-size="11" text-anchor="end">'
            f"{_fmt(tick)}</text>"
        )
    for tick in x_ticks:
        if not x_lo <= tick <= x_hi:
            continue
        x = px(tick)
        parts.append(
            f'<text x="{x:.1f}" y="{top + plot_h + 16}" font-size="11" '
            f'text-anchor="middle">{_fmt(tick)}</text>'
        )
    parts.append(
        f'<text x="{left + plot_w / 2}" y="{height - 8}" font-size="12" '
        f'text-anchor="middle">{escape(x_label)}</text>'
    )
    parts.append(
        f'<text x="14" y="{top + plot_h / 2}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 14 {top + plot_h / 2})">{escape(y_label)}</text>'
    )
    for i, s in enumerate(series):
        color = s.color or COLORS[i % len(COLORS)]
        dash = ' stroke-dasharray="5,3"' if s.dashed else ""
        run: list[str] = []
        ended: list[Point] = [*s.points, (0.0, None)]
        for x, y in ended:
            if y is None:
                if len(run) == 1:
                    cx, cy = run[0].split(",")
                    parts.append(f'<circle cx="{cx}" cy="{cy}" r="2" fill="{color}"/>')
                elif run:
                    parts.append(
                        f'<polyline fill="none" stroke="{color}" stroke-width="1.6"{dash} '
                        f'points="{" ".join(run)}"/>'
                    )
                run = []
            else:
                run.append(f"{px(x):.1f},{py(y):.1f}")
        ly = top + 14 + 18 * i
        lx = left + plot_w + 12
        parts.append(
            f'<line x1="{lx}" x2="{lx + 22}" y1="{ly - 4}" y2="{ly - 4}" stroke="{color}" '
            f'stroke-width="2"{dash}/>'
        )
        parts.append(f'<text x="{lx + 28}" y="{ly}" font-size="11">{escape(s.name)}</text>')
    return Panel("\n".join(parts), height)


def stack(panels: list[Panel], width: int = 900) -> str:
    """One SVG document with the panels one under the other."""
    total = sum(p.height for p in panels) + 10
    body = []
    offset = 0
    for panel in panels:
        body.append(f'<g transform="translate(0,{offset})">\n{panel.svg}\n</g>')
        offset += panel.height
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total}" '
        f'viewBox="0 0 {width} {total}" font-family="sans-serif">\n'
        f'<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n"
    )
