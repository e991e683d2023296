"""OSPF on every interface the config names, after frr-reload (stdlib only: runs on the device).

The race it closes: a day-0 apply creates the VLAN bridges and addresses, then frr-reload
sends `interface X / ip ospf area A` and `router ospf` to ospfd. When zebra's news of an
interface or its address reaches ospfd after that (the order across the daemons is not fixed),
ospfd keeps the area in its config but never enables OSPF there: `show ip ospf interface`
says "OSPF not enabled" although the running config names the area. Each such interface that
is up with an IPv4 address gets its area set again, which enables it; exit 1 names the
interfaces still without OSPF after the wait.

usage: ospf_up.py FRR_CONF [PATHSPACE] [SECONDS]
"""

from __future__ import annotations

import json
import subprocess
import sys
import time


def configured(frr_conf: str) -> dict[str, str]:
    """interface -> area, for each `ip ospf area` under an interface (only with `router ospf`)."""
    areas: dict[str, str] = {}
    interface = None
    ospf = False
    for line in frr_conf.splitlines():
        words = line.split()
        if not line.startswith(" "):
            interface = words[1] if words[:1] == ["interface"] and len(words) > 1 else None
            ospf = ospf or words[:2] == ["router", "ospf"]
        elif interface and words[:3] == ["ip", "ospf", "area"] and len(words) > 3:
            areas[interface] = words[3]
    return areas if ospf else {}


def vtysh(pathspace: str, *commands: str) -> str:
    argv = ["vtysh"] + (["-N", pathspace] if pathspace else [])
    for command in commands:
        argv += ["-c", command]
    return subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout


def ready(interface: str) -> bool:
    """Up, with an IPv4 address: an interface OSPF can run on."""
    try:
        with open(f"/sys/class/net/{interface}/operstate") as f:
            if f.read().strip() not in ("up", "unknown"):
                return False
    except OSError:
        return False
    out = subprocess.run(["ip", "-4", "-o", "addr", "show", "dev", interface], capture_output=True, text=True)
    return bool(out.stdout.strip())


def not_enabled(pathspace: str, areas: dict[str, str]) -> list[str]:
    try:
        shown = json.loads(vtysh(pathspace, "show ip ospf interface json") or "{}").get("interfaces", {})
    except ValueError:
        shown = {}
    return sorted(i for i in areas if not shown.get(i, {}).get("ospfEnabled") and ready(i))


def main(argv: list[str]) -> int:
    with open(argv[1]) as f:
        areas = configured(f.read())
    pathspace = argv[2] if len(argv) > 2 else ""
    deadline = time.monotonic() + (float(argv[3]) if len(argv) > 3 else 20.0)
    missing = not_enabled(pathspace, areas)
    while missing and time.monotonic() < deadline:
        for interface in missing:
            print(f"boothnet-apply: OSPF not enabled on {interface} after reload: setting area "
                  f"{areas[interface]} again", file=sys.stderr)
            vtysh(pathspace, "configure terminal", f"interface {interface}", f"no ip ospf area {areas[interface]}",
                  f"ip ospf area {areas[interface]}")
        time.sleep(0.5)
        missing = not_enabled(pathspace, areas)
    if missing:
        zebra = {i: [ln.strip() for ln in vtysh(pathspace, f"show interface {i}").splitlines()
                     if "inet " in ln or "index" in ln] + [vtysh(pathspace, f"show ip ospf interface {i} json")]
                 for i in missing}
        print(f"boothnet-apply: OSPF not enabled on {', '.join(missing)} although frr.conf names an area there "
              f"(zebra: {zebra})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
