"""The policy: selectors that resolve, rules that an earlier rule never shadows."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from functools import cache

from boothnet.errors import IntentError
from boothnet.family import FAMILIES, ICMP_TYPES
from boothnet.intent.checks.base import CheckBase
from boothnet.intent.model import (
    ZONES,
    Prefixes,
    Rule,
    Vlan,
)
from boothnet.intent.prefix_index import PrefixIndex


def _selector_covers(prefixes: Callable[[str], Prefixes], wide: str, narrow: str) -> bool:
    if wide == narrow or wide == "any":
        return True
    inner, outer = prefixes(narrow), prefixes(wide)
    if not inner or None in inner:
        return False  # "any", or a selector with no address (zone:outside): only itself covers it
    return all(p is not None and any(o is not None and p.subnet_of(o) for o in outer) for p in inner)


def _rule_covers(prefixes: Callable[[str], Prefixes], earlier: Rule, later: Rule) -> bool:
    """Every packet `later` matches, `earlier` matches first."""
    if earlier.proto != "ip" and earlier.proto != later.proto:
        return False
    if earlier.ports and not (later.ports and set(later.ports) <= set(earlier.ports)):
        return False
    if earlier.icmp_types and not (later.icmp_types and set(later.icmp_types) <= set(earlier.icmp_types)):
        return False
    return _selector_covers(prefixes, earlier.source, later.source) and _selector_covers(
        prefixes, earlier.destination, later.destination)


def first_covers(prefixes: Callable[[str], Prefixes], rules: list[Rule]) -> Iterator[tuple[int, int]]:
    """(rule, the first earlier rule that covers it) for every covered rule. Only the earlier
    rules that can cover it are compared: those with its source, and those whose source holds
    its source's first prefix (any among them)."""
    prefixes = cache(prefixes)
    by_source: PrefixIndex[int] = PrefixIndex()
    by_selector: dict[str, list[int]] = defaultdict(list)
    for index, rule in enumerate(rules):
        inner = prefixes(rule.source)
        candidates = set(by_source.holding(inner[0] if inner else None)) | set(by_selector[rule.source])
        hit = next((i for i in sorted(candidates) if _rule_covers(prefixes, rules[i], rule)), None)
        if hit is not None:
            yield index, hit
        by_selector[rule.source].append(index)
        for prefix in inner:
            by_source.add(prefix, index)


