"""lab_down: every namespace, process, link, FRR dir and key of a lab removed, from its state
file or, without one (a killed lab_up), by discovery."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from boothnet.lab import lldp, names, net, services, strongswan
from boothnet.lab.state import LabState, now, read_state, write_state
from boothnet.progress import Progress

SETTLE_SECONDS = 0.6  # after a killed lab_up: how long the lab must stay gone before lab_down returns


def discover_namespaces(network: str) -> list[str]:
    """Namespaces of ``network``: name prefix ``<network>-`` and lo tagged by this lab (or
    untagged: a run killed right after creating it). Foreign tags are left alone."""
    prefix = f"{network}-"
    ours = []
    for ns in net.list_namespaces():
        if not ns.startswith(prefix):
            continue
        owner = net.namespace_owner(ns)
        if owner is None or owner.startswith(names.alias(network, "")):
            ours.append(ns)
    return ours


RUNTIME_FILES = (
    "inventory.yml",
    "known_hosts",
    "id_ed25519",
    "id_ed25519.pub",
    "authorized_keys",
    "spec.json",
    strongswan.PSK_FILE,
)


def _remove_links(network: str) -> list[str]:
    """The lab's root links (its ifalias), the management bridge last: its address answers
    until the end."""
    links = set(net.root_links_with_alias(names.alias(network, "")))
    bridge = names.bridge_name(network)
    return [name for name in sorted(links - {bridge}) + [bridge] if net.delete_root_link(name)]


def _sweep_late_starters(network: str, namespaces: set[str], pathspaces: set[str], t0: float
                         ) -> tuple[list[dict[str, object]], list[str]]:
    """A killed lab_up may leave a forked child that had not yet exec'd its `ip netns exec ...
    zebra` when we looked: it starts late, makes its FRR dir and dies. Sweep again until the
    lab stays gone for a moment."""
    killed: list[dict[str, object]] = []
    frr_dirs: list[str] = []
    quiet_since = time.monotonic()
    while time.monotonic() - quiet_since < SETTLE_SECONDS and time.monotonic() - t0 < 30:
        time.sleep(0.1)
        late = services.kill_namespaces(sorted(namespaces))
        late_dirs = services.remove_frr_dirs(network, pathspaces)
        if late or late_dirs:
            killed += late
            frr_dirs += late_dirs
            quiet_since = time.monotonic()
    return killed, frr_dirs


def _remove_files(state_dir: Path, namespaces: set[str]) -> list[str]:
    """lldpd's runtime files, the lab's runtime files, its node and WAN folders."""
    files = lldp.remove_files(namespaces)
    for f in RUNTIME_FILES:
        p = state_dir / f
        if p.exists():
            p.unlink()
            files.append(str(p))
    for folder in ("nodes", "wan"):
        if (state_dir / folder).is_dir():
            shutil.rmtree(state_dir / folder)
            files.append(str(state_dir / folder))
    return files


def lab_down(network: str, state_dir: Path, progress: Progress = print) -> LabState:
    """Remove every namespace, process, link, FRR dir and key of lab ``network``. Works from
    state.json when present and by discovery otherwise (``<network>-`` namespaces tagged
    by this lab, root links with this lab's ifalias, FRR dirs with this lab's marker).
    Returns what was removed (also recorded in state.json, status "down")."""
    t0 = time.monotonic()
    state_dir = Path(state_dir).resolve()
    st = read_state(state_dir)
    if st and st.network != network:
        raise ValueError(f"{state_dir} holds lab {st.network!r}, not {network!r}")
    status = st.status if st else None
    recorded = set(st.namespaces.values()) if st else set()
    nss = recorded if status != "down" else set()
    nss = {ns for ns in nss | set(discover_namespaces(network)) if net.ns_exists(ns)}
    progress(f"lab {network}: down, {len(nss)} namespaces")

    killed = services.kill_namespaces(sorted(nss))
    progress(f"lab {network}: {len(killed)} processes stopped")
    removed_links = _remove_links(network)
    removed_ns = []
    for ns in sorted(nss):
        net.remove_namespace(ns)
        removed_ns.append(ns)
    # a process that was still on its way in (orphaned `ip netns exec` of a killed lab_up)
    killed += services.kill_namespaces(sorted(nss | recorded))
    progress(f"lab {network}: {len(removed_ns)} namespaces, {len(removed_links)} root links removed")
    pathspaces = (set(st.frr_pathspaces.values()) if st else set()) | nss
    frr_dirs = services.remove_frr_dirs(network, pathspaces)
    if status != "up":
        late, late_dirs = _sweep_late_starters(network, pathspaces | recorded, pathspaces, t0)
        killed += late
        frr_dirs += late_dirs
    files = _remove_files(state_dir, nss | recorded)

    down = LabState(network=network, status="down", down_at=now(), down_seconds=round(time.monotonic() - t0, 2),
                    removed={"namespaces": removed_ns, "processes": killed, "links": removed_links,
                             "frr_dirs": frr_dirs, "files": files})
    if state_dir.is_dir():
        write_state(state_dir, down)
    progress(f"lab {network}: down in {down.down_seconds} s")
    return down
