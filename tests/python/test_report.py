"""tailor.report: the HTML report, opened in headless Chromium as a reader would.

The browser is driven by ``headless.py`` (the DevTools protocol over
``--remote-debugging-pipe``; its docstring says why that and not Playwright or a
websocket client). Each page must load without console errors, exceptions or failed
requests, request nothing but file: and data: URLs, decode every image to a non-zero
size and hold the expected tables with the expected numbers of rows. A deliberately
broken page checks that the harness does see such failures.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
import tailor
from tailor.errors import DataError, OptionError
from tailor.report import report, sweep_report

sys.path.insert(0, str(Path(__file__).parent))
import headless  # noqa: E402

needs_chromium = pytest.mark.skipif(
    headless.CHROMIUM is None, reason="chromium is not installed (`make test` installs Debian's chromium with apt-get)"
)

#: Reads back, in the browser, what the tests check.
PROBE = """(() => {
  const rows = t => t ? t.querySelectorAll('tbody tr').length : -1;
  return {
    images: [...document.images].map(i => ({w: i.naturalWidth, h: i.naturalHeight, src: i.src.slice(0, 22)})),
    run: rows(document.querySelector('table#run')),
    slo: rows(document.querySelector('table#slo')),
    slo_verdicts: [...document.querySelectorAll('table#slo tbody tr td:nth-child(6)')].map(td => td.textContent),
    slowdown: Object.fromEntries([...document.querySelectorAll('table.slowdown')].map(t => [t.dataset.class, rows(t)])),
    ports: rows(document.querySelector('table#ports')),
    axes: rows(document.querySelector('table#axes')),
    sweep: rows(document.querySelector('table#sweep-summary')),
    points: rows(document.querySelector('table#points')),
    slos: rows(document.querySelector('table#slos')),
    scenario: (document.querySelector('pre#scenario') || {}).textContent || null,
    h3: [...document.querySelectorAll('h3')].map(h => h.textContent),
    scripts: document.querySelectorAll('script').length,
    title: document.title,
  };
})()"""


def open_page(path: Path, shot: Path | None = None) -> dict:
    page = headless.load(path, PROBE)
    assert page.errors == [], f"errors while loading {path}: {page.errors}"
    assert page.remote_requests == [], "the report must not fetch anything"
    assert page.requests and page.requests[0] == path.resolve().as_uri()
    probe = page.probe
    assert probe["images"], "the report has plots"
    for img in probe["images"]:
        assert img["w"] > 0 and img["h"] > 0, img
        assert img["src"] == "data:image/png;base64,", "plots are inline"
    assert page.screenshot[:8] == b"\x89PNG\r\n\x1a\n"
    if shot is not None:
        shot.write_bytes(page.screenshot)
    return probe


def nonempty_bins(rep: dict) -> int:
    return sum(1 for b in rep["bins"] if b["count"] > 0)


@needs_chromium
def test_run_report_renders_tables_and_plots(result7: tailor.Result, quickstart: Path, tmp_path: Path) -> None:
    out = report(result7.dir, out=tmp_path / "r" / "q7.html", scenario=quickstart)
    assert out == tmp_path / "r" / "q7.html"
    assert sorted(p.name for p in out.parent.iterdir()) == ["q7-latency.png", "q7-slowdown.png", "q7.html"]
    probe = open_page(out, tmp_path / "screenshot.png")
    s = result7.summary
    assert len(probe["images"]) == 2  # slowdown by size, latency CDF (the run recorded no queues)
    assert probe["run"] == 14
    slos = [slo for c in s["classes"].values() for slo in c.get("slo", [])]
    assert probe["slo"] == len(slos) == 2
    assert probe["slo_verdicts"] == ["met" if slo["met"] else "MISSED" for slo in slos]
    want = {name: nonempty_bins(s["classes"][name]) + 1 for name in result7.classes}
    want["all"] = nonempty_bins(s["overall"]) + 1
    assert probe["slowdown"] == want
    assert probe["ports"] == min(10, result7.ports.height)
    assert probe["scenario"] == (result7.dir / "scenario.toml").read_text()  # the file as run, with seed 7
    assert probe["scripts"] == 0 and "quickstart" in probe["title"] and "seed 7" in probe["title"]


def test_run_report_is_self_contained_and_shows_the_numbers(result7: tailor.Result, tmp_path: Path) -> None:
    """Without a browser: no element may point outside the file, and the numbers are the summary's."""
    out = report(result7.dir, out=tmp_path / "q7.html")
    text = out.read_text()

    class Refs(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tags: list[str] = []
            self.refs: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.tags.append(tag)
            self.refs += [v or "" for k, v in attrs if k in ("src", "href", "srcset", "action", "data", "poster")]

    p = Refs()
    p.feed(text)
    assert "script" not in p.tags and "link" not in p.tags and "iframe" not in p.tags
    assert p.refs and all(r.startswith("data:image/png;base64,") for r in p.refs)
    assert "url(" not in text and "@import" not in text
    sd = result7.summary["classes"]["websearch"]["slowdown"]
    assert f"<td>{sd['count']:,}</td><td>{sd['mean']:.2f}</td><td>{sd['p50']:.2f}</td><td>{sd['p99']:.2f}</td>" in text
    assert f"tailor {tailor.__version__}" in text
    # The run directory holds the scenario it ran, shown without --scenario.
    assert shown_scenario(out) == (result7.dir / "scenario.toml").read_text()


@needs_chromium
def test_report_escapes_everything_from_the_run(result7: tailor.Result, tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    evil = '<img src=x onerror="console.error(1)">&amp;'
    summary = json.loads((result7.dir / "summary.json").read_text())
    summary["classes"] = {evil if k == "rpc" else k: v for k, v in summary["classes"].items()}
    summary["scenario"] = "<script>alert(1)</script>"
    (run / "summary.json").write_text(json.dumps(summary))
    result7.messages.with_columns(
        pl.when(pl.col("class") == "rpc").then(pl.lit(evil)).otherwise(pl.col("class")).alias("class")
    ).write_parquet(run / "messages.parquet")
    shutil.copy(result7.dir / "ports.csv", run / "ports.csv")
    (run / "scenario.toml").write_text('name = "</pre><script>console.error(2)</script>"\n')
    summary["scenario_sha256"] = hashlib.sha256((run / "scenario.toml").read_bytes()).hexdigest()
    (run / "summary.json").write_text(json.dumps(summary))
    probe = open_page(report(run))
    assert probe["scripts"] == 0
    assert evil in probe["h3"]
    assert probe["scenario"] == (run / "scenario.toml").read_text()
    assert probe["title"].startswith("tailor report: <script>alert(1)</script>")


def test_text_from_the_run_is_escaped_by_the_templates(result7: tailor.Result, tmp_path: Path) -> None:
    """Without a browser: the templates autoescape, so a scenario, class or axis value holding
    markup is text on the page, in a run report and in a sweep report."""
    evil, escaped = "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"
    run = tmp_path / "run"
    shutil.copytree(result7.dir, run)
    summary = json.loads((run / "summary.json").read_text())
    summary["scenario"] = evil
    summary["classes"] = {evil if k == "rpc" else k: v for k, v in summary["classes"].items()}
    (run / "summary.json").write_text(json.dumps(summary))
    text = report(run).read_text()
    assert "<script" not in text
    assert f"<h3>{escaped}</h3>" in text and f'data-class="{escaped}"' in text
    assert f"<title>tailor report: {escaped}, seed 7</title>" in text
    summary_df, points = sweep_tables()
    summary_df = summary_df.with_columns(pl.col("class").replace("a", evil))
    points = points.with_columns(pl.col("scenario").replace("two-class", evil))
    text = sweep_report(summary_df, points, tmp_path / "s.html", title=evil).read_text()
    assert "<script" not in text
    assert f'<td class="l">{escaped}</td>' in text and f"<h1>tailor sweep report: {escaped}</h1>" in text


def test_the_templates_ship_inside_the_package() -> None:
    """The report's templates are package data: found by the package's loader wherever
    tailor is installed (a wheel, or maturin develop)."""
    import jinja2
    import tailor.report

    env = tailor.report._templates()
    assert isinstance(env.loader, jinja2.PackageLoader) and env.autoescape is True
    assert {"base.html.j2", "macros.html.j2", "run.html.j2", "sweep.html.j2", "report.css"} <= set(env.list_templates())
    assert Path(tailor.__file__).parent.joinpath("templates", "run.html.j2").is_file()


def test_run_report_draws_recorded_queues(result7: tailor.Result, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(result7.dir, run)
    without = report(run).read_text()
    assert without.count("data:image/png;base64,") == 2 and 'id="no-queues"' in without
    assert '<code>[record] queues = "10us"</code>' in html.unescape(without)
    rows = [(t, port, (t // 1000 * (port + 1)) % 50_000) for port in range(4) for t in range(0, 200_000, 10_000)]
    pl.DataFrame(rows, schema=["time_ns", "port", "queue_bytes"], orient="row").write_parquet(run / "queues.parquet")
    out = report(run, out=tmp_path / "with.html")
    text = out.read_text()
    assert text.count("data:image/png;base64,") == 3 and 'id="no-queues"' not in text
    assert (tmp_path / "with-queues.png").is_file()


def test_a_one_class_sweep_store_reports_the_fewest_messages(tmp_path: Path) -> None:
    """A real store of one class: the class is shown once, and its p99.9 of 300 messages
    per seed is greyed in the table (it needs 1,000)."""
    from tailor.report import store_frames

    scenario = tmp_path / "one.toml"
    text = (Path(__file__).resolve().parents[2] / "scenarios" / "swp" / "websearch-60.toml").read_text()
    scenario.write_text(text.replace("messages = 2000", "messages = 300"))
    tailor.sweep(scenario, load=[0.3, 0.6], seed=[1, 2], out=tmp_path / "store", jobs=1)
    summary = store_frames(tmp_path / "store")[0]
    total = summary.filter(pl.col("size") == "all")
    assert set(total["messages"].to_list()) == {300}
    out = report(tmp_path / "store")
    table = re.findall(r'<table [^>]*id="sweep-summary".*?</table>', out.read_text(), flags=re.S)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], flags=re.S)
    assert len(rows) == 2, "one row per load: the class, not 'all' beside it"
    for row in rows:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)
        p99, p999 = cells[-3], cells[-2]
        assert 'class="few"' not in p99 and 'class="few"' in p999 and "1,000" in p999


class Tables(HTMLParser):
    """The report's slowdown tables: per class, per row, the cells' text and classes, and
    the upper edge each row's bin is drawn at."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[tuple[str, str]]]] = {}
        self.uppers: dict[str, list[int]] = {}
        self.cls: str | None = None
        self.cell: list[str] | None = None
        self.cell_class = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and "slowdown" in (a.get("class") or ""):
            self.cls = a["data-class"]
            self.tables[self.cls], self.uppers[self.cls] = [], []
        elif self.cls is not None and tag == "tr":
            self.tables[self.cls].append([])
        elif self.cls is not None and tag == "td":
            self.cell, self.cell_class = [], ""
        elif self.cls is not None and tag == "span":
            self.cell_class += " " + (a.get("class") or "")
            if a.get("data-upper-bytes"):
                self.uppers[self.cls].append(int(a["data-upper-bytes"]))

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.cls = None
        elif tag == "td" and self.cls is not None and self.cell is not None:
            self.tables[self.cls][-1].append(("".join(self.cell), self.cell_class.strip()))
            self.cell = None
        elif tag == "thead" and self.cls is not None:
            self.tables[self.cls].pop()  # the header row: no td


def slowdown_tables(html_text: str) -> Tables:
    t = Tables()
    t.feed(html_text)
    return t


def test_report_tables_mark_percentiles_of_too_few_messages(result7: tailor.Result, tmp_path: Path) -> None:
    """A p99 of 74 messages is shown, greyed and in parentheses, not as a result; the rule
    is the plots' (p50 needs 2 messages, p99 100, p99.9 1,000)."""
    import tailor.plot as tp

    text = report(result7.dir, out=tmp_path / "r.html").read_text()
    t = slowdown_tables(text)
    s = result7.summary
    for name in result7.classes:
        rep = s["classes"][name]
        rows = t.tables[name]
        bins = [b for b in rep["bins"] if b["count"] > 0]
        assert len(rows) == len(bins) + 1
        for row, b in zip(rows, [*bins, rep["slowdown"]], strict=True):
            cells = dict(zip(("size", "count", "mean", "p50", "p99", "p99.9"), row, strict=True))
            for col, p in (("p50", 50), ("p99", 99), ("p99.9", 99.9)):
                value, css = cells[col]
                few = b["count"] < tp.samples_needed(p)
                assert ("few" in css) == few, (name, b["count"], col, value, css)
                assert value.startswith("(") == few
            assert "few" not in cells["mean"][1] and "few" not in cells["count"][1]
    assert "p50: 2, p99: 100, p99.9: 1,000" in text, "the report states the rule"


def test_report_tables_and_plots_put_a_bin_at_its_upper_edge(result7: tailor.Result, tmp_path: Path) -> None:
    """One x convention: the x of a size bin in the slowdown plot is the upper edge of the
    same bin in the report's table, and the axis says so."""
    import tailor.plot as tp

    t = slowdown_tables(report(result7.dir, out=tmp_path / "r.html").read_text())
    (ax,) = tp.slowdown_vs_size(result7, (50,)).axes
    assert "upper edge" in ax.get_xlabel()
    for name in result7.classes:
        xs = sorted(float(x) for ln in ax.get_lines() if ln.get_label().endswith(f"{name} p50") for x in ln.get_xdata())
        assert xs == [float(u) for u in t.uppers[name]]


def test_report_tables_show_statistics_of_no_samples_as_a_dash(result7: tailor.Result, tmp_path: Path) -> None:
    """summary.json may hold null for a statistic of no samples: a dash, not a crash."""
    run = tmp_path / "run"
    shutil.copytree(result7.dir, run)
    summary = json.loads((run / "summary.json").read_text())
    rpc = summary["classes"]["rpc"]
    for k in ("mean", "p50", "p99", "p999"):
        rpc["bins"][-1][k] = None
        rpc["slowdown"][k] = None
    (run / "summary.json").write_text(json.dumps(summary))
    rows = slowdown_tables(report(run).read_text()).tables["rpc"]
    for row in (rows[-2], rows[-1]):  # the last bin, "all sizes"
        assert [text for text, _ in row[2:]] == ["–"] * 4


def one_class_run(tmp_path: Path) -> tailor.Result:
    scenario = tmp_path / "one.toml"
    text = (Path(__file__).resolve().parents[2] / "scenarios" / "swp" / "websearch-60.toml").read_text()
    scenario.write_text(text.replace("messages = 2000", "messages = 300"))
    return tailor.run(scenario, out=tmp_path / "one")


def test_a_one_class_run_report_does_not_repeat_the_class_as_all(tmp_path: Path) -> None:
    r = one_class_run(tmp_path)
    assert r.classes == ["websearch"]
    t = slowdown_tables(report(r.dir).read_text())
    assert list(t.tables) == ["websearch"], "one table: 'all' would be the same messages again"


def one_class_sweep_tables() -> tuple[pl.DataFrame, pl.DataFrame]:
    """sweep_tables() with one class: its "all" rows are the class's own."""
    summary, points = sweep_tables()
    a = summary.filter(pl.col("class") == "a")
    return pl.concat([a.with_columns(pl.lit("all").alias("class")), a]), points


def test_a_one_class_sweep_report_does_not_repeat_the_class_as_all(tmp_path: Path) -> None:
    summary, points = one_class_sweep_tables()
    out = sweep_report(summary, points, tmp_path / "sweep.html")
    assert sorted(p.name for p in tmp_path.glob("sweep-*.png")) == ["sweep-mean-a.png", "sweep-p99-a.png"]
    text = out.read_text()
    classes = re.findall(r'<table [^>]*id="sweep-summary".*?</table>', text, flags=re.S)[0]
    assert '<td class="l">all</td>' not in classes and classes.count('<td class="l">a</td>') == 3 * 2
    assert "slowdown of all classes" not in text


def sweep_tables() -> tuple[pl.DataFrame, pl.DataFrame]:
    """A sweep of load x scheduler, 3 seeds, two classes (the store's schema)."""
    loads, scheds, seeds = (0.3, 0.5, 0.7), ("fifo", "drr"), (1, 2, 3)
    points = pl.DataFrame(
        [
            {
                "point": f"{hash((load, s)) & 0xFFFFFFFF:08x}",
                "seed": seed,
                "engine": "packet",
                "scenario": "two-class",
                "load": load,
                "switch.scheduler": s,
            }
            for load, s, seed in itertools.product(loads, scheds, seeds)
        ]
    )
    rows = []
    for load, s, cls, size, stat in itertools.product(
        loads, scheds, ("all", "a", "b"), ("all", "(0 B, 125 KB]"), ("mean", "p50", "p99", "p999")
    ):
        m = 1 + 10 * load * (1.5 if s == "fifo" else 1) + {"mean": 0, "p50": -0.5, "p99": 4, "p999": 8}[stat]
        rows.append(
            {
                "load": load,
                "switch.scheduler": s,
                "engine": "packet",
                "class": cls,
                "size": size,
                "stat": stat,
                "mean": m,
                "ci_low": m - 0.3,
                "ci_high": m + 0.5,
                "n_seeds": len(seeds),
            }
        )
    return pl.DataFrame(rows), points


@needs_chromium
def test_sweep_report_renders(tmp_path: Path) -> None:
    summary, points = sweep_tables()
    out = sweep_report(summary, points, tmp_path / "sweep.html", title="load x scheduler", source="runs/sweep")
    probe = open_page(out, tmp_path / "sweep.png")
    # p99 of all classes and of each class, and the mean of all classes
    assert len(probe["images"]) == 4
    assert sorted(p.name for p in tmp_path.glob("sweep-*.png")) == [
        "sweep-mean-all.png",
        "sweep-p99-a.png",
        "sweep-p99-all.png",
        "sweep-p99-b.png",
    ]
    assert probe["axes"] == 2
    assert probe["sweep"] == 3 * 2 * 3  # loads x schedulers x classes, at size "all"
    assert probe["points"] == points["point"].n_unique() == 6


@needs_chromium
def test_report_of_a_real_sweep_store_renders_its_summary_slos_and_plots(
    quickstart_model: Path, tmp_path: Path
) -> None:
    store = tmp_path / "store"
    sw = tailor.sweep(quickstart_model, load=[0.3, 0.6], seed=[1, 2], out=store, engine="model")
    out = report(store)
    assert out == store / "report.html"
    probe = open_page(out, tmp_path / "store.png")
    assert probe["axes"] == 1
    assert probe["sweep"] == 2 * 3  # loads x (2 classes + all), at size "all"
    assert probe["points"] == 2  # one row per load, its seeds listed
    assert len(probe["images"]) == 4 and all(i["w"] > 0 for i in probe["images"])
    # quickstart's websearch class has 2 SLOs: one row per load and SLO
    assert probe["slos"] == 2 * 2
    verdicts = sw.slos().collect()
    assert verdicts.height == 2 * 2 * 2  # loads x seeds x SLOs
    text = out.read_text()
    assert "tailor sweep report: store" in text
    assert '<pre id="scenario-0">' in text and "[[class]]" in text, "the scenario as run is shown"
    with pytest.raises(OptionError, match="--scenario: only for a run directory"):
        report(store, scenario=tmp_path / "x.toml")


def test_a_seed_only_sweep_report_draws_slowdown_by_size_across_seeds(quickstart_model: Path, tmp_path: Path) -> None:
    """A sweep whose only axis is the seed: its report draws each size bin's p50 and p99,
    the mean over seeds with the interval across them, and leaves out (saying so) the bins
    where a seed had fewer messages than the percentile needs."""
    import tailor.plot as tp
    from matplotlib.container import ErrorbarContainer
    from tailor.report import store_frames

    store = tmp_path / "store"
    tailor.sweep(quickstart_model, seed=[1, 2, 3], out=store, engine="model", jobs=1)
    text = report(store).read_text()
    assert 'id="no-plots"' not in text and (store / "report-slowdown.png").is_file()
    (caption,) = re.findall(r"<figcaption>(.*?)</figcaption>", text, flags=re.S)
    assert caption.startswith("p50 and p99 slowdown per size bin, per class: the mean over 3 seeds")
    assert "bars: the 95 % percentile-bootstrap interval across seeds" in caption
    assert "fewer messages than the percentile needs (p50: 2, p99: 100) are left out (p99: " in caption
    # What the figure draws: every p99 point is of a bin where each of the 3 seeds had 100 messages.
    (ax,) = tp.slowdown_vs_size_across_seeds(store_frames(store)[0]).axes
    rows = (
        tailor.open(store)
        .rows()
        .filter((pl.col("stat") == "p99") & (pl.col("size") != "all") & (pl.col("class") != "all"))
        .collect()
    )
    p99 = [c for c in ax.containers if isinstance(c, ErrorbarContainer) and c.get_label().endswith(" p99")]
    drawn = [(c.get_label().split()[0], x) for c in p99 for x in c.lines[0].get_xdata()]
    assert drawn, "quickstart's rpc class has bins of 100 messages and more in every seed"
    for cls, upper in drawn:
        counts = rows.filter((pl.col("class") == cls) & (pl.col("upper_bytes") == upper))["count"].to_list()
        assert len(counts) == 3 and min(counts) >= 100, (cls, upper, counts)
    left_out = (
        rows.group_by("class", "upper_bytes")
        .agg(pl.col("count").min(), pl.len())
        .filter((pl.col("count") < 100) | (pl.col("len") < 3))
    )
    assert f"(p99: {left_out.height} of {left_out.height + len(drawn)} bins)" in caption


def test_report_rejects_what_it_cannot_report(result7: tailor.Result, quickstart: Path, tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such directory"):
        report(tmp_path / "missing")
    with pytest.raises(DataError, match="neither a run directory .* nor a sweep store"):
        report(tmp_path)
    other = tmp_path / "other.toml"
    other.write_text(quickstart.read_text().replace('name = "quickstart"', 'name = "another"'))
    with pytest.raises(
        OptionError,
        match="--scenario: .*other.toml is not the scenario the run in .* ran: .* differs from "
        ".*scenario.toml \\(they differ at name\\)",
    ):
        report(result7.dir, out=tmp_path / "r.html", scenario=other)
    with pytest.raises(OptionError, match="--scenario: .*nope.toml: no such file"):
        report(result7.dir, out=tmp_path / "r.html", scenario=tmp_path / "nope.toml")
    with pytest.raises(OptionError, match="--out: .* is a directory"):
        report(result7.dir, out=tmp_path)
    with pytest.raises(DataError, match="lacks columns ci_low"):
        summary, points = sweep_tables()
        sweep_report(summary.drop("ci_low"), points, tmp_path / "s.html")


@needs_chromium
def test_harness_sees_broken_pages(tmp_path: Path) -> None:
    """The checks above can fail: a page with a missing image, a remote image and a
    script error is caught on every count."""
    page = tmp_path / "bad.html"
    page.write_text(
        '<!DOCTYPE html><html><body><img src="missing.png"><img src="https://example.invalid/a.png">'
        '<script>console.error("boom"); undefinedFunction();</script></body></html>'
    )
    got = headless.load(page, "[...document.images].map(i => i.naturalWidth)")
    assert "boom" in got.console_errors
    assert any("undefinedFunction" in e for e in got.exceptions)
    assert any("missing.png" in e for e in got.log_errors)
    assert got.remote_requests == ["https://example.invalid/a.png"]
    assert got.probe == [0, 0]


def tailor_cli(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tailor.cli", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_cli_report(result7: tailor.Result, quickstart: Path, tmp_path: Path) -> None:
    out = tmp_path / "rep.html"
    p = tailor_cli("report", result7.dir, "--out", out, "--scenario", quickstart)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == f"report: {out}"
    assert out.is_file() and (tmp_path / "rep-slowdown.png").is_file()
    p = tailor_cli("report", tmp_path / "missing")
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("error: ") and "no such directory" in p.stderr and len(p.stderr.splitlines()) == 1
    p = tailor_cli("report", "--help")
    help_text = " ".join(p.stdout.split())
    assert p.returncode == 0 and "tailor report runs/q (a run" in help_text and "tailor report sweeps/ws" in help_text


def test_a_run_with_nothing_to_plot_still_gets_its_report(
    quickstart: Path, result7: tailor.Result, tmp_path: Path
) -> None:
    """A warm-up that covers every message makes the run fail (it would summarise
    nothing); a result directory with nothing after the warm-up (an older tailor wrote
    such) still gets the tables from summary.json, and notes in place of the plots."""
    sc = tmp_path / "warm.toml"
    sc.write_text(quickstart.read_text().replace("seed = 1", 'seed = 1\n[run]\nwarmup = "500ms"\nstop = "1s"', 1))
    with pytest.raises(tailor.errors.ScenarioError, match="run.warmup"):
        tailor.run(sc, out=tmp_path / "failed")
    assert not (tmp_path / "failed").exists()
    old = tmp_path / "r"
    shutil.copytree(result7.dir, old)
    summary = json.loads((old / "summary.json").read_text())
    summary["messages"]["warmup_excluded"] = summary["messages"]["completed"]
    (old / "summary.json").write_text(json.dumps(summary))
    r = tailor.Result(old)
    assert r.summarised().height == 0
    html = report(r.dir, scenario=quickstart).read_text()
    assert "No latency CDF per class plot" in html and "no messages" in html
    import re

    assert re.search(r'<table[^>]*class="slowdown"', html), "the tables from summary.json are there"


def test_corrupt_records_are_a_data_error(result7: tailor.Result, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(result7.dir, broken)
    (broken / "messages.parquet").write_bytes((broken / "messages.parquet").read_bytes()[:1000])
    r = subprocess.run(
        [sys.executable, "-m", "tailor", "plot", str(broken), "--kind", "latency-cdf"], capture_output=True, text=True
    )
    assert r.returncode == 2 and "cannot read the message records" in r.stderr and "Traceback" not in r.stderr
    bad = tmp_path / "bad.parquet"
    bad.write_text("garbage")
    r = subprocess.run(
        [sys.executable, "-m", "tailor", "plot", str(bad), "--kind", "p99-vs-load"], capture_output=True, text=True
    )
    assert r.returncode == 2 and "cannot read" in r.stderr and "Traceback" not in r.stderr


# ---------------------------------------------------------------------------- issue 24: the scenario that ran


def shown_scenario(page: Path) -> str | None:
    """The scenario a report shows (its ``<pre id="scenario">``), unescaped."""
    m = re.search(r'<pre id="scenario">(.*?)</pre>', page.read_text(), re.S)
    return html.unescape(m.group(1)) if m else None


def test_a_run_report_shows_the_scenario_that_ran_and_refuses_an_edited_file(quickstart: Path, tmp_path: Path) -> None:
    sc = tmp_path / "q.toml"
    sc.write_text(quickstart.read_text().replace("messages = 3000", "messages = 300"))
    run = tailor.run(sc, seed=3, out=tmp_path / "r")  # the file says seed = 1
    kept = (run.dir / "scenario.toml").read_text()
    assert run.summary["scenario_sha256"] == hashlib.sha256(kept.encode()).hexdigest()
    assert "seed = 3" in kept and "load = 0.4" in kept
    sc.write_text(sc.read_text().replace("load = 0.4", "load = 0.7"))  # edited after the run
    assert shown_scenario(report(run.dir)) == kept
    with pytest.raises(
        OptionError,
        match=rf"--scenario: {sc} is not the scenario the run in {run.dir} ran: .* differs "
        rf"from {run.dir}/scenario.toml \(they differ at class\[0\].load\)",
    ):
        report(run.dir, scenario=sc)
    p = tailor_cli("report", run.dir, "--scenario", sc)
    assert p.returncode == 2 and "is not the scenario the run" in p.stderr and "Traceback" not in p.stderr
    sc.write_text(sc.read_text().replace("load = 0.7", "load = 0.4"))  # the file as it ran, seed and all
    assert shown_scenario(report(run.dir, scenario=sc)) == kept


def test_a_changed_or_missing_kept_scenario_is_not_shown_as_the_one_that_ran(
    result7: tailor.Result, quickstart: Path, tmp_path: Path
) -> None:
    run = tmp_path / "r"
    shutil.copytree(result7.dir, run)
    (run / "scenario.toml").write_text((run / "scenario.toml").read_text().replace("load = 0.4", "load = 0.9"))
    page = report(run)
    assert shown_scenario(page) is None and "was changed after the run" in page.read_text()
    (run / "scenario.toml").unlink()
    page = report(run)
    assert shown_scenario(page) is None and "no longer holds its scenario.toml" in page.read_text()
    assert "seed = 7" in shown_scenario(report(run, scenario=quickstart))  # checked by the hash: the same scenario


def test_a_run_of_an_older_tailor_is_reported_with_its_file_unverified(
    result7: tailor.Result, quickstart: Path, tmp_path: Path
) -> None:
    """A run directory written before runs kept their scenario and its hash."""
    run = tmp_path / "old"
    shutil.copytree(result7.dir, run)
    (run / "scenario.toml").unlink()
    summary = json.loads((run / "summary.json").read_text())
    del summary["scenario_sha256"]
    (run / "summary.json").write_text(json.dumps(summary))
    page = report(run, scenario=quickstart)
    assert shown_scenario(page) == quickstart.read_text() and "not verified" in page.read_text()
