#!/bin/sh
# boothnet: restore backup/ after $1 seconds unless confirm_commit takes "pending" first
sd=@SD@
echo $$ > "$sd/pending.pid"
sleep "$1"
mv "$sd/pending" "$sd/reverting" 2>/dev/null || exit 0
sh "$sd/bin/apply.sh" "$sd/backup" best-effort > "$sd/revert.log" 2>&1
echo "reverted at $(date -u +%Y-%m-%dT%H:%M:%SZ): not confirmed within $1 s (apply rc=$?)" \
  > "$sd/reverted"
rm -f "$sd/reverting" "$sd/pending.pid"
