"""Look at a node in one go: the files named on the command line and the output of the
commands given with --run, printed as one JSON document (each call through the container
connection costs about a second, so a checkpoint reads everything it asserts at once).

    python3 probe.py [PATH ...] [--run 'SHELL COMMAND' ...]

files: {PATH: {"exists", "type": file|dir|link|char|block|fifo|socket, "mode": "0644",
               "owner", "group", "link": target of a symlink, "rdev": [major, minor] of a device,
               "text": content of a regular file (following links)}}
runs:  [{"cmd", "rc", "stdout", "stderr", "stdout_lines", "stderr_lines"}]   (bash -c, in order)
"""
import argparse
import grp
import json
import os
import pwd
import stat
import subprocess

TYPES = ((stat.S_ISLNK, "link"), (stat.S_ISREG, "file"), (stat.S_ISDIR, "dir"), (stat.S_ISCHR, "char"),
         (stat.S_ISBLK, "block"), (stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"))


def _name(lookup, number):
    try:
        return lookup(number)[0]
    except KeyError:
        return str(number)


def describe(path):
    try:
        info = os.lstat(path)
    except OSError:
        return {"exists": False}
    kind = next(name for test, name in TYPES if test(info.st_mode))
    result = {"exists": True, "type": kind, "mode": "%04o" % stat.S_IMODE(info.st_mode),
              "owner": _name(pwd.getpwuid, info.st_uid), "group": _name(grp.getgrgid, info.st_gid),
              "link": os.readlink(path) if kind == "link" else None, "rdev": None, "text": None}
    if kind in ("char", "block"):
        result["rdev"] = [os.major(info.st_rdev), os.minor(info.st_rdev)]
    if os.path.isfile(path):
        with open(path, encoding="utf-8", errors="replace") as handle:
            result["text"] = handle.read(1 << 20)
    return result


def run(command):
    done = subprocess.run(["bash", "-c", command], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, check=False)
    return {"cmd": command, "rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr,
            "stdout_lines": done.stdout.splitlines(), "stderr_lines": done.stderr.splitlines()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--run", action="append", default=[])
    args = parser.parse_args()
    print(json.dumps({"files": {path: describe(path) for path in args.paths},
                      "runs": [run(command) for command in args.run]}, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
