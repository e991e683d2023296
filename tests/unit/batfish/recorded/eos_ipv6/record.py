"""Record what a live Batfish answers for `configs/` (the probe of every IPv6 line form the
arista_eos templates print): the evidence for src/boothnet/platforms/batfish_blind.yml.

    BATFISH_HOST=localhost .venv/bin/python tests/unit/batfish/recorded/eos_ipv6/record.py

Writes answers/<question>.json (the answer as the service returned it, loadable with
pybatfish's TableAnswer) and answers/index.json (service versions, rows). The live test
tests/integration/batfish/test_bf_blind.py asks the same questions again and compares.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pybatfish.client.session import Session

HERE = Path(__file__).resolve().parent
QUESTIONS = ("fileParseStatus", "parseWarning", "unusedStructures")


def main() -> None:
    host = os.environ.get("BATFISH_HOST", "localhost")
    bf = Session(host=host)
    bf.set_network("boothnet-blind-evidence")
    bf.init_snapshot(str(HERE), name="eos-ipv6-probe", overwrite=True)
    out = HERE / "answers"
    out.mkdir(exist_ok=True)
    index: dict[str, object] = {"versions": bf.get_component_versions(), "snapshot": "eos-ipv6-probe"}
    for name in QUESTIONS:
        answer = getattr(bf.q, name)().answer(snapshot="eos-ipv6-probe")
        (out / f"{name}.json").write_text(json.dumps(answer, indent=1, sort_keys=True) + "\n")
        index[name] = {"rows": len(answer.frame())}
    (out / "index.json").write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
