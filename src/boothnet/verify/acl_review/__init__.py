"""ACL review for security staff: what an intent change newly permits or denies, before deployment.

`base` takes the intent at a git ref, `offline` compares the derived ACLs of two intents with
boothnet's own evaluator, `report` applies the CI gate and writes acl_review.{json,md},
`stage` runs it all (Batfish's differential questions when a service answers).
"""

from boothnet.verify.acl_review.model import DENIED, PERMITTED, AclFinding, ReviewError

__all__ = ["DENIED", "PERMITTED", "AclFinding", "ReviewError"]
