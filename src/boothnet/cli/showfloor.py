"""`boothnet gen-showfloor`: write a synthetic show-floor inventory for scale benchmarks."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from boothnet.tools.showfloor import floor_size, write_showfloor


def cmd_gen_showfloor(args: argparse.Namespace) -> int:
    try:
        size = floor_size(args.devices, args.booths_per_dist, args.hosts_per_vlan)
    except ValueError as exc:  # a size it cannot address: the message says which limit
        print(f"gen-showfloor: -N {args.devices}: {exc}", file=sys.stderr)
        return 2
    name = args.name or f"floor{args.devices}"
    out = Path(args.out or f"build/inventories/{name}")
    files = write_showfloor(out, size, name)
    print(
        f"{name}: {size.devices} devices ({size.booths} booths, {size.distribution} distribution, core, show "
        f"router), {2 * size.booths} VLANs, {size.endpoints} hosts, mgmt {size.mgmt_subnet}; "
        f"{len(files)} files in {out}"
    )
    return 0


def register(sub) -> None:  # argparse internals
    p = sub.add_parser(
        "gen-showfloor",
        help="write a synthetic show-floor inventory of N devices (scale benchmarks)",
        description="Core, distribution switches and exhibitor booths with production and research VLANs "
        "and per-booth policy, as an inventory under build/ (never commit the big ones).",
    )
    p.add_argument("-N", "--devices", type=int, required=True, help="total devices (e.g. 50, 200, 500)")
    p.add_argument("--name", help="network name (default floor<N>)")
    p.add_argument("--out", help="inventory folder (default build/inventories/<name>)")
    p.add_argument("--booths-per-dist", type=int, default=24, help="booths per distribution switch (default 24)")
    p.add_argument("--hosts-per-vlan", type=int, default=2, help="lab hosts per booth VLAN (default 2; 0: none)")
    p.set_defaults(func=cmd_gen_showfloor)
