# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The content of a collection's Galaxy artifact, to tell a rebuild of the same sources from a
new artifact.

``ansible-galaxy collection build`` stamps the tar members and the gzip header with the time of
the build, so two builds of the same sources differ byte for byte. What they share is the
content: ``FILES.json`` lists every file of the collection with its sha256, and the
``collection_info`` of ``MANIFEST.json`` is galaxy.yml's metadata. The rest of ``MANIFEST.json``
is the digest of ``FILES.json`` and format numbers, nothing time-dependent.

Pure functions: nothing here imports Ansible.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import os
import tarfile

ARTIFACT_SUFFIX = '.tar.gz'


class ArtifactError(Exception):
    """A file that is not a readable collection artifact."""


def _member(archive, name):
    for candidate in (name, './' + name):
        try:
            info = archive.getmember(candidate)
        except KeyError:
            continue
        handle = archive.extractfile(info) if info.isfile() else None
        if handle is None:
            break
        try:
            return handle.read()
        finally:
            handle.close()
    raise ArtifactError('%s has no %s' % (archive.name, name))


def artifact_identity(tar_path):
    """What a build's artifact is made of: ``{'files_sha256': sha256 of the FILES.json member,
    'collection_info': the collection_info dict of MANIFEST.json}``.

    Raises :class:`ArtifactError` when ``tar_path`` is not a gzip'ed tar with both members.
    """
    try:
        with tarfile.open(tar_path, 'r:gz') as archive:
            files_json = _member(archive, 'FILES.json')
            manifest_json = _member(archive, 'MANIFEST.json')
    except (tarfile.TarError, EOFError, IOError, OSError, ValueError) as exc:
        raise ArtifactError('%s is not a readable collection artifact: %s' % (tar_path, exc))
    try:
        manifest = json.loads(manifest_json.decode('utf-8'))
    except ValueError as exc:
        raise ArtifactError('%s: MANIFEST.json is not JSON: %s' % (tar_path, exc))
    info = manifest.get('collection_info') if isinstance(manifest, dict) else None
    if not isinstance(info, dict):
        raise ArtifactError('%s: MANIFEST.json has no collection_info' % tar_path)
    return {'files_sha256': hashlib.sha256(files_json).hexdigest(), 'collection_info': info}


def same_artifact(a, b):
    """Whether two identities (:func:`artifact_identity`) describe the same content; an unknown
    identity (None) is never the same as anything."""
    if a is None or b is None:
        return False
    return a == b


def galaxy_build_argv(ansible_galaxy, src, output_path):
    return [ansible_galaxy, 'collection', 'build', src, '--output-path', output_path]


def built_artifact(directory):
    """The one ``*.tar.gz`` a build wrote into the (otherwise empty) ``directory``, or None."""
    names = sorted(n for n in os.listdir(directory) if n.endswith(ARTIFACT_SUFFIX))
    if len(names) != 1:
        return None
    return os.path.join(directory, names[0])


def ansible_galaxy_beside(python_executable):
    """The ``ansible-galaxy`` next to a Python interpreter (the one of its virtualenv)."""
    if not python_executable:
        return None
    return os.path.join(os.path.dirname(python_executable), 'ansible-galaxy')
