"""Stage 4, verify: rendered configs in, findings out, before anything is deployed.

`stage` runs the offline lint and every Batfish check (`batfish/`: the service, the Batfish
view of the intent, questions and checks); `acl_review` says what an intent change newly
permits or denies. Next: deploy.
"""
