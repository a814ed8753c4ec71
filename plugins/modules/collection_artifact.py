#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: collection_artifact
short_description: Build a collection's Galaxy artifact, replacing the one in a directory only when its content changed
version_added: "0.1.0"
description:
  - Runs C(ansible-galaxy collection build) on O(src) into a temporary directory and puts the
    artifact it produced (C(<namespace>-<name>-<version>.tar.gz)) into O(dest) only when its content
    differs from the artifact of that name already there. A rebuild of unchanged sources reports no
    change and leaves the file in O(dest) untouched.
  - Two builds of the same sources differ byte for byte (the tar members and the gzip header carry
    the build time), so artifacts are compared by content - the C(FILES.json) member, which lists
    every file with its sha256, and the C(collection_info) of C(MANIFEST.json).
  - Artifacts of other versions of the collection in O(dest) are left alone.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  src:
    description: Collection source directory (with its C(galaxy.yml)).
    type: path
    required: true
  dest:
    description: Directory that receives the artifact; created (mode 0755) when missing.
    type: path
    required: true
  ansible_galaxy:
    description:
      - C(ansible-galaxy) to run. Default - the one next to the Python interpreter running the
        module (its virtualenv), else the one on PATH.
    type: path
notes:
  - Supports check mode - the artifact is built in a temporary directory and compared, nothing is
    moved and O(dest) is not created.
  - The temporary directory is removed in every case.
  - Only content is compared; a change of a file's mode alone (no change of C(FILES.json)) is not
    a new artifact.
seealso:
  - name: ansible-galaxy collection build
    description: Building collection tarballs.
    link: https://docs.ansible.com/ansible/latest/dev_guide/developing_collections_distributing.html
'''

EXAMPLES = r'''
- name: Build the collection artifact into the offline bundle
  ascend.vllm.collection_artifact:
    src: "{{ playbook_dir }}/.."
    dest: /srv/ascend-bundle/collections
  register: artifact

- name: Show it
  ansible.builtin.debug:
    msg: "{{ artifact.namespace }}.{{ artifact.name }} {{ artifact.version }} at {{ artifact.path }}"
'''

RETURN = r'''
path:
  description: The artifact in O(dest) (in check mode - where it would be).
  returned: success
  type: str
  sample: /srv/ascend-bundle/collections/ascend-vllm-0.1.0.tar.gz
namespace:
  description: Namespace of the collection.
  returned: success
  type: str
  sample: ascend
name:
  description: Name of the collection.
  returned: success
  type: str
  sample: vllm
version:
  description: Version of the collection.
  returned: success
  type: str
  sample: 0.1.0
cmd:
  description: The build command, when it failed.
  returned: failure
  type: list
  elements: str
rc:
  description: Exit status of the build, when it failed.
  returned: failure
  type: int
stderr:
  description: What the build wrote on stderr, when it failed.
  returned: failure
  type: str
'''

import os
import shutil
import sys
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.ascend.vllm.plugins.module_utils import collection_artifact as ca
from ansible_collections.ascend.vllm.plugins.module_utils.command import command_string, describe_failure, is_executable_file


def _ansible_galaxy(module):
    wanted = module.params['ansible_galaxy']
    if wanted:
        if not is_executable_file(wanted):
            module.fail_json(msg='collection_artifact: ansible_galaxy %s is not an executable file' % wanted)
        return wanted
    beside = ca.ansible_galaxy_beside(sys.executable)
    if is_executable_file(beside):
        return beside
    found = module.get_bin_path('ansible-galaxy')
    if not found:
        module.fail_json(msg='collection_artifact: no ansible-galaxy next to %s nor on PATH; set ansible_galaxy' % sys.executable)
    return found


def _install(module, built, target, dest):
    if not os.path.isdir(dest):
        try:
            os.makedirs(dest)
            os.chmod(dest, 0o755)
        except OSError as exc:
            module.fail_json(msg='collection_artifact: cannot create %s: %s' % (dest, to_native(exc)))
    # Beside the target, then AnsibleModule.atomic_move: a reader never sees half an artifact.
    try:
        fd, tmp = tempfile.mkstemp(prefix='.%s.' % os.path.basename(target), dir=dest)
        os.close(fd)
        shutil.copyfile(built, tmp)
        os.chmod(tmp, 0o644)
    except (IOError, OSError) as exc:
        module.fail_json(msg='collection_artifact: cannot write %s: %s' % (target, to_native(exc)))
    module.atomic_move(tmp, target)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            src=dict(type='path', required=True),
            dest=dict(type='path', required=True),
            ansible_galaxy=dict(type='path'),
        ),
        supports_check_mode=True,
    )
    src = os.path.abspath(module.params['src'])
    dest = os.path.abspath(module.params['dest'])
    if not os.path.isfile(os.path.join(src, 'galaxy.yml')):
        module.fail_json(msg='collection_artifact: %s is not a collection source directory (no galaxy.yml)' % src)
    if os.path.exists(dest) and not os.path.isdir(dest):
        module.fail_json(msg='collection_artifact: dest %s exists and is not a directory' % dest)
    ansible_galaxy = _ansible_galaxy(module)

    workdir = tempfile.mkdtemp(prefix='ascend-vllm-collection-')
    try:
        output = os.path.join(workdir, 'out')
        os.mkdir(output)
        argv = ca.galaxy_build_argv(ansible_galaxy, src, output)
        rc, out, err = module.run_command(argv, check_rc=False, cwd=workdir,
                                          environ_update={'ANSIBLE_NOCOLOR': '1', 'ANSIBLE_FORCE_COLOR': '0'})
        if rc != 0:
            module.fail_json(msg='collection_artifact: %s' % describe_failure(argv, rc, out, err),
                             cmd=argv, rc=rc, stdout=out, stderr=err)
        built = ca.built_artifact(output)
        if built is None:
            written = ', '.join(sorted(os.listdir(output))) or 'nothing'
            module.fail_json(msg='collection_artifact: `%s` wrote no single %s artifact but %s'
                             % (command_string(argv), ca.ARTIFACT_SUFFIX, written), cmd=argv, stdout=out, stderr=err)
        try:
            identity = ca.artifact_identity(built)
        except ca.ArtifactError as exc:
            module.fail_json(msg='collection_artifact: %s' % to_native(exc), cmd=argv)
        target = os.path.join(dest, os.path.basename(built))
        previous = None
        if os.path.isfile(target):
            try:
                previous = ca.artifact_identity(target)
            except ca.ArtifactError as exc:
                module.warn('collection_artifact: replacing %s' % to_native(exc))
        changed = not ca.same_artifact(previous, identity)
        if changed and not module.check_mode:
            _install(module, built, target, dest)
        info = identity['collection_info']
        module.exit_json(changed=changed, path=target, namespace=info.get('namespace'), name=info.get('name'),
                         version=info.get('version'))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == '__main__':
    main()
