#!/usr/bin/python
"""Ansible module: boothnet's post-deploy validation of the running lab, and its report."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_validate
short_description: Validate the running lab against the intent and write the report
description:
  - Runs every test derived from the intent in the running netns lab, as root - the isolation matrix
    (ping and TCP per zone pair and policy rule), DF-ping MTU probes per endpoint link and declared path,
    the VPN checks (tunnel, capture, inner MTU, recovery after outages), and iperf3/nuttcp throughput per
    research subnet and declared path, judged against bottleneck speed x (MTU-52)/(MTU+38).
  - Writes build/<network>/report/ (report.json, .md, .html, plots, the wiring diagram), compared with
    the last run, kept under build/<network>/runs/<timestamp>/. Fails when the report says FAIL; each
    failure names its device, link, flow or path.
author: boothnet maintainers (@boothnet)
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_stage
options:
  throughput: {description: Run iperf3/nuttcp (skipped ones are reported SKIPPED)., type: bool, default: true}
  vpn_resilience: {description: Run the VPN outage tests (about 30 s)., type: bool, default: true}
  wan_sweep: {description: Run the window sweep of paths across a WAN link., type: bool, default: true}
"""

EXAMPLES = r"""
- name: Validate the lab
  boothnet_validate:
    inventory: inventories/sc-booth
"""

RETURN = r"""
overall: {description: "PASS, FAIL, or PASS with SKIPPED stages named in the headline.", type: str, returned: always}
headline: {description: The report's first line., type: str, returned: always}
failures: {description: One line per failure and what it concerns., type: list, elements: str, returned: always}
since_last_run: {description: What changed since the last kept run., type: list, elements: str, returned: always}
report: {description: Path of report.html., type: str, returned: always}
"""

import os
from pathlib import Path

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_stage import STAGE_ARGS, run_stage


def main() -> None:
    flags = ("throughput", "vpn_resilience", "wan_sweep")
    module = AnsibleModule(argument_spec={**STAGE_ARGS, **{f: {"type": "bool", "default": True} for f in flags}})
    if os.geteuid() != 0:
        module.fail_json(msg="boothnet_validate probes the netns lab: run it as root")
    p, log = module.params, []
    inventory, build_dir = Path(p["inventory"]), Path(p["build_dir"])
    published = run_stage(module, "boothnet.report.publish:validate_and_report", inventory,
                          lock=(inventory, build_dir, True), takes_run=True, progress=log.append,
                          **{f: p[f] for f in flags})
    if published.summary.overall == "FAIL":
        module.fail_json(msg=published.summary.headline, log=log, **published.facts())
    module.exit_json(changed=False, log=log, **published.facts())


if __name__ == "__main__":
    main()
