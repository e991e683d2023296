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


def test_a_machine_without_room_runs_one_lane_until_it_has_room_again() -> None:
    """admit(running) False: no second lane opens beside the one running; with room, lanes open."""
    lock = threading.Lock()
    active, most = [0], [0]

    def work(i: int) -> int:
        with lock:
            active[0] += 1
            most[0] = max(most[0], active[0])
        time.sleep(0.05)
        with lock:
            active[0] -= 1
        return i

    assert run_disjoint(list(range(4)), lambda i: frozenset({str(i)}), work, 4, admit=lambda _: False) == [0, 1, 2, 3]
    assert most[0] == 1
    assert run_disjoint(list(range(3)), lambda i: frozenset({str(i)}), work, 4, admit=lambda n: n < 3) == [0, 1, 2]
    assert most[0] == 3
