#!/usr/bin/python
"""Ansible module: boothnet's post-deploy validation of the running lab, and its report."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_validate
short_description: Validate the running lab against the intent and write the report
description:
  - Runs every test derived from the intent in the running netns lab, as root - the isolation
    matrix (ping and TCP per zone pair and policy rule), DF-ping MTU probes per endpoint link and
    declared path, the VPN checks (tunnel, capture, inner MTU, recovery after outages), and
    iperf3/nuttcp throughput per research subnet (each cluster node alone, then all together) and
    per declared path, judged against bottleneck speed x (MTU-52)/(MTU+38).
  - Writes build/<network>/report/ (report.json, report.md, report.html, PNG plots, the wiring diagram),
    compared with the last run, and keeps the run under build/<network>/runs/<timestamp>/.
  - Fails when the report says FAIL; the failures name their device, link, flow or path.
author: boothnet
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_stage
options:
  throughput:
    description: Run the iperf3/nuttcp tests (skipped ones are reported SKIPPED, never passed).
    type: bool
    default: true
  vpn_resilience:
    description: Run the VPN outage tests (home IKE restart, outside link cut), about 30 s.
    type: bool
    default: true
  wan_sweep:
    description: Run the window sweep of paths that cross a WAN link (one iperf3 run per window).
    type: bool
    default: true
"""

EXAMPLES = r"""
- name: Validate the lab
  boothnet_validate:
    inventory: inventories/sc-booth
    throughput: true
"""

RETURN = r"""
overall:
  description: PASS, FAIL, or PASS with SKIPPED stages named in the headline.
  type: str
  returned: always
headline:
  description: The report's first line.
  type: str
  returned: always
failures:
  description: One line per failure, with the device, link, flow or path it concerns.
  type: list
  elements: str
  returned: always
since_last_run:
  description: What changed since the last kept run ("no change since the run of ..."); empty for the first.
  type: list
  elements: str
  returned: always
report:
  description: Path of report.html.
  type: str
  returned: always
"""

import os
from pathlib import Path

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_stage import STAGE_ARGS, run_stage


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            **STAGE_ARGS,
            "throughput": {"type": "bool", "default": True},
            "vpn_resilience": {"type": "bool", "default": True},
            "wan_sweep": {"type": "bool", "default": True},
        },
        supports_check_mode=False,
    )
    if os.geteuid() != 0:
        module.fail_json(msg="boothnet_validate probes the netns lab: run it as root")
    log: list[str] = []
    p = module.params
    published = run_stage(module, "boothnet.report.publish:validate_and_report", Path(p["inventory"]),
                          Path(p["build_dir"]), lock=(Path(p["inventory"]), Path(p["build_dir"]), True),
                          takes_run=True, throughput=p["throughput"], progress=log.append,
                          vpn_resilience=p["vpn_resilience"], wan_sweep=p["wan_sweep"])
    summary = published.summary
    facts = {
        "overall": summary.overall,
        "headline": summary.headline,
        "failures": [f"{f.section}: {f.subject}: {f.message}" for f in summary.failures],
        "since_last_run": published.comparison.lines() if published.comparison else [],
        "report": str(published.paths.html.resolve()),
        "log": log,
    }
    if summary.overall == "FAIL":
        module.fail_json(msg=summary.headline, **facts)
    module.exit_json(changed=False, **facts)


if __name__ == "__main__":
    main()
