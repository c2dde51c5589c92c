"""The evaluation engine, as typed stages with one job each.

``readers`` (records in chunks) -> ``plan`` (metrics bound and ordered, run context) ->
``executors`` (local threads and event loop, or a plugin's executor, which rebuilds the plan
in other processes with ``remote``) running ``score.score_chunk`` with one ``runners`` class
per metric kind -> ``journal`` (rows streamed, resumable) and
``accumulate`` (a few numbers per record) -> summary -> ``result``. ``entry`` checks the
options and inputs, ``run`` ties the stages together.
"""
