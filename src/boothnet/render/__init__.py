"""Stage 3, render: validated intent + derived models in, configs per platform out.

`build` derives, renders (`templates`: one Jinja2 template per feature per platform) and lints
(`lint`: vtysh/nft dry runs, vendor checks) into build/<network>/configs. Next: verify.
"""
