"""Larger than memory: goldnoise statistics over partitioned Parquet, run on Dask.

Needs the extra: ``pip install "goldnoise[dask]"`` (``dask[dataframe]`` and
``distributed``). Importing :mod:`goldnoise` never imports Dask; importing this
module does.

read_ratings   -- a lazy ratings object from long Parquet (one row per rating),
                  accepted by every agreement coefficient, agreement_table,
                  noise_bound, LatentClassModel.fit and bootstrap
DaskRatings    -- that object: the schema, the persisted chunks, map_reduce
ShuffleReport  -- how many ratings the shuffle on the item column moved

Every statistic runs as partial -> combine -> finalize (the engine-agnostic
functions of :mod:`agreement`): each persisted partition holds every rating of
its items, ``partial`` runs on it where it lives, the sums are added up a tree,
and the finalize step is the in-memory one, so the results equal the in-memory
results. Run it with the synchronous scheduler (``scheduler="synchronous"``),
a ``distributed.LocalCluster`` on one machine, or a cluster by address
(``distributed.Client("tcp://...")``): the active client is used.
"""

from goldnoise.dask._reader import DaskRatings, ShuffleReport, read_ratings

__all__ = ["DaskRatings", "ShuffleReport", "read_ratings"]
