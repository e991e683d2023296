"""Turn Batfish answer frames plus the intent into located findings.

Every function takes DataFrames exactly as `bf.q.<question>().answer().frame()`
returns them (or `TableAnswer(json).frame()` for recorded answers) and returns a
list of Finding; an empty list means the check passed.
"""

from __future__ import annotations

from boothnet.verify.batfish.checks.configs import (  # noqa: F401
    check_parsing,
    check_undefined_references,
    check_unused_structures,
    file_nodes,
)
from boothnet.verify.batfish.checks.mtu import _clamped, _path_findings, check_mtu, check_path_mtu, effective_mtus, mtus  # noqa: F401
from boothnet.verify.batfish.checks.policy import (  # noqa: F401
    check_acl_lines,
    check_isolation,
    check_policy_decisions,
    check_secure_network,
    permitted_flows,
)
from boothnet.verify.batfish.checks.routing import OSPF_ESTABLISHED, check_ospf, check_routes  # noqa: F401
from boothnet.verify.batfish.checks.vlans import check_vlans, declared_vlans, parse_vlan_list, trunks  # noqa: F401
from boothnet.verify.batfish.checks.vpn import ESTABLISHED, check_ipsec  # noqa: F401

# Check name -> title, in report order.
CHECKS: dict[str, str] = {
    "parsing": "Configs parse cleanly",
    "unused": "No unused structures",
    "references": "No undefined references",
    "vlans": "VLANs on every switch that carries them",
    "mtu": "Same MTU on both ends of every link",
    "isolation": "Research and production isolated",
    "secure_network": "Secured network only from listed clients",
    "policy": "Every ACL decides as the policy",
    "acl_lines": "No unreachable ACL lines",
    "ipsec": "IPsec sessions established",
    "ospf": "OSPF neighbours compatible",
    "path_mtu": "Path MTU of declared flows",
    "routes": "Declared paths routed there and back",
}
