"""The HTML report of bleustats compare: self-contained, complete, and rendered by a real browser.

The browser tests open the page in headless Chromium (Debian's ``chromium`` package, which ``.ci/run``
installs): the page renders, its figures are drawn (the bars' colours are on the screenshot), and the browser
logs no console message (no script error, no resource the page's Content-Security-Policy refused). A page
that breaks those rules is shown to fail the same checks, so the checks can fail. Where Chromium is not
installed these tests skip with the reason.
"""

from __future__ import annotations

import html
import html.parser
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from bleustats.errors import InputError
from bleustats.tools.compare_report import COLORS, report_html, write_report
from bleustats.tools.system_compare import compare

from .test_system_compare import _small

pytestmark = pytest.mark.usefixtures("numba_one_thread")


@pytest.fixture(scope="module")
def comparison():
    ref, systems = _small(40)
    systems = {("<b>" + k + "</b>" if k == "DIDI-NLP" else k): v for k, v in systems.items()}
    return compare(systems, [ref], metrics=("bleu", "chrf", "ter"), labels=["x" if i % 3 else "y"
                                                                              for i in range(len(ref))],
                   n_samples=100, ngram_report_length=10, n_examples=3)


class _Elements(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, dict(attrs)))


def _elements(page: str) -> list[tuple[str, dict]]:
    parser = _Elements()
    parser.feed(page)
    return parser.tags


def test_the_page_loads_nothing_and_shows_every_analysis(comparison):
    page = report_html(comparison, title="WMT21 <zh-en>")
    tags = _elements(page)
    assert not [a for t, a in tags if "src" in a or t in ("script", "link", "iframe", "object", "embed")]
    assert all(a["href"].startswith("#") for t, a in tags if "href" in a)
    assert re.findall(r"https?://[^\"' )]+", page) == ["http://www.w3.org/2000/svg"] * page.count("<svg")
    csp = [a["content"] for t, a in tags if a.get("http-equiv") == "Content-Security-Policy"]
    assert csp == ["default-src 'none'; style-src 'unsafe-inline'; img-src data:"]
    sections = [a["id"] for t, a in tags if t == "section"]
    assert "aggregate" in sections
    assert set(comparison.analyses) - {"bleu", "length_ratio", "chrf", "ter"} <= set(sections)
    figures = [a for t, a in tags if t == "svg"]
    bucketed = [a for a in comparison.analyses if not a.startswith("ngram_") and a != "sentence_examples"]
    assert len(figures) == len(bucketed)
    for analysis in comparison.analyses:  # the signature of every analysis is on the page
        assert html.escape(comparison.signatures[analysis], quote=True) in page
    assert "&lt;b&gt;DIDI-NLP&lt;/b&gt;" in page and "<b>DIDI" not in page
    assert "<title>WMT21 &lt;zh-en&gt;</title>" in page


def test_write_report_writes_the_folder_whole_and_keeps_an_existing_one(comparison, tmp_path):
    folder = write_report(comparison, tmp_path / "report")
    assert sorted(os.listdir(folder)) == ["index.html"]
    with pytest.raises(InputError, match="exists; add replace=True"):
        write_report(comparison, tmp_path / "report")
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="is a regular file"):
        write_report(comparison, tmp_path / "file", replace=True)
    write_report(comparison, tmp_path / "report", replace=True)
    assert sorted(os.listdir(tmp_path)) == ["file", "report"]  # no temporary folder left beside it


# --------------------------------------------------------------------------- in a browser


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium to open the report in (Debian: apt-get install chromium; .ci/run installs it)")


def _open(page: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """Headless Chromium on ``page`` (a file URL, no network), console messages logged to stderr."""
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
           f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *args, page.resolve().as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def _console(proc: subprocess.CompletedProcess) -> list[str]:
    return [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]


def _bad_page(tmp_path: Path) -> Path:
    """A page that breaks the rules: a script error and a network image (refused by its policy)."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" '
                   "content=\"default-src 'none'; script-src 'unsafe-inline'\"></head><body><p>bad</p>"
                   '<img src="http://127.0.0.1:9/x.png"><script>missing_function();</script></body></html>',
                   encoding="utf-8")
    return bad


def test_a_broken_page_fails_the_browser_checks(tmp_path):
    proc = _open(_bad_page(tmp_path), tmp_path, "--dump-dom")
    messages = _console(proc)
    assert any("Content Security Policy" in m for m in messages), proc.stderr[-2000:]
    assert any("missing_function" in m for m in messages), proc.stderr[-2000:]


def test_the_report_renders_in_chromium_without_a_console_message(comparison, tmp_path):
    folder = write_report(comparison, tmp_path / "report")
    page = folder / "index.html"
    dom = _open(page, tmp_path, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert _console(dom) == [], _console(dom)
    tags = _elements(dom.stdout)
    charts = [a for t, a in tags if t == "svg" and a.get("class") == "chart"]
    assert len(charts) == page.read_text(encoding="utf-8").count("<svg") >= 10
    assert sum(1 for t, a in tags if t == "rect") > 100  # bars and legend keys are in the rendered document
    shot = tmp_path / "shot.png"
    proc = _open(page, tmp_path, "--window-size=1280,2400", f"--screenshot={shot}", "--hide-scrollbars")
    assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
    assert _console(proc) == [], _console(proc)
    import matplotlib.image

    pixels = (matplotlib.image.imread(str(shot))[..., :3] * 255).round().astype(int)
    assert pixels.std() > 20  # not a blank page
    for colour in (COLORS[0], COLORS[1], COLORS[2], "#396AB1"):  # the three systems' bars, the tables' header
        rgb = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
        assert (np.abs(pixels - rgb).sum(axis=-1) <= 6).sum() > 200, colour
