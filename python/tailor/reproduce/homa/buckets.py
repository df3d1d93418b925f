"""The message-size buckets of the Homa paper's Fig. 12 and 13, per workload.

The authors' simulator bins each delivered message by size into these buckets and reports
slowdown statistics per bucket; the figures plot one point per bucket. A size goes to the
first bound at or above it (the bucket "(previous bound, bound]"); a size above the last
bound goes to the simulator's "Huge" bin, which its analysis ignores.

Provenance: ``msgSizeRanges`` of each workload's configuration in the authors' simulator,
repository PlatformLab/HomaSimulation, commit ab09ecbf2c61b07271a1d797ff34ef3bacdbe723,
file RpcTransportDesign/OMNeT++Simulation/homatransport/src/dcntopo/homaTransportConfig.ini,
lines 99 (W1), 137 (W2), 175 (W3), 213 (W4) and 251 (W5), copied verbatim. The W3 and W5
lists equal the Homa rows' ``size_upper_bytes`` of the authors' Fig. 12/13 data
(``data/fig12-13-w3-w5-80.csv``; tests/python/test_homa_reproduce.py checks it). The W5
bounds are multiples of 1,442 B, the payload of a full Homa packet in that simulator, as
the W5 size table is (workloads/README.md).
"""

from __future__ import annotations

import numpy as np

__all__ = ["BUCKETS", "WORKLOADS", "bucket_index"]

#: Upper bounds (bytes, increasing) of the buckets of each workload.
BUCKETS: dict[str, tuple[int, ...]] = {
    # ini line 99: 83 bounds, 1 B to 1000000 B
    "W1": (
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 25, 28, 31, 35, 39, 44,
        49, 55, 61, 68, 76, 85, 95, 107, 119, 133, 149, 167, 186, 208, 233, 260, 291, 325, 364, 406,
        454, 508, 568, 635, 710, 794, 887, 992, 1109, 1240, 1386, 1550, 1733, 1937, 2166, 2421,
        2707, 3027, 3384, 3783, 4229, 4729, 5286, 5910, 6608, 7388, 8259, 9234, 10324, 11542, 12904,
        16129, 25198, 49208, 96093, 293173, 572511, 1000000,
    ),
    # ini line 137: 99 bounds, 2 B to 3529904 B
    "W2": (
        2, 3, 4, 8, 32, 34, 36, 38, 40, 43, 46, 49, 53, 58, 64, 67, 71, 75, 80, 85, 91, 98, 107,
        116, 128, 135, 142, 151, 160, 171, 183, 197, 213, 233, 256, 269, 284, 301, 320, 341, 366,
        394, 427, 465, 512, 539, 569, 602, 640, 683, 731, 788, 853, 931, 1024, 1078, 1365, 2048,
        3151, 4096, 5120, 6302, 7447, 8192, 9102, 10240, 11703, 12603, 13653, 14895, 16384, 17246,
        18204, 19275, 20480, 25206, 29789, 34493, 40960, 46811, 50412, 54613, 59578, 65536, 72818,
        81920, 93623, 100825, 119156, 137971, 163840, 187246, 201649, 262144, 308405, 403298,
        524288, 1071908, 3529904,
    ),
    # ini line 175: 102 bounds, 3 B to 20000000 B
    "W3": (
        3, 32, 36, 40, 46, 53, 64, 70, 77, 85, 96, 110, 128, 137, 146, 158, 171, 186, 205, 228, 256,
        268, 282, 296, 313, 331, 352, 375, 402, 433, 469, 512, 531, 573, 597, 623, 683, 717, 755,
        796, 843, 956, 1053, 1117, 1189, 1271, 1317, 1418, 1475, 1603, 1755, 2137, 2341, 2657, 3511,
        4535, 5521, 7256, 9078, 10335, 13435, 16861, 21984, 25170, 30468, 40018, 45220, 50244,
        55146, 60293, 65902, 70217, 75137, 80248, 85482, 90049, 95133, 100825, 110247, 120372,
        129632, 140605, 150160, 160275, 170901, 180895, 190944, 200864, 249460, 300435, 350288,
        401080, 450652, 501350, 603313, 701172, 805723, 907174, 1008790, 5114695, 10668901,
        20000000,
    ),
    # ini line 213: 91 bounds, 130 B to 10000000 B
    "W4": (
        130, 227, 248, 271, 297, 303, 308, 310, 313, 315, 318, 321, 326, 331, 335, 345, 350, 360,
        371, 376, 395, 420, 435, 452, 463, 480, 491, 502, 513, 525, 537, 549, 561, 574, 587, 600,
        607, 615, 630, 646, 662, 671, 685, 702, 719, 737, 762, 787, 825, 885, 960, 1063, 1177, 1303,
        1425, 1559, 1624, 1865, 2862, 4582, 6387, 10373, 31946, 36844, 40382, 42493, 44531, 45913,
        47435, 48609, 49408, 50632, 57684, 69014, 74266, 77041, 79595, 81565, 91238, 104584, 120373,
        141975, 167112, 197911, 228718, 273075, 406302, 832442, 1660940, 3430822, 10000000,
    ),
    # ini line 251: 87 bounds, 1442 B to 28840000 B
    "W5": (
        1442, 2884, 4326, 5768, 7210, 8652, 10094, 11536, 12978, 15862, 17304, 18746, 21630, 23072,
        24514, 25956, 27398, 28840, 31724, 34608, 36050, 37492, 40376, 41818, 44702, 46144, 47586,
        50470, 53354, 54796, 57680, 59122, 62006, 63448, 66332, 67774, 70658, 72100, 74984, 76426,
        93730, 109592, 126896, 142758, 160062, 175924, 191786, 269654, 346080, 423948, 500374,
        576800, 654668, 731094, 808962, 885388, 961814, 1058428, 1155042, 1250214, 1346828, 1442000,
        1538614, 1635228, 1730400, 1827014, 1922186, 2210586, 2498986, 2787386, 3075786, 3364186,
        3652586, 3940986, 4229386, 4517786, 4806186, 11537442, 13459628, 15381814, 17305442,
        19227628, 21149814, 23073442, 24995628, 26917814, 28840000,
    ),
}

#: The workloads, in the paper's order.
WORKLOADS = tuple(BUCKETS)


def bucket_index(sizes: np.ndarray, workload: str) -> np.ndarray:
    """Each size's bucket: the index of the first bound at or above it, or
    ``len(BUCKETS[workload])`` for a size above the last bound (the simulator's "Huge")."""
    return np.searchsorted(np.asarray(BUCKETS[workload]), sizes, side="left")
