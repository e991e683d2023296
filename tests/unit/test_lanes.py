"""run_disjoint: parallel where the loads allow, never two sharing a load, results in order."""

from __future__ import annotations

import threading
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from boothnet.validate.lanes import run_disjoint


@settings(max_examples=30, deadline=None)
@given(st.lists(st.frozensets(st.sampled_from("abcdef"), max_size=3), max_size=12), st.integers(1, 4))
def test_no_two_items_sharing_a_load_overlap_and_results_keep_their_order(loads, lanes) -> None:
    lock = threading.Lock()
    active: list[frozenset[str]] = []
    most = [0]

    def work(i: int) -> int:
        with lock:
            assert all(loads[i].isdisjoint(other) for other in active), (loads[i], active)
            active.append(loads[i])
            most[0] = max(most[0], len(active))
        time.sleep(0.002)
        with lock:
            active.remove(loads[i])
        return i * 10

    assert run_disjoint(list(range(len(loads))), lambda i: loads[i], work, lanes) == [i * 10 for i in range(len(loads))]
    assert most[0] <= lanes


def test_disjoint_items_do_run_at_once() -> None:
    started = threading.Barrier(3, timeout=5)  # breaks (and fails the test) unless all three run together
    assert run_disjoint(["a", "b", "c"], lambda x: frozenset(x), lambda x: started.wait() >= 0, 3) == [True] * 3