class PolicyChecks(CheckBase):
    """Each rule's selectors, and rules that an earlier rule shadows."""

    # policy -----------------------------------------------------------------------------------------------
    def _check_selector(self, selector: str, file: str, path: str) -> None:
        kind, _, name = selector.partition(":")
        if selector == "any":
            return
        if kind == "zone":
            if name not in ZONES:
                self.add(file, path, selector, "zones: " + ", ".join(ZONES))
        elif kind == "group":
            if name not in self.net.host_groups:
                self.add(
                    file, path, selector, "known host groups: " + (", ".join(sorted(self.net.host_groups)) or "none")
                )
        elif kind == "vlan":
            if name not in self.vlans_by_name:
                self.add(file, path, selector, "a known VLAN name")
        else:
            self.add(file, path, selector, "any, zone:<zone>, group:<host group> or vlan:<vlan name>")

    def policy(self) -> None:
        file = self.src["policy"]
        names: set[str] = set()
        for index, rule in enumerate(self.net.policy.rules):
            path = f"policy.rules[{index}]"
            if rule.name in names:
                self.add(file, f"{path}.name", rule.name, "unique rule names")
            names.add(rule.name)
            self._check_selector(rule.source, file, f"{path}.from")
            self._check_selector(rule.destination, file, f"{path}.to")
            if rule.source == "zone:outside" and rule.action == "permit":
                # the uplink's OUTSIDE_IN admits only return traffic: such a rule would compile to nothing
                self.add(file, f"{path}.from", rule.source, "a source inside the booth for a permit (the booth "
                         "admits nothing new from the show network; zone:outside is a destination, or a deny)")
            self._check_ports(rule, file, path)
            self._check_icmp_types(rule, file, path)
        groups_file = self.src["host_groups"]
        for group, members in sorted(self.net.host_groups.items()):
            for index, member in enumerate(members):
                if member not in self.net.endpoints:
                    self.add(groups_file, f"host_groups.{group}[{index}]", member, "a known endpoint")

    def _check_ports(self, rule: Rule, file: str, path: str) -> None:
        if rule.ports and rule.proto not in ("tcp", "udp"):
            self.add(file, f"{path}.ports", rule.ports, "ports only with proto tcp or udp")
        for index, port in enumerate(rule.ports):
            if not 1 <= port <= 65535:
                self.add(file, f"{path}.ports", port, "ports 1-65535")
            elif port in rule.ports[:index]:  # it would print the same ACL line twice
                self.add(file, f"{path}.ports[{index}]", port, "each port once (it is listed earlier)")

    def _check_icmp_types(self, rule: Rule, file: str, path: str) -> None:
        if rule.icmp_types and rule.proto != "icmp":
            self.add(file, f"{path}.icmp_types", rule.icmp_types, "icmp_types only with proto icmp")
        for index, name in enumerate(rule.icmp_types):
            if name not in ICMP_TYPES:
                self.add(file, f"{path}.icmp_types[{index}]", name, "ICMP types: " + ", ".join(ICMP_TYPES))
            elif name in rule.icmp_types[:index]:  # it would print the same ACL line twice
                self.add(file, f"{path}.icmp_types[{index}]", name, "each type once (it is listed earlier)")
        families = [f for f in FAMILIES if any(v.prefix(f) is not None for v in self.net.vlans)]
        known = [t for t in rule.icmp_types if t in ICMP_TYPES]
        if rule.proto == "icmp" and known and not any(rule.icmp_types_in(f) for f in families):
            self.add(file, f"{path}.icmp_types", rule.icmp_types, "a type of a family the booth's VLANs have (IPv"
                     + " and IPv".join(str(int(f)) for f in families) + "): the rule would match nothing")

    def unbound_address_rules(self) -> None:
        """A rule that admits listed hosts into the secured network by address rests on their
        ports: any host on the VLAN can take a listed host's address unless its port is bound."""
        if any(e.file in (self.src["policy"], self.src["host_groups"]) for e in self.errors):
            return
        for index, rule, hosts in self.net.address_rules():
            unbound = [h for h in hosts if not self.net.port_bound(h)]
            if unbound:
                vlans = sorted({h.vlan for h in unbound})
                self.warnings.append(IntentError(
                    self.src["policy"], f"policy.rules[{index}]", rule.name,
                    f"listed hosts on bound ports: it admits {', '.join(h.name for h in unbound)} into the secured "
                    f"network by address alone, and their ports are not bound (bind_hosts on VLAN "
                    f"{', '.join(vlans)} and each host's mac)"))

    def intra_vlan_rules(self) -> None:
        """A rule whose every source and destination lies in one VLAN decides nothing: hosts of
        one VLAN reach each other on the switch, never through the gateway whose ACL compiles the
        policy (derive drops such lines). A rule partly outside that VLAN stays."""
        if any(e.file in (self.src["policy"], self.src["host_groups"]) or e.path.endswith(".subnet")
               for e in self.errors):
            return  # selectors must resolve first, and each VLAN's subnet be its own
        subnets: PrefixIndex[Vlan] = PrefixIndex()
        for each in self.net.vlans:
            subnets.add(each.subnet, each)
        for index, rule in enumerate(self.net.policy.rules):
            if "zone:outside" in (rule.source, rule.destination):
                continue  # the show network: never inside a booth VLAN
            sources = self.net.selector_prefixes(rule.source)
            destinations = self.net.selector_prefixes(rule.destination)
            if not sources or not destinations or None in sources or None in destinations:
                continue  # `any`, or a selector that stands for no address
            vlan = next(iter(subnets.holding(sources[0])), None)
            if vlan is None or not all(p is not None and p.subnet_of(vlan.subnet) for p in sources + destinations):
                continue
            self.add(self.src["policy"], f"policy.rules[{index}]", rule.name,
                     f"a rule between VLANs: from {rule.source} to {rule.destination} lies wholly inside VLAN "
                     f"{vlan.name} ({vlan.subnet}), and traffic inside one VLAN never crosses its gateway, so no "
                     f"ACL can enforce it: it would decide nothing")

    def shadowed_rules(self) -> None:
        """A rule that an earlier rule fully covers never decides anything: an error when their
        actions differ (the later rule's intent is lost), a warning when it is only redundant."""
        if any(e.file == self.src["policy"] or e.file == self.src["host_groups"] for e in self.errors):
            return  # selectors must resolve first
        rules = self.net.policy.rules
        file = self.src["policy"]
        for later_index, index in first_covers(self.net.selector_prefixes, rules):
            later, earlier = rules[later_index], rules[index]
            path = f"policy.rules[{later_index}]"
            if earlier.action != later.action:
                self.add(file, path, later.name, f"a rule that can apply: rules[{index}] {earlier.name} "
                         f"({earlier.action}) comes first and covers all of it, so its {later.action} "
                         "never applies")
            else:
                self.warnings.append(IntentError(file, path, later.name, f"a rule that adds something: "
                                                 f"rules[{index}] {earlier.name} already {earlier.action}s "
                                                 "all of it (redundant)"))

