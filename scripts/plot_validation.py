#!/usr/bin/env python3
"""Predicted vs measured, as an SVG, from `syncsim validate --json` outputs (standard library only).

    syncsim validate --calibration cal.yaml --nccl-tests a100.log --json > a100.json
    scripts/plot_validation.py docs/images/calibration.svg a100.json h100.json --title "Self-calibrated"

Top panel: time per operation against message size, both logarithmic; measured points as circles, the
prediction as a line, one colour per log. Bottom panel: the relative error (predicted - measured) / measured per
size, with the +-10% and +-30% bands; errors beyond +-60% are drawn at the edge as triangles. The legend gives
each log's geomean |error| over all sizes and max |error| over sizes >= 1 MiB.
"""
import argparse
import json
import math
import os
import sys
from xml.sax.saxutils import escape

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
           "#bcbd22"]
WIDTH, LEFT, RIGHT = 960, 80, 330
TOP_Y, TOP_H = 50, 360
ERR_Y, ERR_H = TOP_Y + TOP_H + 50, 180
HEIGHT = ERR_Y + ERR_H + 60
ERROR_CLIP = 0.6


def fail(message):
    sys.exit(f"plot_validation.py: error: {message}")


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        fail(f"{path}: {e}")
    for key in ("rows", "summary", "log"):
        if key not in data:
            fail(f"{path}: not `syncsim validate --json` output (no '{key}')")
    rows = [r for r in data["rows"] if r["size_bytes"] > 0]
    if not rows:
        fail(f"{path}: no rows")
    return data, rows


def size_label(size):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= scale:
            return f"{size // scale}{unit}"
    return str(size)


def time_label(us):
    if us >= 1e6:
        return f"{us / 1e6:g} s"
    if us >= 1e3:
        return f"{us / 1e3:g} ms"
    return f"{us:g} us"


class Axis:
    """A value-to-pixel mapping, logarithmic or linear."""

    def __init__(self, low, high, pixel_low, pixel_high, log):
        self.log = log
        self.low, self.high = (math.log10(low), math.log10(high)) if log else (low, high)
        self.pixel_low, self.pixel_high = pixel_low, pixel_high

    def __call__(self, value):
        v = math.log10(value) if self.log else value
        return self.pixel_low + (v - self.low) / (self.high - self.low) * (self.pixel_high - self.pixel_low)


def text(x, y, content, anchor="middle", size=12, extra=""):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" {extra}>'
            f"{escape(content)}</text>")


def line(x1, y1, x2, y2, stroke="#ccc", width=1, dash=None):
    dashed = f' stroke-dasharray="{dash}"' if dash else ""
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" '
            f'stroke-width="{width}"{dashed}/>')


