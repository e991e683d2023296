"""`boothnet acl-review`: what an intent change newly permits or denies, for security staff."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from boothnet.cli.common import inventory_path, progress
from boothnet.status import Status

EPILOG = """exit status:
  0  nothing newly permitted into the secured network or between research and production
  3  something is newly permitted into zone `secure`, or research <-> production:
     security staff must sign it off (CI gates on this)
  1  the review could not run (no git history, unknown ref, intent missing or invalid at the ref)
  2  the working-tree intent is invalid
  4  --require-batfish and no Batfish service answers

Without BATFISH_HOST the review is an offline evaluation with boothnet's own ACL evaluator;
the report then says Batfish SKIPPED (it did not run; that is not a pass).
Report: build/<network>/review/acl_review.md and acl_review.json."""


def cmd_acl_review(args: argparse.Namespace) -> int:
    from boothnet.verify.acl_review import ReviewError
    from boothnet.verify.acl_review.stage import run_acl_review
    from boothnet.verify.batfish.service import BatfishUnavailable

    try:
        review = run_acl_review(
            inventory_path(args), Path(args.build_dir), args.base, args.head, args.batfish_host, args.require_batfish,
            progress=progress,
        )
    except ReviewError as exc:
        print(f"acl-review: {exc}", file=sys.stderr)
        return 1
    except BatfishUnavailable as exc:
        print(f"acl-review: FAIL: {exc}", file=sys.stderr)
        return 4
    gate = Status.of(not review.exit_code)
    print(f"acl-review {review.network}: {review.base} -> {review.head} ({review.method}; Batfish: "
          f"{review.batfish.partition(':')[0] if review.batfish.startswith('SKIPPED') else review.batfish})")
    print(f"  end to end: {len(review.flows_permitted)} flow(s) newly permitted ({len(review.gated)} need security "
          f"sign-off), {len(review.flows_denied)} newly denied, "
          f"{sum(len(d.flows) for d in review.depth if d.lost)} still denied by one ACL fewer (defence in depth)")
    print(f"  ACL by ACL: {len(review.permitted)} newly permitted, {len(review.denied)} newly denied")
    if review.replies_die:
        print(f"  STATE MODEL: head permits {len(review.replies_die)} flow(s) whose replies a stateless ACL drops: "
              f"{review.replies_die[0]}")
    if review.disagree or review.disagreements:
        print(f"  Batfish and the offline evaluator disagree on {len(review.disagree) + len(review.disagreements)} "
              "change(s): see the report")
    for f in review.gated[:10]:
        print(f"  SIGN-OFF {f.src_zone} {f.src_vlan or 'outside'} -> {f.dst_zone} {f.dst_vlan or 'outside'}: "
              f"{f.flow}: {f.gate} (Batfish: {f.batfish})")
    if len(review.gated) > 10:
        print(f"  ... and {len(review.gated) - 10} more in the report")
    print(f"gate: {gate} (exit {review.exit_code}); report: {review.files['md']}")
    return review.exit_code


def register(sub, add) -> None:  # argparse internals
    review = add("acl-review", cmd_acl_review,
                 "ACL review for security staff: flows an intent change newly permits or denies")
    review.epilog = EPILOG
    review.formatter_class = argparse.RawDescriptionHelpFormatter
    review.add_argument("--base", default="HEAD", help="git ref of the intent to compare against (default HEAD)")
    review.add_argument("--head", help="git ref of the proposed intent (default: the working tree)")
    review.add_argument("--batfish-host", help="Batfish service (default: $BATFISH_HOST)")
    review.add_argument("--require-batfish", action="store_true", help="fail when no Batfish service answers")
