"""Before a floor validation: every host validate runs commands on is reached once, over its own
connection, and asked which of the tools validate uses it lacks. A host that cannot be reached,
or lacks a tool, makes the rows that need it ERROR, naming the host and why; the others run."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from boothnet.progress import Progress
from boothnet.status import Status
from boothnet.validate.access import TOOLS, Access, missing_line
from boothnet.validate.results import Stage

WORKERS = 16


def ask_tools(access: Access, host: str) -> tuple[str | None, set[str]]:
    """(why ``host`` cannot be reached, or None; the tools it lacks)."""
    script = "for t in " + " ".join(TOOLS) + "; do command -v $t >/dev/null 2>&1 || echo $t; done"
    answer = access.runner(access.node(host), ["sh", "-c", script], 30)
    if answer.returncode != 0:
        return (answer.output.strip() or f"exit {answer.returncode}").splitlines()[-1], set()
    return None, {line.strip() for line in answer.stdout.splitlines() if line.strip() in TOOLS}


def reach_stage(hosts: list[str], access: Access, progress: Progress) -> Stage:
    """Every host asked at once; what it answered is kept on ``access`` for the stages after."""
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        answers = dict(zip(hosts, pool.map(lambda h: ask_tools(access, h), hosts), strict=True))
    problems = []
    for host, (unreachable, missing) in sorted(answers.items()):
        if unreachable:
            access.unreachable[host] = unreachable
            problems.append(f"{host}: {unreachable}")
        elif missing:
            access.missing[host] = missing
            problems.append(missing_line(host, missing))
    progress(f"[reach] {len(hosts) - len(access.unreachable)} of {len(hosts)} hosts answered over their connection"
             + "".join(f"; {p}" for p in problems))
    return Stage(name="reach", status=Status.ERROR if problems else Status.PASS, reason="; ".join(problems) or None,
                 note=f"{len(hosts)} hosts, each once over its own connection",
                 duration_s=round(time.monotonic() - started, 1))
