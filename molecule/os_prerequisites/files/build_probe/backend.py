"""A PEP 517 build backend for the build probe: metadata without building (so pip's dry run
needs no tool chain), and a wheel whose only payload is a program make compiles."""
import base64
import hashlib
import os
import subprocess
import zipfile

NAME, VERSION = 'ascend_build_probe', '1.0'
DIST_INFO = '%s-%s.dist-info' % (NAME, VERSION)
METADATA = 'Metadata-Version: 2.1\nName: ascend-build-probe\nVersion: %s\n' % VERSION
WHEEL = 'Wheel-Version: 1.0\nGenerator: build-probe\nRoot-Is-Purelib: false\nTag: py3-none-any\n'


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    os.makedirs(os.path.join(metadata_directory, DIST_INFO))
    with open(os.path.join(metadata_directory, DIST_INFO, 'METADATA'), 'w') as handle:
        handle.write(METADATA)
    return DIST_INFO


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()
    return '%s,sha256=%s,%d\n' % (name, digest, len(data))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.check_call(['make', '-C', here, 'probe'])
    with open(os.path.join(here, 'probe'), 'rb') as handle:
        program = handle.read()
    files = [('%s/probe' % NAME, program), ('%s/METADATA' % DIST_INFO, METADATA.encode()),
             ('%s/WHEEL' % DIST_INFO, WHEEL.encode())]
    record = ''.join(_record_line(name, data) for name, data in files) + '%s/RECORD,,\n' % DIST_INFO
    wheel = '%s-%s-py3-none-any.whl' % (NAME, VERSION)
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), 'w') as archive:
        for name, data in files + [('%s/RECORD' % DIST_INFO, record.encode())]:
            entry = zipfile.ZipInfo(name)
            entry.external_attr = (0o755 if name.endswith('/probe') else 0o644) << 16
            archive.writestr(entry, data)
    return wheel
