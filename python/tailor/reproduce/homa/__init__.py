"""Homa (a receiver-driven low-latency transport using network priorities;
``../shared/papers/homa-receiver-driven-transport.md``): the paper's data its
reproductions are judged against.

- ``buckets``: the message-size buckets of Fig. 12 and 13, per workload (the authors'
  ``msgSizeRanges``);
- ``paper``: Table 1, §5.2's claim, and the authors' Fig. 12/13 data (``data/``).
"""
