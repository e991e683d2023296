"""${NAME} placeholders: filled from the environment or a file, never shown, still idempotent."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from boothnet.deploy import secrets, steps

PSK = "0sS3cr3t+Lab/Key=="
SWANCTL = """connections {
\thome {
\t\tlocal { auth = psk }
\t}
}
secrets {
\tike-home {
\t\tid = 10.0.0.1
\t\tsecret = ${BOOTHNET_VPN_PSK}
\t}
}
"""


def test_placeholders_name_their_parts() -> None:
    parts = {"swanctl.conf": SWANCTL, "frr.conf": "hostname r1\n"}
    assert secrets.placeholders(parts) == {"BOOTHNET_VPN_PSK": ["swanctl.conf"]}


def test_environment_wins_over_the_file(tmp_path: Path) -> None:
    f = tmp_path / "vpn.psk"
    f.write_text("from-file\n")
    parts = {"swanctl.conf": SWANCTL}
    env = secrets.resolve(parts, {"BOOTHNET_VPN_PSK": PSK}, {"BOOTHNET_VPN_PSK": f})
    assert env == {"BOOTHNET_VPN_PSK": PSK}
    fallback = secrets.resolve(parts, {"BOOTHNET_VPN_PSK": ""}, {"BOOTHNET_VPN_PSK": f})
    assert fallback == {"BOOTHNET_VPN_PSK": "from-file"}
    filled = secrets.substitute(parts, env)["swanctl.conf"]
    assert f"secret = {PSK}\n" in filled and "${" not in filled


def test_missing_secret_names_the_variable_and_the_file(tmp_path: Path) -> None:
    f = tmp_path / "lab" / "vpn.psk"
    with pytest.raises(secrets.SecretMissing) as err:
        secrets.resolve({"swanctl.conf": SWANCTL}, {}, {"BOOTHNET_VPN_PSK": f})
    assert str(err.value) == (
        "secret(s) not found, nothing deployed: ${BOOTHNET_VPN_PSK} in swanctl.conf: set "
        f"BOOTHNET_VPN_PSK in the controller environment or the file {f} (missing or empty)"
    )
    with pytest.raises(secrets.SecretMissing, match=r"set BOOTHNET_VPN_PSK in the controller environment$"):
        secrets.resolve({"swanctl.conf": SWANCTL}, {"BOOTHNET_VPN_PSK": None})


def test_mask_hides_known_values_and_any_swanctl_secret_line() -> None:
    diff = f"-\t\tsecret = 0sOldKeyNobodyKnows\n+\t\tsecret = {PSK}\n psk {PSK}x\n"
    masked = secrets.mask(diff, [PSK])
    assert PSK not in masked and "OldKeyNobodyKnows" not in masked
    assert "-\t\tsecret = <secret>\n+\t\tsecret = <secret>\n" in masked
    assert secrets.mask("secret = ${BOOTHNET_VPN_PSK}\n", []) == "secret = ${BOOTHNET_VPN_PSK}\n"


class FakeDevice:
    """A NAPALM driver that 'runs' what was committed: enough for steps.deploy."""

    running: dict[str, str] = {}
    pending = False  # a commit waits for its confirm (the revert timer runs)

    def __init__(self) -> None:
        self.candidate: dict[str, str] | None = None

    def open(self) -> None: ...

    def close(self) -> None: ...

    def load_replace_candidate(self, filename: Any = None, config: Any = None) -> None:
        assert filename is None, "steps must load the filled-in dict, not the folder"
        self.candidate = dict(config)

    def compare_parts(self) -> dict[str, str]:
        from boothnet.deploy.parts import unified

        assert self.candidate is not None
        return {p: unified(p, FakeDevice.running.get(p, ""), t) for p, t in self.candidate.items()}

    def discard_config(self) -> None:
        self.candidate = None

    def get_running_parts(self) -> dict[str, str]:
        return dict(FakeDevice.running)

    def commit_config(self, message: str = "", revert_in: int | None = None) -> None:
        assert self.candidate is not None
        self.last_backup = dict(FakeDevice.running)
        FakeDevice.running = dict(self.candidate)
        if "fail" in self.candidate.get("frr.conf", ""):
            FakeDevice.running = self.last_backup  # restored at once, as frr_linux does when an apply fails
            raise RuntimeError(f"apply failed: {self.candidate['swanctl.conf']}")
        FakeDevice.pending = True

    def confirm_commit(self) -> None:
        FakeDevice.pending = False

    def has_pending_commit(self) -> bool:
        return FakeDevice.pending

    # the rest of a PartsDevice's contract (boothnet.deploy.driver)
    def revert_reason(self) -> str | None:
        return None

    def get_ospf_neighbors(self) -> dict[str, list[dict[str, str]]]:
        return {}


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[steps.Target, Path]:
    FakeDevice.running = {"swanctl.conf": SWANCTL.replace("${BOOTHNET_VPN_PSK}", "0sOldKey")}
    FakeDevice.pending = False
    monkeypatch.setattr(steps.Target, "open", lambda self: FakeDevice())
    cfg = tmp_path / "configs" / "bgw1"
    cfg.mkdir(parents=True)
    (cfg / "swanctl.conf").write_text(SWANCTL)
    (cfg / "frr.conf").write_text("hostname bgw1\n")
    return steps.Target("198.18.2.11", "root"), cfg


def test_config_diff_backup_and_rerun_never_show_the_secret(fake: tuple[steps.Target, Path], tmp_path: Path) -> None:
    target, cfg = fake
    sec = steps.Secrets(given={"BOOTHNET_VPN_PSK": PSK})
    check = steps.deploy(steps.Job("bgw1", target, cfg, secrets=sec, revert_in=30), check=True).commit
    assert check is not None
    assert check["changed"] and "secret = <secret>" in check["diff"] and PSK not in check["diff"]
    assert "0sOldKey" not in check["diff"]
    run = steps.deploy(steps.Job("bgw1", target, cfg, tmp_path / "b", sec, revert_in=30), check=False)
    assert run.confirmed and run.commit and run.commit["committed"]
    assert FakeDevice.running["swanctl.conf"].count(PSK) == 1  # the device got it
    backup = Path(run.commit["backup"])
    written = "".join(p.read_text() for p in backup.iterdir())
    assert (backup / "changes.diff").is_file()
    assert PSK not in written and "0sOldKey" not in written and "<secret>" in written
    again = steps.deploy(steps.Job("bgw1", target, cfg, secrets=sec, revert_in=30), check=False).commit
    assert again == {**again, "changed": False, "diff": "", "committed": False}  # compared filled-in


def test_missing_secret_fails_before_the_device_is_opened(fake: tuple[steps.Target, Path]) -> None:
    target, cfg = fake
    before = dict(FakeDevice.running)
    run = steps.deploy(steps.Job("bgw1", target, cfg, secrets=steps.Secrets(), revert_in=30), check=False)
    assert run.commit is None and "${BOOTHNET_VPN_PSK} in swanctl.conf" in run.error
    assert run.result("bgw1", False, 0).outcome == "failed-before-apply"
    assert FakeDevice.running == before


def test_errors_are_masked(fake: tuple[steps.Target, Path]) -> None:
    target, cfg = fake
    (cfg / "frr.conf").write_text("hostname fail\n")
    run = steps.deploy(steps.Job("bgw1", target, cfg, secrets=steps.Secrets({"BOOTHNET_VPN_PSK": PSK}), revert_in=30),
                       check=False)
    assert run.error.startswith("commit interrupted: apply failed")
    assert PSK not in run.error and "<secret>" in run.error


def test_ios_crypto_key_is_a_placeholder_filled_at_deploy(tmp_path: Path) -> None:
    """The IOS crypto template prints the PSK as ${NAME}, like swanctl.conf: filled from the
    environment at deploy, masked in diffs and backups, never in build/."""
    from boothnet.derive.model import VpnPeer
    from boothnet.platforms import platforms
    from boothnet.render.templates import Renderer

    vpn = VpnPeer("home", *["192.0.2.1", "203.0.113.2"], [], [], ["aes256-sha256-modp2048"], ["aes256gcm16"],
                  10, 3600, "BOOTHNET_VPN_PSK", 8950, 8950, 8910, "Gi0/1", True, False,
                  ike_key="${BOOTHNET_VPN_PSK}")
    rendered = Renderer().env.get_template("cisco_ios/crypto.j2").render(d=SimpleNamespace(vpn=vpn))
    assert "crypto isakmp key ${BOOTHNET_VPN_PSK} address 203.0.113.2" in rendered
    cfg = tmp_path / "configs"
    cfg.mkdir()
    (cfg / "bgw1.cfg").write_text(rendered)
    text, values = steps.candidate(platforms()["cisco_ios"], cfg / "bgw1", steps.Secrets({"BOOTHNET_VPN_PSK": PSK}))
    assert f"crypto isakmp key {PSK} address 203.0.113.2" in text
    assert secrets.mask(text, values.values()).count("crypto isakmp key <secret> address") == 1
    old_key = "-crypto isakmp key 0ldKey address 192.0.2.2\n"
    assert secrets.mask(old_key, []) == "-crypto isakmp key <secret> address 192.0.2.2\n"