def plot(datasets, title):
    sizes = [r["size_bytes"] for _, rows in datasets for r in rows]
    times = [t for _, rows in datasets for r in rows for t in (r["measured_us"], r["predicted_us"]) if t > 0]
    x_low = 2 ** math.floor(math.log2(min(sizes)))
    x_high = 2 ** math.ceil(math.log2(max(sizes)))
    y_low = 10 ** math.floor(math.log10(min(times)))
    y_high = 10 ** math.ceil(math.log10(max(times)))
    right = WIDTH - RIGHT
    x = Axis(x_low, x_high, LEFT, right, log=True)
    y = Axis(y_low, y_high, TOP_Y + TOP_H, TOP_Y, log=True)
    e = Axis(-ERROR_CLIP, ERROR_CLIP, ERR_Y + ERR_H, ERR_Y, log=False)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif">',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
           text(WIDTH / 2, 24, title, size=16, extra='font-weight="bold"')]
    # Grids and axes: powers of 4 in size, decades in time, 10% steps in error.
    exponent = int(math.log2(x_low))
    while 2 ** exponent <= x_high:
        px = x(2 ** exponent)
        out.append(line(px, TOP_Y, px, TOP_Y + TOP_H, "#eee"))
        out.append(line(px, ERR_Y, px, ERR_Y + ERR_H, "#eee"))
        if exponent % 2 == 0:
            out.append(text(px, ERR_Y + ERR_H + 16, size_label(2 ** exponent), size=11))
        exponent += 1
    decade = y_low
    while decade <= y_high:
        py = y(decade)
        out.append(line(LEFT, py, right, py, "#eee"))
        out.append(text(LEFT - 6, py + 4, time_label(decade), anchor="end", size=11))
        decade *= 10
    for level in (-0.6, -0.3, -0.1, 0.0, 0.1, 0.3, 0.6):
        py = e(level)
        style = ("#888", None) if level == 0 else ("#e99", "4,3") if abs(level) == 0.3 else ("#ddd", "2,3")
        out.append(line(LEFT, py, right, py, style[0], 1, style[1]))
        out.append(text(LEFT - 6, py + 4, f"{level:+.0%}" if level else "0", anchor="end", size=11))
    out.append(f'<rect x="{LEFT}" y="{TOP_Y}" width="{right - LEFT}" height="{TOP_H}" fill="none" stroke="#444"/>')
    out.append(f'<rect x="{LEFT}" y="{ERR_Y}" width="{right - LEFT}" height="{ERR_H}" fill="none" stroke="#444"/>')
    out.append(text(LEFT + (right - LEFT) / 2, ERR_Y + ERR_H + 36, "message size (bytes)", size=12))
    out.append(text(18, TOP_Y + TOP_H / 2, "time per operation", size=12,
                    extra=f'transform="rotate(-90 18 {TOP_Y + TOP_H / 2})"'))
    out.append(text(18, ERR_Y + ERR_H / 2, "(pred - meas) / meas", size=12,
                    extra=f'transform="rotate(-90 18 {ERR_Y + ERR_H / 2})"'))

    for index, (data, rows) in enumerate(datasets):
        colour = COLOURS[index % len(COLOURS)]
        points = " ".join(f"{x(r['size_bytes']):.1f},{y(r['predicted_us']):.1f}" for r in rows)
        out.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="1.8"/>')
        for r in rows:
            px = x(r["size_bytes"])
            out.append(f'<circle cx="{px:.1f}" cy="{y(r["measured_us"]):.1f}" r="3.2" fill="none" '
                       f'stroke="{colour}" stroke-width="1.3"/>')
            error = r["rel_error"]
            if abs(error) <= ERROR_CLIP:
                out.append(f'<circle cx="{px:.1f}" cy="{e(error):.1f}" r="2.6" fill="{colour}"/>')
            else:  # off the scale: a triangle at the edge, pointing the way
                edge = e(math.copysign(ERROR_CLIP, error))
                tip = edge - 6 if error > 0 else edge + 6
                out.append(f'<polygon points="{px - 4:.1f},{edge:.1f} {px + 4:.1f},{edge:.1f} {px:.1f},{tip:.1f}" '
                           f'fill="{colour}"/>')
        summary = data["summary"]
        name = os.path.basename(data["log"])
        large = summary.get("max_abs_error_1mib")
        detail = f"geomean {summary['geomean_abs_error']:.1%}" + (f", max>=1MiB {large:.0%}" if large is not None
                                                                  else "")
        ly = TOP_Y + 10 + index * 38
        out.append(line(right + 16, ly, right + 40, ly, colour, 2))
        out.append(f'<circle cx="{right + 28}" cy="{ly}" r="3.2" fill="none" stroke="{colour}" stroke-width="1.3"/>')
        out.append(text(right + 48, ly + 4, name, anchor="start", size=11))
        out.append(text(right + 48, ly + 19, detail, anchor="start", size=11, extra='fill="#555"'))
    notes_y = TOP_Y + 10 + len(datasets) * 38 + 10
    out.append(text(right + 16, notes_y, "circles: measured; lines: predicted", anchor="start", size=11,
                    extra='fill="#555"'))
    out.append(text(right + 16, notes_y + 16, "dashed red: +-30%; grey: +-10%", anchor="start", size=11,
                    extra='fill="#555"'))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", help="SVG file to write")
    parser.add_argument("inputs", nargs="+", help="`syncsim validate --json` outputs")
    parser.add_argument("--title", default="syncsim: predicted vs measured")
    args = parser.parse_args()
    svg = plot([load(path) for path in args.inputs], args.title)
    temporary = args.output + ".tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        f.write(svg)
    os.replace(temporary, args.output)


if __name__ == "__main__":
    main()
