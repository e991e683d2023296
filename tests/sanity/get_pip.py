"""Stands in for the get-pip bootstrap script ansible-test downloads from ci-files.testing.ansible.com,
a host these machines cannot reach (`make sanity` puts it where ansible-test looks first): pip from
the interpreter's own wheel (ensurepip), then the pip version ansible-test asks for, from the
package index as this machine's pip configuration reaches it. get-pip's own options say which of
setuptools and wheel to leave out."""

import subprocess
import sys

GET_PIP_OPTIONS = {"--no-setuptools": "setuptools", "--no-wheel": "wheel"}

# a process of its own: ensurepip points PIP_CONFIG_FILE at /dev/null and leaves it so
subprocess.check_call([sys.executable, "-m", "ensurepip"])
pip = [sys.executable, "-m", "pip"]
subprocess.check_call([*pip, "install", *(a for a in sys.argv[1:] if a not in GET_PIP_OPTIONS)])
left_out = [GET_PIP_OPTIONS[a] for a in sys.argv[1:] if a in GET_PIP_OPTIONS]
if left_out:  # ensurepip of Python 3.11 brings setuptools
    subprocess.call([*pip, "uninstall", "-q", "-y", *left_out])
