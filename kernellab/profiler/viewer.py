"""Show a ``.hatchet`` profile as a tree (Triton's ``proton-viewer``; ``triton.profiler.viewer``
through the alias)::

    python -m kernellab.profiler.viewer -m time/ms,tflop16/s matmul.hatchet
    python -m kernellab.profiler.viewer --list matmul.hatchet

Metrics are inclusive (a frame's value counts its children's) and case-insensitive:

- ``time/s``, ``time/ms``, ``time/us``, ``time/ns``; ``avg_time/<unit>`` (over ``count``);
  ``cpu_time/<unit>``, ``avg_cpu_time/<unit>`` (``cpu_timed_scope``);
- ``flop[8|16|32|64]/s``, ``gflop[...]/s``, ``tflop[...]/s``: the flops metric over the time;
  ``byte/s``, ``gbyte/s``, ``tbyte/s``: bytes over the time;
- ``<metric>/%``: share of the root's value; a recorded metric's name (``count``, ``bytes``,
  ``flops16``, ``time``): its value.

Proton's ``util`` (against the device's peak) is not computed here.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass, field
from typing import Any

UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
SCALES = {"": 1.0, "g": 1e9, "t": 1e12}
_RATE = re.compile(r"(?P<scale>[gt]?)(?P<kind>flop|byte)(?P<width>8|16|32|64)?/s")
_TIME = re.compile(r"(?P<avg>avg_)?(?P<kind>time|cpu_time)/(?P<unit>s|ms|us|ns)")


@dataclass
class Node:
    name: str
    exclusive: dict[str, Any]
    children: list[Node] = field(default_factory=list)
    inclusive: dict[str, float] = field(default_factory=dict)
    shown: dict[str, float] = field(default_factory=dict)

    def walk(self) -> list[Node]:
        return [self, *(node for child in self.children for node in child.walk())]


def _node(data: dict[str, Any]) -> Node:
    node = Node(data["frame"]["name"], dict(data.get("metrics", {})), [_node(c) for c in data.get("children", [])])
    numbers = {k: v for k, v in node.exclusive.items() if isinstance(v, int | float) and not isinstance(v, bool)}
    for child in node.children:
        for key, value in child.inclusive.items():
            numbers[key] = numbers.get(key, 0) + value
    node.inclusive = numbers
    return node


def read(filename: str) -> tuple[Node, list[str], list[str], dict[str, Any]]:
    """The tree, the inclusive metrics (numbers, summed over children), the exclusive ones
    (device ids and types), and the devices' facts."""
    with open(filename) as file:
        database = json.load(file)
    if not isinstance(database, list) or not database or not isinstance(database[0], dict):
        raise ValueError(f"{filename}: not a .hatchet profile (a list of the root frame and the devices)")
    tree = _node(database[0])
    devices = database[1] if len(database) > 1 and isinstance(database[1], dict) else {}
    inclusive = sorted({k for node in tree.walk() for k in node.inclusive})
    exclusive = sorted({k for node in tree.walk() for k in node.exclusive} - set(inclusive))
    if not inclusive:
        raise ValueError(f"{filename}: no metrics were recorded")
    return tree, inclusive, exclusive, devices


def _raw(name: str, available: list[str]) -> str:
    """The recorded metric a name means: ``time`` is ``time (ns)`` (case and unit ignored)."""
    for metric in available:
        if name.lower() in (metric.lower(), metric.split("(")[0].strip().lower()):
            return metric
    raise ValueError(f"metric {name!r} is not in the profile (it has {', '.join(available)}); --list shows them")


def _values(tree: Node, metric: str, available: list[str]) -> dict[int, float]:
    """``metric``'s value at every node (by id)."""
    nodes = tree.walk()
    rate, timed = _RATE.fullmatch(metric.lower()), _TIME.fullmatch(metric.lower())
    if timed:
        raw = _raw(timed["kind"], available)
        values = {id(n): n.inclusive.get(raw, 0.0) * 1e-9 / UNITS[timed["unit"]] for n in nodes}
        if timed["avg"]:
            count = _raw("count", available)
            values = {id(n): values[id(n)] / n.inclusive[count] if n.inclusive.get(count) else float("nan")
                      for n in nodes}
        return values
    if rate:
        raw = _raw(("flops" + (rate["width"] or "")) if rate["kind"] == "flop" else "bytes", available)
        time_raw = _raw("time", available)
        return {id(n): (n.inclusive.get(raw, 0.0) / (n.inclusive[time_raw] * 1e-9) / SCALES[rate["scale"]]
                        if n.inclusive.get(time_raw) else float("nan")) for n in nodes}
    if metric.endswith("/%"):
        raw = _raw(metric[:-2], available)
        total = tree.inclusive.get(raw) or float("nan")
        return {id(n): 100.0 * n.inclusive.get(raw, 0.0) / total for n in nodes}
    if metric.lower() == "util":
        raise ValueError("util (against the device's peak) is not computed by kernellab's viewer")
    raw = _raw(metric, available)
    return {id(n): n.inclusive.get(raw, float("nan")) for n in nodes}


