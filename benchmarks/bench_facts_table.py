"""How long the facts table takes to size its wrapped rows on a big entity.

    .venv/bin/python benchmarks/bench_facts_table.py [--facts 5000]

The entity page's table wraps the Fact column. `facts_table.FactsTable.fit_visible` sizes
only the rows in view; this prints its time after a load, a scroll and a resize, beside
what sizing every row (`resizeRowsToContents`, what `ResizeToContents` does on each
layout) costs on the same entity. The biggest entity of the 10,000-entity bench vault has
about 20 facts; the default here is an entity of 5,000 facts (the worst case we allow
for). Real Qt widgets, offscreen; figures in milliseconds, best of 3.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import QtCore, QtWidgets

WORDS = [
    "the",
    "roof",
    "plumber",
    "invoice",
    "budget",
    "boiler",
    "kitchen",
    "leak",
    "quote",
    "paid",
    "monthly",
    "insurance",
]


def facts(count: int) -> list[object]:
    from vault_app.core import models

    rng = random.Random(7)
    return [
        models.Fact(
            id=f"f{n}",
            fact=" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 60))),
            category=models.FactCategory.CONTEXT,
        )
        for n in range(count)
    ]


def best(run: object, times: int = 3) -> float:
    spent = []
    for _ in range(times):
        start = time.perf_counter()
        run()  # type: ignore[operator]
        spent.append(time.perf_counter() - start)
    return min(spent) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=5000)
    args = parser.parse_args()
    app = QtWidgets.QApplication(sys.argv)
    from vault_app.core import models
    from vault_app.ui import models as qt_models
    from vault_app.ui.widgets import facts_table

    with tempfile.TemporaryDirectory() as tmp:
        store = QtCore.QSettings(str(Path(tmp) / "s.ini"), QtCore.QSettings.Format.IniFormat)
        model = qt_models.FactsModel()
        table = QtWidgets.QTableView()
        table.setModel(model)
        table.resize(860, 420)
        dressing = facts_table.FactsTable(table, store)
        table.show()
        rows = facts(args.facts)
        model.set_facts("areas/big", rows, lambda _f: models.DecayTier.HOT)  # type: ignore[arg-type]
        app.processEvents()
        load = best(dressing.fit_visible)
        bar = table.verticalScrollBar()

        def scroll() -> None:
            bar.setValue(bar.maximum() // 2)
            dressing.fit_visible()

        def resize() -> None:
            table.resize(table.width() - 40 if table.width() > 700 else 860, 420)
            app.processEvents()
            dressing.fit_visible()

        print(f"{args.facts:,} facts; rows looked at per pass: {dressing.fit_visible()}")
        print(f"fit_visible after load:   {load:8.2f} ms")
        print(f"scroll + fit_visible:     {best(scroll):8.2f} ms")
        print(f"resize + fit_visible:     {best(resize):8.2f} ms")
        print(
            f"resizeRowsToContents:     {best(table.resizeRowsToContents, 1):8.2f} ms (every row)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
