"""Bridge from the intent to Batfish: the Batfish view of the configs and the VerifyIntent.

Batfish reads no nftables or swanctl, so in the Batfish view each frr_linux device is rendered
with the cisco_ios templates from the same derived model (ACLs, routes, OSPF, IKEv1 crypto
map, which Batfish models); Cisco and Arista devices render as themselves, less the lines
Batfish 0.36 cannot read on their platform (platforms/batfish_blind.yml, `blind`), which the
report names with what decides them instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from boothnet.derive import DeriveContext, DeviceModel, derive_network
from boothnet.derive.policy import compiler_of
from boothnet.intent import Network, load_network
from boothnet.intent.model import Endpoint
from boothnet.platforms import platforms
from boothnet.render.build import BuildResult, build_intent
from boothnet.run import Run
from boothnet.trace import trace
from boothnet.verify.batfish import blind
from boothnet.verify.batfish.intent import (
    AcceptedUnused,
    AclBinding,
    IfaceRef,
    L1Link,
    PathFlow,
    PolicyQuery,
    SecureNetwork,
    Service,
    ServiceRule,
    SwitchVlans,
    VerifyIntent,
    Zone,
)
from boothnet.verify.flows import Probe
from boothnet.verify.policy import MAX_FLOWS, PolicyPaths

BATFISH_PLATFORM = "cisco_ios"

# Where the Batfish view differs from what devices get, each with why. Kept to these few: Batfish
# reads the real Cisco and Arista configs; only frr_linux devices are an IOS rendering.
CRYPTO_MAP_UNUSED = ("Batfish 0.36 does not count an interface's `crypto map` line as a use of the "
                     "map; the IPsec session check shows the map in force")
TO_HOME_UNUSED = ("the VPN gateway's filter into the tunnel (nftables on the tunnel device on "
                  "frr_linux); Batfish does not route through IPsec tunnels, so the view has no "
                  "interface to apply it on, and an outbound ACL on the outside interface would "
                  "also filter IKE")


def batfish_context(net: Network) -> DeriveContext:
    ports = {
        name: {p.name: f"GigabitEthernet0/{i}" for i, p in enumerate(device.ports, start=1)}
        for name, device in net.devices.items()
        if device.platform == "frr_linux"
    }
    return DeriveContext(substitute={"frr_linux": BATFISH_PLATFORM}, port_map=ports, batfish_view=True)


def view_differences(net: Network) -> list[str]:
    """Where the Batfish view differs from what the devices get, for the verify report: kept
    to these few, since Batfish reads the real Cisco and Arista configs."""
    linux = sorted(name for name, d in net.devices.items() if d.platform == "frr_linux")
    notes = []
    if linux:
        notes.append(f"{', '.join(linux)} (frr_linux: FRR, nftables, strongSwan, which Batfish does not read) "
                     "reach Batfish as an IOS rendering of the same derived model: interfaces, ACLs, routes, "
                     "OSPF and an IKEv1 crypto map")
    eos = sorted(name for name, d in net.devices.items() if d.platform == "arista_eos")
    if eos:
        notes.append(f"{', '.join(eos)} (EOS): each switchport reaches Batfish with its link's MTU as `mtu`, which the "
                     "device config leaves out: EOS's `mtu` is the routed MTU and a switchport carries frames up to "
                     "9214 bytes, where Batfish takes a switchport's `mtu` (1500 without one) as its frame limit; "
                     "the read-back decides the switchports' frames")
    unparsed = sorted(name for name, d in net.devices.items() if not platforms()[d.platform].batfish_port_security
                      and any(net.port_bound(e) for e in net.endpoints.values() if e.attach.startswith(f"{name}:")))
    if unparsed:
        notes.append(f"{', '.join(unparsed)}: the bound host ports' port security and IP source guard are left out "
                     "of the view: Batfish 0.36 parses none of EOS's lines for them and models no layer-2 port "
                     "security; the config's reading (build) and the lab's stand-in prove them")
    switches = sorted(name for name, d in net.devices.items() if d.platform in ("cisco_ios", "arista_eos"))
    if switches:
        notes.append(f"{', '.join(switches)}: the management user's secret is a stand-in in the view (IOS: its "
                     "variable's name; EOS: a fixed sha512 hash, the form Batfish's EOS grammar takes) where the "
                     "config gets the placeholder the deploy fills: Batfish parses no `${`, and models no logins")
    if net.vpn is not None:
        notes.append("the IKE policy says `hash sha` in the view where devices get SHA-256: Batfish 0.36 parses "
                     "no `hash sha256`, and both peers match alike")
        notes.append(f"the pre-shared key is the word {net.vpn.psk_env} in the view where an IOS device gets the "
                     f"placeholder ${{{net.vpn.psk_env}}} the deploy fills: Batfish parses no `${{`, and only "
                     "compares the peers' keys")
        notes.append(f"unused in the view, accepted: crypto map BOOTHNET_VPN ({CRYPTO_MAP_UNUSED}); "
                     f"ACL TO_HOME ({TO_HOME_UNUSED})")
    return notes


def build_batfish_view(inventory: Path, build_root: Path = Path("build")) -> tuple[BuildResult, Network]:
    net = load_network(inventory)
    return render_batfish_view(net, build_root)[0], net


def render_batfish_view(net: Network, build_root: Path = Path("build"), models: dict[str, DeviceModel] | None = None
                        ) -> tuple[BuildResult, dict[str, DeviceModel]]:
    """The Batfish view of a loaded intent into build/<network>/batfish/configs, with the models
    derived for it (the Batfish context; given, or derived here), which `verify_intent_from_model`
    can reuse. Lines Batfish cannot read on a device's platform are left out (`blind`)."""
    configs, models, _ = render_view(net, build_root, models)
    return configs, models


