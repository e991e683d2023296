#!/bin/sh
# boothnet: apply the frr_linux parts in folder $1 ($2 = strict | best-effort)
dir=$1; mode=$2; rc=0
step() { if ! "$@"; then rc=1; echo "boothnet-apply: failed: $*" >&2;
         [ "$mode" = strict ] && exit 1; fi; }
if [ -f "$dir/interfaces.ip" ]; then
  scope=$(cat "$dir/scope" 2>/dev/null)
  step @PYTHON@ @SD@/bin/ifstate.py apply "$dir/interfaces.ip" --scope "$scope"
fi
[ -f "$dir/nftables.nft" ] && step nft -f "$dir/nftables.nft"
if [ -f "$dir/frr.conf" ]; then
  step @PYTHON@ @FRR_RELOAD@ --reload --stdout --log-level error @PATHSPACE_ARG@ "$dir/frr.conf"
  step @PYTHON@ @SD@/bin/ospf_up.py "$dir/frr.conf" @PATHSPACE@
  step install -m 640 -o frr -g frr "$dir/frr.conf" @FRR_CONF@
fi
if [ -f "$dir/swanctl.conf" ]; then
  step install -D -m 600 "$dir/swanctl.conf" @SWANCTL_CONF@
  step env @SWAN_ENV@ swanctl --load-all --noprompt --file @SWANCTL_CONF@ @SWAN_URI@
fi
exit $rc
