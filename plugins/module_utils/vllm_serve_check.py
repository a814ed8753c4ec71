# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The ``vllm serve`` command line checked by the engine that will run it, before the service's
files are written (ascend.vllm.vllm_serve_check).

``PROGRAM`` runs under the engine's own interpreter (the service's virtualenv, or ``python3`` in
the serving image): it builds the ``vllm`` command's parser exactly as ``vllm`` does (it calls the
installed ``vllm.entrypoints.cli.main:main``) and stops where ``vllm serve`` would start the
server, after the parse and the checks ``vllm serve`` makes before it loads anything
(``ServeSubcommand.validate`` at v0.23.0). It reads the argv (after ``vllm``) as JSON on stdin and
prints one line ``MARKER + JSON`` last: ``{ok, error, values, version}``, with ``stage: import``
when vLLM or the platform plugin it loads cannot be imported (the engine's environment, not the
command line, is at fault: CANN's libraries without its environment, for one).

The rest decides, on the controller's terms: which variable of the role a refused option comes
from, and what the model's ``config.json`` allows (the attention heads a tensor-parallel size must
divide: vLLM's ``ModelConfig.verify_with_parallel_config``, "Total number of attention heads (N)
must be divisible by tensor parallel size (T).", vllm/config/model.py at v0.23.0).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

MARKER = '@@ascend-vllm-serve-check@@'

PROGRAM = r'''
import argparse, contextlib, io, json, sys

MARKER = %r
KEYS = ("model", "model_tag", "tensor_parallel_size", "data_parallel_size", "pipeline_parallel_size",
        "enable_expert_parallel", "host", "port")


class Parsed(Exception):
    pass


def stop(*args, **kwargs):
    raise Parsed()


seen = {}
original = argparse.ArgumentParser.parse_args


def parse_args(self, args=None, namespace=None):
    parsed = original(self, args, namespace)
    if getattr(parsed, "dispatch_function", None) is not None:
        seen["args"] = parsed
        parsed.dispatch_function = stop
    return parsed


def emit(result):
    sys.stdout.write("\n" + MARKER + json.dumps(result, default=str) + "\n")
    sys.stdout.flush()


argparse.ArgumentParser.parse_args = parse_args
sys.argv = ["vllm"] + json.loads(sys.stdin.read())
errors = io.StringIO()
version = ""
try:
    with contextlib.redirect_stderr(errors):
        import vllm
        version = getattr(vllm, "__version__", "")
        from vllm.entrypoints.cli.main import main
except Exception as exc:
    emit({"ok": False, "stage": "import", "error": "%%s: %%s" %% (type(exc).__name__, exc), "version": version})
    sys.exit(0)
try:
    with contextlib.redirect_stderr(errors):
        main()
    emit({"ok": False, "error": "vllm started no command", "version": version})
except Parsed:
    emit({"ok": True, "error": "", "version": version,
          "values": dict((key, getattr(seen["args"], key, None)) for key in KEYS)})
except ImportError as exc:
    # vLLM loads its platform plugin (vllm-ascend, torch-npu, CANN) while it builds the parser.
    emit({"ok": False, "stage": "import", "error": "%%s: %%s" %% (type(exc).__name__, exc), "version": version})
except SystemExit as exc:
    lines = [line.strip() for line in errors.getvalue().splitlines() if line.strip()]
    emit({"ok": False, "error": lines[-1] if lines else "vllm exited with status %%s" %% exc.code,
          "version": version})
except Exception as exc:
    emit({"ok": False, "error": "%%s: %%s" %% (type(exc).__name__, exc), "version": version})
''' % MARKER


def container_command(engine, image, volumes=None):
    """The interpreter of a serving image, as the service's container runs vLLM
    (vllm_service.container_argv): the driver's read-only mounts, CANN's scripts sourced first
    (the 310P images' entry point does not), no network; PROGRAM's ``-c`` follows. ``engine`` is
    ``podman``/``docker`` (in /usr/bin) or a path."""
    from ansible_collections.ascend.vllm.plugins.module_utils.vllm_service import container_env_script

    program = engine if str(engine).startswith('/') else '/usr/bin/' + str(engine)
    return ([program, 'run', '--rm', '-i', '--network=none'] + ['--volume=' + volume for volume in volumes or []]
            + [image, '/bin/bash', '-c', container_env_script() + 'exec python3 "$@"', 'python3'])


class CheckError(Exception):
    """The engine's answer cannot be read."""


def engine_result(stdout):
    """The ``{ok, error, values, version}`` PROGRAM printed last, or CheckError (also when vLLM
    could not be imported)."""
    for line in reversed((stdout or '').splitlines()):
        if line.startswith(MARKER):
            try:
                result = json.loads(line[len(MARKER):])
            except ValueError as exc:
                raise CheckError('the check printed no readable result: %s' % exc)
            if isinstance(result, dict) and result.get('stage') == 'import':
                raise CheckError('vLLM cannot be imported: %s' % result.get('error'))
            if isinstance(result, dict):
                return result
    raise CheckError('the check printed no result (is vLLM installed in this interpreter?)')


_OPTION = re.compile(r'(?:argument |unrecognized arguments: )(--?[A-Za-z0-9][A-Za-z0-9_-]*)')


def refused_option(error):
    """The option an argparse error names (``--max-model-len``, ``-tp``), without dashes and with
    ``_`` as ``-``; '' when it names none."""
    match = _OPTION.search(error or '')
    return match.group(1).lstrip('-').replace('_', '-') if match else ''


def role_variables(extra_args=None, tensor_parallel_size=None, data_parallel_size=None):
    """Option -> the vllm_service variable that set it, merged as vllm_service.merge_args merges the
    layers: a size the inventory set, then each key of vllm_service_extra_args, then the three the
    role always sets. Options not named are the profile's (``variable_of``)."""
    found = {}
    if tensor_parallel_size is not None:
        found['tensor-parallel-size'] = 'vllm_service_tensor_parallel_size'
    if data_parallel_size is not None:
        found['data-parallel-size'] = 'vllm_service_data_parallel_size'
    for name in extra_args or {}:
        found[str(name).lstrip('-').replace('_', '-')] = 'vllm_service_extra_args'
    found.update({'served-model-name': 'vllm_service_served_model_name', 'host': 'vllm_service_host',
                  'port': 'vllm_service_port'})
    return found


def variable_of(option, variables):
    """The role's variable that set ``option``: ``variables`` maps options to variables (the role's
    own settings and each key of vllm_service_extra_args); everything else is the profile's."""
    aliases = {'tp': 'tensor-parallel-size', 'dp': 'data-parallel-size', 'pp': 'pipeline-parallel-size'}
    option = aliases.get(option, option)
    return (variables or {}).get(option) or 'vllm_service_model_profile'


def _whole(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def parallel_problems(config, values, variables):
    """What the model's ``config.json`` (a dict) says against the parsed sizes (``values`` of
    PROGRAM): ``[{what, variable}]``."""
    problems = []
    heads = _whole((config or {}).get('num_attention_heads'))
    tp = _whole((values or {}).get('tensor_parallel_size')) or 1
    if heads and heads % tp:
        problems.append({
            'what': 'the model has %d attention heads (its config.json), which tensor parallel size %d does not divide: '
                    'vLLM stops with "Total number of attention heads (%d) must be divisible by tensor parallel size '
                    '(%d)."' % (heads, tp, heads, tp),
            'variable': variable_of('tensor-parallel-size', variables)})
    return problems


def message(problems, where):
    """One refusal naming each problem's variable; ``where`` names the engine."""
    return 'vllm_service: %s refuses the command line the service would run: %s. Nothing was changed.' % (
        where, '; '.join('%s (%s)' % (p['what'], p['variable']) for p in problems))
