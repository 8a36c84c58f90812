"""Write tests/slow_tests.txt, the tests `scripts/dev test --fast` leaves out, from a
measured run of the whole suite.

    .venv/bin/python -m pytest --durations=0 -p no:cacheprovider > run.log
    .venv/bin/python scripts/slow_tests.py run.log            # tests of 0.25 s or more

A test is slow when its setup, call and teardown together take `--at-least` seconds or
more on this project's machine (2 cores): real processes, the window's flows, the model.
The list is measured, not guessed; regenerate it when the fast lane grows past 3 minutes.
Tests marked `slow` in their module (the .deb, the soak) are slow whatever the list says.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

LIST = Path(__file__).resolve().parents[1] / "tests" / "slow_tests.txt"
LINE = re.compile(r"^(\d+\.\d+)s (?:call|setup|teardown)\s+(.+)$")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", type=Path, help="the output of a --durations=0 run")
    parser.add_argument("--at-least", type=float, default=0.25, help="seconds (default 0.25)")
    args = parser.parse_args()
    seconds: dict[str, float] = defaultdict(float)
    for line in args.report.read_text(encoding="utf-8", errors="replace").splitlines():
        found = LINE.match(line.strip())
        if found:
            seconds[found.group(2)] += float(found.group(1))
    slow = sorted(test for test, took in seconds.items() if took >= args.at_least)
    kept = sum(took for took in seconds.values() if took < args.at_least)
    header = (
        "# The tests `scripts/dev test --fast` leaves out: each took 0.25 s or more (setup,\n"
        "# call and teardown) in a measured run of the whole suite. Made by\n"
        "# scripts/slow_tests.py; CI runs every test whatever this list says.\n"
    )
    LIST.write_text(header + "".join(f"{test}\n" for test in slow), encoding="utf-8")
    print(f"{len(slow)} slow tests ({sum(seconds.values()) - kept:.0f} s); the rest {kept:.0f} s")


if __name__ == "__main__":
    main()
