"""Where a permitted flow's reply dies: the offline evaluator walking the reverse path.

A permit row passes only when the reply comes back. When it does not, this says which device's
which ACL drops the reply, read from the ACLs the network runs (the lab's models: each stand-in's
entries as its IOS or EOS config reads; on the floor, the intent's): the responder's gateway's
inbound ACL, the requester's secured network's outbound ACL, the uplink's for a reply from
outside. An ACL of a device that tracks connections (``stateful_acls``) lets every reply of a flow
it let through pass; a stateless one (IOS, EOS, and the lab's stand-ins for them) must permit the
reply by a line of its own: an `established` TCP segment, the service's UDP source port, an echo
reply.
"""

from __future__ import annotations

from ipaddress import IPv4Address, IPv6Address, ip_address

from boothnet.derive import DeviceModel
from boothnet.derive.base import quirks
from boothnet.derive.model import AclEntry
from boothnet.derive.policy import reply_line
from boothnet.family import Family
from boothnet.intent import Network
from boothnet.validate.plan import Flow
from boothnet.verify.flows import AclView, Probe, reply_entry
from boothnet.verify.policy import PolicyPaths


class ReplyPaths:
    """The reverse path of each flow, in the ACLs of ``models`` (the lab's or the intent's)."""

    def __init__(self, net: Network, models: dict[str, DeviceModel]):
        self.net, self.models = net, models
        self._paths: dict[int, PolicyPaths] = {}

    def _of(self, family: int) -> PolicyPaths:
        if family not in self._paths:
            self._paths[family] = PolicyPaths(self.net, self.models, limit=1, family=Family(family))
        return self._paths[family]

    def _line(self, view: AclView, entry: AclEntry | None) -> str:
        """The line as the device prints it (a stand-in's: its IOS or EOS line, as read)."""
        if entry is None:
            return "(no line matches: the implicit deny at the end of the ACL)"
        device = self.net.devices.get(view.device)
        if device is not None and device.platform != "frr_linux":
            q = quirks(device.platform)
            return q.acl_lines(entry, view.acl.family)[0]
        return view.lines[view.acl.entries.index(entry)][0]

    def dies_at(self, flow: Flow, port: int | None) -> str | None:
        """Where ``flow``'s reply (on ``port``) is dropped, when its request passes every ACL on
        its way and a stateless ACL on the way back drops the reply; None: nothing on the way
        back drops it (or the request dies first: the reply is not what failed)."""
        paths = self._of(flow.family)
        src: IPv4Address | IPv6Address = ip_address(flow.src_address)
        dst: IPv4Address | IPv6Address = ip_address(flow.dst_address)
        request = Probe(src, dst, flow.proto, port)
        if any(view.decide(request, paths.through_tunnel(request))[0] == "deny" for view, _ in paths.on_path(request)):
            return None
        back = Probe(dst, src, flow.proto, port)
        reply = reply_entry(request, paths.through_tunnel(back))
        for view, _ in paths.on_path(back):
            model = self.models.get(view.device)
            if model is None or model.stateful_acls:
                continue  # it tracks the flow: its reply passes
            line = reply_line(view.acl.entries, reply)
            if line is None or line.action == "deny":
                return f"its reply dies at {view.device} ACL {view.acl.name}: '{self._line(view, line)}'"
        return None
