"""What the embedded index hands Qdrant Edge and reads back of a shard: a search's filter,
its query vectors, a sparse vector, the tenants a shard holds. Apart from
``qdrant_edge_index`` so that the adapter keeps to its lifecycle, writes and searches."""

from __future__ import annotations

from typing import Any

import qdrant_edge as qe

from ai_memory.core.ports import SparseVector

from . import index_payload as ip
from .edge_reads import conditions


def sparse_vector(v: SparseVector) -> qe.SparseVector:
    return qe.SparseVector(list(v.indices), list(v.values))


def engine_filter(terms: ip.FilterTerms, *, alone: bool = False) -> qe.Filter:
    must, must_not = conditions(terms, alone=alone)
    return qe.Filter(must=must, must_not=must_not or None)


def query_vector(r: ip.Retriever) -> Any:
    if r.sparse is not None:
        return sparse_vector(r.sparse)
    assert r.dense is not None
    return r.dense.astype("float32").tolist()


def tenants_of(shard: qe.EdgeShard) -> set[str]:
    """The tenants with a point in ``shard`` (two are enough to know it is shared)."""
    response = shard.facet(qe.FacetRequest(ip.F_TENANT, limit=2, exact=True))
    return {str(hit.value) for hit in response.hits}