def render_view(net: Network, build_root: Path = Path("build"), models: dict[str, DeviceModel] | None = None
                ) -> tuple[BuildResult, dict[str, DeviceModel], blind.BlindView]:
    """`render_batfish_view`, and what it left out."""
    trace(f"render Batfish view of {net.name}")
    configs, models = build_intent(net, build_root, ctx=batfish_context(net), subdir="batfish/configs",
                                   run_tools=False, models=models)
    left_out = blind.leave_out_blind(configs.out_dir, {name: m.platform for name, m in models.items()})
    return configs, models, left_out


@dataclass(frozen=True)
class BatfishView:
    configs: BuildResult
    models: dict[str, DeviceModel]
    intent: VerifyIntent
    left_out: blind.BlindView = blind.BlindView()

    def notes(self, net: Network) -> list[str]:
        """Where the view differs from what the devices get, for the report."""
        return view_differences(net) + self.left_out.notes()


def batfish_view(run: Run) -> BatfishView:
    """The run's Batfish view: rendered, and its VerifyIntent made, once per run."""

    def render() -> BatfishView:
        models = run.models("batfish", batfish_context)
        configs, _, left_out = render_view(run.net, run.build_root, models)
        return BatfishView(configs, models, verify_intent_from_model(run.net, models), left_out)

    return run.once("batfish view", render)


def _zones(net: Network, models: dict[str, DeviceModel]) -> tuple[Zone, ...]:
    zones = []
    for zone in ("production", "research", "secure"):
        members = [v for v in net.vlans if v.zone == zone and not v.routers]
        if members:
            entries = tuple(IfaceRef(v.gateway, _svi(models[v.gateway], v.id)) for v in members)
            zones.append(Zone(zone, tuple(str(v.subnet) for v in members), entries))
    return tuple(zones)


def _allowed_services(net: Network) -> tuple[ServiceRule, ...]:
    compiler = compiler_of(net)
    return tuple(
        ServiceRule(str(src or "0.0.0.0/0"), str(dst or "0.0.0.0/0"), Service(rule.proto, tuple(rule.ports)))
        for rule in net.policy.rules
        if rule.action == "permit" and rule.destination != "zone:outside"
        for src in compiler.prefixes(rule.source)
        for dst in compiler.prefixes(rule.destination)
    )


