"""OSPF on every interface the config names, after frr-reload (stdlib only: runs on the device).

The race it closes: a day-0 apply creates the VLAN bridges and their addresses in one burst,
then frr-reload sends `interface X / ip ospf area A` and `router ospf` to ospfd. Under load
zebra can miss the kernel's news of an address (seen here: `show interface br30` with no
`inet` line while the kernel has it); ospfd, which learns addresses from zebra, then keeps the
area in its config but never enables OSPF there: `show ip ospf interface` says "OSPF not
enabled" although the running config names the area. Each such interface that is up with an
IPv4 address gets its addresses announced again where zebra lacks them, else its area set
again; if that has not helped half way through the wait, the OSPF process is cleared once;
exit 1 names the interfaces still without OSPF after the wait (the commit then restores the
backup).

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


def kernel_addresses(interface: str) -> list[list[str]]:
    """The interface's IPv4 addresses as `ip addr add` takes them (address, and brd if set)."""
    out = subprocess.run(["ip", "-4", "-o", "addr", "show", "dev", interface], capture_output=True, text=True)
    found = []
    for line in out.stdout.splitlines():
        words = line.split()
        if "inet" in words:
            address = [words[words.index("inet") + 1]]
            if "brd" in words:
                address += ["brd", words[words.index("brd") + 1]]
            found.append(address)
    return found


def ready(interface: str) -> bool:
    """Up, with an IPv4 address: an interface OSPF can run on."""
    try:
        with open(f"/sys/class/net/{interface}/operstate") as f:
            if f.read().strip() not in ("up", "unknown"):
                return False
    except OSError:
        return False
    return bool(kernel_addresses(interface))


def zebra_lacks_address(pathspace: str, interface: str) -> bool:
    """zebra missed the kernel's news of the address (seen under load: a burst of new bridges
    and addresses); ospfd, told by zebra, then has no subnet to run OSPF on."""
    known = {ln.split()[1] for ln in vtysh(pathspace, f"show interface {interface}").splitlines()
             if ln.split()[:1] == ["inet"]}
    return any(address[0] not in known for address in kernel_addresses(interface))


def tell_zebra(interface: str) -> None:
    """The same addresses again: the kernel announces them anew."""
    for address in kernel_addresses(interface):
        subprocess.run(["ip", "addr", "del", address[0], "dev", interface], capture_output=True)
        subprocess.run(["ip", "addr", "add", *address, "dev", interface], capture_output=True)


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
    start = time.monotonic()
    cleared = False
    missing = not_enabled(pathspace, areas)
    while missing and time.monotonic() < deadline:
        if not cleared and time.monotonic() - start > (deadline - start) / 2:
            # setting the area again did not help: ospfd's view of the interfaces is stale
            print("boothnet-apply: clearing the OSPF process to re-read its interfaces", file=sys.stderr)
            vtysh(pathspace, "clear ip ospf process")
            cleared = True
        for interface in missing:
            if zebra_lacks_address(pathspace, interface):
                print(f"boothnet-apply: OSPF not enabled on {interface} after reload: zebra missed its address; "
                      "adding it again", file=sys.stderr)
                tell_zebra(interface)
                continue
            print(f"boothnet-apply: OSPF not enabled on {interface} after reload: setting area "
                  f"{areas[interface]} again", file=sys.stderr)
            vtysh(pathspace, "configure terminal", f"interface {interface}", f"no ip ospf area {areas[interface]}",
                  f"ip ospf area {areas[interface]}")
        time.sleep(0.5)
        missing = not_enabled(pathspace, areas)
    if missing:
        lacking = [i for i in missing if zebra_lacks_address(pathspace, i)]
        print(f"boothnet-apply: OSPF not enabled on {', '.join(missing)} although frr.conf names an area there"
              + (f" (zebra does not know the address of {', '.join(lacking)})" if lacking else ""), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
