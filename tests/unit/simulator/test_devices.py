"""Driver device nodes: which ones, their mode and owner, and that a boot makes them again."""
import os
import stat

import pytest

from ascend_sim import __main__ as cli
from ascend_sim import devices, packages
from ascend_sim.state import load_state, new_state, save_state

A2_NODES = ["/dev/davinci%d" % i for i in range(8)] + ["/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc"]


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_SIM_ROOT", str(tmp_path))
    monkeypatch.delenv("ASCEND_SIM_STATE", raising=False)
    monkeypatch.delenv("ASCEND_SIM_HCCN_CONF", raising=False)
    packages.prepare_node(str(tmp_path))  # HwHiAiUser 1000:1000 and a fresh a2-910b3 state
    return tmp_path


class FakeDev(object):
    """Stands in for mknod/chmod/chown on /dev so the privileged path runs in a unit test."""

    def __init__(self, monkeypatch, existing=()):
        self.nodes = {path: {"mode": stat.S_IFCHR | 0o600, "rdev": None, "owner": (0, 0)} for path in existing}
        self.real = {"exists": os.path.exists, "chmod": os.chmod, "chown": os.chown}
        monkeypatch.setattr(devices, "privileged", lambda: True)
        monkeypatch.setattr(os, "mknod", self.mknod)
        monkeypatch.setattr(os, "chmod", self.chmod)
        monkeypatch.setattr(os, "chown", self.chown)
        monkeypatch.setattr(os.path, "exists", self.exists)

    @staticmethod
    def _dev(path):
        return str(path).startswith("/dev/")

    def exists(self, path):
        return path in self.nodes if self._dev(path) else self.real["exists"](path)

    def mknod(self, path, mode, rdev):
        assert self._dev(path), path
        # what the kernel does with the umask of a shell (022)
        self.nodes[path] = {"mode": mode & ~0o022, "rdev": rdev, "owner": (0, 0)}

    def chmod(self, path, mode, **kw):
        if not self._dev(path):
            return self.real["chmod"](path, mode, **kw)
        self.nodes[path]["mode"] = stat.S_IFMT(self.nodes[path]["mode"]) | mode

    def chown(self, path, uid, gid, **kw):
        if not self._dev(path):
            return self.real["chown"](path, uid, gid, **kw)
        self.nodes[path]["owner"] = (uid, gid)


def test_node_list_has_one_davinci_per_chip_and_the_shared_nodes():
    nodes = devices.node_list(new_state("a2-910b3"))
    assert [path for path, _major, _minor in nodes] == A2_NODES
    assert nodes[3] == ("/dev/davinci3", 236, 3)
    assert nodes[-1] == ("/dev/hisi_hdc", 239, 0)
    a3 = [path for path, _major, _minor in devices.node_list(new_state("a3-9392"))]
    assert len(a3) == 16 + 3 and "/dev/davinci15" in a3


def test_nothing_is_made_when_rerooted(root):
    made, skipped = devices.make_nodes(new_state("a2-910b3"))
    assert made == [] and skipped == A2_NODES
    assert not (root / "dev").exists()


def test_nodes_are_char_devices_0660_of_the_run_user_despite_the_umask(root, monkeypatch):
    fake = FakeDev(monkeypatch)
    made, skipped = devices.make_nodes(new_state("a2-910b3"))
    assert made == A2_NODES and skipped == []
    node = fake.nodes["/dev/davinci5"]
    assert stat.S_ISCHR(node["mode"]) and stat.S_IMODE(node["mode"]) == 0o660
    assert node["rdev"] == os.makedev(236, 5)
    assert node["owner"] == (1000, 1000)
    assert stat.S_IMODE(fake.nodes["/dev/davinci_manager"]["mode"]) == 0o660


def test_existing_nodes_are_repaired_not_recreated(root, monkeypatch):
    fake = FakeDev(monkeypatch, existing=["/dev/davinci0"])
    devices.make_nodes(new_state("a2-910b3"))
    assert fake.nodes["/dev/davinci0"]["rdev"] is None  # not made again
    assert stat.S_IMODE(fake.nodes["/dev/davinci0"]["mode"]) == 0o660
    assert fake.nodes["/dev/davinci0"]["owner"] == (1000, 1000)


def test_owner_follows_the_install_info_user(root, monkeypatch):
    with open(str(root / "etc/passwd"), "a") as handle:
        handle.write("npuops:x:1200:1300::/home/npuops:/bin/bash\n")
    with open(str(root / "etc/group"), "a") as handle:
        handle.write("npuops:x:1300:\n")
    (root / "etc/ascend_install.info").write_text("UserName=npuops\nUserGroup=npuops\n")
    assert devices.run_user() == ("npuops", "npuops")
    fake = FakeDev(monkeypatch)
    devices.make_nodes(new_state("a2-910b3"))
    assert fake.nodes["/dev/davinci1"]["owner"] == (1200, 1300)


def write_driver(root, version):
    path = root / "usr/local/Ascend/driver/version.info"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("Version=%s\n" % version)


def test_boot_makes_the_nodes_again_when_a_driver_runs(root, monkeypatch, capsys):
    fake = FakeDev(monkeypatch)
    write_driver(root, "25.5.0")
    assert cli.main(["boot"]) == 0
    assert capsys.readouterr().out == "boot: driver 25.5.0, firmware none\n"
    assert sorted(fake.nodes) == sorted(A2_NODES)
    assert all(stat.S_IMODE(node["mode"]) == 0o660 for node in fake.nodes.values())


def test_boot_without_a_driver_makes_no_nodes(root, monkeypatch):
    fake = FakeDev(monkeypatch)
    assert cli.main(["boot"]) == 0
    assert fake.nodes == {}
    assert load_state(str(root / "etc/ascend-sim/state.json"))["driver"]["running"] is None


def test_boot_reports_nodes_it_could_not_make(root, monkeypatch, capsys):
    FakeDev(monkeypatch)

    def refuse(path, mode, rdev):
        raise OSError(1, "Operation not permitted")
    monkeypatch.setattr(os, "mknod", refuse)
    write_driver(root, "25.5.0")
    assert cli.main(["boot"]) == 1
    assert "device nodes not created: /dev/davinci0 (Operation not permitted)" in capsys.readouterr().err


def test_boot_unprivileged_leaves_dev_alone(root):
    write_driver(root, "25.5.0")
    state_file = str(root / "etc/ascend-sim/state.json")
    save_state(load_state(state_file), state_file)
    assert cli.main(["boot"]) == 0
    assert not (root / "dev").exists()
