# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The artifacts role's checksum decisions (pure functions).

Where each package's expected SHA256 comes from (a pin in ``ascend_artifacts_sha256`` or the
source's SHA256SUMS), and what a mismatch after a transfer means: a file that arrived different
is removed and the source blamed, but a cached file that the transfer left as it was (the
source holds the same bytes) is kept, and the expectation is what the message questions - a
wrong pin must not cost a good multi-gigabyte package. plugins/filter/artifacts.py exposes
them as ``artifacts_expected`` and ``artifacts_mismatch``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# sha256sum's format: "<64 hex>  <name>" (text mode) or "<64 hex> *<name>" (binary mode).
_SUMS_LINE = re.compile(r'^([0-9a-fA-F]{64}) [ *](.+?)[ \t]*$')


def parse_sums(text):
    """SHA256SUMS text -> {file name: lower-case sha256}; lines of another form are ignored."""
    sums = {}
    for line in (text or '').splitlines():
        match = _SUMS_LINE.match(line.rstrip('\r'))
        if match:
            sums[match.group(2)] = match.group(1).lower()
    return sums


def expected(sums_text, pins=None):
    """``{sha256, origin, listed}``: the SHA256 each package must have (a pin wins over the list),
    where it comes from (``pin`` or ``sums``) and what the SHA256SUMS lists (pinned files too)."""
    listed = parse_sums(sums_text)
    sha256 = dict(listed)
    origin = dict((name, 'sums') for name in listed)
    for name, value in (pins or {}).items():
        sha256[name] = str(value).strip().lower()
        origin[name] = 'pin'
    return {'sha256': sha256, 'origin': origin, 'listed': listed}


def mismatch(name, actual, expectation, where, kept=False):
    """The sentence for ``name`` whose SHA256 after the transfer is ``actual``.

    ``expectation`` - the result of ``expected``; ``where`` - the SHA256SUMS the list came from
    (a URL or a path, for the message); ``kept`` - the transfer did not change the cached file
    (the source holds the same bytes), so it stays and the expectation is what is questioned.
    """
    want = expectation['sha256'].get(name, '(none)')
    pinned = expectation['origin'].get(name) == 'pin'
    listed = expectation['listed'].get(name)
    source = 'pinned in ascend_artifacts_sha256' if pinned else 'listed in %s' % where
    if kept:
        text = ('%s: the source and the cache hold the same file, SHA256 %s, but %s is %s (%s); the cached file '
                'was kept.' % (name, actual, 'the pin' if pinned else 'the list', want, source))
    else:
        text = '%s arrived with SHA256 %s, expected %s (%s); the copy was removed.' % (name, actual, want, source)
    if pinned and listed == actual:
        text += ' It matches %s: the pin ascend_artifacts_sha256[%s] is wrong.' % (where, name)
    elif pinned:
        text += ' The pin ascend_artifacts_sha256[%s] is wrong, or the source file is damaged.' % name
    elif kept:
        text += ' %s does not describe that file: regenerate it, or fetch the vendor package again.' % where
    else:
        text += ' The source file is damaged or its SHA256SUMS is stale: fetch the vendor package again.'
    return text


def curl_argv(curl, settings):
    """curl's command line for a download, without the output file and the URL.

    ``settings``: ``retries``, ``retry_delay``, ``timeout`` (seconds), ``has_user`` (credentials
    go on stdin through ``--config -``, never on the command line), ``use_proxy``,
    ``validate_certs``.
    """
    argv = [curl.strip(), '--fail', '--location', '--silent', '--show-error',
            '--retry', str(settings['retries']), '--retry-delay', str(settings['retry_delay']),
            '--connect-timeout', str(settings['timeout'])]
    if settings.get('has_user'):
        argv += ['--config', '-']
    if not settings.get('use_proxy', True):
        argv += ['--noproxy', '*']
    if not settings.get('validate_certs', True):
        argv.append('--insecure')
    return argv


def to_fetch(stats, want):
    """The files of a stat loop (``{'item': file, 'stat': {exists, checksum}}`` per file, as
    ``stat`` with ``checksum_algorithm: sha256`` returns them) that are missing or whose SHA256 is
    not ``want[file]``: what must be transferred. Order kept."""
    fetch = []
    for result in stats:
        name, stat = result['item'], result.get('stat') or {}
        if not stat.get('exists') or not want.get(name) or stat.get('checksum') != want[name]:
            fetch.append(name)
    return fetch


def staged_problems(cache_dir, stats, want):
    """'<cache_dir>/<file> is missing' or '... has SHA256 <x>, expected <y>' per package to stage.

    ``stats``: ``{'item': file, 'stat': {...}}`` per package (the results of a stat loop);
    ``want``: file -> expected SHA256.
    """
    problems = []
    for result in stats:
        name, stat = result['item'], result.get('stat') or {}
        path = '%s/%s' % (cache_dir.rstrip('/'), name)
        if not stat.get('exists'):
            problems.append('%s is missing' % path)
        else:
            problems.append('%s has SHA256 %s, expected %s' % (path, stat.get('checksum'), want.get(name, '(none)')))
    return problems
