"""Offline stand-in for the get-pip script that ``ansible-test`` downloads.

ansible-test bootstraps pip in each isolated sanity virtualenv by downloading a get-pip script
from its own CI file host. Air-gapped machines cannot reach it. scripts/sanity.sh places this
file at the cache path ansible-test checks first (~/.ansible/test/cache/get_pip_<version>.py):
it installs pip from the interpreter's bundled ensurepip wheel, then ``pip install``s the
requested packages from whatever index the machine's pip configuration names.

ansible-test runs it with an environment stripped to HOME, LC_ALL and PATH, so a CA bundle set
through PIP_CERT is lost: the system bundle is passed explicitly when it exists.
"""
import os
import subprocess
import sys

# get-pip's own flags; plain pip does not know them.
GET_PIP_ONLY = {"--no-setuptools", "--no-wheel"}
CA_BUNDLES = ("/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt")


def main():
    args = [arg for arg in sys.argv[1:] if arg not in GET_PIP_ONLY]
    subprocess.check_call([sys.executable, "-m", "ensurepip", "--default-pip"])
    cert = [f"--cert={path}" for path in CA_BUNDLES if os.path.exists(path)][:1]
    subprocess.check_call([sys.executable, "-m", "pip", "install", *cert, *args])


if __name__ == "__main__":
    main()
