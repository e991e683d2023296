"""gen-showfloor refuses a size it cannot address with a message naming the limit."""

from __future__ import annotations

import pytest

from boothnet.cli import main


@pytest.mark.parametrize(("devices", "message"), [
    (3, "gen-showfloor: -N 3: a show floor needs at least 4 devices"),
    (2000, "gen-showfloor: -N 2000: 2000 devices and 7672 hosts do not fit 198.18.64.0/20; "
           "use fewer devices or hosts per VLAN"),
    (5000, "gen-showfloor: -N 5000: 4798 booths need more VLAN IDs than 802.1Q has"),
])
def test_unaddressable_size_is_refused_with_a_message(devices, message, tmp_path, capsys):
    assert main(["gen-showfloor", "-N", str(devices), "--out", str(tmp_path / "floor")]) == 2
    assert capsys.readouterr().err.strip() == message
    assert not (tmp_path / "floor").exists()
