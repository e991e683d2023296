"""What a validate run runs is a profile: data the CLI's flags and the modules' options edit."""

from __future__ import annotations

import pytest

from boothnet.validate.profile import FLOOR, FULL, PROFILES, QUICK, WATCH_ROUND


def test_the_profiles_say_what_each_kind_of_run_measures_and_breaks() -> None:
    assert set(PROFILES) == {"full", "quick", "watch round", "floor"}
    assert FULL.throughput and FULL.wan_sweep and FULL.vpn_resilience and FULL.ask_batfish
    assert not QUICK.throughput and not QUICK.vpn_resilience
    assert not WATCH_ROUND.throughput and not WATCH_ROUND.ask_batfish and not WATCH_ROUND.vpn_resilience
    assert FLOOR.throughput and not FLOOR.vpn_resilience  # a live floor is measured, never broken on purpose


def test_a_flag_edits_a_copy_and_an_unknown_one_is_refused() -> None:
    edited = FULL.edit(throughput=False, isolation_seed=7)
    assert (edited.throughput, edited.isolation_seed, edited.name) == (False, 7, "full")
    assert FULL.throughput and FULL.isolation_seed is None
    with pytest.raises(TypeError, match="no_such_check"):
        FULL.edit(no_such_check=True)
