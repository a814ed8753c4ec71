"""The collection's ansible.cfg, which AWX job templates and every documented command inherit."""
import configparser
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def config():
    parser = configparser.ConfigParser()
    parser.read(REPO / 'ansible.cfg')
    return parser


def test_ssh_host_keys_are_checked():
    # Ansible's own default is to check; the file says so explicitly, so a copy made for a site
    # keeps it.
    assert config().getboolean('defaults', 'host_key_checking') is True


def test_the_sandbox_needs_no_ssh():
    # Why checking host keys costs the sandbox nothing: its nodes are reached through podman.
    connection = (REPO / 'inventories/sandbox/group_vars/ascend_nodes/connection.yml').read_text()
    assert 'ansible_connection: containers.podman.podman' in connection
