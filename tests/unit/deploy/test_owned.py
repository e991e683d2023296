"""What a switch keeps of its own, carried into a full-replace candidate (boothnet.deploy.owned)."""

from __future__ import annotations

from pathlib import Path

from boothnet.deploy.owned import carry_switch_owned, sections
from boothnet.platforms import platforms

C9300 = (Path(__file__).parent / "recorded" / "genielibs" / "c9300_show_running-config.txt").read_text()
OWNED = platforms()["cisco_ios"].switch_owned


def test_the_recorded_catalysts_own_sections_are_carried_before_end_and_nothing_else():
    candidate = "hostname core1\n!\nspanning-tree mode rapid-pvst\n!\nend\n"
    text, carried = carry_switch_owned(candidate, C9300, OWNED)
    assert carried == ["switch 1 provision c9300-24u", "crypto pki trustpoint TP-self-signed-4016338086",
                       "crypto pki trustpoint SLA-TrustPoint",
                       "license boot level network-advantage addon dna-advantage",
                       "memory free low-watermark processor 105485", "diagnostic bootup level minimal",
                       "spanning-tree extend system-id", "redundancy", "transceiver type all", "control-plane"]
    assert text.startswith(candidate[:-len("end\n")]) and text.endswith("!\nend\n")
    assert ["control-plane", " service-policy input system-cpp-policy"] in sections(text)
    # what the intent says stays the candidate's: its spanning-tree mode, no second hostname
    assert [s[0] for s in sections(text)].count("hostname core1") == 1 and "hostname FW-9300-7" not in text


def test_a_section_the_candidate_has_stays_the_candidates():
    candidate = "hostname core1\n!\ncontrol-plane\n service-policy input system-cpp-policy\n!\nend\n"
    text, carried = carry_switch_owned(candidate, C9300, ["control-plane$"])
    assert (text, carried) == (candidate, [])
