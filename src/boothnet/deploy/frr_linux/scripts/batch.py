"""Run on the device by FrrLinuxDriver: clear folders, write files (0600), run commands;
prints {name: [exit, stdout, stderr]} (one exec channel for many steps)."""
import json
import os
import shutil
import subprocess
import sys

job = json.load(sys.stdin)
os.umask(0o077)
for d in job["clear"]:
    shutil.rmtree(d, ignore_errors=True)
for path, text in job["files"].items():
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
out = {}
for name, cmd in job["commands"]:
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    out[name] = [r.returncode, r.stdout, r.stderr]
print(json.dumps(out))
