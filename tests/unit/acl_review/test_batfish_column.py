"""The Batfish column of the end-to-end rows: each changed flow's before and after as Batfish
traced them must be the offline walk's, else the row says DISAGREES with Batfish's words (the
live agreement is tests/integration/batfish/test_bf_acl_review_live.py; here the comparison
itself, with Batfish's answers written down)."""

from __future__ import annotations

from boothnet.verify.acl_review.batfish_flows import Asked, apply_answers
from boothnet.verify.batfish.traces import FlowAnswer
from tests.acl_changes import review_change, widen_source


def test_a_flow_batfish_sees_unchanged_is_a_disagreement_naming_what_batfish_said(tmp_path, no_batfish):
    review = review_change(tmp_path, "eos-core", head=widen_source("admins-ssh-to-lab", "zone:production"))
    (change,) = review.flow_changes
    asked = Asked([None], [change], [None])  # one query, its answers below
    apply_answers(asked, [FlowAnswer("deny", "DENIED_IN; denied by es1 USERS_IN")],
                  [FlowAnswer("permit", "ACCEPTED")])
    assert change.batfish == "agrees: deny -> permit"
    apply_answers(asked, [FlowAnswer("deny", "DENIED_IN; denied by es1 USERS_IN")],
                  [FlowAnswer("deny", "DENIED_IN; denied by es1 USERS_IN")])
    assert change.batfish == ("DISAGREES: Batfish: deny (DENIED_IN; denied by es1 USERS_IN) -> "
                              "deny (DENIED_IN; denied by es1 USERS_IN)")
    # answers missing (a service that answered no trace question): said, never taken for agreement
    apply_answers(asked, [], [])
    assert change.batfish == "not answered by Batfish"