def _filtered(node: Node, include: str | None, exclude: str | None, keep: dict[int, bool]) -> Node | None:
    if exclude and re.search(exclude, node.name):
        return None
    children = [c for c in (_filtered(child, include, exclude, keep) for child in node.children) if c is not None]
    matched = not include or re.search(include, node.name) is not None
    if not (matched or children) or (not keep.get(id(node), True) and not children):
        return None
    return Node(node.name, node.exclusive, children, node.inclusive, node.shown)


def parse(metrics: list[str] | str, filename: str, include: str | None = None, exclude: str | None = None,
          threshold: float | None = None) -> tuple[Node, list[str]]:
    """The profile's tree with ``metrics`` computed at every frame (``node.shown``), filtered:
    ``include``/``exclude`` regular expressions on frame names, ``threshold`` on the first metric."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    tree, inclusive, exclusive, _ = read(filename)
    nodes = tree.walk()
    for metric in names:
        values = _values(tree, metric, inclusive + exclusive)
        for node in nodes:
            node.shown[metric] = values[id(node)]
    keep = ({id(n): n.shown[names[0]] >= threshold for n in tree.walk()} if threshold is not None else {})
    root = _filtered(tree, include, exclude, keep) or Node(tree.name, tree.exclusive, [], tree.inclusive, tree.shown)
    return root, names


def _shown_name(name: str, format: str | None) -> str:  # noqa: A002 (proton's parameter name)
    if format == "file_function_line":
        return name.split("/")[-1]
    if format == "function_line":
        return name.split(":")[-1]
    if format == "file_function":
        return f"{name.split('/')[-1].split(':')[0]}@{name.split('@')[-1].split(':')[0]}"
    return name


def _lines(node: Node, metrics: list[str], depth: int, format: str | None, prefix: str = "",  # noqa: A002
           last: bool = True, top: bool = True) -> list[str]:
    values = " ".join(f"{node.shown.get(m, float('nan')):.3f}" for m in metrics)
    branch = "" if top else ("└─ " if last else "├─ ")
    lines = [f"{prefix}{branch}{values} {_shown_name(node.name, format)}"]
    if depth <= 0:
        return lines
    inner = prefix + ("" if top else ("   " if last else "│  "))
    for i, child in enumerate(node.children):
        lines += _lines(child, metrics, depth - 1, format, inner, i == len(node.children) - 1, False)
    return lines


def print_tree(tree: Node, metrics: list[str], depth: int = 100, format: str | None = None,  # noqa: A002
               print_sorted: bool = False) -> None:
    """Print the tree, each frame with its metrics' values (``parse``'s result)."""
    print("\n".join(_lines(tree, metrics, depth, format)))
    if print_sorted:
        print("Sorted kernels by metric " + metrics[0])
        for node in sorted(tree.walk()[1:], key=lambda n: -n.shown.get(metrics[0], float("-inf"))):
            shown = node.name[:100] + "..." if len(node.name) > 100 else node.name
            print(f"{shown:105} {node.shown.get(metrics[0], float('nan')):.4}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Show a .hatchet profile as a tree.")
    parser.add_argument("-l", "--list", action="store_true", help="list the metrics the profile has")
    parser.add_argument("-m", "--metrics", default="time/s", help="metrics to show, separated by commas")
    parser.add_argument("-i", "--include", default=None, help="only frames whose name matches (regex)")
    parser.add_argument("-e", "--exclude", default=None, help="leave out frames whose name matches (regex)")
    parser.add_argument("-t", "--threshold", type=float, default=None, help="leave out frames below (first metric)")
    parser.add_argument("-d", "--depth", type=int, default=100, help="the depth of the tree shown")
    parser.add_argument("-f", "--format", default=None,
                        choices=["file_function_line", "function_line", "file_function"])
    parser.add_argument("--print-sorted", action="store_true", help="also list the frames sorted by the first metric")
    parser.add_argument("file")
    args = parser.parse_args(argv)
    if args.list:
        _, inclusive, exclusive, _ = read(args.file)
        print("Available inclusive metrics:", *(f"- {m.split('(')[0].strip().lower()}" for m in inclusive), sep="\n")
        print("Available exclusive metrics:", *(f"- {m.split('(')[0].strip().lower()}" for m in exclusive), sep="\n")
        return
    tree, metrics = parse(args.metrics.split(","), args.file, args.include, args.exclude, args.threshold)
    print_tree(tree, metrics, args.depth, args.format, args.print_sorted)


if __name__ == "__main__":
    main()


__all__ = ["Node", "read", "parse", "print_tree", "main"]