def _vpn(net: Network, models: dict[str, DeviceModel]) -> tuple[SecureNetwork | None, tuple[tuple[str, str], ...],
                                                                  list[PathFlow]]:
    """The secured network, the VPN gateways and the path a booth client takes into it."""
    if not net.vpn:
        return None, (), []
    clients = compiler_of(net).prefixes(net.vpn.clients)
    home = net.selected_vlans(net.vpn.home_subnets)
    services = tuple(Service(r.proto, tuple(r.ports)) for r in net.policy.rules
                     if r.source == net.vpn.clients and r.action == "permit")
    guard = models[net.vpn.home_gateway]
    secure = SecureNetwork(
        tuple(str(v.subnet) for v in home),
        tuple(str(c.network_address) for c in clients if c),
        services,
        net.vpn.home_gateway,
        next((a.name for a in guard.acls if a.direction == "out"), None),
    )
    flows = []
    first_client = net.endpoints[net.host_groups[net.vpn.clients.partition(":")[2]][0]]
    server = next((e for e in net.endpoints.values() if e.vlan in {v.name for v in home}), None)
    if server:
        bgw = models[net.vpn.booth_gateway]
        flows.append(PathFlow(
            "client to secured network", net.vlan_by_name()[first_client.vlan].gateway, str(first_client.address),
            str(server.address), net.mtu_policy.crypto_inner, proto="tcp", dst_port=22,
            mss_clamp_at=(IfaceRef(bgw.name, bgw.vpn.outside_interface),) if bgw.vpn else ()))
    return secure, ((net.vpn.booth_gateway, net.vpn.home_gateway),), flows


def _cluster_flows(net: Network) -> list[PathFlow]:
    """Each cluster node to each file server of its VLAN, at the VLAN's MTU."""
    # endpoints grouped by VLAN once, not scanned again for every VLAN of a show floor
    by_vlan: dict[str, list[Endpoint]] = {}
    for endpoint in net.endpoints.values():
        by_vlan.setdefault(endpoint.vlan, []).append(endpoint)
    flows = []
    for vlan in net.vlans:
        nodes = by_vlan.get(vlan.name, [])
        servers = [e for e in nodes if e.role == "fileserver"]
        for client in (e for e in nodes if e.role == "cluster"):
            for server in servers:
                flows.append(PathFlow(f"{client.name} to {server.name}", vlan.gateway, str(client.address),
                                      str(server.address), net.vlan_mtu(vlan)))
    return flows


def _declared_routes(net: Network) -> list[PathFlow]:
    """Each declared throughput path there and back, from its source's gateway; a path through the
    VPN is left to the IPsec check (Batfish does not route through IPsec tunnels)."""
    vlans = net.vlan_by_name()
    selectors = ({v.name for v in net.selected_vlans(net.vpn.booth_subnets)},
                 {v.name for v in net.selected_vlans(net.vpn.home_subnets)}) if net.vpn else (set(), set())
    flows = []
    for path in net.throughput.paths:
        src, dst = net.endpoints[path.source], net.endpoints[path.destination]
        if src.vlan == dst.vlan or {src.vlan, dst.vlan} & selectors[0] and {src.vlan, dst.vlan} & selectors[1]:
            continue
        for way, a, b in (("there", src, dst), ("back", dst, src)):
            flows.append(PathFlow(f"route {path.name} {way}", vlans[a.vlan].gateway, str(a.address), str(b.address),
                                  0, proto="icmp"))
    return flows


def policy_queries(paths: PolicyPaths) -> tuple[PolicyQuery, ...]:
    """The intent's decision for every representative flow at every ACL on its path, in as few
    searchFilters questions as keep each one a product of sources, destinations and ports that
    the intent decides alike (sc-booth: 6,880 decisions in 184 questions); then each permitted
    flow's reply at every ACL on its way back, which must permit it (reply_queries)."""
    decided: dict[tuple[str, str, str, str, str], dict[tuple[str, int | None], str]] = {}
    for e in paths.expectations():
        key = (e.device, e.acl, service_of(e.flow), e.action, str(e.flow.src))
        decided.setdefault(key, {})[(str(e.flow.dst), e.flow.port)] = e.rule
    return _grouped(decided) + _grouped(reply_decisions(paths), reply=True)


