#!/usr/bin/env python3
"""The first minute of a new user: install, ``--help``, the first run after installing, against warm runs.

Steps, each in the same run (ratios are same-run):

  install     ``pip install REPO`` into a fresh virtual environment (pip's download cache as it is on the
              machine: the figure is the build, the kernels' compilation into the wheel and the unpacking,
              not the downloads); skipped with ``--venv`` (an environment already made this way).
  help        ``bleustats --help``, ``bleustats -V``, ``bleustats score --help`` and ``sacrebleu --help``
              (sacreBLEU installed in the same environment), each ``--repeats`` times, alternating; medians.
  first run   ``bleustats demo`` and ``bleustats score ref0.txt -i hyp.txt -m bleu chrf ter`` on the bundled
              sample (``bleustats demo --write-files``), each with an empty user cache
              (``XDG_CACHE_HOME`` a new folder): the first run after ``pip install``.
  warm run    the same command lines ``--repeats`` times with that cache kept; the median.

Every time is the whole process's wall clock (``time.perf_counter`` around ``subprocess.run``). A run
that prints "compiling kernels" on stderr is reported (the wheel did not carry its kernels).

Usage::

    python benchmarks/bench_first_run.py                         # fresh venv, pip install ., 5 repeats
    python benchmarks/bench_first_run.py --venv /tmp/venv --repeats 5   # an environment made before
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - start, done


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--venv", type=Path, help="use this environment (bleustats and sacrebleu installed in it)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "first_run")
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bleustats-first-run-"))
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH", "VIRTUAL_ENV")}
    results: dict = {"date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                     "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
                     "load_average_start": os.getloadavg()[0], "repeats": args.repeats}
    venv = args.venv
    if venv is None:
        venv = work / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
        start = time.perf_counter()
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(ROOT), "sacrebleu==2.6.0"],
                       check=True, env=env)
        results["install_s"] = time.perf_counter() - start
    bin_ = venv / "bin"
    env["PATH"] = f"{bin_}{os.pathsep}{env.get('PATH', '')}"

    # --help and -V against sacreBLEU's --help, alternating
    helps = {"bleustats --help": [str(bin_ / "bleustats"), "--help"],
             "bleustats -V": [str(bin_ / "bleustats"), "-V"],
             "bleustats score --help": [str(bin_ / "bleustats"), "score", "--help"],
             "sacrebleu --help": [str(bin_ / "sacrebleu"), "--help"]}
    times: dict[str, list[float]] = {k: [] for k in helps}
    for _ in range(args.repeats + 1):  # the first round warms the file system cache, not counted
        for name, argv in helps.items():
            seconds, done = run(argv, env, work)
            assert done.returncode == 0, (name, done.stderr[-500:])
            times[name].append(seconds)
    results["help"] = {k: {"median_s": statistics.median(v[1:]), "runs_s": v[1:]} for k, v in times.items()}

    # first run after installing vs warm runs, on the bundled sample
    files = work / "files"
    subprocess.run([str(bin_ / "bleustats"), "demo", "--write-files", str(files)], check=True, env=env,
                   capture_output=True)
    jobs = {"bleustats demo": [str(bin_ / "bleustats"), "demo"],
            "bleustats score ref0.txt -i hyp.txt -m bleu chrf ter":
                [str(bin_ / "bleustats"), "score", "ref0.txt", "-i", "hyp.txt", "-m", "bleu", "chrf", "ter"]}
    results["runs"] = {}
    for name, argv in jobs.items():
        cache = work / f"cache-{len(results['runs'])}"
        job_env = dict(env, XDG_CACHE_HOME=str(cache))
        first, done = run(argv, job_env, files)
        assert done.returncode == 0, (name, done.stderr[-500:])
        warm = []
        for _ in range(args.repeats):
            seconds, again = run(argv, job_env, files)
            assert again.returncode == 0 and again.stdout == done.stdout, name
            warm.append(seconds)
        results["runs"][name] = {"first_s": first, "warm_median_s": statistics.median(warm), "warm_runs_s": warm,
                                 "compiled_on_first_run": "compiling kernels" in done.stderr}
    results["load_average_end"] = os.getloadavg()[0]

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    lines = [f"# First minute: install, --help, first run after installing ({results['date']})", "",
             f"{results['machine']}; load average {results['load_average_start']:.1f} at the start, "
             f"{results['load_average_end']:.1f} at the end; medians of {args.repeats} runs; whole processes.", ""]
    if "install_s" in results:
        lines += [f"`pip install .` into a fresh venv (pip's download cache warm): {results['install_s']:.0f} s", ""]
    sac = results["help"]["sacrebleu --help"]["median_s"]
    lines += ["| command | median s | × `sacrebleu --help` |", "|---|---:|---:|"]
    for name, r in results["help"].items():
        lines.append(f"| `{name}` | {r['median_s']:.3f} | {r['median_s'] / sac:.2f} |")
    lines += ["", "| job (bundled sample) | first run s (empty user cache) | warm s | first / warm | compiled? |",
              "|---|---:|---:|---:|---|"]
    for name, r in results["runs"].items():
        lines.append(f"| `{name}` | {r['first_s']:.2f} | {r['warm_median_s']:.2f} | "
                     f"{r['first_s'] / r['warm_median_s']:.2f} | {'yes' if r['compiled_on_first_run'] else 'no'} |")
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
