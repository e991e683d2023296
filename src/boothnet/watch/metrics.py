"""The watch's figures in the Prometheus text format (prometheus_client), for teams that scrape
it into Prometheus and Grafana: each cable's rate, utilisation, counters and link state, each WAN
path's RTT and loss, the round and the open alarms."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from boothnet.watch.history import cable_series, rtt_series
from boothnet.watch.store import Store


class WatchCollector:
    def __init__(self, store: Store, network: str) -> None:
        self.store, self.network = store, network

    def collect(self) -> Iterator[Metric]:
        net = self.network
        rounds = self.store.rounds(1)
        round_number = GaugeMetricFamily("boothnet_watch_round", "The last watch round written", labels=["network"])
        duration = GaugeMetricFamily("boothnet_watch_round_duration_seconds", "How long the last round took",
                                     labels=["network"])
        alarms = GaugeMetricFamily("boothnet_watch_alarms_open", "Checks failing now", labels=["network"])
        if rounds:
            number, started, finished = rounds[-1][:3]
            round_number.add_metric([net], number)
            duration.add_metric([net], finished - started)
            alarms.add_metric([net], len(self.store.failing(number)))
        yield from (round_number, duration, alarms)
        labels = ["network", "cable", "label", "direction", "from", "to"]
        rate = GaugeMetricFamily("boothnet_cable_bits_per_second",
                                 "What the cable carried each way since the previous round", labels=labels)
        use = GaugeMetricFamily("boothnet_cable_utilisation_ratio", "The rate against the cable's speed",
                                labels=labels)
        octets = CounterMetricFamily("boothnet_cable_octets", "Octets the cable carried each way (its a end's "
                                     "counters)", labels=labels)
        speed = GaugeMetricFamily("boothnet_cable_speed_bits_per_second", "The cable's declared speed",
                                  labels=["network", "cable", "label"])
        up = GaugeMetricFamily("boothnet_cable_up", "1 when every end's link is up",
                               labels=["network", "cable", "label"])
        errors = CounterMetricFamily("boothnet_cable_errors", "Frame errors at its ends over the rounds kept",
                                     labels=["network", "cable", "label"])
        discards = CounterMetricFamily("boothnet_cable_discards", "Discards at its ends over the rounds kept",
                                       labels=["network", "cable", "label"])
        for s in cable_series(self.store, 1):
            a, b = s.ends
            for direction, (src, dst), value, count in (("a_to_b", (a, b), s.a_to_b[-1], s.octets[0]),
                                                        ("b_to_a", (b, a), s.b_to_a[-1], s.octets[1])):
                names = [net, s.cable, s.text, direction, src, dst]
                if value is not None:
                    rate.add_metric(names, value)
                    use.add_metric(names, value / s.speed_bps)
                if count is not None:
                    octets.add_metric(names, count)
            speed.add_metric([net, s.cable, s.text], s.speed_bps)
            if s.up is not None:
                up.add_metric([net, s.cable, s.text], int(s.up))
            errors.add_metric([net, s.cable, s.text], s.errors)
            discards.add_metric([net, s.cable, s.text], s.discards)
        yield from (rate, use, octets, speed, up, errors, discards)
        rtt = GaugeMetricFamily("boothnet_wan_rtt_milliseconds", "Mean RTT of the last round's pings",
                                labels=["network", "path"])
        loss = GaugeMetricFamily("boothnet_wan_loss_ratio", "Pings lost in the last round", labels=["network", "path"])
        for path, points in rtt_series(self.store, 1).items():
            last = points[-1][1]
            if last.avg_ms is not None:
                rtt.add_metric([net, path], last.avg_ms)
            if last.loss_pct is not None:
                loss.add_metric([net, path], last.loss_pct / 100)
        yield from (rtt, loss)


def exposition(store: Store, network: str) -> bytes:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(WatchCollector(store, network))
    return generate_latest(registry)