def service_of(flow: Probe) -> str:
    """What a policy question asks for: tcp, udp, icmp (an echo request) or `icmp <type>`."""
    return flow.proto if flow.proto != "icmp" or flow.icmp_type == "echo-request" else f"icmp {flow.icmp_type}"


def reply_decisions(paths: PolicyPaths) -> dict[tuple[str, str, str, str, str], dict[tuple[str, int | None], str]]:
    """Both directions of every permit: a flow the intent permits works only when its replies
    (responder -> requester, from the service's port) pass every ACL they meet on the way back,
    which on a stateless device (IOS, EOS; every device in the Batfish view) must permit them by a
    line of their own; a device that tracks connections (frr_linux, rendered as IOS in the view) is
    not asked. By (device, ACL, proto, "permit", responder): {(requester, port): rule}.
    Flows through the VPN are left out (Batfish does not route IPsec; the tunnel's own checks)."""
    decided: dict[tuple[str, str, str, str, str], dict[tuple[str, int | None], str]] = {}
    for flow in paths.flows:
        met = paths.on_path(flow)
        if not met or paths.through_tunnel(flow) or paths.intent(flow) != "permit":
            continue
        if flow.proto == "icmp" and flow.icmp_type != "echo-request":
            continue  # a typed ICMP flow's reply, if it has one, is not asked (only an echo's is)
        rule = met[0][1].rule
        back = Probe(flow.dst, flow.src, flow.proto, flow.port)
        for view, _ in paths.on_path(back):
            if platforms()[paths.net.devices[view.device].platform].stateful_acls:
                continue  # the device tracks the flow (frr_linux; its Batfish view is stateless IOS)
            key = (view.device, view.acl.name, flow.proto, "permit", str(back.src))
            decided.setdefault(key, {})[(str(back.dst), flow.port)] = rule
    return decided


def _grouped(decided: dict[tuple[str, str, str, str, str], dict[tuple[str, int | None], str]],
             reply: bool = False) -> tuple[PolicyQuery, ...]:
    by_ports: dict[tuple[str, str, str, str, str, tuple[str, ...]], list[int | None]] = {}
    for (device, acl, proto, action, src), flows in decided.items():
        for dsts, ports in _products(flows):
            by_ports.setdefault((device, acl, proto, action, src, dsts), []).extend(ports)
    by_sources: dict[tuple[str, str, str, str, tuple[str, ...], tuple[int, ...]], list[str]] = {}
    for (device, acl, proto, action, src, dsts), ports in by_ports.items():
        by_sources.setdefault((device, acl, proto, action, dsts, tuple(sorted(p for p in ports if p))), []).append(src)
    return tuple(
        PolicyQuery(device, acl, proto, action, tuple(srcs), dsts, ports, rules={
            (src, dst, port): decided[(device, acl, proto, action, src)][(dst, port)]
            for src in srcs for dst in dsts for port in (ports or (None,))}, reply=reply)
        for (device, acl, proto, action, dsts, ports), srcs in by_sources.items())


def _products(flows: dict[tuple[str, int | None], str]) -> list[tuple[tuple[str, ...], list[int | None]]]:
    """(destinations, ports) groups: each port with the destinations it goes to."""
    per_port: dict[int | None, list[str]] = {}
    for dst, port in flows:
        per_port.setdefault(port, []).append(dst)
    grouped: dict[tuple[str, ...], list[int | None]] = {}
    for port, dsts in per_port.items():
        grouped.setdefault(tuple(sorted(dsts)), []).append(port)
    return list(grouped.items())


