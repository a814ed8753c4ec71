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
    # Why checking host keys costs the sandbox nothing: its nodes are reached through podman, with
    # the pipelined plugin that ansible.cfg and Molecule's base config both find.
    connection = (REPO / 'inventories/sandbox/group_vars/ascend_nodes/connection.yml').read_text()
    assert 'ansible_connection: sandbox_podman' in connection
    plugins = REPO / config().get('defaults', 'connection_plugins')
    assert (plugins / 'sandbox_podman.py').is_file()
    molecule = (REPO / '.config/molecule/config.yml').read_text()
    assert 'ansible_connection: ${ASCEND_MOLECULE_CONNECTION:-sandbox_podman}' in molecule
    assert 'ANSIBLE_CONNECTION_PLUGINS: ${MOLECULE_PROJECT_DIRECTORY}/tests/sandbox/connection_plugins' in molecule
