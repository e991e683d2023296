"""The Batfish view's IKEv1 policy uses only lines Batfish parses (recorded parse warning)."""

from __future__ import annotations

from bf_recorded import answer

from boothnet.derive import derive_network
from boothnet.intent import load_network
from boothnet.verify.batfish.from_intent import batfish_context, build_batfish_view
from tests.helpers import ROOT


def test_recorded_answers_show_the_hash_sha256_policy_derails_the_parser():
    # The warning names the line after `hash sha256`, with the parser still inside cispol_hash.
    rows = answer("parseWarning")
    assert set(rows["Text"]) == {"authentication pre-share"}
    assert all(ctx.startswith("[cispol_hash ") for ctx in rows["Parser_Context"])
    assert set(answer("fileParseStatus").query("Status != 'PASSED'")["File_Name"]) == {
        "configs/bgw.cfg", "configs/hgw.cfg"}


def test_batfish_view_renders_hash_sha_and_real_configs_keep_sha256(tmp_path):
    net = load_network(ROOT / "inventories" / "sc-booth")
    assert derive_network(net)["bgw1"].vpn.ike_hash == "sha256"
    assert derive_network(net, batfish_context(net))["bgw1"].vpn.ike_hash == "sha"
    view, _ = build_batfish_view(ROOT / "inventories" / "sc-booth", tmp_path)
    for gateway in ("bgw1", "hgw1"):
        text = (view.out_dir / f"{gateway}.cfg").read_text()
        policy = text.split("crypto isakmp policy 10\n", 1)[1].split("!\n", 1)[0]
        assert policy == " encr aes 256\n hash sha\n authentication pre-share\n group 14\n"
        assert "crypto map BOOTHNET_VPN 10 ipsec-isakmp" in text