def verify_intent_from_model(net: Network, models: dict[str, DeviceModel] | None = None) -> VerifyIntent:
    """The VerifyIntent of `net`; `models` must be derived in the Batfish context (as
    `render_batfish_view` returns them), else they are derived here."""
    ctx = batfish_context(net)
    models = models or derive_network(net, ctx)

    def ref(end: str) -> IfaceRef:
        device, port = end.split(":", 1)
        return IfaceRef(device, ctx.port(device, port))

    switches = tuple(
        SwitchVlans(name, tuple(sorted({v for i in m.interfaces if i.kind == "trunk" for v in i.allowed_vlans})))
        for name, m in models.items()
        if any(i.kind == "trunk" for i in m.interfaces)
    )
    secure, vpn_gateways, vpn_flows = _vpn(net, models)
    paths = PolicyPaths(net, models, limit=MAX_FLOWS)
    bindings = tuple(
        AclBinding(IfaceRef(name, acl.interface), acl.name, acl.direction)
        for name, m in models.items()
        for acl in m.acls
    )
    accepted_unused = tuple(
        AcceptedUnused(name, kind, structure, reason)
        for name, m in models.items() if m.vpn is not None
        for kind, structure, reason in (
            ("crypto-map-set", "BOOTHNET_VPN", CRYPTO_MAP_UNUSED),
            ("extended ipv4 access-list", "TO_HOME", TO_HOME_UNUSED),
        )
    ) + blind.accepted_unused(models)
    return VerifyIntent(
        nodes=tuple(sorted(models)),
        switches=switches,
        links=tuple(L1Link(ref(lk.a), ref(lk.b), net.link_mtu(lk)) for lk in net.links),
        zones=_zones(net, models),
        isolated=(("research", "production"), ("production", "research")),
        allowed_services=_allowed_services(net),
        secure=secure,
        vpn_gateways=vpn_gateways,
        flows=tuple(vpn_flows + _cluster_flows(net)),
        routes=tuple(_declared_routes(net)),
        acl_interfaces=bindings,
        accepted_unused=accepted_unused,
        policy=policy_queries(paths),
        extra={"network": net.name, **({"policy_sample": paths.sampled} if paths.sampled else {})},
    )


def vlan_entries(net: Network, models: dict[str, DeviceModel]) -> dict[str, IfaceRef]:
    """Where each host VLAN's traffic enters the routed network in the Batfish view: its
    gateway's SVI (models derived in the Batfish context)."""
    return {v.name: IfaceRef(v.gateway, _svi(models[v.gateway], v.id)) for v in net.vlans if not v.routers}


def vpn_tunnel_ends(net: Network, models: dict[str, DeviceModel]) -> dict[tuple[str, str], tuple[IfaceRef, IfaceRef]]:
    """(source VLAN, destination VLAN) -> (local, remote) crypto interface, for every pair of
    VLANs the VPN joins, both ways (models derived in the Batfish context)."""
    vpn = net.vpn
    if vpn is None or vpn.booth_gateway not in models or vpn.home_gateway not in models:
        return {}
    ends = {}
    for name in (vpn.booth_gateway, vpn.home_gateway):
        model_vpn = models[name].vpn
        if model_vpn is None:
            return {}
        ends[name] = IfaceRef(name, model_vpn.outside_interface)
    booth = [v.name for v in net.selected_vlans(vpn.booth_subnets)]
    home = [v.name for v in net.selected_vlans(vpn.home_subnets)]
    out = {}
    for b in booth:
        for h in home:
            out[(b, h)] = (ends[vpn.booth_gateway], ends[vpn.home_gateway])
            out[(h, b)] = (ends[vpn.home_gateway], ends[vpn.booth_gateway])
    return out


def _svi(model: DeviceModel, vid: int) -> str:
    return next(i.name for i in model.interfaces if i.kind == "svi" and i.vlan == vid)


def load_verify_intent(network: str) -> VerifyIntent:
    """VerifyIntent for inventories/<network>, derived from the validated intent."""
    return verify_intent_from_model(load_network(f"inventories/{network}"))
