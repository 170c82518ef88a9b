"""Larger than memory: goldnoise statistics over partitioned Parquet, run on Dask.

Needs the extra: ``pip install "goldnoise[dask]"`` (``dask[dataframe]`` and
``distributed``). Importing :mod:`goldnoise` never imports Dask; importing this
module does.

read_ratings   -- a lazy ratings object from long Parquet (one row per rating),
                  accepted by every agreement coefficient, agreement_table,
                  noise_bound, LatentClassModel.fit and bootstrap
DaskRatings    -- that object: the schema, the persisted count and item chunks,
                  map_reduce, map_reduce_counts, partition_by_item
ShuffleReport  -- how many ratings the shuffle on the item column moved

Every statistic runs as partial -> combine -> finalize (the engine-agnostic
functions of :mod:`agreement`), and only what it needs moves: the count-table
statistics (percent agreement, Fleiss, Scott, Brennan–Prediger, Gwet, α) run on
per-item category counts that each partition sums where it was read and a tree
adds up (no rating moves); the statistics that need the annotators' identity
(Cohen, Conger, Light, γ, a latent-class fit, the bootstrap) run on chunks that
each hold every rating of their items, built once by a shuffle on the item
column at the first such statistic, persisted and reused. The finalize step is
the in-memory one, so the results equal the in-memory results. Run it with the
synchronous scheduler (``scheduler="synchronous"``), a
``distributed.LocalCluster`` on one machine, or a cluster by address
(``distributed.Client("tcp://...")``): the active client is used.
"""

from goldnoise.dask._reader import DaskRatings, ShuffleReport, read_ratings

__all__ = ["DaskRatings", "ShuffleReport", "read_ratings"]
