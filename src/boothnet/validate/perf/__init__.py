"""Post-deploy measurement: throughput (iperf3, nuttcp), MTU/reachability probes, limits.

Everything here runs argv on a named node through a ``Runner`` (``ip netns exec`` by
default) so the same code drives lab namespaces and, later, hosts over SSH.
"""
