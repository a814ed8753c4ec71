"""Print the Debian archive mirror this host's apt is configured with.

The sandbox image is debootstrapped from the same mirror the host already uses, so air-gapped
sites and this project's CI need no extra configuration. Reads one-line (sources.list) and
deb822 (*.sources) files; skips security and disabled entries.
"""
import glob
import sys

SUITE = sys.argv[1] if len(sys.argv) > 1 else "bookworm"


def entries():
    for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
        try:
            lines = open(path, encoding="utf-8").read().splitlines()
        except OSError:
            continue
        for line in lines:
            words = line.split("#", 1)[0].split()
            if len(words) >= 4 and words[0] == "deb":
                if words[1].startswith("["):
                    while words and not words[1].endswith("]"):
                        words.pop(1)
                    words.pop(1)
                yield words[1], [words[2]], words[3:]
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        try:
            text = open(path, encoding="utf-8").read()
        except OSError:
            continue
        for stanza in text.split("\n\n"):
            fields = {}
            for line in stanza.splitlines():
                if line.startswith("#") or ":" not in line:
                    continue
                key, sep, value = line.partition(":")
                fields[key.strip().lower()] = value.split()
            if "deb" not in fields.get("types", []) or fields.get("enabled", ["yes"])[0] == "no":
                continue
            for uri in fields.get("uris", []):
                yield uri, fields.get("suites", []), fields.get("components", [])


def main():
    for uri, suites, components in entries():
        if SUITE in suites and "main" in components and "security" not in uri:
            print(uri.rstrip("/"))
            return 0
    sys.stderr.write("no apt source with suite %s and component main; set ASCEND_SANDBOX_MIRROR\n" % SUITE)
    return 1


if __name__ == "__main__":
    sys.exit(main())
