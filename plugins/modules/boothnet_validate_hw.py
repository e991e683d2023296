"""Validate the booth's own network (the floor) against the intent, and write the report; the
work is done on the controller by the action plugin of the same name."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_validate_hw
short_description: Validate the deployed network (the booth's floor) and write the report
description:
  - "The validate stages of M(boothnet.boothnet.boothnet_validate) on the booth's own network after a
    deploy: endpoints through Ansible's own connection and become plugins with their inventory variables
    (O(hosts)), switches and routers through NAPALM as deploy-hw reaches them (O(devices)): cabling
    (get_lldp_neighbors), endpoints (get_mac_address_table, get_arp_table, the host's own address and
    gateway), the isolation matrix with responders started and stopped by pid on the endpoints, DF-ping
    MTU probes, the VPN from a listed client with the tunnel's state read from the booth gateway,
    iperf3/nuttcp throughput and drift (NAPALM compare). No network namespace is entered; no root needed."
  - "Tests that break a live network on purpose (the VPN outage tests, the cleartext guard's misroute)
    and the capture on the show uplink are NOT RUN, each row saying why. A booth host's interface is never
    changed: the MTU +1 probe runs only where the host's own MTU is above the path's."
  - Runs on the controller (action plugin). Fails when the report says FAIL.
author: boothnet maintainers (@boothnet)
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_stage
options:
  devices:
    description: "One dict per device as roles/deploy/tasks/target.yml says it: its connection, and the
      config_dir and secrets it was deployed with (drift compares against them)."
    type: list
    elements: dict
    required: true
  hosts:
    description: "Host name -> its connection variables (filter boothnet.boothnet.connection_vars): every
      endpoint, and the routers with a shell."
    type: dict
    required: true
  lab_vlan_mode:
    description: "The floor is the lab's stand-ins in this VLAN mode, reached through the management network
      only (their port names are the lab's)."
    type: str
    default: ""
  throughput: {description: Run iperf3/nuttcp., type: bool, default: true}
  wan_sweep: {description: Run the window sweep of paths across a WAN link., type: bool, default: true}
  watch:
    description: "Instead of one validation, watch the network (boothnet watch): light rounds until the task is
      stopped or its C(rounds) are done, each alarm line shown as it comes. Keys: every (seconds), rounds,
      on_alarm (a shell command, the alarm as JSON on stdin), port (127.0.0.1 port of the page and /metrics)."
    type: dict
    required: false
"""

EXAMPLES = r"""
- name: Validate the deployed network
  boothnet_validate_hw:
    inventory: inventories/sc-booth
    devices: "{{ groups['network_devices'] | map('extract', hostvars, 'deploy_target') | list }}"
    hosts: "{{ dict(groups['endpoints'] | zip(groups['endpoints'] | map('extract', hostvars)
                    | map('boothnet.boothnet.connection_vars'))) }}"
"""

RETURN = r"""
overall: {description: "PASS, FAIL, or PASS with SKIPPED stages named in the headline.", type: str, returned: always}
headline: {description: The report's first line., type: str, returned: always}
failures: {description: One line per failure and what it concerns., type: list, elements: str, returned: always}
report: {description: Path of report.html., type: str, returned: always}
"""
