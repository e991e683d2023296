"""``python -m boothnet.lab up|down|status --spec <spec.json> --state-dir DIR``"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from boothnet.lab.kernel import detect_vlan_mode
from boothnet.lab.runner import lab_down, lab_health, lab_up
from boothnet.lab.specio import load_spec
from boothnet.lab.state import read_state


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m boothnet.lab", description=__doc__)
    ap.add_argument("action", choices=["up", "down", "status", "detect"])
    ap.add_argument("--spec", type=Path, help="LabSpec JSON (up; down takes its network)")
    ap.add_argument("--network", help="network name (down without --spec)")
    ap.add_argument("--state-dir", type=Path, help="runtime folder, e.g. build/<network>/lab")
    args = ap.parse_args(argv)

    def progress(msg: str) -> None:
        print(msg, flush=True)  # flushed: a parent reading us line by line sees each step

    if args.action == "detect":
        print(detect_vlan_mode())
        return 0
    if args.state_dir is None:
        ap.error("--state-dir is required")
    try:
        if args.action == "up":
            if args.spec is None:
                ap.error("up needs --spec")
            result = lab_up(load_spec(args.spec), args.state_dir, progress)
            print(json.dumps({"network": result.network, "status": result.status, "changed": result.changed}))
        elif args.action == "down":
            network = args.network or (load_spec(args.spec).network if args.spec else None)
            recorded = read_state(args.state_dir)
            network = network or (recorded.network if recorded else None)
            if not network:
                ap.error("down needs --network, --spec or a state.json in --state-dir")
            result = lab_down(network, args.state_dir, progress)
            removed = {k: len(v) for k, v in (result.removed or {}).items()}
            print(json.dumps({"network": network, "status": "down", "removed": removed}))
        else:
            st = read_state(args.state_dir)
            if not st:
                print("no lab state")
                return 1
            problems = lab_health(st) if st.up else []
            print(json.dumps({"network": st.network, "status": st.status, "problems": problems}))
            return 1 if problems else 0
    except (ValueError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
