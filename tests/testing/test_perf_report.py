"""kl.testing.Benchmark / perf_report: the measured grid, the png, csv and html, the returned
DataFrame (Triton's semantics)."""

from __future__ import annotations

import pandas as pd
import pytest

import kernellab as kl


def linear_bench(**overrides):
    options = dict(x_names=["size"], x_vals=[1, 2, 4], line_arg="provider", line_vals=["a", "b"],
                   line_names=["A", "B"], plot_name="linear", args={"scale": 10}, ylabel="units")
    options.update(overrides)
    return kl.testing.Benchmark(**options)


def test_every_point_and_line_is_measured_with_the_fixed_args():
    calls = []

    @kl.testing.perf_report(linear_bench())
    def bench(size, provider, scale):
        calls.append((size, provider, scale))
        return size * scale if provider == "a" else size

    df = bench.run(return_df=True)
    assert calls == [(1, "a", 10), (1, "b", 10), (2, "a", 10), (2, "b", 10), (4, "a", 10), (4, "b", 10)]
    assert list(df.columns) == ["size", "A", "B"]
    assert df.to_dict("list") == {"size": [1, 2, 4], "A": [10, 20, 40], "B": [1, 2, 4]}


def test_save_path_gets_png_csv_and_html(tmp_path, capsys):
    @kl.testing.perf_report([linear_bench(), linear_bench(plot_name="second", x_log=True, y_log=True,
                                                          styles=[("red", "-"), ("blue", "--")])])
    def bench(size, provider, scale):
        y = float(size * (2 if provider == "a" else 1))
        return y, y * 0.9, y * 1.1

    out = tmp_path / "results"
    frames = bench.run(save_path=out, print_data=True, return_df=True)
    assert [f.shape for f in frames] == [(3, 3), (3, 3)]
    for name in ("linear", "second"):
        png = (out / f"{name}.png").read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 5000
        assert pd.read_csv(out / f"{name}.csv").to_dict("list") == {"size": [1, 2, 4], "A": [2.0, 4.0, 8.0],
                                                                     "B": [1.0, 2.0, 4.0]}
    page = (out / "results.html").read_text()
    assert '<img src="linear.png"/>' in page and '<img src="second.png"/>' in page and "<table" in page
    printed = capsys.readouterr().out
    assert printed.startswith("linear:") and "second:" in printed


def test_several_x_names_take_tuples_or_one_shared_value():
    seen = []

    @kl.testing.perf_report(linear_bench(x_names=["M", "N"], x_vals=[(1, 2), 3], plot_name=""))
    def bench(M, N, provider, scale):
        seen.append((M, N))
        return M * N

    df = bench.run(return_df=True)
    assert seen == [(1, 2), (1, 2), (3, 3), (3, 3)]
    assert df.to_dict("list") == {"M": [1, 3], "N": [2, 3], "A": [2, 9], "B": [2, 9]}


def test_mistakes_are_reported():
    with pytest.raises(ValueError, match="2 line_vals but 1 line_names"):
        linear_bench(line_names=["A"])

    @kl.testing.perf_report(linear_bench(x_names=["M", "N"], x_vals=[(1, 2, 3)]))
    def bench(M, N, provider, scale):
        return 1

    with pytest.raises(ValueError, match=r"x value \(1, 2, 3\) has 3 entries for 2 x_names"):
        bench.run()

    @kl.testing.perf_report(linear_bench())
    def pair(size, provider, scale):
        return 1, 2

    with pytest.raises(ValueError, match=r"returns a number or \(y, y_min, y_max\)"):
        pair.run()
