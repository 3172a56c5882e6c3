"""How many of a search's record reads the search row cache answers, on distinct
questions (``python -m loadtest.probe_row_cache --data DIR --locomo locomo10.json``).

On a copy of a scale profile's data dir (``ai-memory bench scale --locomo … --data-dir
DIR``), the container is built in this process and the first ``--queries`` LoCoMo
questions are asked once each with ``MemoryService.search`` (hybrid, top 10, rerank and
context on) in the big scope, for each lifetime in ``--seconds`` and each pace in
``--rates`` (searches a second; 0 = back to back), every pass with a cache of its own.
Per pass: the share of the rows looked up that the cache held at the version the index
holds (``service/search_row_cache.py``) — each of them a record read saved, a partition
read on Cassandra. No question repeats within a pass, so what is found is what distinct
questions share.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from ai_memory.benchmarks import locomo
from ai_memory.bootstrap import build
from ai_memory.service.memory_service import SearchRequest
from ai_memory.service.search_row_cache import SearchRowCache
from ai_memory.settings import Settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a kept scale data dir")
    parser.add_argument("--locomo", type=Path, required=True, help="locomo10.json")
    parser.add_argument("--scope", default="user:bench", help="'' for tenant-wide")
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--seconds", default="1,5,60", help="cache lifetimes, comma-separated")
    parser.add_argument("--rates", default="0,20", help="searches a second (0: back to back)")
    opt = parser.parse_args()
    questions = locomo.load(opt.locomo).queries[: opt.queries]
    scopes = [opt.scope] if opt.scope else None
    with tempfile.TemporaryDirectory(prefix="aimem-row-cache-") as work:
        data = Path(work) / "data"
        shutil.copytree(opt.data, data)
        container = build(Settings(data_dir=data))
        container.start()
        service = container.service
        try:
            for seconds in (float(s) for s in opt.seconds.split(",")):
                for rate in (float(r) for r in opt.rates.split(",")):
                    cache = service.row_cache = SearchRowCache(10_000, seconds)
                    began = time.perf_counter()
                    for i, question in enumerate(questions):
                        if rate:  # paced: the i-th search starts i / rate s in
                            time.sleep(max(0.0, began + i / rate - time.perf_counter()))
                        service.search("default", SearchRequest(question, scopes, top_k=10))
                    looked = cache.hits + cache.misses
                    line = {
                        "seconds": seconds,
                        "searches_per_s": rate or "back to back",
                        "searches": len(questions),
                        "rows_looked_up_per_search": round(looked / len(questions), 2),
                        "hit_rate": round(cache.hits / looked, 3) if looked else None,
                    }
                    print(json.dumps(line), flush=True)
        finally:
            container.close()


if __name__ == "__main__":
    main()
